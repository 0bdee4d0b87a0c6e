//! Reasoning models end to end through `cargo test --test prompts`: a
//! scripted reasoning model, whose reasoning holds a decoy python block,
//! answers the spec example through Ollama (streamed `message.thinking`)
//! and through an OpenAI-compatible server in each shape servers send
//! reasoning in. Only the answer is judged, carried in the history and
//! extracted; the reasoning is kept, shown and counted; a budget spent
//! reasoning is `no_answer`; one model at two `think` levels runs side by
//! side under two labels.

#[path = "support/case_pages.rs"]
mod case_pages;
#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use example_model::two_of_three;
use prompts_cli::{Scratch, example_suite};
use serde_json::json;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

/// The reasoning every reply carries: a draft that would print the wrong
/// thing for every question if it were run.
const DECOY: &str = "Let me draft it first.\n```python\nprint('decoy')\n```\nNo, better:";

/// The plain model's answer to the request (example_model's two_of_three).
fn answer_of(req: &Request) -> String {
    let mut r = req.clone();
    r.path = "/api/chat".into();
    match two_of_three(&r) {
        Behaviour::Reply(text) => text,
        other => panic!("unexpected {other:?}"),
    }
}

/// Ollama's stream: thinking chunks first, then the answer.
fn ollama_thinking(req: &Request, answer: &str, done_reason: &str) -> Behaviour {
    let mut body = String::new();
    for (thinking, content) in [(DECOY, ""), ("", answer)] {
        let line = json!({"model": req.json["model"], "message": {"role": "assistant",
            "content": content, "thinking": thinking}, "done": false});
        body.push_str(&format!("{line}\n"));
    }
    // The stub's own prompt count: a made-up constant would read as a cut prompt.
    let (prompt, completion) = stub_server::stub_tokens(req, answer);
    let last = json!({"model": req.json["model"], "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": done_reason, "prompt_eval_count": prompt,
        "eval_count": completion + 30, "eval_duration": 1_000_000u64});
    body.push_str(&format!("{last}\n"));
    Behaviour::Raw("application/x-ndjson", body)
}

/// An OpenAI-compatible stream whose deltas are `deltas`.
fn openai_stream(deltas: &[serde_json::Value], usage: serde_json::Value) -> Behaviour {
    let mut body = String::new();
    for delta in deltas {
        let event = json!({"model": STUB_MODEL, "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        body.push_str(&format!("data: {event}\n\n"));
    }
    let last = json!({"model": STUB_MODEL, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let usage = json!({"model": STUB_MODEL, "choices": [], "usage": usage});
    body.push_str(&format!(
        "data: {last}\n\ndata: {usage}\n\ndata: [DONE]\n\n"
    ));
    Behaviour::Raw("text/event-stream", body)
}

fn scratch(backend: &str, server: &StubServer, extra: &str) -> Scratch {
    Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"{backend}\"\n[openai]\nbase_url = \"{}\"\n{extra}",
        example_suite().display(),
        server.openai_url()
    ))
}

/// Every message the server received after the first question of each
/// chain: none may carry the reasoning.
fn assert_no_reasoning_in_prompts(server: &StubServer, path: &str) {
    let chats = server.requests_to(path);
    assert_eq!(chats.len(), 9);
    for req in chats {
        let sent = req.json["messages"].to_string();
        assert!(!sent.contains("decoy") && !sent.contains("draft"), "{sent}");
    }
}

#[test]
fn ollama_thinking_is_kept_apart_judged_never_and_counted() {
    let server = StubServer::start(|req: &Request| match req.path.as_str() {
        "/api/chat" => ollama_thinking(req, &answer_of(req), "stop"),
        _ => Behaviour::Default,
    });
    let s = scratch("ollama", &server, "[llm]\nthink = \"high\"\n");
    let run = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains("think = \"high\""),
        "the first lines say it:\n{}",
        run.stdout
    );
    let chats = server.requests_to("/api/chat");
    assert!(
        chats.iter().all(|r| r.json["think"] == "high"),
        "{:?}",
        chats[0].json
    );
    // The verdicts of the plain model: two of three per prompt.
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["accuracy"], 66.7, "{p}: {summary}");
        let tokens = &r["tokens"];
        assert!(tokens["reasoning"].as_u64().unwrap() > 0, "{tokens}");
        assert_eq!(
            tokens["reasoning_estimated"], true,
            "Ollama counts no reasoning apart"
        );
    }
    assert_no_reasoning_in_prompts(&server, "/api/chat");
    // Kept with the case: question_N.py and the snapshot.
    let py = std::fs::read_to_string(s.run_dir().join("prompt1/question_1.py")).unwrap();
    assert!(
        py.contains("LLM 推理過程") && py.contains("# print('decoy')"),
        "{py}"
    );
    let snap_dir = s.path().join("snapshots/example/stub-coder_1.5b");
    let snaps: Vec<String> = std::fs::read_dir(&snap_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", snap_dir.display()))
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(snaps.len(), 9);
    assert!(snaps.iter().all(|s| s.contains("decoy")), "{}", snaps[0]);
    let detailed =
        std::fs::read_to_string(s.run_dir().join("report/detailed_report.json")).unwrap();
    assert!(detailed.contains("\"reasoning\"") && detailed.contains("decoy"));
    // Each case's page, linked from the quick view, shows its reasoning.
    assert!(case_pages::all_cases(&s.run_dir()).contains("<details class=\"reasoning\">"));
}

