//! Numbers only from replies the model gave to exactly the request shown:
//! recordings made live through a scripted Ollama, then replayed with an
//! edited suite, more rounds, a new prompt, another model and misspelt
//! filters, as a new user would. Each gives correct numbers over what ran,
//! or a refusal that says why; never a ranking built on replies the model
//! did not give.

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use example_model::two_of_three;
use prompts_cli::{Run, Scratch, example_suite};
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer, dead_host};

/// A scratch folder whose suite is a copy of the spec example, named
/// `example.json` like the original (recordings are per suite name), with
/// its replies recorded live through the scripted Ollama.
fn recorded() -> Scratch {
    let s = Scratch::new(&format!(
        "suite = \"example.json\"\nmodel = \"{STUB_MODEL}\"\n"
    ));
    let suite = std::fs::read_to_string(example_suite()).unwrap();
    s.write("example.json", &suite);
    let server = StubServer::start(two_of_three);
    let live = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(live.status, Some(101), "{}", live.both());
    s
}

fn edit_suite(s: &Scratch, edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>)) {
    let path = s.path().join("example.json");
    let mut suite: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut suite);
    // Prompts are the top-level strings in file order; keep `questions` last.
    let questions = suite.remove("questions").unwrap();
    suite.insert("questions".into(), questions);
    std::fs::write(&path, serde_json::to_string_pretty(&suite).unwrap()).unwrap();
}

fn replay(s: &Scratch, args: &[&str], env: &[(&str, &str)]) -> Run {
    let host = dead_host();
    let mut all = vec![("OLLAMA_HOST", host.as_str())];
    all.extend_from_slice(env);
    s.prompts(args, &all)
}

fn case_line<'a>(run: &'a Run, name: &str) -> &'a str {
    run.stdout
        .lines()
        .find(|l| l.starts_with(&format!("test {name} ")))
        .unwrap_or_else(|| panic!("no line for {name}:\n{}", run.stdout))
}

#[test]
fn an_edited_template_is_never_credited_with_the_old_replies() {
    let s = recorded();
    edit_suite(&s, |suite| {
        suite.insert(
            "prompt2".into(),
            "Completely different template, reply in French please: {question}".into(),
        );
    });

    let run = replay(&s, &[], &[]);
    // prompt1 and prompt3 still fail their third question.
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains("prompt2: 3/3 (template changed 3)"),
        "{}",
        run.stdout
    );
    assert!(
        case_line(&run, "prompt2::q1_two_sum::r1")
            .ends_with("ignored (not evaluated: template changed)"),
        "{}",
        run.stdout
    );
    assert!(case_line(&run, "prompt1::q1_two_sum::r1").ends_with("ok"));
    assert!(
        run.stdout.contains("4 passed; 2 failed; 3 ignored"),
        "{}",
        run.stdout
    );

    let summary = s.summary();
    let p2 = &summary["prompt_results"]["prompt2"];
    assert!(p2["accuracy"].is_null(), "{summary}");
    assert_eq!(p2["total_questions"], 0);
    assert_eq!(p2["not_evaluated"], 3);
    assert_eq!(p2["not_evaluated_reasons"]["template changed"], 3);
    assert_eq!(summary["prompt_results"]["prompt1"]["accuracy"], 66.7);
    assert_eq!(summary["not_evaluated"], 3);
    assert_eq!(summary["planned_cases"], 9);
    assert_eq!(summary["best_prompt"]["name"], "prompt1");
    assert_eq!(
        summary["best_prompt"]["tied_with"],
        serde_json::json!(["prompt3"])
    );
    // The old reply is nowhere beside the new template.
    let run_dir = s.run_dir();
    assert!(!run_dir.join("prompt2/question_1.py").exists());
    let table_row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("| prompt2"))
        .unwrap();
    assert!(table_row.contains("⚠ 3 個未評測"), "{table_row}");
    assert!(table_row.contains("| -"), "no accuracy shown: {table_row}");
    assert!(
        run.stdout
            .contains("🏆 最佳 Prompt: prompt1 = prompt3 (tie")
    );
    let html = std::fs::read_to_string(run_dir.join("quick_view.html")).unwrap();
    assert!(html.contains("有 3 個選取的案例未評測"), "{html}");
    assert!(html.contains("prompt2::q3_bug_calculate_average::r1"));

    // Asked for replay explicitly, the same suite stops before any case.
    let before = s.run_dirs();
    let strict = replay(&s, &[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(strict.status, Some(2), "{}", strict.both());
    assert!(
        strict
            .stderr
            .contains("3 of 9 selected cases have no recording of their exact request"),
        "{}",
        strict.stderr
    );
    assert!(strict.stderr.contains("prompt2: 3/3 (template changed 3)"));
    assert!(!strict.stdout.contains("test prompt"), "{}", strict.stdout);
    assert_eq!(s.run_dirs(), before, "no run folder for a refused run");
}

#[test]
fn missing_rounds_prompts_and_questions_are_not_evaluated_and_say_why() {
    let s = recorded();
    let run = replay(&s, &[], &[("PROMPTEVAL_ROUNDS", "3")]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains("prompt1: 6/9 (round not recorded 6)"),
        "{}",
        run.stdout
    );
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["accuracy"], 66.7, "over round 1 only: {summary}");
        assert_eq!(r["total_questions"], 3);
        assert_eq!(r["not_evaluated"], 6);
    }
    assert_eq!(summary["planned_cases"], 27);

    edit_suite(&s, |suite| {
        suite.insert("prompt4".into(), "New prompt: {question}".into());
        let questions = suite["questions"].as_array_mut().unwrap();
        questions.push(serde_json::json!({"question": "Print 4", "answer": "4"}));
    });
    let run = replay(&s, &[], &[]);
    assert!(
        run.stdout.contains("prompt4: 4/4 (prompt not recorded 4)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("prompt1: 1/4 (question not recorded 1)"),
        "{}",
        run.stdout
    );
    let summary = s.summary();
    assert!(summary["prompt_results"]["prompt4"]["accuracy"].is_null());
    assert_eq!(summary["prompt_results"]["prompt1"]["total_questions"], 3);
    assert_ne!(summary["best_prompt"]["name"], "prompt4");
}

