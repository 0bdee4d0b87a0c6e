//! Both model-server backends against a scripted stand-in server: normal
//! answers, and every way a real server fails (refused, 5xx bursts, 4xx,
//! hangs, drops, garbage, slow bodies, restarts), with the error class and
//! the message a user would read.

#[path = "support/stub_server.rs"]
mod stub_server;

use std::time::{Duration, Instant};

use prompteval::backend::ollama::Ollama;
use prompteval::backend::openai::OpenAi;
use prompteval::backend::{Backend, BackendError, ChatRequest, Message, Reply};
use prompteval::case::{ApiFailure, CaseId};
use prompteval::config::LlmConfig;
use serde_json::json;
use stub_server::{Behaviour, STUB_MODEL, StubServer};

/// One protocol: where its chat goes and how to build a backend for a stub.
#[derive(Clone, Copy)]
struct Protocol {
    chat_path: &'static str,
    connect: fn(&StubServer) -> Box<dyn Backend>,
}

const OLLAMA: Protocol = Protocol {
    chat_path: "/api/chat",
    connect: |server| Box::new(Ollama::new(&server.url())),
};

const OPENAI: Protocol = Protocol {
    chat_path: "/v1/chat/completions",
    connect: |server| Box::new(OpenAi::new(&server.openai_url(), None)),
};

const BOTH: [Protocol; 2] = [OLLAMA, OPENAI];

/// Small timeouts and backoff so the whole file runs in seconds.
fn options(retries: u32) -> LlmConfig {
    LlmConfig {
        timeout_secs: 1.0,
        queue_timeout_secs: 1.0,
        retries,
        backoff_ms: 5,
        ..LlmConfig::default()
    }
}

fn request(model: &str, retries: u32) -> ChatRequest {
    ChatRequest {
        model: model.into(),
        messages: vec![
            Message::system("You write Python."),
            Message::user("Print 2."),
        ],
        options: options(retries),
        slot: None,
    }
}

/// The messages of [`request`], as both protocols put them on the wire.
fn messages_sent() -> serde_json::Value {
    json!([
        {"role": "system", "content": "You write Python."},
        {"role": "user", "content": "Print 2."},
    ])
}

fn case() -> CaseId {
    CaseId {
        model: None,
        prompt: "prompt1".into(),
        question: 1,
        question_id: "q1".into(),
        round: 1,
        sample: None,
    }
}

/// One chat against `server` through `protocol`.
fn chat(protocol: Protocol, server: &StubServer, retries: u32) -> Result<Reply, BackendError> {
    (protocol.connect)(server).chat(&case(), &request(STUB_MODEL, retries))
}

fn chat_fails(protocol: Protocol, server: &StubServer, retries: u32) -> BackendError {
    match chat(protocol, server, retries) {
        Ok(reply) => panic!("expected a failure, got {reply:?}"),
        Err(e) => e,
    }
}

/// A server whose chat endpoint always behaves as `behaviour`.
fn chat_server(protocol: Protocol, behaviour: Behaviour) -> StubServer {
    StubServer::start(move |req| {
        if req.path == protocol.chat_path {
            behaviour.clone()
        } else {
            Behaviour::Default
        }
    })
}

#[test]
fn ollama_sends_the_native_request_and_reads_the_reply() {
    let server = chat_server(OLLAMA, Behaviour::Reply("```python\nprint(2)\n```".into()));
    let reply = chat(OLLAMA, &server, 0).unwrap();
    assert_eq!(reply.content, "```python\nprint(2)\n```");
    assert_eq!(reply.model, STUB_MODEL);

    let sent = server.requests_to("/api/chat");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].method, "POST");
    assert_eq!(
        sent[0].json,
        json!({
            "model": STUB_MODEL,
            "messages": messages_sent(),
            "stream": true,
            "options": {"temperature": 0.0, "seed": 42, "num_ctx": 4096, "num_predict": 1024},
        })
    );
    assert_eq!(sent[0].header("authorization"), None);
}

#[test]
fn ollama_sends_keep_alive_only_when_set() {
    let server = StubServer::healthy();
    let mut req = request(STUB_MODEL, 0);
    req.options.keep_alive = Some("10m".into());
    Ollama::new(&server.url()).chat(&case(), &req).unwrap();
    assert_eq!(server.requests_to("/api/chat")[0].json["keep_alive"], "10m");
}

