//! End to end through `cargo test --test prompts` against a scripted
//! stand-in for Ollama's native API: the protocol, the history carried in
//! requests, filters, the report files and the exit status.

#[path = "support/case_pages.rs"]
mod case_pages;
#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use example_model::{GREET, TWO_SUM, example_scratch, two_of_three};
use prompts_cli::{Scratch, example_suite};
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer, dead_host};

/// libtest's per-case lines, sorted (cases of different chains run concurrently).
/// libtest's per-case lines with the name padding collapsed, sorted (cases
/// of different chains run concurrently).
fn case_lines(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.contains(" ... "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    v.sort();
    v
}

#[test]
fn spec_example_two_of_three_gives_66_7_percent_everywhere() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    // Cases failed and no gate is set: libtest's status.
    assert_eq!(run.status, Some(101), "{}", run.both());

    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["accuracy"], 66.7, "{p}: {summary}");
        assert_eq!(r["correct_answers"], 2);
        assert_eq!(r["total_questions"], 3);
        assert_eq!(r["error_breakdown"]["runtime_error"], 1, "{summary}");
    }
    assert_eq!(summary["best_prompt"]["name"], "prompt1");
    assert_eq!(summary["prompt_count"], 3);
    assert!(run.stdout.contains("| prompt1"), "{}", run.stdout);
    assert!(run.stdout.contains("66.7%"), "{}", run.stdout);
    assert!(
        run.stdout.contains("最佳 Prompt: prompt1"),
        "{}",
        run.stdout
    );

    // Nine chat calls, one per case, with the spec's options.
    let chats = server.requests_to("/api/chat");
    assert_eq!(chats.len(), 9);
    assert_eq!(chats[0].json["stream"], true);
    assert_eq!(chats[0].json["model"], STUB_MODEL);
    assert_eq!(chats[0].json["options"]["temperature"], 0.0);

    let dir = s.run_dir();
    let q1 = std::fs::read_to_string(dir.join("prompt1/question_1.py")).unwrap();
    assert!(q1.contains("# Prompt Name: prompt1"), "{q1}");
    assert!(q1.contains("# Status: ✅ PASSED"), "{q1}");
    assert!(q1.contains("print(two_sum([2, 7, 11, 15], 9))"), "{q1}");
    let q3 = std::fs::read_to_string(dir.join("prompt2/question_3.py")).unwrap();
    assert!(q3.contains("❌ FAILED"), "{q3}");
    assert!(q3.contains("ZeroDivisionError"), "{q3}");
    for f in [
        "report/detailed_report.json",
        "report/summary.csv",
        "quick_view.html",
        "journal.jsonl",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 9);
}

#[test]
fn question_three_carries_questions_one_and_two_in_its_history() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(&["prompt2"], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let chats = server.requests_to("/api/chat");
    assert_eq!(chats.len(), 3);
    let third = chats
        .iter()
        .map(|r| r.last_user_message().unwrap().to_string())
        .find(|m| m.ends_with("calculate_average([])：\n```python\ndef calculate_average(numbers):\n    total = 0\n    for num in numbers:\n        total += num\n    average = total / len(numbers)\n    return average\n```"))
        .expect("the request for question 3");
    assert!(
        third.starts_with(
            "請仔細分析問題並提供最佳解法：\n\n之前的學習經驗：\n\n問題1: 實作Two Sum演算法"
        ),
        "{third}"
    );
    assert!(
        third.contains("我的回答: def two_sum(nums, target):"),
        "{third}"
    );
    assert!(
        third.contains("結果: ✅ PASSED (期望: [0, 1], 實際: [0, 1])"),
        "{third}"
    );
    assert!(third.contains("問題2: 修復以下程式碼的縮排問題"), "{third}");
    assert!(third.contains("結果: ✅ PASSED (期望: Hello, World!\\nWelcome to Python!, 實際: Hello, World!\\nWelcome to Python!)"), "{third}");
    assert!(
        third.contains("\n---\n現在請解決新問題：找出以下程式碼的bug"),
        "{third}"
    );
    // The first question of the chain has no history.
    let first = chats[0].last_user_message().unwrap();
    assert!(!first.contains("之前的學習經驗"), "{first}");
}