#[test]
fn another_model_is_never_swapped_for_the_recorded_one() {
    let s = recorded();
    let run = replay(&s, &[], &[("PROMPTEVAL_MODEL", "qwen2.5-coder:7b")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr
            .contains("no recorded replies of model qwen2.5-coder:7b"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "recorded models for suite `example`: {STUB_MODEL}"
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("test prompt"));
}

#[test]
fn a_changed_question_refuses_it_and_the_cases_whose_history_held_it() {
    let s = recorded();
    edit_suite(&s, |suite| {
        suite["questions"][1]["question"] = "修復縮排，然後執行 greet('World') 兩次".into();
    });
    let run = replay(&s, &[], &[]);
    assert!(
        run.stdout
            .contains("prompt1: 2/3 (question changed 1, history differs 1)"),
        "{}",
        run.stdout
    );
    let summary = s.summary();
    assert_eq!(summary["prompt_results"]["prompt1"]["total_questions"], 1);
    assert_eq!(summary["prompt_results"]["prompt1"]["accuracy"], 100.0);

    // A filtered-out first question changes every later history too.
    let s = recorded();
    let run = replay(&s, &[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(
        run.status,
        Some(101),
        "the unedited suite replays: {}",
        run.both()
    );
    let run = replay(&s, &["q3_bug"], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(run.stderr.contains("history differs"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("earlier questions [1, 2] are not in this run"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_filter_that_selects_nothing_names_what_exists_and_fails_in_ci() {
    let s = recorded();
    let run = replay(&s, &["prompt9"], &[("CI", "true")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stdout.contains("no case matches the filter `prompt9`. Prompts: prompt1, prompt2, prompt3. Question ids: q1_two_sum, q2_greet_world, q3_bug_calculate_average."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("0 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out")
    );
    let local = replay(&s, &["prompt9"], &[("CI", "false")]);
    assert_eq!(local.status, Some(0), "{}", local.both());

    let one = replay(&s, &["prompt1"], &[]);
    assert!(
        one.stdout
            .contains("1 failed; 0 ignored; 0 measured; 6 filtered out"),
        "{}",
        one.stdout
    );
}

#[test]
fn one_name_per_case_in_the_terminal_the_files_and_the_html() {
    let s = recorded();
    let run = replay(&s, &[], &[("PROMPTEVAL_LOG", "debug")]);
    assert!(case_line(&run, "prompt2::q2_greet_world::r1").ends_with("ok"));
    let dir = s.run_dir();
    let py = std::fs::read_to_string(dir.join("prompt2/question_2.py")).unwrap();
    assert!(
        py.contains("# Case: prompt2::q2_greet_world::r1 (question id q2_greet_world)"),
        "{py}"
    );
    let html = std::fs::read_to_string(dir.join("quick_view.html")).unwrap();
    assert!(html.contains("prompt2::q2_greet_world::r1"));
    // The case's line names the question by its id.
    assert!(html.contains("prompt2::q2_greet_world::r1</code></td><td>q2_greet_world</td>"));
    assert!(
        html.contains("href=\"prompt2/question_2.py\""),
        "the row links its file"
    );
    // Logs to a pipe are plain text.
    assert!(run.stderr.contains("DEBUG"), "{}", run.stderr);
    assert!(
        !run.stderr.contains('\u{1b}'),
        "colour codes in: {}",
        run.stderr
    );
}

#[test]
fn a_boolean_answer_means_what_python_prints() {
    let s = Scratch::new(&format!(
        "suite = \"bools.json\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n"
    ));
    s.write(
        "bools.json",
        r#"{"p": "{question}", "questions": [
            {"id": "yes", "question": "Is 2 even?", "answer": true},
            {"id": "no", "question": "Is 3 even?", "answer": false}]}"#,
    );
    let server = StubServer::start(|req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        if req.current_question().contains('2') {
            Behaviour::Reply("```python\nprint(2 % 2 == 0)\n```".into())
        } else {
            Behaviour::Reply("```python\nprint(3 % 2 == 0)\n```".into())
        }
    });
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert_eq!(s.summary()["prompt_results"]["p"]["accuracy"], 100.0);
}

#[test]
fn a_live_run_rerecords_a_reply_whose_request_changed_even_if_its_text_did_not() {
    let s = recorded();
    edit_suite(&s, |suite| {
        suite.insert("prompt2".into(), "Terse: {question}".into());
    });
    // The scripted model answers exactly as before: only the request changed,
    // which insta alone would call "unchanged" and not rewrite.
    let server = StubServer::start(two_of_three);
    let live = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(live.status, Some(101), "{}", live.both());
    assert!(
        live.stdout.contains("📸 3 個新的、0 個改變的回覆"),
        "{}",
        live.stdout
    );
    let snap = std::fs::read_to_string(
        s.path()
            .join("snapshots/example/stub-coder_1.5b/prompt2__q1_two_sum__r1.snap"),
    )
    .unwrap();
    assert!(snap.contains("template: \"Terse: {question}\""), "{snap}");
    drop(server);

    let run = replay(&s, &[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains("6 passed; 3 failed; 0 ignored"),
        "{}",
        run.stdout
    );
    assert_eq!(s.summary()["not_evaluated"], 0);
}

#[test]
fn a_rerun_of_an_unchanged_suite_is_answered_from_the_cache() {
    let server = StubServer::start(two_of_three);
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n",
        example_suite().display()
    ));
    let env = [
        ("OLLAMA_HOST", server.url()),
        ("PROMPTEVAL_CACHE", "on".to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let first = s.prompts(&[], &env);
    assert_eq!(first.status, Some(101), "{}", first.both());
    assert_eq!(server.requests_to("/api/chat").len(), 9);
    assert!(
        first
            .stdout
            .contains("💾 快取 cache: 命中 0 次, 呼叫模型 9 次"),
        "{}",
        first.stdout
    );
    let verdicts = |s: &Scratch| s.summary()["prompt_results"].clone();
    let before = verdicts(&s);

    let second = s.prompts(&[], &env);
    assert_eq!(second.status, Some(101), "{}", second.both());
    assert_eq!(
        server.requests_to("/api/chat").len(),
        9,
        "no model call on the rerun"
    );
    assert!(
        second
            .stdout
            .contains("💾 快取 cache: 命中 9 次, 呼叫模型 0 次"),
        "{}",
        second.stdout
    );
    let summary = s.summary();
    assert_eq!(summary["cache"]["hits"], 9);
    let mut after = verdicts(&s);
    let mut before = before;
    for v in [&mut before, &mut after] {
        for (_, r) in v.as_object_mut().unwrap() {
            r.as_object_mut().unwrap().remove("avg_execution_time");
        }
    }
    assert_eq!(after, before, "the same verdicts");

    // More rounds: round 2 is a repetition, never served from round 1.
    let third = s.prompts(&[], &[env[0], env[1], ("PROMPTEVAL_ROUNDS", "2")]);
    assert_eq!(third.status, Some(101), "{}", third.both());
    assert_eq!(server.requests_to("/api/chat").len(), 18);
    assert!(
        third
            .stdout
            .contains("💾 快取 cache: 命中 9 次, 呼叫模型 9 次"),
        "{}",
        third.stdout
    );

    // Off: every case asks the model.
    let off = s.prompts(&[], &[env[0], ("PROMPTEVAL_CACHE", "off")]);
    assert_eq!(off.status, Some(101));
    assert_eq!(server.requests_to("/api/chat").len(), 27);
    assert!(s.summary()["cache"].is_null());
}