#[test]
fn openai_sends_chat_completions_and_reads_the_first_choice() {
    let server = chat_server(OPENAI, Behaviour::Reply("print(2)".into()));
    let reply = chat(OPENAI, &server, 0).unwrap();
    assert_eq!(reply.content, "print(2)");

    let sent = server.requests_to("/v1/chat/completions");
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].json,
        json!({
            "model": STUB_MODEL,
            "messages": messages_sent(),
            "temperature": 0.0,
            "seed": 42,
            "max_tokens": 1024,
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert_eq!(sent[0].header("authorization"), None);
}

#[test]
fn think_blocks_and_separate_reasoning_are_kept_apart_from_the_answer() {
    for protocol in BOTH {
        let server = chat_server(
            protocol,
            Behaviour::Reply("<think>\nhmm, 1+1\n</think>\nprint(2)".into()),
        );
        let reply = chat(protocol, &server, 0).unwrap();
        assert_eq!(reply.content, "print(2)");
        assert_eq!(reply.reasoning.as_deref(), Some("hmm, 1+1"));
    }
    // Reasoning delivered beside the content never reaches the answer.
    let server = StubServer::start(|req| {
        match req.path.as_str() {
        "/api/chat" => Behaviour::Status(
            200,
            json!({"model": STUB_MODEL, "done": true,
                   "message": {"role": "assistant", "content": "print(2)", "thinking": "secret plan"}})
            .to_string(),
        ),
        "/v1/chat/completions" => Behaviour::Status(
            200,
            json!({"model": STUB_MODEL, "choices": [{"index": 0, "message":
                   {"role": "assistant", "content": "print(2)", "reasoning_content": "secret plan"}}]})
            .to_string(),
        ),
        _ => Behaviour::Default,
    }
    });
    for protocol in BOTH {
        let reply = chat(protocol, &server, 0).unwrap();
        assert_eq!(reply.content, "print(2)");
        assert_eq!(reply.reasoning.as_deref(), Some("secret plan"));
    }
}

#[test]
fn refused_connection_is_a_connection_failure_naming_the_host() {
    for (protocol, advice) in [
        (OLLAMA, "ollama serve"),
        (OPENAI, "scripts/local-llm.sh start"),
    ] {
        let mut server = StubServer::healthy();
        server.stop();
        let e = chat_fails(protocol, &server, 2);
        assert_eq!(e.failure, ApiFailure::ConnectionFailed, "{e}");
        assert!(e.message.contains(&server.url()), "{e}");
        assert!(e.message.contains("after 3 attempts"), "{e}");
        assert!(e.message.contains(advice), "{e}");
    }
}

#[test]
fn server_errors_are_retried_until_the_retries_run_out() {
    for protocol in BOTH {
        let server = chat_server(
            protocol,
            Behaviour::Status(
                500,
                r#"{"error":"llama runner process has terminated"}"#.into(),
            ),
        );
        let e = chat_fails(protocol, &server, 2);
        assert_eq!(e.failure, ApiFailure::ApiError, "{e}");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 3);
        assert!(e.message.contains("HTTP 500"), "{e}");
        assert!(
            e.message.contains("llama runner process has terminated"),
            "{e}"
        );
    }
}