#[test]
fn a_budget_spent_reasoning_is_no_answer_for_every_case() {
    let server = StubServer::start(|req: &Request| match req.path.as_str() {
        "/api/chat" => ollama_thinking(req, "", "length"),
        _ => Behaviour::Default,
    });
    let s = scratch("ollama", &server, "[llm]\nnum_predict = 40\n");
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    for p in ["prompt1", "prompt2", "prompt3"] {
        let r = &summary["prompt_results"][p];
        assert_eq!(r["error_breakdown"], json!({"no_answer": 3}), "{summary}");
        assert_eq!(r["total_questions"], 3, "no_answer is in the denominator");
        assert_eq!(r["truncated_replies"], 0, "not judged as a cut reply");
    }
    let csv = std::fs::read_to_string(s.run_dir().join("report/summary.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",api_error,no_answer"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().ends_with(",0,3"), "{csv}");
    assert!(
        run.stdout
            .contains("9 case(s) spent the token budget of 40 tokens inside the reasoning")
            || run.stdout.contains("9 個案例的 token 預算"),
        "warned once with the count:\n{}",
        run.stdout
    );
}

#[test]
fn every_openai_compatible_shape_is_split_the_same_way() {
    type Shape = fn(&str) -> Vec<serde_json::Value>;
    let shapes: [(&str, Shape); 4] = [
        ("reasoning_content", |a| {
            vec![json!({"reasoning_content": DECOY}), json!({"content": a})]
        }),
        ("reasoning", |a| {
            vec![json!({"reasoning": DECOY}), json!({"content": a})]
        }),
        ("<think>", |a| {
            vec![json!({"content": format!("<think>{DECOY}</think>\n\n{a}")})]
        }),
        ("harmony", |a| {
            vec![json!({"content": format!(
                "<|channel|>analysis<|message|>{DECOY}<|end|><|start|>assistant<|channel|>final<|message|>{a}<|return|>"
            )})]
        }),
    ];
    for (name, shape) in shapes {
        let server = StubServer::start(move |req: &Request| match req.path.as_str() {
            "/v1/chat/completions" => {
                let answer = answer_of(req);
                let (prompt, completion) = stub_server::stub_tokens(req, &answer);
                openai_stream(
                    &shape(&answer),
                    json!({"prompt_tokens": prompt, "completion_tokens": completion + 30,
                        "completion_tokens_details": {"reasoning_tokens": 30}}),
                )
            }
            _ => Behaviour::Default,
        });
        let s = scratch("openai", &server, "[llm]\nthink = \"low\"\n");
        let run = s.prompts(&[], &[]);
        assert_eq!(run.status, Some(101), "{name}: {}", run.both());
        let chats = server.requests_to("/v1/chat/completions");
        assert_eq!(chats[0].json["reasoning_effort"], "low", "{name}");
        let summary = s.summary();
        let r = &summary["prompt_results"]["prompt1"];
        assert_eq!(r["accuracy"], 66.7, "{name}: {summary}");
        assert_eq!(
            r["tokens"]["reasoning"], 90,
            "{name}: the server's count, 3 x 30"
        );
        assert_no_reasoning_in_prompts(&server, "/v1/chat/completions");
    }
}

#[test]
fn one_model_at_two_levels_runs_side_by_side_under_two_labels() {
    let server = StubServer::start(|req: &Request| match req.path.as_str() {
        "/api/chat" => ollama_thinking(req, &answer_of(req), "stop"),
        _ => Behaviour::Default,
    });
    let s = scratch(
        "ollama",
        &server,
        &format!(
            "[[models]]\nname = \"{STUB_MODEL}\"\nlabel = \"coder-low\"\nthink = \"low\"\n\
             [[models]]\nname = \"{STUB_MODEL}\"\nlabel = \"coder-high\"\nthink = \"high\"\n"
        ),
    );
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains("coder-low::prompt1::q1"),
        "{}",
        run.stdout
    );
    let chats = server.requests_to("/api/chat");
    assert_eq!(chats.len(), 18);
    assert!(chats.iter().all(|r| r.json["model"] == STUB_MODEL));
    let levels: Vec<&str> = chats
        .iter()
        .filter_map(|r| r.json["think"].as_str())
        .collect();
    assert_eq!(levels.iter().filter(|l| **l == "low").count(), 9);
    assert_eq!(levels.iter().filter(|l| **l == "high").count(), 9);
    let summary = s.summary();
    for label in ["coder-low", "coder-high"] {
        assert_eq!(
            summary["models"][label]["prompt_results"]["prompt1"]["accuracy"], 66.7,
            "{label}: {summary}"
        );
    }
}
