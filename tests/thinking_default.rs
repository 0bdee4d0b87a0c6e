//! The spec's own run with nothing set: a model that thinks by default
//! (Ollama 0.13 and later think unless told not to), harness.toml naming
//! only the model. A scripted Ollama model reasons for 1,500 words (2,000
//! tokens) before each answer, the plain model's answers (two of three
//! right); a budget below its reasoning ends inside it, with no answer.
//!
//! - The server says it thinks (`/api/show` lists "thinking"): the first
//!   lines say so and what budget was chosen, every request carries it,
//!   and the cases are judged on their answers (66.7 % per prompt).
//! - The server says nothing (no `/api/show`): the first reply shows the
//!   reasoning; that case is asked again with the fitted budget, the
//!   later ones are asked with it, and the run says so once.
//! - A budget the user set is kept (the cases read `no_answer`, with the
//!   warning in the first lines and before the table).
//! - A model that does not think keeps every default, so its requests
//!   (and recordings, and cached replies) keep their keys.
//! - The recordings of a thinking model replay with their budget.

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use example_model::{example_scratch, two_of_three};
use serde_json::json;
use stub_server::{Behaviour, Request, StubServer};

/// The tokens its reasoning takes (1,500 words).
const REASONING_TOKENS: u64 = 2_000;

/// 1,500 words of reasoning, cut to `tokens` of its 2,000.
fn reasoning(tokens: u64) -> String {
    let words = (tokens * 1_500 / REASONING_TOKENS) as usize;
    vec!["hmm"; words].join(" ")
}

/// The plain model's answer to `req`.
fn answer_of(req: &Request) -> String {
    match two_of_three(req) {
        Behaviour::Reply(text) => text,
        other => panic!("unexpected {other:?}"),
    }
}

/// Ollama's streamed reply of a model that thinks unless `think` is false:
/// the reasoning, then the answer, each only as far as `num_predict` goes.
fn thinking_by_default(req: &Request) -> Behaviour {
    let answer = answer_of(req);
    let budget = req.json["options"]["num_predict"]
        .as_u64()
        .unwrap_or(u64::MAX);
    let thinks = req.json["think"] != json!(false);
    let (reasoned, content, done_reason, eval) = match thinks {
        false => (String::new(), answer.clone(), "stop", 60),
        true if budget < REASONING_TOKENS + 60 => (
            reasoning(budget.min(REASONING_TOKENS)),
            String::new(),
            "length",
            budget,
        ),
        true => (
            reasoning(REASONING_TOKENS),
            answer.clone(),
            "stop",
            REASONING_TOKENS + 60,
        ),
    };
    let model = &req.json["model"];
    let mut body = String::new();
    for (thinking, content) in [(reasoned.as_str(), ""), ("", content.as_str())] {
        let line = json!({"model": model, "message": {"role": "assistant",
            "content": content, "thinking": thinking}, "done": false});
        body.push_str(&format!("{line}\n"));
    }
    let (prompt, _) = stub_server::stub_tokens(req, &answer);
    let last = json!({"model": model, "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": done_reason, "prompt_eval_count": prompt,
        "eval_count": eval, "eval_duration": 1_000_000u64});
    body.push_str(&format!("{last}\n"));
    Behaviour::Raw("application/x-ndjson", body)
}

/// `/api/show` as Ollama 0.13 answers it for gpt-oss:20b, or (`thinks`
/// false) for a plain coder.
fn shown(thinks: bool) -> Behaviour {
    let capabilities = match thinks {
        true => json!(["completion", "tools", "thinking"]),
        false => json!(["completion", "insert"]),
    };
    Behaviour::Raw(
        "application/json",
        json!({"capabilities": capabilities, "model_info": {
            "general.architecture": "gptoss", "gptoss.context_length": 131072}})
        .to_string(),
    )
}

/// A server of the thinking model; `show` answers `/api/show` (None: it
/// has none, a 404).
fn server(show: Option<bool>) -> StubServer {
    StubServer::start(move |req: &Request| match (req.path.as_str(), show) {
        ("/api/chat", _) => thinking_by_default(req),
        ("/api/show", Some(thinks)) => shown(thinks),
        _ => Behaviour::Default,
    })
}

fn accuracy_of_every_prompt(summary: &serde_json::Value) -> Vec<f64> {
    ["prompt1", "prompt2", "prompt3"]
        .iter()
        .map(|p| summary["prompt_results"][p]["accuracy"].as_f64().unwrap())
        .collect()
}