#[test]
fn a_burst_of_5xx_and_429_is_retried_and_then_succeeds() {
    for protocol in BOTH {
        let server = StubServer::start(move |req| match req.nth {
            _ if req.path != protocol.chat_path => Behaviour::Default,
            0 => Behaviour::Status(503, r#"{"error":"server busy"}"#.into()),
            1 => Behaviour::Status(429, r#"{"error":"too many requests"}"#.into()),
            2 => Behaviour::Status(502, "<html>bad gateway</html>".into()),
            _ => Behaviour::Reply("print(2)".into()),
        });
        assert_eq!(chat(protocol, &server, 3).unwrap().content, "print(2)");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 4);
    }
}

/// A failure that retrying cannot cure: exactly one request, then an API
/// error whose message contains `says`.
fn assert_api_error_without_retry(behaviour: Behaviour, says: &str) {
    for protocol in BOTH {
        let server = chat_server(protocol, behaviour.clone());
        let e = chat_fails(protocol, &server, 3);
        assert_eq!(e.failure, ApiFailure::ApiError, "{e}");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 1, "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

#[test]
fn a_bad_request_is_not_retried() {
    let body = r#"{"error":{"code":400,"message":"invalid 'num_predict'","type":"invalid_request_error"}}"#;
    assert_api_error_without_retry(
        Behaviour::Status(400, body.into()),
        "HTTP 400: invalid 'num_predict'",
    );
}

#[test]
fn an_unknown_model_says_how_to_get_it() {
    let server = StubServer::healthy();
    let e = Ollama::new(&server.url())
        .chat(&case(), &request("qwen9:70b", 3))
        .unwrap_err();
    assert_eq!(e.failure, ApiFailure::ApiError);
    assert_eq!(server.requests_to("/api/chat").len(), 1);
    assert!(e.message.contains("`ollama pull qwen9:70b`"), "{e}");
    assert!(e.message.contains("not found"), "{e}");

    let server = chat_server(
        OPENAI,
        Behaviour::Status(
            404,
            r#"{"error":{"code":404,"message":"model 'qwen9:70b' not found","type":"not_found_error"}}"#.into(),
        ),
    );
    let e = OpenAi::new(&server.openai_url(), None)
        .chat(&case(), &request("qwen9:70b", 3))
        .unwrap_err();
    assert_eq!(e.failure, ApiFailure::ApiError);
    assert!(e.message.contains("--alias qwen9:70b"), "{e}");
}

/// A server that never starts answering: the request waited in its queue
/// for `llm.queue_timeout_secs`, and is not sent again (it would only join
/// the queue's end).
#[test]
fn a_request_never_taken_up_times_out_in_the_queue_once() {
    for protocol in BOTH {
        let server = chat_server(protocol, Behaviour::Hang);
        let started = Instant::now();
        let e = chat_fails(protocol, &server, 3);
        let elapsed = started.elapsed();
        assert_eq!(e.failure, ApiFailure::Timeout, "{e}");
        assert!(e.message.contains("within 1 s"), "{e}");
        assert!(e.message.contains("llm.queue_timeout_secs"), "{e}");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 1, "{e}");
        assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    }
}

/// The answer's timeout counts from its start: a request queued longer
/// than `llm.timeout_secs` (but not than the queue allowance) is answered,
/// from one request.
#[test]
fn time_in_the_queue_does_not_count_against_the_answer() {
    for protocol in BOTH {
        let server = chat_server(
            protocol,
            Behaviour::Queued(Duration::from_millis(2500), "print(2)".into()),
        );
        let mut req = request(STUB_MODEL, 3);
        req.options.queue_timeout_secs = 10.0;
        let reply = (protocol.connect)(&server).chat(&case(), &req).unwrap();
        assert_eq!(reply.content, "print(2)");
        assert!(reply.elapsed >= Duration::from_millis(2400));
        assert_eq!(server.requests_to(protocol.chat_path).len(), 1);
    }
}

/// An answer that started but does not finish within `llm.timeout_secs`
/// ends as a timeout without a retry: the server would redo the work.
#[test]
fn a_trickling_body_times_out_although_every_read_succeeds() {
    for protocol in BOTH {
        let server = chat_server(protocol, Behaviour::Trickle);
        let started = Instant::now();
        let e = chat_fails(protocol, &server, 3);
        assert_eq!(e.failure, ApiFailure::Timeout, "{e}");
        assert!(e.message.contains("llm.timeout_secs"), "{e}");
        assert!(e.message.contains("of its start"), "{e}");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 1, "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}

/// The server's own figures arrive with the streamed reply, whose text is
/// byte for byte what a non-streamed answer carries.
#[test]
fn streamed_replies_carry_the_servers_tokens_and_finish_reason() {
    let content = "```python\nprint('héllo — 世界')\n```";
    for protocol in BOTH {
        let server = chat_server(protocol, Behaviour::Reply(content.into()));
        let reply = chat(protocol, &server, 0).unwrap();
        assert_eq!(reply.content, content);
        let sent = &server.requests_to(protocol.chat_path)[0];
        let (prompt, completion) = stub_server::stub_tokens(sent, content);
        assert_eq!(reply.usage.prompt_tokens, Some(prompt));
        assert_eq!(reply.usage.completion_tokens, Some(completion));
        assert_eq!(reply.usage.finish_reason.as_deref(), Some("stop"));
        // The same text as one JSON document (a server ignoring `stream`).
        let whole = chat_server(
            protocol,
            Behaviour::Status(
                200,
                match protocol.chat_path {
                    "/api/chat" => {
                        json!({"model": STUB_MODEL, "done": true, "done_reason": "length",
                        "message": {"role": "assistant", "content": content},
                        "prompt_eval_count": 9, "eval_count": 1024})
                    }
                    _ => json!({"model": STUB_MODEL, "choices": [{"index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "length"}],
                        "usage": {"prompt_tokens": 9, "completion_tokens": 1024}}),
                }
                .to_string(),
            ),
        );
        let reply = chat(protocol, &whole, 0).unwrap();
        assert_eq!(reply.content, content);
        assert_eq!(reply.usage.completion_tokens, Some(1024));
        assert_eq!(reply.usage.finish_reason.as_deref(), Some("length"));
    }
}

#[test]
fn a_dropped_connection_is_a_retried_connection_failure() {
    for protocol in BOTH {
        let server = chat_server(protocol, Behaviour::Drop);
        let e = chat_fails(protocol, &server, 1);
        assert_eq!(e.failure, ApiFailure::ConnectionFailed, "{e}");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 2);
        assert!(e.message.contains(&server.url()), "{e}");
    }
}

#[test]
fn malformed_json_is_an_api_error_and_not_retried() {
    assert_api_error_without_retry(Behaviour::Malformed, "not JSON");
}

#[test]
fn json_without_the_reply_field_is_an_api_error() {
    assert_api_error_without_retry(
        Behaviour::Status(200, r#"{"ok": true}"#.into()),
        "no reply text",
    );
}

#[test]
fn the_next_call_works_after_a_server_restart() {
    for protocol in BOTH {
        let mut server = StubServer::healthy();
        let backend = (protocol.connect)(&server);
        let req = request(STUB_MODEL, 0);
        backend.chat(&case(), &req).unwrap();
        server.stop();
        let e = backend.chat(&case(), &req).unwrap_err();
        assert_eq!(e.failure, ApiFailure::ConnectionFailed);
        server.restart();
        assert_eq!(backend.chat(&case(), &req).unwrap().content, "stub reply");
        assert_eq!(server.requests_to(protocol.chat_path).len(), 2);
    }
}

#[test]
fn ollama_check_finds_the_model_with_or_without_latest() {
    let server = StubServer::healthy();
    server.set_models(&["llama3:latest", STUB_MODEL]);
    let ollama = Ollama::new(&server.url());
    ollama.check(STUB_MODEL).unwrap();
    ollama.check("llama3").unwrap();
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths[..2], ["/api/version", "/api/tags"]);
}

#[test]
fn ollama_check_names_the_host_and_the_fixes_when_unreachable() {
    let mut server = StubServer::healthy();
    server.stop();
    let e = Ollama::new(&server.url()).check(STUB_MODEL).unwrap_err();
    assert!(e.message.contains(&server.url()), "{e}");
    assert!(e.message.contains("`ollama serve`"), "{e}");
    assert!(e.message.contains("OLLAMA_HOST"), "{e}");
}

#[test]
fn ollama_check_lists_the_present_models_when_one_is_missing() {
    let server = StubServer::healthy();
    let e = Ollama::new(&server.url()).check("qwen9:70b").unwrap_err();
    assert!(e.message.contains("`ollama pull qwen9:70b`"), "{e}");
    assert!(e.message.contains(STUB_MODEL), "{e}");
}

#[test]
fn openai_check_lists_the_served_ids() {
    let server = StubServer::healthy();
    let openai = OpenAi::new(&server.openai_url(), None);
    openai.check(STUB_MODEL).unwrap();
    let e = openai.check("gpt-4o").unwrap_err();
    assert!(e.message.contains("gpt-4o"), "{e}");
    assert!(e.message.contains(STUB_MODEL), "{e}");
    assert!(e.message.contains("PROMPTEVAL_MODEL"), "{e}");
}

#[test]
fn openai_check_names_the_url_and_the_fixes_when_unreachable() {
    let mut server = StubServer::healthy();
    server.stop();
    let e = OpenAi::new(&server.openai_url(), None)
        .check(STUB_MODEL)
        .unwrap_err();
    assert!(e.message.contains(&server.openai_url()), "{e}");
    assert!(e.message.contains("scripts/local-llm.sh start"), "{e}");
    assert!(e.message.contains("PROMPTEVAL_BASE_URL"), "{e}");
}

#[test]
fn the_api_key_is_sent_as_bearer_and_never_shown() {
    const KEY: &str = "sk-test-4f1c9a-do-not-print";
    // The server echoes the request headers into its error, as some proxies do.
    let server = StubServer::start(|req| match req.path.as_str() {
        "/v1/chat/completions" => Behaviour::Status(
            401,
            json!({"error": {"message": format!("bad key {:?}", req.header("authorization"))}})
                .to_string(),
        ),
        "/v1/models" => Behaviour::Status(403, format!("forbidden: {:?}", req.headers)),
        _ => Behaviour::Default,
    });
    let openai = OpenAi::new(&server.openai_url(), Some(KEY.into()));
    let e = openai.chat(&case(), &request(STUB_MODEL, 2)).unwrap_err();
    assert_eq!(server.requests_to("/v1/chat/completions").len(), 1);
    let check = openai.check(STUB_MODEL).unwrap_err();
    for request in server.requests() {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
    let mut shown = vec![
        e.to_string(),
        format!("{e:?}"),
        check.to_string(),
        format!("{check:?}"),
        format!("{openai:?}"),
    ];
    let mut stopped = server;
    stopped.stop();
    shown.push(
        openai
            .chat(&case(), &request(STUB_MODEL, 0))
            .unwrap_err()
            .to_string(),
    );
    shown.push(openai.check(STUB_MODEL).unwrap_err().to_string());
    for text in &shown {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
    assert!(shown[0].contains("PROMPTEVAL_API_KEY"), "{}", shown[0]);
    assert!(shown[0].contains("[redacted]"), "{}", shown[0]);
}

#[test]
fn an_ollama_compatible_server_without_api_version_passes_the_check() {
    let server = StubServer::start(|req| match req.path.as_str() {
        "/api/version" => Behaviour::Status(404, "404 page not found".into()),
        _ => Behaviour::Default,
    });
    Ollama::new(&server.url())
        .check(STUB_MODEL)
        .expect("the model list is what matters");
    // ...but the model must still be listed.
    let e = Ollama::new(&server.url()).check("other:1b").unwrap_err();
    assert!(
        e.server_answered && e.message.contains("ollama pull other:1b"),
        "{}",
        e.message
    );
}

/// A prompt longer than the context window is never a model outcome:
/// llama-server refuses it (HTTP 400 `exceed_context_size_error`), Ollama
/// cuts its start and says so only through `prompt_eval_count`. Both are
/// `PromptTooLong` (the case is not evaluated), asked once, with the fix.
#[test]
fn a_prompt_beyond_the_context_window_is_prompt_too_long_on_both_protocols() {
    let server = chat_server(
        OPENAI,
        Behaviour::Status(
            400,
            json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}})
            .to_string(),
        ),
    );
    let e = chat_fails(OPENAI, &server, 3);
    assert_eq!(e.failure, ApiFailure::PromptTooLong, "{e}");
    assert!(e.message.contains("llama-server -c"), "{e}");
    assert_eq!(server.requests_to(OPENAI.chat_path).len(), 1);

    let server = chat_server(
        OLLAMA,
        Behaviour::Status(
            200,
            json!({"model": STUB_MODEL, "done": true, "done_reason": "stop",
                "message": {"role": "assistant", "content": "print(2)"},
                "prompt_eval_count": 4096, "eval_count": 3})
            .to_string(),
        ),
    );
    let e = chat_fails(OLLAMA, &server, 3);
    assert_eq!(e.failure, ApiFailure::PromptTooLong, "{e}");
    assert!(e.message.contains("num_ctx 4096"), "{e}");
    // Just inside the window is an ordinary answer.
    let server = chat_server(
        OLLAMA,
        Behaviour::Status(
            200,
            json!({"model": STUB_MODEL, "done": true, "message": {"role": "assistant", "content": "print(2)"},
                "prompt_eval_count": 4095, "eval_count": 3})
            .to_string(),
        ),
    );
    assert_eq!(chat(OLLAMA, &server, 0).unwrap().content, "print(2)");
}
