//! A corpus of malformed configs, suites and environment values. Each must
//! stop the run before any case with exit status 2 and one message that
//! names the file and line (or the variable) and says what to do; none may
//! panic.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

use prompts_cli::{Scratch, example_suite};

const GOOD_QUESTIONS: &str = r#""questions": [{"question": "Print 1", "answer": "1"}]"#;

/// (name, harness.toml extra, suite.json text or None for the example, env, expected fragments)
struct Case {
    name: &'static str,
    toml: &'static str,
    suite: Option<Vec<u8>>,
    env: Vec<(&'static str, String)>,
    expect: Vec<&'static str>,
}

fn case(
    name: &'static str,
    toml: &'static str,
    suite: Option<&str>,
    env: &[(&'static str, &str)],
    expect: &[&'static str],
) -> Case {
    Case {
        name,
        toml,
        suite: suite.map(|s| s.as_bytes().to_vec()),
        env: env.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        expect: expect.to_vec(),
    }
}

fn corpus() -> Vec<Case> {
    let q = GOOD_QUESTIONS;
    let mut huge = String::from("{\"p\": \"{question}\", \"questions\": [");
    huge.push_str("{\"question\": \"x\", \"answer\": \"1\"},");
    huge.push_str(&" ".repeat(65 << 20));
    huge.push_str("]}");
    vec![
        // --- suites
        case("suite: invalid JSON", "", Some("{\n\"p\": \"{question}\",\n\"questions\": [\n{\"question\": \"x\" \"answer\": \"1\"}]}"), &[], &["suite.json:4:", "invalid JSON"]),
        case("suite: trailing comma", "", Some("{\"p\": \"{question}\",\n\"questions\": [],\n}"), &[], &["suite.json:3:", "invalid JSON"]),
        case("suite: empty file", "", Some(""), &[], &["suite.json", "empty"]),
        case("suite: whitespace only", "", Some("  \n\n "), &[], &["suite.json", "empty"]),
        case("suite: not an object", "", Some("[1, 2]"), &[], &["suite.json:1:", "JSON object"]),
        case("suite: template without placeholder", "", Some(&format!("{{\n\"p1\": \"Solve it\",\n{q}}}")), &[], &["suite.json:2:", "`p1`", "{question}"]),
        case("suite: no prompts", "", Some(&format!("{{{q}}}")), &[], &["suite.json:1:", "no prompt templates"]),
        case("suite: no questions", "", Some("{\"p\": \"{question}\"}"), &[], &["suite.json", "no `questions`"]),
        case("suite: empty questions", "", Some("{\"p\": \"{question}\", \"questions\": []}"), &[], &["suite.json:1:", "`questions` is empty"]),
        case("suite: questions not a list", "", Some("{\"p\": \"{question}\", \"questions\": {}}"), &[], &["must be a list"]),
        case("suite: misspelt questions", "", Some("{\"p\": \"{question}\", \"question\": []}"), &[], &["did you mean `questions`"]),
        case("suite: empty answer", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"question\": \"x\", \"answer\": \"\"}]}"), &[], &["suite.json:2:", "empty `answer`"]),
        case("suite: empty question", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"question\": \" \", \"answer\": \"1\"}]}"), &[], &["suite.json:2:", "empty `question`"]),
        case("suite: missing answer", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"question\": \"x\"}]}"), &[], &["suite.json:2:", "neither `answer`"]),
        case("suite: invalid regex answer", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"question\": \"x\", \"answer\": \"(\", \"match\": \"regex\"}]}"), &[], &["suite.json:2:", "not a valid regex"]),
        case("suite: settings with an unknown field", "", Some("{\"settings\": {\"temp\": 1},\n\"p\": \"{question}\", \"questions\": [{\"question\": \"x\", \"answer\": \"1\"}]}"), &[], &["suite.json:1:", "unknown field `temp`"]),
        case("suite: answer is a list", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"question\": \"x\", \"answer\": [1]}]}"), &[], &["suite.json:2:", "must be a string"]),
        case("suite: question is a string", "", Some("{\"p\": \"{question}\", \"questions\": [\n\"x\"]}"), &[], &["suite.json:2:", "must be an object"]),
        case("suite: duplicate ids", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"id\": \"a\", \"question\": \"x\", \"answer\": \"1\"},\n{\"id\": \"a\", \"question\": \"y\", \"answer\": \"2\"}]}"), &[], &["suite.json:3:", "`a`", "unique"]),
        case("suite: bad id characters", "", Some("{\"p\": \"{question}\", \"questions\": [\n{\"id\": \"a b\", \"question\": \"x\", \"answer\": \"1\"}]}"), &[], &["suite.json:2:", "`id`"]),
        case("suite: duplicate prompt", "", Some(&format!("{{\"p\": \"{{question}}\",\n\"p\": \"{{question}}\", {q}}}")), &[], &["suite.json:2:", "twice"]),
        case("suite: prompt name with slash", "", Some(&format!("{{\"a/b\": \"{{question}}\", {q}}}")), &[], &["suite.json:1:", "folder"]),
        case("suite: prompt value is a number", "", Some(&format!("{{\"p\": \"{{question}}\", \"n\": 3, {q}}}")), &[], &["`n` is a number"]),
        case("suite: non-UTF-8 bytes", "", Some("{\"p\": \"{question}\",\n\"questions\": [{\"question\": \"\u{0}\", \"answer\": \"1\"}]}"), &[], &["suite.json:2:"]),
        Case { suite: Some(b"{\"p\": \"{question}\",\n\"questions\": [{\"question\": \"\xff\xfe\", \"answer\": \"1\"}]}".to_vec()), ..case("suite: latin-1 bytes", "", None, &[], &["suite.json:2:", "UTF-8"]) },
        Case { suite: Some(huge.into_bytes()), ..case("suite: huge file", "", None, &[], &["suite.json", "MiB limit"]) },
        case("suite: missing file", "suite = \"/nonexistent/suite.json\"\n", None, &[], &["/nonexistent/suite.json", "PROMPTEVAL_SUITE"]),
        // --- harness.toml
        case("toml: invalid syntax", "model = \n", None, &[], &["harness.toml:", "PROMPTEVAL_CONFIG", ""]),
        case("toml: unknown top-level key", "modle = \"x\"\n", None, &[], &["harness.toml:", "modle"]),
        case("toml: unknown key in section", "[llm]\ntemprature = 0.2\n", None, &[], &["harness.toml:", "temprature"]),
        case("toml: unknown section", "[sandbox_limits]\nx = 1\n", None, &[], &["harness.toml:", "sandbox_limits"]),
        case("toml: wrong type", "rounds = \"three\"\n", None, &[], &["harness.toml:", "rounds"]),
        case("toml: negative timeout", "[sandbox]\ntimeout_secs = -5\n", None, &[], &["harness.toml", "sandbox.timeout_secs"]),
        case("toml: zero llm timeout", "[llm]\ntimeout_secs = 0\n", None, &[], &["harness.toml", "llm.timeout_secs"]),
        case("toml: sub-second llm timeout", "[llm]\ntimeout_secs = 0.5\n", None, &[], &["harness.toml", "llm.timeout_secs", "at least 1"]),
        case("toml: zero token budget", "[llm]\nnum_predict = 0\n", None, &[], &["harness.toml", "llm.num_predict", "at least 1 token"]),
        case("toml: zero window", "[llm]\nnum_ctx = 0\n", None, &[], &["harness.toml", "llm.num_ctx", "at least 1 token"]),
        case("toml: zero ParEval run limit", "[cpp]\npareval_run_timeout_secs = 0\n", None, &[], &["harness.toml", "cpp.pareval_run_timeout_secs"]),
        case("toml: zero p_top tries", "[variants]\np_top_tries = 0\n", None, &[], &["harness.toml", "variants.p_top_tries", "at least 1"]),
        case("toml: zero qualification samples", "[variants.qualify]\nsamples = 0\n", None, &[], &["harness.toml", "variants.qualify.samples", "at least 1"]),
        case("toml: min_pass of zero", "[variants.qualify]\nmin_pass = 0.0\n", None, &[], &["harness.toml", "variants.qualify.min_pass", "outside (0, 1]"]),
        case("toml: min_pass as a percentage", "[variants.qualify]\nmin_pass = 80\n", None, &[], &["harness.toml", "variants.qualify.min_pass", "outside (0, 1]"]),
        case("toml: an unknown theme to ablate", "[variants]\nenabled = true\n[variants.themes]\nenabled = true\nablate = [\"1.3\", \"2.9\"]\n", None, &[], &["harness.toml", "variants.themes.ablate", "`2.9`", "not a theme"]),
        case("toml: themes without variants", "[variants.themes]\nenabled = true\n", None, &[], &["harness.toml", "variants.themes.enabled", "variants.enabled` is off"]),
        case("env: themes without variants", "", None, &[("PROMPTEVAL_THEMES", "on")], &["PROMPTEVAL_THEMES", "variants.themes.enabled", "PROMPTEVAL_VARIANTS=on"]),
        case("env: themes neither on nor off", "", None, &[("PROMPTEVAL_THEMES", "maybe")], &["PROMPTEVAL_THEMES", "on or off"]),
        case("toml: the removed timing switch", "[cpp]\nspeed = false\n", None, &[], &["harness.toml", "speed"]),
        case("toml: negative rounds", "rounds = -1\n", None, &[], &["harness.toml:", "rounds"]),
        case("toml: threshold above 100", "[gate]\nmin_accuracy = 150\n", None, &[], &["harness.toml:", "min_accuracy = 150", "between 0 and 100"]),
        case("toml: threshold written as a fraction", "[gate]\nmin_accuracy = 0.6\n", None, &[], &["harness.toml:", "min_accuracy = 0.6", "Did you mean 60?"]),
        case("toml: per-prompt threshold as a fraction", "[gate.prompts]\nprompt1 = 0.8\n", None, &[], &["harness.toml:", "prompt1 = 0.8", "Did you mean 80?"]),
        case("toml: gate key naming no prompt", "[gate.prompts]\nprompt1 = 50\npromt2 = 80\n", None, &[], &["harness.toml:", "`promt2`", "did you mean `prompt2`?", "prompt1, prompt2, prompt3"]),
        case("toml: unknown backend", "backend = \"gpt\"\n", None, &[], &["harness.toml:", "backend"]),
        case("toml: temperature out of range", "[llm]\ntemperature = 7\n", None, &[], &["harness.toml", "temperature"]),
        case("toml: missing python interpreter", "[sandbox]\npython = \"/nonexistent/python9\"\n", None, &[], &["/nonexistent/python9", "[sandbox] python"]),
        // --- environment
        case("env: rounds not a number", "", None, &[("PROMPTEVAL_ROUNDS", "abc")], &["PROMPTEVAL_ROUNDS=\"abc\"", "whole number"]),
        case("env: the removed timing switch", "", None, &[("PROMPTEVAL_SPEED", "off")], &["PROMPTEVAL_SPEED", "no longer exists", "part of its verdict"]),
        case("env: zero rounds", "", None, &[("PROMPTEVAL_ROUNDS", "0")], &["PROMPTEVAL_ROUNDS", "at least one"]),
        case("env: negative rounds", "", None, &[("PROMPTEVAL_ROUNDS", "-2")], &["PROMPTEVAL_ROUNDS"]),
        case("env: accuracy not a number", "", None, &[("PROMPTEVAL_MIN_ACCURACY", "high")], &["PROMPTEVAL_MIN_ACCURACY", "percentage"]),
        case("env: accuracy above 100", "", None, &[("PROMPTEVAL_MIN_ACCURACY", "120")], &["PROMPTEVAL_MIN_ACCURACY"]),
        case("env: accuracy as a fraction", "", None, &[("PROMPTEVAL_MIN_ACCURACY", "0.6")], &["PROMPTEVAL_MIN_ACCURACY=\"0.6\"", "Did you mean 60?"]),
        case("env: unknown backend", "", None, &[("PROMPTEVAL_BACKEND", "claude")], &["PROMPTEVAL_BACKEND", "auto, ollama, openai, replay"]),
        case("env: config file missing", "", None, &[("PROMPTEVAL_CONFIG", "/nonexistent/harness.toml")], &["/nonexistent/harness.toml", "PROMPTEVAL_CONFIG"]),
        case("env: suite missing", "", None, &[("PROMPTEVAL_SUITE", "/nonexistent/s.json")], &["/nonexistent/s.json"]),
        case("env: resume folder missing", "", None, &[("PROMPTEVAL_RESUME", "/nonexistent/run")], &["PROMPTEVAL_RESUME=/nonexistent/run"]),
        case("env: unwritable result folder", "", None, &[("PROMPTEVAL_RESULT_DIR", "/proc/prompteval-results"), ("PROMPTEVAL_BACKEND", "replay")], &["/proc/prompteval-results", "writable"]),
    ]
}

#[test]
fn every_bad_input_exits_2_with_a_located_message() {
    let mut failures = Vec::new();
    for c in corpus() {
        let s = Scratch::new(&format!("model = \"m\"\n{}", c.toml));
        let suite = match &c.suite {
            Some(bytes) => {
                let p = s.path().join("suite.json");
                std::fs::write(&p, bytes).unwrap();
                p
            }
            None => example_suite(),
        };
        let suite = suite.display().to_string();
        let mut env: Vec<(&str, &str)> = vec![];
        if !c.toml.contains("suite =") && !c.env.iter().any(|(k, _)| *k == "PROMPTEVAL_SUITE") {
            env.push(("PROMPTEVAL_SUITE", &suite));
        }
        for (k, v) in &c.env {
            env.push((k, v));
        }
        let run = s.prompts(&[], &env);
        let all = run.both();
        let ok = run.status == Some(2)
            && c.expect.iter().all(|f| run.stderr.contains(f))
            && !all.contains("panicked")
            && !run.stdout.contains("test ");
        if !ok {
            failures.push(format!(
                "{}: status {:?}\nstderr: {}\nstdout: {}",
                c.name,
                run.status,
                run.stderr.trim(),
                run.stdout.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(corpus().len() >= 30);
}
