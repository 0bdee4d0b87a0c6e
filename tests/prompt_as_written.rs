//! What the model is sent is what the user wrote, byte for byte, and no
//! verdict is one the model did not earn: through `cargo test --test
//! prompts` against the scripted Ollama, which records every request.
//!
//! - with the history off, the user message is the template with
//!   `{question}` replaced, wherever the placeholder stands, and the system
//!   prompt is the one that applies (the template's, the suite's, harness.toml's);
//! - with it on, spec §3.2's layout, text after `{question}` kept after it;
//! - a suite's `settings` say how it runs, the environment overrides them,
//!   and the run's first lines say where a setting came from;
//! - an entry-point question written in plain language is judged as its
//!   Python-prompt twin is;
//! - both ways Ollama cuts a long prompt make the case not evaluated.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use prompts_cli::Scratch;
use serde_json::{Value, json};
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const TOML_SYSTEM: &str = "System prompt of harness.toml.";
const SUITE_SYSTEM: &str = "System prompt of the suite.";
const OWN_SYSTEM: &str = "System prompt of the template.";

const START: &str = "{question}\n\nReply with one python code block.";
const MIDDLE: &str = "Solve the task below.\n\n{question}\n\nReply with one python code block.";
const END: &str = "Solve the task below.\n\n{question}";

const Q1: &str = "Print the number one.";
const Q2: &str = "Print the number two.";

/// A model that prints what each question asks for.
fn solver(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let asked = req.current_question();
    let n = if asked.contains("number one") { 1 } else { 2 };
    Behaviour::Reply(format!("```python\nprint({n})\n```"))
}

/// A scratch folder with `suite` as its suite and harness.toml's own
/// system prompt, asking the scripted Ollama; `llm` adds to the `[llm]`
/// table, `tables` adds tables.
fn scratch_with(suite: &Value, llm: &str, tables: &str) -> Scratch {
    let s = Scratch::new(&format!(
        "suite = \"suite.json\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\ncache = false\n[llm]\nsystem_prompt = \"{TOML_SYSTEM}\"\n{llm}\n{tables}\n"
    ));
    s.write("suite.json", &serde_json::to_string_pretty(suite).unwrap());
    s
}

fn scratch(suite: &Value, tables: &str) -> Scratch {
    scratch_with(suite, "", tables)
}

fn placements_suite(settings: Value) -> Value {
    json!({
        "settings": settings,
        "start": START,
        "middle": {"template": MIDDLE, "system_prompt": OWN_SYSTEM},
        "end": END,
        "questions": [
            {"id": "one", "question": Q1, "answer": "1"},
            {"id": "two", "question": Q2, "answer": "2"},
        ]
    })
}

/// The (system, user) messages of every chat request, in the order sent
/// per prompt (one chain per prompt: its questions in order).
fn sent(server: &StubServer) -> Vec<(Option<String>, String)> {
    server
        .requests_to("/api/chat")
        .iter()
        .map(|r| {
            let messages = r.json["messages"].as_array().unwrap();
            assert!(messages.len() <= 2, "{messages:?}");
            let system = messages
                .iter()
                .find(|m| m["role"] == "system")
                .map(|m| m["content"].as_str().unwrap().to_string());
            (system, r.last_user_message().unwrap().to_string())
        })
        .collect()
}

#[test]
fn with_the_history_off_the_model_gets_each_template_as_written() {
    let server = StubServer::start(solver);
    let s = scratch(
        &placements_suite(json!({"system_prompt": SUITE_SYSTEM})),
        "",
    );
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_HISTORY", "off"),
            ("INSTA_UPDATE", "always"),
        ],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    let mut got = sent(&server);
    got.sort();
    let mut want = Vec::new();
    for (template, system) in [
        (START, SUITE_SYSTEM),
        (MIDDLE, OWN_SYSTEM),
        (END, SUITE_SYSTEM),
    ] {
        for q in [Q1, Q2] {
            want.push((Some(system.to_string()), template.replace("{question}", q)));
        }
    }
    want.sort();
    assert_eq!(got, want);
    // The recorded request is what was sent: no unused system prompt.
    let snap_path = s
        .path()
        .join("snapshots/suite/stub-coder_1.5b/middle__one__r1.snap");
    let snap = std::fs::read_to_string(&snap_path).unwrap_or_else(|e| {
        panic!("{}: {e}\n{}", snap_path.display(), run.both());
    });
    assert!(snap.contains(OWN_SYSTEM), "{snap}");
    assert!(!snap.contains(TOML_SYSTEM), "{snap}");
    assert!(!snap.contains("timeout_secs"), "{snap}");
}

