use super::*;

fn load(env: &dyn Env, toml: Option<&str>) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    if let Some(toml) = toml {
        std::fs::write(dir.path().join("harness.toml"), toml).unwrap();
    }
    Config::load(env, dir.path())
}

/// The message of the error loading `toml` under `env` gives.
fn refused(env: &dyn Env, toml: Option<&str>) -> String {
    load(env, toml).unwrap_err().to_string()
}

#[test]
fn defaults_without_a_file() {
    let c = load(&[("X", "")], None).unwrap();
    assert_eq!(c.rounds, 1);
    assert_eq!(c.backend, BackendKind::Auto);
    assert_eq!(c.llm.timeout_secs, 30.0);
    assert_eq!(c.sandbox.timeout_secs, 10.0);
    assert!(c.suite.ends_with("benches-data/example.json"));
    assert!(c.suite_is_default);
}

#[test]
fn a_missing_default_suite_says_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::load(&[("X", "")], dir.path()).unwrap();
    let hint = c.unset_suite_hint(dir.path()).unwrap();
    assert!(hint.contains("no suite is set"), "{hint}");
    assert!(hint.contains("there is none"), "{hint}");
    assert!(hint.contains(&dir.path().display().to_string()), "{hint}");

    std::fs::write(dir.path().join("harness.toml"), "model = \"m\"\n").unwrap();
    let c = Config::load(&[("X", "")], dir.path()).unwrap();
    let hint = c.unset_suite_hint(dir.path()).unwrap();
    assert!(
        hint.contains(&format!("in {}", dir.path().join("harness.toml").display())),
        "{hint}"
    );
    assert!(hint.contains("PROMPTEVAL_SUITE"), "{hint}");

    // A suite that was set is reported as it is: no hint.
    let c = Config::load(&[("PROMPTEVAL_SUITE", "mine.json")], dir.path()).unwrap();
    assert!(!c.suite_is_default);
    assert_eq!(c.unset_suite_hint(dir.path()), None);
    std::fs::write(dir.path().join("harness.toml"), "suite = \"s.json\"\n").unwrap();
    let c = Config::load(&[("X", "")], dir.path()).unwrap();
    assert_eq!(c.unset_suite_hint(dir.path()), None);
}

#[test]
fn env_overrides_file() {
    let c = load(
        &[
            ("PROMPTEVAL_MODEL", "llama3"),
            ("PROMPTEVAL_ROUNDS", "5"),
            ("PROMPTEVAL_MIN_ACCURACY", "70%"),
            ("PROMPTEVAL_BACKEND", "replay"),
            ("OLLAMA_HOST", "example.org"),
        ],
        Some("model = \"x\"\nrounds = 2\n"),
    )
    .unwrap();
    assert_eq!(c.model, "llama3");
    assert_eq!(c.rounds, 5);
    assert_eq!(c.gate.min_accuracy, Some(Percent(70.0)));
    assert_eq!(c.backend, BackendKind::Replay);
    assert_eq!(c.ollama_host, "http://example.org:11434");
}