/// The run scored one question wrong (the plain model's answers), its
/// first lines say `model` thinks and what was fitted, and each of its 9
/// requests carried the fitted budget and window.
fn assert_fitted_for_reasoning(run: &prompts_cli::Run, server: &StubServer, model: &str) {
    assert_eq!(
        run.status,
        Some(101),
        "one question is wrong:\n{}",
        run.both()
    );
    let first = run.stdout.split("running").next().unwrap_or_default();
    let fitted = format!(
        "{model} thinks (/api/show lists \"thinking\"; think unset: the server's default \
         applies): llm.num_ctx = 20480, llm.num_predict = 16384, llm.timeout_secs = 1140"
    );
    assert!(
        first.contains(&fitted) && !first.contains("the budget set in harness.toml is kept"),
        "the first lines say it thinks and what was fitted:\n{}",
        run.stdout
    );
    let sent = options(server);
    assert_eq!(sent.len(), 9, "{sent:?}");
    for o in &sent {
        assert_eq!(
            (&o["num_predict"], &o["num_ctx"]),
            (&json!(16384), &json!(20480)),
            "{o}"
        );
    }
}

fn options(server: &StubServer) -> Vec<serde_json::Value> {
    server
        .requests_to("/api/chat")
        .iter()
        .map(|r| r.json["options"].clone())
        .collect()
}

#[test]
fn a_model_that_says_it_thinks_gets_a_budget_for_reasoning_and_is_judged_on_its_answers() {
    let server = server(Some(true));
    let s = example_scratch("");
    let run = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_fitted_for_reasoning(&run, &server, "stub-coder:1.5b");
    assert!(
        server
            .requests_to("/api/chat")
            .iter()
            .all(|r| r.json.get("think").is_none()),
        "think stays unset: the server's default applies"
    );
    let summary = s.summary();
    assert_eq!(accuracy_of_every_prompt(&summary), [66.7; 3], "{summary}");
    let info = std::fs::read_to_string(s.run_dir().join("run_info.json")).unwrap();
    assert!(
        info.contains("\"llm.num_predict\": \"16384\""),
        "the run's settings (what a baseline must share) are what the cases were asked \
         with: {info}"
    );

    // Replayed with no server: the recordings' budget, the same verdicts.
    drop(server);
    let replay = s.prompts(&[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(replay.status, Some(101), "{}", replay.both());
    assert!(
        replay
            .stdout
            .contains("thinks (its recordings carry reasoning; think unset"),
        "{}",
        replay.stdout
    );
    assert_eq!(accuracy_of_every_prompt(&s.summary()), [66.7; 3]);
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    assert_eq!(journal.matches("\"snapshot\":\"replayed\"").count(), 9);
}

#[test]
fn a_server_that_says_nothing_is_fitted_at_the_first_reply_that_reasons() {
    let server = server(None);
    let s = example_scratch("");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let sent = options(&server);
    assert_eq!(
        sent.len(),
        10,
        "the first case is asked twice, the others once: {sent:?}"
    );
    assert_eq!(sent[0]["num_predict"], 1024, "{:?}", sent[0]);
    assert!(
        sent[1..].iter().all(|o| o["num_predict"] == 16384),
        "{sent:?}"
    );
    assert_eq!(
        run.stderr.matches("carried reasoning").count()
            + run.stdout.matches("carried reasoning").count(),
        1,
        "said once:\n{}",
        run.both()
    );
    assert!(
        run.both().contains("asked again, with every later case"),
        "{}",
        run.both()
    );
    assert_eq!(accuracy_of_every_prompt(&s.summary()), [66.7; 3]);
}

#[test]
fn a_budget_the_user_set_is_kept_and_its_no_answers_are_said() {
    let server = server(Some(true));
    let s = example_scratch("[llm]\nnum_predict = 40\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(options(&server).iter().all(|o| o["num_predict"] == 40));
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["error_breakdown"], json!({"no_answer": 3}), "{summary}");
    }
    let (first, rest) = run.stdout.split_once("running").unwrap_or_default();
    assert!(
        first.contains("stub-coder:1.5b thinks (/api/show lists \"thinking\"")
            && !first.contains("llm.num_predict = 16384")
            && first.contains("llm.num_predict = 40 (set) may be too small for its reasoning"),
        "said in the first lines:\n{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "reasons before it answers, and prompt1::q1_two_sum::r1 ran out of its token budget"
        ),
        "said at the first case, before the table:\n{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("reasons before it answers").count(),
        1,
        "once"
    );
    assert!(
        rest.contains("spent the token budget of 40 tokens inside the reasoning")
            || rest.contains("的 token 預算"),
        "and counted with the report:\n{rest}"
    );
}