#[test]
fn prompt_filter_runs_only_that_prompt() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(&["prompt1"], &[("OLLAMA_HOST", &server.url())]);
    assert!(
        run.stdout.contains("3 passed") || run.stdout.contains("2 passed; 1 failed"),
        "{}",
        run.both()
    );
    let names = case_lines(&run.stdout);
    assert_eq!(names.len(), 3, "{}", run.stdout);
    assert!(
        names.iter().all(|l| l.starts_with("test prompt1::")),
        "{names:?}"
    );
    let summary = s.summary();
    // A filtered run is complete when its selection is.
    assert_eq!(summary["complete"], true, "{summary}");
    assert_eq!(summary["planned_cases"], 3, "{summary}");
    let prompts: Vec<&String> = summary["prompt_results"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(prompts, ["prompt1"]);
    assert_eq!(server.requests_to("/api/chat").len(), 3);
}

#[test]
fn list_shows_every_case_and_contacts_no_server() {
    let s = example_scratch("rounds = 2\n");
    let run = s.prompts(&["--list"], &[("OLLAMA_HOST", "127.0.0.1:9")]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    let cases: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.ends_with(": test"))
        .collect();
    assert_eq!(cases.len(), 18, "{}", run.stdout);
    assert!(
        cases.contains(&"prompt3::q1_two_sum::r2: test"),
        "{cases:?}"
    );
    assert_eq!(s.run_dirs(), 0, "listing must not create a run folder");
}

#[test]
fn question_id_filter_and_skip() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(
        &["two_sum", "--skip", "prompt3"],
        &[("OLLAMA_HOST", &server.url())],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    let names = case_lines(&run.stdout);
    assert_eq!(
        names,
        [
            "test prompt1::q1_two_sum::r1 ... ok",
            "test prompt2::q1_two_sum::r1 ... ok"
        ]
    );
}

#[test]
fn gate_fails_below_threshold_and_passes_at_or_above() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("[gate]\nmin_accuracy = 50\n[gate.prompts]\nprompt2 = 80\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let tail: Vec<&str> = run.stdout.lines().rev().take(4).collect();
    assert!(
        tail.iter().any(
            |l| l.contains("gate: prompt2 FAILED: accuracy 66.7% is below the threshold 80.0%")
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.lines().last().unwrap().contains("1 of 3"),
        "{}",
        run.stdout
    );

    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_MIN_ACCURACY", "60"),
        ],
    );
    // PROMPTEVAL_MIN_ACCURACY replaces min_accuracy; prompt2's own 80 still applies.
    assert_eq!(run.status, Some(101), "{}", run.both());

    let s = example_scratch("[gate]\nmin_accuracy = 66.7\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert!(
        run.stdout.contains("gate: passed (3 prompt(s) checked)"),
        "{}",
        run.stdout
    );
}

#[test]
fn unreachable_server_is_one_clear_error_before_any_case() {
    // Bind then drop: a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = example_scratch("");
    let host = format!("127.0.0.1:{port}");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &host)]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains(&format!("http://127.0.0.1:{port}")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("ollama serve"), "{}", run.stderr);
    assert!(run.stderr.contains("OLLAMA_HOST"), "{}", run.stderr);
    assert!(
        !run.stdout.contains("test prompt"),
        "no case may run: {}",
        run.stdout
    );
    assert_eq!(s.run_dirs(), 0);
}

#[test]
fn missing_model_names_ollama_pull() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_MODEL", "nosuch:7b"),
        ],
    );
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("ollama pull nosuch:7b"),
        "{}",
        run.stderr
    );
    assert!(server.requests_to("/api/chat").is_empty());
}