#[test]
fn samples_and_variants_come_from_the_file_or_the_environment() {
    let c = load(
        &[("PROMPTEVAL_SAMPLES", "10"), ("PROMPTEVAL_VARIANTS", "on")],
        Some("samples = 3\n[variants]\nseed = 7\n[variants.writer]\nmodel = \"w\"\n"),
    )
    .unwrap();
    assert_eq!(c.samples, 10);
    assert!(c.variants.enabled);
    assert_eq!(c.variants.seed, 7);
    assert_eq!(c.variants.writer.model.as_deref(), Some("w"));
    let e = refused(&[("PROMPTEVAL_SAMPLES", "0")], None);
    assert!(
        e.contains("PROMPTEVAL_SAMPLES") && e.contains("at least one"),
        "{e}"
    );
    let e = refused(&[("X", "")], Some("samples = 0\n"));
    assert!(e.contains("`samples`"), "{e}");
    // The repository's harness.toml documents the defaults.
    let shipped = Config::load(&[("X", "")], Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert_eq!(shipped.samples, 1);
    assert_eq!(shipped.variants, VariantsConfig::default());
}

#[test]
fn endpoints_set_the_concurrency_to_their_slots() {
    let c = load(
        &[("X", "")],
        Some("concurrency = 2\n[[endpoints]]\nurl = \"http://a:8000/v1\"\nslots = 8\n[[endpoints]]\nurl = \"http://b:8000/v1\"\n"),
    )
    .unwrap();
    assert_eq!(c.concurrency, 9);
    assert_eq!(c.endpoints.len(), 2);
    let e = refused(
        &[("X", "")],
        Some("[[endpoints]]\nurl = \"http://a\"\nslots = 0\n"),
    );
    assert!(e.contains("slots >= 1"), "{e}");
}

#[test]
fn bad_rounds_names_the_variable() {
    let e = load(&[("PROMPTEVAL_ROUNDS", "abc")], None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("PROMPTEVAL_ROUNDS"), "{msg}");
    assert!(msg.contains("abc"), "{msg}");
}

#[test]
fn unknown_key_names_its_line() {
    let e = load(
        &[("X", "")],
        Some("model = \"m\"\n\n[llm]\ntemprature = 0.5\n"),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("harness.toml:4:"), "{msg}");
    assert!(msg.contains("temprature"), "{msg}");
}

#[test]
fn negative_timeout_is_rejected() {
    let e = load(&[("X", "")], Some("[sandbox]\ntimeout_secs = -1\n")).unwrap_err();
    assert!(e.to_string().contains("sandbox.timeout_secs"), "{e}");
}

#[test]
fn ollama_host_forms() {
    assert_eq!(normalise_ollama_host("localhost"), "http://localhost:11434");
    assert_eq!(
        normalise_ollama_host("0.0.0.0:8080"),
        "http://127.0.0.1:8080"
    );
    assert_eq!(normalise_ollama_host(":9999"), "http://127.0.0.1:9999");
    assert_eq!(
        normalise_ollama_host("https://ollama.example.com/"),
        "https://ollama.example.com:443"
    );
    assert_eq!(
        normalise_ollama_host("http://10.0.0.2:11434"),
        "http://10.0.0.2:11434"
    );
}

#[test]
fn per_prompt_threshold_overrides_global() {
    let c = load(
        &[("X", "")],
        Some("[gate]\nmin_accuracy = 50\n[gate.prompts]\nprompt1 = 90\n"),
    )
    .unwrap();
    assert_eq!(c.threshold_for("prompt1"), Some(90.0));
    assert_eq!(c.threshold_for("prompt2"), Some(50.0));
}

#[test]
fn a_fraction_threshold_is_refused_with_the_percentage_meant() {
    let e = load(&[("X", "")], Some("[gate]\nmin_accuracy = 0.6\n")).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("harness.toml:2:"), "{msg}");
    assert!(msg.contains("Did you mean 60?"), "{msg}");
    let e = load(&[("X", "")], Some("[gate.prompts]\np = 1\n")).unwrap_err();
    assert!(e.to_string().contains("Did you mean 100?"), "{e}");
    let e = load(&[("PROMPTEVAL_MIN_ACCURACY", "0.75")], None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("PROMPTEVAL_MIN_ACCURACY"), "{msg}");
    assert!(msg.contains("Did you mean 75?"), "{msg}");
    // Written with a percent sign, a small threshold is meant.
    let c = load(&[("PROMPTEVAL_MIN_ACCURACY", "0.6%")], None).unwrap();
    assert_eq!(c.threshold_for("p"), Some(0.6));
    let c = load(&[("X", "")], Some("[gate]\nmin_accuracy = \"0.5%\"\n")).unwrap();
    assert_eq!(c.threshold_for("p"), Some(0.5));
    let c = load(&[("X", "")], Some("[gate]\nmin_accuracy = 0\n")).unwrap();
    assert_eq!(c.threshold_for("p"), Some(0.0));
    let e = load(&[("X", "")], Some("[gate]\nmin_accuracy = 150\n")).unwrap_err();
    assert!(e.to_string().contains("between 0 and 100"), "{e}");
}