#[test]
fn with_no_system_prompt_anywhere_none_is_sent() {
    let server = StubServer::start(solver);
    let s = Scratch::new(&format!(
        "suite = \"suite.json\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n"
    ));
    s.write(
        "suite.json",
        &json!({"end": END, "questions": [{"id": "one", "question": Q1, "answer": "1"}]})
            .to_string(),
    );
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_HISTORY", "off"),
        ],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert_eq!(sent(&server), [(None, END.replace("{question}", Q1))]);
}

#[test]
fn with_the_history_on_text_after_the_question_stays_after_it() {
    let server = StubServer::start(solver);
    let s = scratch(&placements_suite(json!({})), "");
    let run = s.prompts(&["middle"], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    let got = sent(&server);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0.as_deref(), Some(OWN_SYSTEM));
    // The first question: spec §3.2's layout, no history yet.
    assert_eq!(
        got[0].1,
        "Solve the task below.\n\n現在請解決新問題：Print the number one.\n\nReply with one python code block."
    );
    let second = &got[1].1;
    assert!(
        second.starts_with("Solve the task below.\n\n之前的學習經驗：\n\n問題1: Print the number one.\n我的回答: print(1)\n結果: ✅ PASSED (期望: 1, 實際: 1)"),
        "{second}"
    );
    assert!(
        second.ends_with(
            "\n\n---\n現在請解決新問題：Print the number two.\n\nReply with one python code block."
        ),
        "{second}"
    );
}

#[test]
fn a_suite_says_how_it_runs_and_the_environment_overrides_it() {
    let server = StubServer::start(solver);
    let suite = placements_suite(json!({"system_prompt": SUITE_SYSTEM, "history": false}));
    let s = scratch(&suite, "[history]\nenabled = true\n");
    let run = s.prompts(&["end"], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert!(
        run.stdout.contains("history = off (the suite's setting)"),
        "{}",
        run.stdout
    );
    let got = sent(&server);
    assert_eq!(
        got.iter().map(|(_, u)| u.as_str()).collect::<Vec<_>>(),
        [END.replace("{question}", Q1), END.replace("{question}", Q2)]
    );

    // PROMPTEVAL_HISTORY wins over the suite, and the first lines say so.
    let server = StubServer::start(solver);
    let run = s.prompts(
        &["end"],
        &[("OLLAMA_HOST", &server.url()), ("PROMPTEVAL_HISTORY", "on")],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert!(
        run.stdout
            .contains("history = off (the suite's setting; PROMPTEVAL_HISTORY=on overrides it)"),
        "{}",
        run.stdout
    );
    let got = sent(&server);
    assert!(got[1].1.contains("之前的學習經驗："), "{}", got[1].1);
}

/// Two HumanEval-like problems in the documented shape (a Python prompt)
/// and the same two in plain language beside the signature.
fn shapes_suite() -> Value {
    let tests_add = "def check(candidate):\n    assert candidate([1, 2, 3]) == 6\n    assert candidate([]) == 0\n\ncheck(add_all)\n";
    let tests_rev =
        "def check(candidate):\n    assert candidate('abc') == 'cba'\n\ncheck(reverse)\n";
    json!({
        "settings": {"history": false},
        "p": "Complete the function.\n{question}",
        "questions": [
            {"id": "add_py", "question": "from typing import List\n\n\ndef add_all(xs: List[int]) -> int:\n    \"\"\"Return the sum of xs.\"\"\"\n",
             "entry_point": "add_all", "tests": tests_add},
            {"id": "rev_py", "question": "def reverse(s: str) -> str:\n    \"\"\"Return s reversed.\"\"\"\n",
             "entry_point": "reverse", "tests": tests_rev},
            {"id": "add_text", "question": "Write a function add_all(xs) that returns the sum of the list of integers xs (0 for an empty list).",
             "entry_point": "add_all", "tests": tests_add},
            {"id": "rev_text", "question": "Write `def reverse(s: str) -> str:` returning the string s reversed.",
             "entry_point": "reverse", "tests": tests_rev},
        ]
    })
}

/// A model that replies with a whole function for `add_all` and a body
/// for `reverse`: right ones, or wrong ones.
fn shape_solver(right: bool) -> impl Fn(&Request) -> Behaviour + Send + Sync + 'static {
    move |req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let asked = req.last_user_message().unwrap_or("");
        let code = match (asked.contains("add_all"), right) {
            (true, true) => {
                "from typing import List\n\ndef add_all(xs: List[int]) -> int:\n    return sum(xs)"
            }
            (true, false) => "def add_all(xs):\n    return 0",
            (false, true) => "return s[::-1]",
            (false, false) => "return s",
        };
        Behaviour::Reply(format!("```python\n{code}\n```"))
    }
}