#[test]
fn api_failures_are_recorded_on_the_case_and_the_run_goes_on() {
    let server = StubServer::start(|req| {
        match req.path.as_str() {
        "/api/chat" if req.last_user_message().unwrap_or("").ends_with("'World')：\n```python\ndef greet(name):\nprint(f'Hello, {name}!')\nif name == 'World':\nprint('Welcome to Python!')\nelse:\nprint('Nice to meet you!')\n```") => {
            Behaviour::Status(500, "{\"error\":\"boom\"}".into())
        }
        _ => two_of_three(req),
    }
    });
    let s = example_scratch("[llm]\nretries = 1\nbackoff_ms = 10\n");
    let run = s.prompts(&["prompt1"], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    assert_eq!(
        summary["prompt_results"]["prompt1"]["error_breakdown"]["api_error"], 1,
        "{summary}"
    );
    assert_eq!(
        summary["prompt_results"]["prompt1"]["correct_answers"], 1,
        "{summary}"
    );
    // One try plus one retry for the failing case, one call each for the others.
    assert_eq!(server.requests_to("/api/chat").len(), 4);
}

#[test]
fn bad_environment_value_exits_2_naming_the_variable() {
    let s = example_scratch("");
    let run = s.prompts(&[], &[("PROMPTEVAL_ROUNDS", "abc")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("PROMPTEVAL_ROUNDS=\"abc\""),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn several_rounds_report_mean_and_spread() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(
        &["prompt3"],
        &[("OLLAMA_HOST", &server.url()), ("PROMPTEVAL_ROUNDS", "2")],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let r = &summary["prompt_results"]["prompt3"];
    assert_eq!(r["total_questions"], 6, "{summary}");
    assert_eq!(r["accuracy"], 66.7);
    assert_eq!(r["rounds"]["count"], 2, "{summary}");
    assert_eq!(r["rounds"]["stddev"], 0.0, "{summary}");
    assert!(s.run_dir().join("prompt3/question_1.py").is_file());
}

#[test]
fn a_question_passing_in_one_round_and_failing_in_the_other_is_listed_unstable() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let greets = AtomicUsize::new(0);
    let server = StubServer::start(move |req: &Request| match two_of_three(req) {
        // The first greet request (whichever round) is answered right, the
        // second prints only the first line.
        Behaviour::Reply(r) if r == GREET && greets.fetch_add(1, Ordering::SeqCst) > 0 => {
            Behaviour::Reply("```python\nprint('Hello, World!')\n```".into())
        }
        other => other,
    });
    let s = example_scratch("");
    let run = s.prompts(
        &["prompt3"],
        &[("OLLAMA_HOST", &server.url()), ("PROMPTEVAL_ROUNDS", "2")],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let r = &summary["prompt_results"]["prompt3"];
    // q3 fails in both rounds: stable. Only the greet question moved.
    assert_eq!(
        r["unstable_questions"],
        serde_json::json!(["q2_greet_world"]),
        "{summary}"
    );
    assert!(
        run.stdout.contains("≠ 1 個不穩定 (q2_greet_world)"),
        "{}",
        run.stdout
    );
    let html = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
    assert!(html.contains("1 個不穩定的問題"), "the quick view names it");
}

/// The summed tokens per prompt are the server's own figures, on both
/// protocols, and each case's record carries its call's.
#[test]
fn token_sums_are_the_servers_figures_on_both_protocols() {
    // two_of_three for either protocol's chat path.
    let answer = |req: &Request| {
        let mut r = req.clone();
        r.path = r.path.replacen("/v1/chat/completions", "/api/chat", 1);
        two_of_three(&r)
    };
    for backend in ["ollama", "openai"] {
        let server = StubServer::start(answer);
        let s = Scratch::new(&format!(
            "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"{backend}\"\n[openai]\nbase_url = \"{}\"\n",
            example_suite().display(),
            server.openai_url()
        ));
        let run = s.prompts(
            &["prompt2"],
            &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
        );
        assert_eq!(run.status, Some(101), "{}", run.both());
        let path = if backend == "ollama" {
            "/api/chat"
        } else {
            "/v1/chat/completions"
        };
        let (mut prompt, mut completion) = (0, 0);
        for req in server.requests_to(path) {
            let Behaviour::Reply(content) = answer(&req) else {
                panic!("every question is answered")
            };
            let (p, c) = stub_server::stub_tokens(&req, &content);
            prompt += p;
            completion += c;
        }
        let summary = s.summary();
        let tokens = &summary["prompt_results"]["prompt2"]["tokens"];
        assert_eq!(tokens["prompt"], prompt, "{backend}: {summary}");
        assert_eq!(tokens["completion"], completion, "{backend}: {summary}");
        assert_eq!(summary["prompt_results"]["prompt2"]["truncated_replies"], 0);
        assert!(run.stdout.contains("tokens/case"), "{}", run.stdout);
        let detailed =
            std::fs::read_to_string(s.run_dir().join("report/detailed_report.json")).unwrap();
        // A replay of those recordings carries the recorded figures.
        let replay = s.prompts(&["prompt2"], &[("PROMPTEVAL_BACKEND", "replay")]);
        assert_eq!(replay.status, Some(101), "{}", replay.both());
        assert_eq!(
            s.summary()["prompt_results"]["prompt2"]["tokens"],
            summary["prompt_results"]["prompt2"]["tokens"],
            "{backend}: replayed"
        );
        // A cached rerun asks nothing and carries the figures of the calls
        // that produced its replies.
        let cached = [
            ("OLLAMA_HOST", server.url()),
            ("PROMPTEVAL_CACHE", "on".into()),
        ];
        let cached: Vec<(&str, &str)> = cached.iter().map(|(k, v)| (*k, v.as_str())).collect();
        s.prompts(&["prompt2"], &cached);
        let calls = server.requests_to(path).len();
        let rerun = s.prompts(&["prompt2"], &cached);
        assert_eq!(rerun.status, Some(101), "{}", rerun.both());
        assert_eq!(
            server.requests_to(path).len(),
            calls,
            "{backend}: cache hits"
        );
        assert_eq!(
            s.summary()["prompt_results"]["prompt2"]["tokens"],
            summary["prompt_results"]["prompt2"]["tokens"],
            "{backend}: cached"
        );
        // Each case record carries its call's figures.
        assert_eq!(
            detailed.matches("\"finish_reason\":\"stop\"").count(),
            3,
            "{backend}"
        );
        assert_eq!(
            detailed.matches("\"tokens\":{\"prompt\":").count(),
            3,
            "{backend}"
        );
    }
}

/// A server with a small context window and a reply-length limit, on both
/// protocols: Ollama cuts the long prompt (its `prompt_eval_count` stops at
/// the `num_ctx` sent), llama-server refuses it (400). The cut prompt is
/// never judged, the cut reply is judged and marked, and the token sums
/// are the server's figures for every call it answered.
#[test]
fn a_small_window_and_a_reply_limit_are_counted_and_never_judged_as_the_model() {
    let padding = "Some context the question carries. ".repeat(100);
    let suite = serde_json::json!({
        "p1": "Solve: {question}",
        "questions": [
            {"id": "short", "question": "Print the number 1", "answer": "1"},
            {"id": "long", "question": format!("Print the number 2. {padding}"), "answer": "2"},
            {"id": "verbose", "question": "Print the number 3", "answer": "3"},
        ]
    });
    let verbose = format!(
        "```python\nprint(3)\n{}```",
        "# a long explanation\n".repeat(20)
    );
    let answer = move |req: &Request| -> Behaviour {
        let q = req.current_question();
        if !req.path.ends_with("/chat") && !req.path.ends_with("/completions") {
            Behaviour::Default
        } else if q.contains("number 3") {
            Behaviour::Reply(verbose.clone())
        } else if q.contains("number 2") {
            Behaviour::Reply("```python\nprint(2)\n```".into())
        } else {
            Behaviour::Reply("```python\nprint(1)\n```".into())
        }
    };
    for backend in ["ollama", "openai"] {
        let server = StubServer::start(answer.clone());
        server.set_context_window(200);
        let s = Scratch::new(&format!(
            "model = \"{STUB_MODEL}\"\nbackend = \"{backend}\"\n[openai]\nbase_url = \"{}\"\n\
             [llm]\nnum_ctx = 200\nnum_predict = 40\n[history]\nenabled = false\n",
            server.openai_url()
        ));
        let suite_path = s.write("window.json", &suite.to_string());
        let run = s.prompts(
            &[],
            &[
                ("PROMPTEVAL_SUITE", suite_path.to_str().unwrap()),
                ("OLLAMA_HOST", &server.url()),
                ("INSTA_UPDATE", "always"),
            ],
        );
        assert_ne!(run.status, Some(2), "{backend}: {}", run.both());
        // Said before the first case, with the settings to change.
        assert!(
            run.stderr.contains("will not be evaluated") && run.stderr.contains("llm.num_predict"),
            "{backend}: {}",
            run.stderr
        );
        let summary = s.summary();
        let p1 = &summary["prompt_results"]["p1"];
        assert_eq!(p1["truncated_prompts"], 1, "{backend}: {summary}");
        assert_eq!(p1["truncated_replies"], 1, "{backend}: {summary}");
        assert_eq!(
            p1["total_questions"], 2,
            "{backend}: the cut prompt is in no denominator: {summary}"
        );
        // The token sums are what the server said, call by call.
        let path = if backend == "ollama" {
            "/api/chat"
        } else {
            "/v1/chat/completions"
        };
        let (mut prompt, mut completion, mut calls) = (0, 0, 0);
        for req in server.requests_to(path) {
            let Behaviour::Reply(content) = answer(&req) else {
                panic!("every question is answered")
            };
            if let Ok(g) = stub_server::stub_generation(&req, &content, Some(200)) {
                prompt += g.prompt_tokens;
                completion += g.completion_tokens;
                calls += 1;
            }
        }
        assert_eq!(calls, if backend == "ollama" { 3 } else { 2 }, "{backend}");
        assert_eq!(p1["tokens"]["prompt"], prompt, "{backend}: {summary}");
        assert_eq!(
            p1["tokens"]["completion"], completion,
            "{backend}: {summary}"
        );
        // libtest: the cut prompt is ignored with the reason, never failed.
        let long = run
            .stdout
            .lines()
            .find(|l| l.contains("p1::long"))
            .unwrap_or_default();
        assert!(long.contains("ignored"), "{backend}: {}", run.stdout);
        assert!(long.contains("context window"), "{backend}: {long}");
        assert!(
            run.stdout.contains("✂ 1 個提示被截斷"),
            "{backend}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("✂ 1 個回覆被截斷"),
            "{backend}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("提高 harness.toml 的 llm.num_predict")
                || run.stderr.contains("提高 harness.toml 的 llm.num_predict"),
            "{backend}: {}",
            run.both()
        );
        let detailed: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(s.run_dir().join("report/detailed_report.json")).unwrap(),
        )
        .unwrap();
        let cases = detailed["prompts"][0]["cases"].as_array().unwrap().clone();
        let by_id = |id: &str| {
            cases
                .iter()
                .find(|c| c["case"]["question_id"] == id)
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(by_id("long")["api_failure"], "prompt_too_long", "{backend}");
        assert_eq!(by_id("verbose")["finish_reason"], "length", "{backend}");
        assert_ne!(by_id("verbose")["verdict"], "not_evaluated", "{backend}");
        assert_eq!(by_id("short")["verdict"], "correct", "{backend}");
        // The quick view flags both and shows the figures; the cut case's
        // page (one click from it) says where it was cut.
        let page = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
        assert!(page.contains("<th>tokens/case</th>"), "{backend}");
        assert!(page.contains("個提示超出模型的上下文視窗"), "{backend}");
        let verbose = format!(
            "{}::verbose::r1",
            by_id("verbose")["case"]["prompt"].as_str().unwrap()
        );
        let (_, case_page) = case_pages::page_of(&s.run_dir(), &verbose);
        assert!(case_page.contains("✂ 回覆停在長度上限"), "{backend}");
    }
}

#[test]
fn a_fault_storm_is_classified_counted_and_never_stops_the_run() {
    let server = StubServer::start(|req| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let asked = req.last_user_message().unwrap_or("");
        let current = req.current_question();
        let q = if current.contains("Two Sum") {
            1
        } else if current.contains("greet") {
            2
        } else {
            3
        };
        let prompt = if asked.starts_with("你是") {
            1
        } else if asked.starts_with("請仔細") {
            2
        } else {
            3
        };
        match (prompt, q) {
            (1, 1) => Behaviour::Hang,
            (1, 2) => Behaviour::Drop,
            (1, 3) => Behaviour::Malformed,
            (2, 1) => Behaviour::Status(500, "{\"error\":\"out of memory\"}".into()),
            (2, 2) => Behaviour::Trickle,
            (2, 3) => Behaviour::Status(400, "{\"error\":\"bad request\"}".into()),
            _ => two_of_three(req),
        }
    });
    // 3 s: the hanging and trickling calls never end, and the stub's other
    // answers take milliseconds even on a loaded machine.
    let s = example_scratch(
        "[llm]\ntimeout_secs = 3\nqueue_timeout_secs = 3\nretries = 1\nbackoff_ms = 10\n",
    );
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    assert_eq!(summary["finished_cases"], 9, "{summary}");
    assert_eq!(summary["api_failures"]["timeout"], 2, "{summary}");
    assert_eq!(summary["api_failures"]["connection_failed"], 1, "{summary}");
    assert_eq!(summary["api_failures"]["api_error"], 3, "{summary}");
    assert_eq!(
        summary["prompt_results"]["prompt1"]["error_breakdown"]["api_error"],
        3
    );
    assert_eq!(summary["prompt_results"]["prompt3"]["accuracy"], 66.7);
    // One log line per failed case, naming the server and what to do; a
    // timeout names the wait that ran out and its setting.
    let failures: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("model call failed"))
        .collect();
    assert_eq!(failures.len(), 6, "{}", run.stderr);
    assert!(
        failures.iter().all(|l| l.contains(&server.url())),
        "{failures:#?}"
    );
    for setting in ["llm.queue_timeout_secs", "llm.timeout_secs"] {
        assert_eq!(
            failures.iter().filter(|l| l.contains(setting)).count(),
            1,
            "{setting}: {failures:#?}"
        );
    }
    assert!(
        case_pages::all_cases(&s.run_dir()).contains("connection_failed"),
        "the quick view's case pages show the failure classes"
    );
}

#[test]
fn auto_backend_replays_recorded_replies_when_no_ollama_answers() {
    let server = StubServer::start(two_of_three);
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\n",
        example_suite().display()
    ));
    // Record once, live (backend auto finds the stub Ollama).
    let live = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(live.status, Some(101), "{}", live.both());
    assert!(!live.stdout.contains("▶ replay"), "{}", live.stdout);
    let snaps = s.path().join("snapshots/example/stub-coder_1.5b");
    assert_eq!(
        std::fs::read_dir(&snaps).unwrap().count(),
        9,
        "one snapshot per case"
    );
    let snap = std::fs::read_to_string(snaps.join("prompt1__q1_two_sum__r1.snap")).unwrap();
    // The header every committed recording has, wherever the code lives.
    assert!(snap.starts_with("---\nsource: src/snapshot.rs\n"), "{snap}");
    assert!(
        snap.contains("description: \"stub-coder:1.5b via ollama at http://127.0.0.1:"),
        "{snap}"
    );
    assert!(snap.contains("model: \"stub-coder:1.5b\""), "{snap}");
    assert!(snap.ends_with(&format!("{TWO_SUM}\n")), "{snap}");
    drop(server);

    let host = dead_host();
    let replay = s.prompts(&[], &[("OLLAMA_HOST", &host)]);
    assert_eq!(replay.status, Some(101), "{}", replay.both());
    let announce: Vec<&str> = replay
        .stdout
        .lines()
        .filter(|l| l.starts_with("▶ replay"))
        .collect();
    assert_eq!(announce.len(), 1, "{}", replay.stdout);
    assert!(
        announce[0].contains(&format!("no Ollama answers at http://{host}")),
        "{}",
        announce[0]
    );
    assert!(
        announce[0].contains("9 個 stub-coder:1.5b 的錄製回覆"),
        "{}",
        announce[0]
    );
    assert!(announce[0].contains("ollama serve"), "{}", announce[0]);
    let summary = s.summary();
    assert_eq!(summary["backend"], "replay");
    for p in ["prompt1", "prompt2", "prompt3"] {
        assert_eq!(summary["prompt_results"][p]["accuracy"], 66.7, "{summary}");
    }
}