#[test]
fn a_model_that_does_not_think_keeps_every_default() {
    let server = StubServer::start(|req: &Request| match req.path.as_str() {
        "/api/show" => shown(false),
        _ => two_of_three(req),
    });
    let s = example_scratch("");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(!run.both().contains("thinks"), "{}", run.both());
    for o in options(&server) {
        assert_eq!(o["num_predict"], 1024, "{o}");
        assert_eq!(o["num_ctx"], 4096, "{o}");
    }
    assert_eq!(accuracy_of_every_prompt(&s.summary()), [66.7; 3]);
}

/// A scratch folder holding the repository's own harness.toml, unchanged,
/// and the spec example it names: the run a new user starts from a clone.
fn shipped_scratch() -> prompts_cli::Scratch {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = prompts_cli::Scratch::new("");
    let shipped = std::fs::read_to_string(root.join("harness.toml")).unwrap();
    s.write("harness.toml", &shipped);
    std::fs::create_dir_all(s.path().join("benches-data")).unwrap();
    std::fs::copy(
        prompts_cli::example_suite(),
        s.path().join("benches-data/example.json"),
    )
    .unwrap();
    s
}

/// The spec's own run as a clone ships it: `PROMPTEVAL_MODEL=gpt-oss:20b
/// cargo test --test prompts` with the repository's harness.toml. The
/// thinking model scores as the plain model does on the spec example, the
/// first lines say it thinks and what was fitted; the plain model is asked
/// exactly as before (1024 tokens, a window of 4096), so every recording
/// made with the file keeps its key.
#[test]
fn the_shipped_harness_toml_fits_a_thinking_model_and_keeps_a_plain_ones_requests() {
    let server = server(Some(true));
    server.set_models(&["gpt-oss:20b"]);
    let s = shipped_scratch();
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_MODEL", "gpt-oss:20b"),
        ],
    );
    assert_fitted_for_reasoning(&run, &server, "gpt-oss:20b");
    let thinking = accuracy_of_every_prompt(&s.summary());

    let plain = StubServer::start(|req: &Request| match req.path.as_str() {
        "/api/show" => shown(false),
        _ => two_of_three(req),
    });
    plain.set_models(&["qwen2.5-coder:1.5b"]);
    let p = shipped_scratch();
    let run = p.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &plain.url()),
            ("PROMPTEVAL_MODEL", "qwen2.5-coder:1.5b"),
        ],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(!run.both().contains("thinks"), "{}", run.both());
    let sent = options(&plain);
    assert_eq!(sent.len(), 9);
    for o in sent {
        assert_eq!(
            (&o["num_predict"], &o["num_ctx"]),
            (&json!(1024), &json!(4096)),
            "{o}"
        );
    }
    let plain_accuracy = accuracy_of_every_prompt(&p.summary());
    assert_eq!(plain_accuracy, [66.7; 3]);
    assert_eq!(
        thinking, plain_accuracy,
        "the thinking model scores as the plain one"
    );
}

/// A user's own file with the old budget: kept, warned in the first
/// lines, and every case's `no_answer` named; the window, left unset, is
/// fitted around that budget.
#[test]
fn a_users_own_num_predict_of_1024_is_kept_warned_and_its_no_answers_named() {
    let server = server(Some(true));
    let s = example_scratch("[llm]\nnum_predict = 1024\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let sent = options(&server);
    assert_eq!(sent.len(), 9);
    for o in &sent {
        assert_eq!(o["num_predict"], 1024, "kept: {o}");
        assert_eq!(o["num_ctx"], 5120, "the budget and the prompt's room: {o}");
    }
    let first = run.stdout.split("running").next().unwrap_or_default();
    assert!(
        first.contains("llm.num_predict = 1024 (set) may be too small for its reasoning"),
        "{}",
        run.stdout
    );
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["accuracy"], 0.0, "{summary}");
        assert_eq!(r["error_breakdown"], json!({"no_answer": 3}), "{summary}");
    }
}

/// A window the user set too small for reasoning is said in the first
/// lines, with the fix; the budget is fitted inside it.
#[test]
fn a_users_small_window_is_said_with_the_fix() {
    let server = server(Some(true));
    let s = example_scratch("[llm]\nnum_ctx = 4096\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let first = run.stdout.split("running").next().unwrap_or_default();
    assert!(
        first.contains("llm.num_ctx = 4096 (set) leaves about 2048 tokens for a reply")
            && first.contains("raise it (num_ctx = 20480) or leave it unset"),
        "{}",
        run.stdout
    );
    assert!(
        options(&server)
            .iter()
            .all(|o| o["num_predict"] == 2048 && o["num_ctx"] == 4096)
    );
}