#[test]
fn a_gate_key_naming_no_prompt_is_an_error_with_the_names() {
    let c = load(
        &[("X", "")],
        Some(
            "model = \"m\"\n[gate]\nmin_accuracy = 50\n[gate.prompts]\nprompt2 = 70\npromt1 = 80\n",
        ),
    )
    .unwrap();
    let e = c
        .check_gate_prompts(&["prompt1", "prompt2", "prompt3"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("harness.toml:6:"), "{e}");
    assert!(e.contains("`promt1`"), "{e}");
    assert!(e.contains("did you mean `prompt1`?"), "{e}");
    assert!(e.contains("prompt1, prompt2, prompt3"), "{e}");
    assert!(
        c.check_gate_prompts(&["prompt1", "prompt2", "promt1"])
            .is_ok()
    );
}

#[test]
fn concurrency_defaults_to_one_and_reads_file_and_env() {
    assert_eq!(load(&[("X", "")], None).unwrap().concurrency, 1);
    let c = load(&[("X", "")], Some("concurrency = 4\n")).unwrap();
    assert_eq!(c.concurrency, 4);
    let c = load(
        &[("PROMPTEVAL_CONCURRENCY", "8")],
        Some("concurrency = 4\n"),
    )
    .unwrap();
    assert_eq!(c.concurrency, 8);
    let e = load(&[("PROMPTEVAL_CONCURRENCY", "0")], None).unwrap_err();
    assert!(e.to_string().contains("parallel slots"), "{e}");
    let e = load(&[("X", "")], Some("concurrency = 0\n")).unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
}

#[test]
fn the_cache_is_on_by_default_and_off_by_env() {
    assert!(load(&[("X", "")], None).unwrap().cache);
    assert!(!load(&[("PROMPTEVAL_CACHE", "off")], None).unwrap().cache);
    assert!(!load(&[("X", "")], Some("cache = false\n")).unwrap().cache);
    let e = load(&[("PROMPTEVAL_CACHE", "maybe")], None).unwrap_err();
    assert!(e.to_string().contains("on or off"), "{e}");
}

#[test]
fn suite_settings_sit_between_the_environment_and_harness_toml() {
    let suite = RunSettings {
        history: Some(false),
        language: Some(Language::En),
        rounds: Some(3),
        ..Default::default()
    };
    let toml = "rounds = 5\n[history]\nenabled = true\nlanguage = \"zh\"\n";
    // The suite over harness.toml.
    let mut c = load(&[("X", "")], Some(toml)).unwrap();
    let lines = c.apply_suite(&suite);
    assert!(!c.history.enabled);
    assert_eq!(c.history.language, Language::En);
    assert_eq!(c.rounds, 3);
    assert_eq!(
        lines,
        [
            "history = off (the suite's setting)",
            "language = en (the suite's setting)",
            "rounds = 3 (the suite's setting)"
        ]
    );
    // The environment over the suite, and the line says so.
    let env = [("PROMPTEVAL_HISTORY", "on"), ("PROMPTEVAL_ROUNDS", "2")];
    let mut c = load(&env, Some(toml)).unwrap();
    let lines = c.apply_suite(&suite);
    assert!(c.history.enabled);
    assert_eq!(c.rounds, 2);
    assert_eq!(
        lines[0],
        "history = off (the suite's setting; PROMPTEVAL_HISTORY=on overrides it)"
    );
    // A suite without settings changes nothing.
    let mut c = load(&[("X", "")], Some(toml)).unwrap();
    let before = c.clone();
    assert!(c.apply_suite(&Default::default()).is_empty());
    assert_eq!(c, before);
}

#[test]
fn each_setting_says_where_its_value_came_from() {
    let toml = "model = \"m\"\nrounds = 5\n\n[llm]\ntemperature = 0.2\n[history]\nenabled = true\n";
    let env = [
        ("PROMPTEVAL_HISTORY", " off "),
        ("PROMPTEVAL_CONCURRENCY", "3"),
    ];
    let mut c = load(&env, Some(toml)).unwrap();
    let suite = RunSettings {
        history: Some(true),
        rounds: Some(2),
        ..Default::default()
    };
    c.apply_suite(&suite);
    assert_eq!(c.sources.of(&["model"]), &Source::File { line: 1 });
    assert_eq!(c.sources.line(&["llm", "temperature"]), Some(5));
    assert_eq!(c.sources.of(&["rounds"]), &Source::Suite);
    assert_eq!(c.rounds, 2);
    assert_eq!(
        c.sources.of(&["history", "enabled"]),
        &Source::Env {
            var: "PROMPTEVAL_HISTORY",
            value: "off".into()
        }
    );
    assert!(!c.history.enabled);
    assert_eq!(
        c.sources.of(&["concurrency"]),
        &Source::Env {
            var: "PROMPTEVAL_CONCURRENCY",
            value: "3".into()
        }
    );
    assert_eq!(c.sources.of(&["samples"]), &Source::Default);
}

#[test]
fn a_resumed_run_keeps_what_it_set_out_to_do_over_the_suite() {
    let mut c = load(&[("PROMPTEVAL_ROUNDS", "4")], Some("rounds = 5\n")).unwrap();
    c.resume(&ResumedRun {
        suite: "old.json".into(),
        model: "old".into(),
        models: Vec::new(),
        rounds: 2,
        samples: 1,
        race: None,
    });
    let lines = c.apply_suite(&RunSettings {
        rounds: Some(3),
        ..Default::default()
    });
    assert_eq!(c.rounds, 2);
    assert_eq!(c.model, "old");
    assert_eq!(c.sources.of(&["rounds"]), &Source::Resumed);
    assert_eq!(
        lines,
        ["rounds = 3 (the suite's setting; the resumed run keeps its own)"]
    );
}

#[test]
fn a_setting_the_file_got_wrong_is_told_at_its_line() {
    let e = refused(
        &[("X", "")],
        Some("model = \"m\"\n\n[llm]\ntimeout_secs = 0\n"),
    );
    assert!(
        e.contains("harness.toml:4:") && e.contains("llm.timeout_secs"),
        "{e}"
    );
    let e = refused(&[("X", "")], Some("model = \"m\"\nsamples = 0\n"));
    assert!(e.contains("harness.toml:2:"), "{e}");
}

#[test]
fn gate_keys_are_located_in_dotted_and_per_model_tables() {
    let c = load(
        &[("X", "")],
        Some("model = \"m\"\n[gate]\nprompts.promt1 = 80\n[gate.models.\"m\".prompts]\np = 1.5\n"),
    )
    .unwrap();
    let e = c
        .check_gate_prompts(&["prompt1", "p"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("harness.toml:3:") && e.contains("`promt1`"),
        "{e}"
    );
    let e = c
        .check_gate_prompts(&["promt1", "q"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("harness.toml:5:") && e.contains("gate.models.\"m\".prompts"),
        "{e}"
    );
    let c = load(
        &[("X", "")],
        Some("model = \"m\"\n\n[gate.models.\"n\"]\nmin_accuracy = 50\n"),
    )
    .unwrap();
    let e = c.check_gate_prompts(&["p"]).unwrap_err().to_string();
    assert!(
        e.contains("harness.toml:3:") && e.contains("gate.models.\"n\""),
        "{e}"
    );
}

#[test]
fn a_race_is_switched_on_by_file_or_environment_and_its_level_checked() {
    let c = load(&[("X", "")], None).unwrap();
    assert!(!c.race.enabled);
    assert_eq!((c.race.alpha, c.race.max_cases), (0.05, None));
    let c = load(
        &[("PROMPTEVAL_RACE", "on")],
        Some("[race]\nalpha = 0.01\nmax_cases = 90\n"),
    )
    .unwrap();
    assert!(c.race.enabled);
    assert_eq!((c.race.alpha, c.race.max_cases), (0.01, Some(90)));
    let c = load(
        &[("PROMPTEVAL_RACE", "off")],
        Some("[race]\nenabled = true\n"),
    )
    .unwrap();
    assert!(!c.race.enabled, "the environment wins");
    let msg = refused(&[("X", "")], Some("[race]\nenabled = true\nalpha = 0\n"));
    assert!(
        msg.contains("harness.toml:3:") && msg.contains("[race] alpha = 0"),
        "{msg}"
    );
    let msg = refused(&[("X", "")], Some("[race]\nmax_cases = 0\n"));
    assert!(
        msg.contains("harness.toml:2:") && msg.contains("max_cases = 0"),
        "{msg}"
    );
    let msg = refused(&[("PROMPTEVAL_RACE", "maybe")], None);
    assert!(
        msg.contains("PROMPTEVAL_RACE") && msg.contains("on or off"),
        "{msg}"
    );
}