#[test]
fn auto_backend_reports_a_missing_model_instead_of_replaying() {
    let server = StubServer::start(two_of_three);
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"llama3:8b\"\n",
        example_suite().display()
    ));
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("ollama pull llama3:8b"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("▶ replay"));
}

#[test]
fn explicit_replay_without_recordings_is_an_error() {
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"m\"\nbackend = \"replay\"\n",
        example_suite().display()
    ));
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("no recorded replies of model m"),
        "{}",
        run.stderr
    );
}

/// `samples = 4`: each case draws four replies, each with its own seed
/// (llm.seed + sample - 1), case name, journal line and cache key, and
/// pass@k is Chen et al.'s estimator over them.
#[test]
fn samples_draw_seeded_replies_and_pass_at_k_is_the_estimator_over_them() {
    // Greet is right on even seeds only: 2 of 4 samples. Two Sum always,
    // the average never.
    let server = StubServer::start(|req: &Request| match two_of_three(req) {
        Behaviour::Reply(r) if r == GREET && req.json["options"]["seed"].as_i64() == Some(43) => {
            Behaviour::Reply("```python\nprint('Hello, World!')\n```".into())
        }
        Behaviour::Reply(r) if r == GREET && req.json["options"]["seed"].as_i64() == Some(45) => {
            Behaviour::Reply("```python\nprint('Hello')\n```".into())
        }
        other => other,
    });
    let s = example_scratch(
        "samples = 4\npass_at_k = [1, 2, 5]\n[llm]\ntemperature = 0.8\nseed = 42\n",
    );
    let env = [
        ("OLLAMA_HOST", server.url()),
        ("PROMPTEVAL_CACHE", "on".to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let run = s.prompts(&["prompt3"], &env);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let lines = case_lines(&run.stdout);
    assert_eq!(lines.len(), 12, "{lines:#?}");
    for sample in 1..=4 {
        assert!(
            lines.contains(&format!("test prompt3::q1_two_sum::r1::s{sample} ... ok")),
            "{lines:#?}"
        );
    }
    let chats = server.requests_to("/api/chat");
    let mut seeds: Vec<i64> = chats
        .iter()
        .map(|r| r.json["options"]["seed"].as_i64().expect("a seed"))
        .collect();
    seeds.sort();
    assert_eq!(seeds, [42, 42, 42, 43, 43, 43, 44, 44, 44, 45, 45, 45]);
    assert!(
        chats
            .iter()
            .all(|r| r.json["options"]["temperature"] == 0.8)
    );
    assert_eq!(s.journal_lines(), 12);

    let summary = s.summary();
    assert_eq!(summary["samples"], 4, "{summary}");
    let r = &summary["prompt_results"]["prompt3"];
    // Per question (n = 4): c = 4, 2, 0. pass@1 = (1 + 1/2 + 0) / 3;
    // pass@2 = (1 + (1 - C(2,2)/C(4,2)) + 0) / 3 = (1 + 5/6) / 3.
    assert_eq!(r["pass_at_k"]["pass@1"], 0.5, "{summary}");
    assert_eq!(r["pass_at_k"]["pass@2"], 0.6111, "{summary}");
    assert!(
        r["pass_at_k"].get("pass@5").is_none(),
        "n = 4 < 5: {summary}"
    );
    let interval = r["pass_at_k_interval"]["pass@1"]
        .as_array()
        .expect("an interval");
    let (lo, hi) = (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
    assert!(
        lo <= 0.5 && 0.5 <= hi && lo >= 0.0 && hi <= 1.0,
        "{interval:?}"
    );
    assert_eq!(
        r["unstable_questions"],
        serde_json::json!(["q2_greet_world"])
    );
    assert!(run.stdout.contains("pass@2 0.611"), "{}", run.stdout);
    assert!(s.run_dir().join("prompt3/question_2_sample_4.py").is_file());

    // Every sample has its own cache entry: a rerun asks the server nothing.
    let before = server.requests_to("/api/chat").len();
    let again = s.prompts(&["prompt3"], &env);
    assert_eq!(again.status, Some(101), "{}", again.both());
    assert_eq!(server.requests_to("/api/chat").len(), before);
}

/// Progress lines on stderr (whole lines: libtest's stdout is untouched).
#[test]
fn progress_lines_count_cases_accuracy_and_the_cache() {
    let server = StubServer::start(two_of_three);
    let s = example_scratch("");
    let run = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("PROMPTEVAL_PROGRESS", "0")],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert_eq!(lines.len(), 9, "{}", run.stderr);
    let last = lines[8];
    assert!(
        last.starts_with("progress: 9/9 cases (100.0%) · "),
        "{last}"
    );
    for p in ["prompt1", "prompt2", "prompt3"] {
        assert!(last.contains(&format!("{p} 66.7% (2/3)")), "{last}");
    }
    assert!(
        last.contains("0 model call(s) in flight · 0 from the cache"),
        "{last}"
    );
    assert!(lines[0].contains("ETA"), "{}", lines[0]);
    assert!(
        !run.stdout.contains("progress:"),
        "libtest's output stays its own"
    );
    let quiet = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_PROGRESS", "off"),
        ],
    );
    assert!(!quiet.stderr.contains("progress: "), "{}", quiet.stderr);
}