#[test]
fn a_question_in_plain_language_is_judged_as_its_python_prompt_twin() {
    let server = StubServer::start(shape_solver(true));
    let s = scratch(&shapes_suite(), "");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    let summary = s.summary();
    assert_eq!(
        summary["prompt_results"]["p"]["correct_answers"], 4,
        "{summary}"
    );
    assert!(
        run.stderr.contains("2 entry-point question(s)"),
        "{}",
        run.stderr
    );

    // A wrong reply is a wrong answer in both shapes, never a syntax error
    // of the harness's making.
    let server = StubServer::start(shape_solver(false));
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let breakdown = &summary["prompt_results"]["p"]["error_breakdown"];
    assert_eq!(breakdown["wrong_answer"], 4, "{summary}");
    assert_eq!(breakdown.get("syntax_error"), None, "{summary}");
}

#[test]
fn tests_that_do_not_compile_refuse_the_suite_before_any_case() {
    let server = StubServer::start(shape_solver(true));
    let mut suite = shapes_suite();
    suite["questions"][1]["tests"] =
        json!("def check(candidate):\n    assert candidate('abc') == 'cba'\ncheck(reverse");
    let s = scratch(&suite, "");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("suite.json:")
            && run
                .stderr
                .contains("question 2 (`rev_py`): its `tests` are not valid Python")
            && run.stderr.contains("fix the tests"),
        "{}",
        run.stderr
    );
    assert!(server.requests_to("/api/chat").is_empty());
}

/// The spec example with the history on and a window too small for the
/// later questions with their history: (case name, whether the scripted
/// server cut its prompt, verdict, api failure) per case.
fn cut_run(llama_runner: bool, fit_window: bool) -> Vec<(String, bool, String, Value)> {
    const WINDOW: u64 = 120;
    let server = StubServer::start(|req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        Behaviour::Reply("```python\nprint([0, 1])\n```".into())
    });
    if llama_runner {
        server.cut_like_the_llama_runner();
    }
    let suite: Value =
        serde_json::from_str(&std::fs::read_to_string(prompts_cli::example_suite()).unwrap())
            .unwrap();
    let s = scratch_with(
        &suite,
        &format!("num_ctx = {WINDOW}\nnum_predict = 16"),
        &format!("[history]\nfit_window = {fit_window}"),
    );
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert!(matches!(run.status, Some(0 | 101)), "{}", run.both());
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    journal
        .lines()
        .map(|line| {
            let r: Value = serde_json::from_str(line).unwrap();
            // The scripted server's own count: 4 characters a token.
            let chars = r["prompt"].as_str().unwrap().chars().count()
                + r["system_prompt"].as_str().map_or(0, |s| s.chars().count());
            let cut = (chars as u64 / 4 + 1) > WINDOW;
            (
                r["name"].as_str().unwrap().to_string(),
                cut,
                r["verdict"].as_str().unwrap().to_string(),
                r["api_failure"].clone(),
            )
        })
        .collect()
}

#[test]
fn both_ways_ollama_cuts_a_prompt_leave_the_case_not_evaluated() {
    for llama_runner in [false, true] {
        let cases = cut_run(llama_runner, false);
        assert_eq!(cases.len(), 9);
        let cut = cases.iter().filter(|c| c.1).count();
        assert!(cut > 0 && cut < 9, "the test needs both kinds: {cases:?}");
        for (name, cut, verdict, failure) in &cases {
            if *cut {
                assert_eq!(
                    (verdict.as_str(), failure.as_str()),
                    ("not_evaluated", Some("prompt_too_long")),
                    "{name} (llama runner: {llama_runner})"
                );
            } else {
                assert_ne!(verdict, "not_evaluated", "{name}");
            }
        }
    }
}

#[test]
fn a_fitted_history_keeps_prompts_inside_the_window() {
    for llama_runner in [false, true] {
        let cases = cut_run(llama_runner, true);
        assert_eq!(cases.len(), 9);
        for (name, cut, verdict, _) in &cases {
            assert!(!cut, "{name} was cut although the history is fitted");
            assert_ne!(verdict, "not_evaluated", "{name}");
        }
    }
}