/// `[[endpoints]]`: two servers share the cases; one drops every request
/// after its first, is taken out of the run, and its cases go to the other:
/// every case is evaluated, none is counted as the model's failure.
#[test]
fn endpoints_share_the_load_and_survive_one_dying() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // The first endpoint answers slowly, so both take cases.
    let a = StubServer::start(|req: &Request| match two_of_three(req) {
        Behaviour::Reply(r) if req.path == "/api/chat" => {
            Behaviour::Queued(std::time::Duration::from_millis(300), r)
        }
        other => other,
    });
    let answered = AtomicUsize::new(0);
    let b = StubServer::start(move |req: &Request| {
        if req.path == "/api/chat" && answered.fetch_add(1, Ordering::SeqCst) >= 1 {
            return Behaviour::Drop;
        }
        two_of_three(req)
    });
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[llm]\nretries = 0\n[[endpoints]]\nurl = \"{}\"\nslots = 1\n[[endpoints]]\nurl = \"{}\"\nslots = 1\n",
        example_suite().display(),
        a.url(),
        b.url()
    ));
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["accuracy"], 66.7, "{summary}");
        assert_eq!(r["total_questions"], 3, "{summary}");
        assert!(r["error_breakdown"].get("api_error").is_none(), "{summary}");
    }
    assert!(
        b.requests_to("/api/chat").len() >= 2,
        "the second endpoint took cases"
    );
    assert!(a.requests_to("/api/chat").len() >= 7);
    assert!(
        run.stderr.contains("endpoint taken out of the run"),
        "{}",
        run.stderr
    );
    assert!(
        summary["endpoint"].as_str().unwrap().contains("(1 slots)"),
        "{summary}"
    );
}
