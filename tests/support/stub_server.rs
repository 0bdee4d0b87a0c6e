//! A scripted stand-in for Ollama and OpenAI-compatible servers, for tests.
//!
//! Standard library only: a `TcpListener` on `127.0.0.1:0` served by a
//! background thread, one thread per connection, HTTP/1.1 with
//! `Content-Length` bodies and `Connection: close`. It answers
//! `/api/version`, `/api/tags`, `/api/chat`, `/v1/models` and
//! `/v1/chat/completions`; a script decides, per request, whether to answer
//! normally or to fail in one of the ways real servers fail.
//!
//! ```ignore
//! #[path = "support/stub_server.rs"]
//! mod stub_server;
//! use stub_server::{Behaviour, StubServer};
//!
//! // The first two chats get a 503, then the server recovers.
//! let server = StubServer::start(|req| match req.path.as_str() {
//!     "/api/chat" if req.nth < 2 => Behaviour::Status(503, r#"{"error":"loading"}"#.into()),
//!     "/api/chat" => Behaviour::Reply("```python\nprint(2)\n```".into()),
//!     _ => Behaviour::Default,
//! });
//! let backend = Ollama::new(&server.url());
//! // ... or, for a subprocess: Command::new("cargo").env("OLLAMA_HOST", server.url())
//! assert_eq!(server.requests_to("/api/chat").len(), 3);
//! ```
//!
//! The server lives until it is dropped, so it can stay up while a
//! subprocess (`cargo test --test prompts` with `OLLAMA_HOST=server.url()`)
//! talks to it. [`StubServer::stop`] and [`StubServer::restart`] close and
//! reopen the listener on the same port (connections are refused meanwhile).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// `127.0.0.1:PORT` where nothing listens (the port was free a moment ago):
/// "no Ollama here", for `backend = "auto"` and refused connections.
pub fn dead_host() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind 127.0.0.1:0")
        .local_addr()
        .expect("local address")
        .port();
    format!("127.0.0.1:{port}")
}

/// The model the default script serves until [`StubServer::set_models`].
pub const STUB_MODEL: &str = "stub-coder:1.5b";

/// What the server does with one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Behaviour {
    /// What a healthy server answers: the version, the model list, a chat
    /// reply "stub reply" (for `/api/chat`, a 404 "model not found, try
    /// pulling it first" when the model is not in the list, as Ollama does).
    Default,
    /// A successful chat answer with this content, shaped for the protocol
    /// of the path; on other paths, a 200 with this text as the body.
    Reply(String),
    /// This status and body (JSON content type).
    Status(u16, String),
    /// 200 with this content type and body, as written (a scripted stream).
    Raw(&'static str, String),
    /// Reads the request and never answers (until the server stops).
    Hang,
    /// Closes the connection without answering.
    Drop,
    /// 200 with a body that is not JSON.
    Malformed,
    /// Like `Reply`, after this long without any answer (a request waiting
    /// in a busy server's queue: no response headers yet).
    Queued(Duration, String),
    /// 200 whose body arrives one byte every 50 ms: each read succeeds, but
    /// the whole answer would take minutes.
    Trickle,
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The body parsed as JSON (`Null` when empty or not JSON).
    pub json: Value,
    /// How many earlier requests went to the same path (0 for the first).
    pub nth: usize,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The question being asked: the last user message after the learning
    /// history's closing line (the whole message when there is no history).
    pub fn current_question(&self) -> &str {
        let asked = self.last_user_message().unwrap_or("");
        asked.rsplit("現在請解決新問題：").next().unwrap_or(asked)
    }

    /// The content of the last user message of a chat request.
    pub fn last_user_message(&self) -> Option<&str> {
        self.json["messages"]
            .as_array()?
            .iter()
            .rev()
            .find(|m| m["role"] == "user")?["content"]
            .as_str()
    }
}

type Script = Arc<dyn Fn(&Request) -> Behaviour + Send + Sync>;

struct Shared {
    script: RwLock<Script>,
    models: RwLock<Vec<String>>,
    /// llama-server's context window (`-c`), for the OpenAI protocol.
    window: RwLock<Option<u64>>,
    /// On Ollama's protocol, cut a long prompt as Ollama's llama.cpp-based
    /// runner does (keep half the window) instead of as its Go runner
    /// (keep the last `num_ctx` tokens).
    llama_runner: std::sync::atomic::AtomicBool,
    requests: Mutex<Vec<Request>>,
    /// Bumped by stop/restart/drop: connections of older generations end.
    generation: AtomicU64,
    dropped: AtomicBool,
}

impl Shared {
    fn is_over(&self, generation: u64) -> bool {
        self.dropped.load(Ordering::SeqCst) || self.generation.load(Ordering::SeqCst) != generation
    }
}

/// See the module docs.
pub struct StubServer {
    port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl StubServer {
    /// Starts on a free port with `script` deciding every answer.
    pub fn start(script: impl Fn(&Request) -> Behaviour + Send + Sync + 'static) -> StubServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let shared = Arc::new(Shared {
            script: RwLock::new(Arc::new(script)),
            models: RwLock::new(vec![STUB_MODEL.to_string()]),
            window: RwLock::new(None),
            llama_runner: Default::default(),
            requests: Mutex::new(Vec::new()),
            generation: AtomicU64::new(0),
            dropped: AtomicBool::new(false),
        });
        let mut server = StubServer {
            port,
            shared,
            acceptor: None,
        };
        server.serve(listener);
        server
    }

    /// A server that answers everything as a healthy one would.
    pub fn healthy() -> StubServer {
        StubServer::start(|_| Behaviour::Default)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`: the Ollama base URL (and OLLAMA_HOST value).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT/v1`: the OpenAI-compatible base URL.
    pub fn openai_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The requests to one path.
    pub fn requests_to(&self, path: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// Replaces the script for the requests that follow.
    pub fn set_script(&self, script: impl Fn(&Request) -> Behaviour + Send + Sync + 'static) {
        *self.shared.script.write().unwrap() = Arc::new(script);
    }

    /// The models that `/api/tags` and `/v1/models` list by default.
    pub fn set_models(&self, models: &[&str]) {
        *self.shared.models.write().unwrap() = models.iter().map(|m| m.to_string()).collect();
    }

    /// Acts as a llama-server started with `-c tokens` on the OpenAI
    /// protocol: `/props` reports the window and a longer prompt is refused
    /// with 400 `exceed_context_size_error`. (On Ollama's protocol the
    /// request's own `num_ctx` is the window, and a longer prompt is cut.)
    /// Cuts prompts beyond `num_ctx` on Ollama's protocol as Ollama's
    /// llama.cpp-based runner does: `prompt_eval_count` = num_ctx / 2 + 2
    /// (ollama issues 3839, 17427, 17889), not num_ctx as its Go runner.
    pub fn cut_like_the_llama_runner(&self) {
        self.shared
            .llama_runner
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn set_context_window(&self, tokens: u64) {
        *self.shared.window.write().unwrap() = Some(tokens);
    }

    /// Closes the listener and every open connection: new connections are
    /// refused until [`StubServer::restart`].
    pub fn stop(&mut self) {
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }

    /// Listens again on the same port (stopping first if needed).
    pub fn restart(&mut self) {
        self.stop();
        let mut last_error = None;
        for _ in 0..100 {
            match TcpListener::bind(("127.0.0.1", self.port)) {
                Ok(listener) => return self.serve(listener),
                Err(e) => last_error = Some(e),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("cannot listen on port {} again: {last_error:?}", self.port);
    }

    fn serve(&mut self, listener: TcpListener) {
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let shared = self.shared.clone();
        let generation = shared.generation.load(Ordering::SeqCst);
        self.acceptor = Some(std::thread::spawn(move || {
            while !shared.is_over(generation) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let shared = shared.clone();
                        std::thread::spawn(move || handle(stream, &shared, generation));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        }));
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        self.shared.dropped.store(true, Ordering::SeqCst);
        self.stop();
    }
}

fn handle(stream: TcpStream, shared: &Shared, generation: u64) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let Some((method, path, headers, body)) = read_request(&stream) else {
        return;
    };
    let json = serde_json::from_str(&body).unwrap_or(Value::Null);
    let request = {
        let mut requests = shared.requests.lock().unwrap();
        let nth = requests.iter().filter(|r| r.path == path).count();
        let request = Request {
            method,
            path,
            headers,
            body,
            json,
            nth,
        };
        requests.push(request.clone());
        request
    };
    let script = shared.script.read().unwrap().clone();
    let behaviour = script(&request);
    let models = shared.models.read().unwrap().clone();
    act(stream, &request, behaviour, &models, shared, generation);
}

/// What the stub's model generates for a request and an intended reply,
/// as a real server would bound it: the reply stops at `num_predict` /
/// `max_tokens` (finish reason `length`); on Ollama's protocol a prompt
/// beyond the request's `num_ctx` is cut (`prompt_eval_count` stops at the
/// window); on the OpenAI protocol, beyond [`StubServer::set_context_window`],
/// it is refused (`Err` with the status and body llama-server sends).
pub fn stub_generation(
    request: &Request,
    content: &str,
    window: Option<u64>,
) -> Result<Generation, (u16, String)> {
    let (mut prompt_tokens, completion_tokens) = stub_tokens(request, content);
    let ollama = request.path == "/api/chat";
    let options = &request.json["options"];
    if ollama {
        if let Some(n_ctx) = options["num_ctx"].as_u64() {
            prompt_tokens = prompt_tokens.min(n_ctx);
        }
    } else if let Some(n_ctx) = window.filter(|&n| prompt_tokens > n) {
        let body = json!({"error": {"code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens, "n_ctx": n_ctx}});
        return Err((400, body.to_string()));
    }
    let limit = if ollama {
        options["num_predict"].as_u64()
    } else {
        request.json["max_tokens"].as_u64()
    };
    Ok(match limit.filter(|&n| completion_tokens > n) {
        Some(n) => Generation {
            content: content.chars().take(n as usize * 4).collect(),
            prompt_tokens,
            completion_tokens: n,
            finish: "length",
        },
        None => Generation {
            content: content.to_string(),
            prompt_tokens,
            completion_tokens,
            finish: "stop",
        },
    })
}

/// A reply as the stub's model produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub content: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// `stop` or `length`.
    pub finish: &'static str,
}

fn act(
    mut stream: TcpStream,
    request: &Request,
    behaviour: Behaviour,
    models: &[String],
    shared: &Shared,
    generation: u64,
) {
    let window = *shared.window.read().unwrap();
    let llama_runner = shared
        .llama_runner
        .load(std::sync::atomic::Ordering::SeqCst);
    let reply = |stream: &mut TcpStream, request: &Request, content: &str, window| {
        reply(stream, request, content, window, llama_runner)
    };
    let wait_until_over = || {
        while !shared.is_over(generation) {
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    match behaviour {
        Behaviour::Default => {
            let (status, body) = default_answer(request, models, window);
            if status == 200 && is_chat(request) {
                reply(&mut stream, request, "stub reply", window);
            } else {
                respond(&mut stream, status, &body);
            }
        }
        Behaviour::Reply(text) => reply(&mut stream, request, &text, window),
        Behaviour::Queued(wait, text) => {
            let until = std::time::Instant::now() + wait;
            while std::time::Instant::now() < until && !shared.is_over(generation) {
                std::thread::sleep(Duration::from_millis(10));
            }
            reply(&mut stream, request, &text, window);
        }
        Behaviour::Status(status, body) => respond(&mut stream, status, &body),
        Behaviour::Raw(kind, body) => respond_as(&mut stream, 200, kind, &body),
        Behaviour::Malformed => respond(
            &mut stream,
            200,
            "{\"message\": {\"content\": \"unterminated",
        ),
        Behaviour::Drop => {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Behaviour::Hang => wait_until_over(),
        Behaviour::Trickle => {
            let answer = chat_answer(request, &Generation::plain("too late")).unwrap_or_default();
            // Leading whitespace is valid JSON, so only the time is wrong.
            let body = format!("{}{answer}", " ".repeat(100_000));
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            for byte in body.as_bytes() {
                if shared.is_over(generation) || stream.write_all(&[*byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A chat answer with `content` as the stub's model would produce it (see
/// [`stub_generation`]): streamed when the request asks for it.
fn reply(
    stream: &mut TcpStream,
    request: &Request,
    content: &str,
    window: Option<u64>,
    llama_runner: bool,
) {
    let mut generated = match stub_generation(request, content, window) {
        Ok(g) => g,
        Err((status, body)) => return respond(stream, status, &body),
    };
    let n_ctx = request.json["options"]["num_ctx"].as_u64();
    if let Some(n_ctx) = n_ctx.filter(|_| llama_runner && request.path == "/api/chat") {
        if stub_tokens(request, content).0 > n_ctx {
            generated.prompt_tokens = n_ctx / 2 + 2;
        }
    }
    match streamed_answer(request, &generated) {
        Some((kind, body)) => respond_as(stream, 200, kind, &body),
        None => {
            let body = chat_answer(request, &generated).unwrap_or_else(|| content.to_string());
            respond(stream, 200, &body);
        }
    }
}

fn is_chat(request: &Request) -> bool {
    matches!(request.path.as_str(), "/api/chat" | "/v1/chat/completions")
}

impl Generation {
    /// `content` whole, with token counts of 1.
    fn plain(content: &str) -> Generation {
        Generation {
            content: content.to_string(),
            prompt_tokens: 1,
            completion_tokens: 1,
            finish: "stop",
        }
    }
}

/// The server's token counts for a request and a reply: made up, but
/// deterministic, so tests can compare sums with what the server said.
pub fn stub_tokens(request: &Request, content: &str) -> (u64, u64) {
    let prompt: usize = request.json["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str())
        .map(|c| c.chars().count())
        .sum();
    (
        prompt as u64 / 4 + 1,
        content.chars().count() as u64 / 4 + 1,
    )
}

/// `content` in three pieces (split at character boundaries), in the
/// streaming format of the request's protocol, when it asked for a stream.
fn streamed_answer(request: &Request, g: &Generation) -> Option<(&'static str, String)> {
    if request.json["stream"] != json!(true) {
        return None;
    }
    let model = request.json["model"].as_str().unwrap_or(STUB_MODEL);
    let chars: Vec<char> = g.content.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    let pieces: Vec<String> = chars.chunks(third).map(|c| c.iter().collect()).collect();
    let (prompt_tokens, completion_tokens, finish) =
        (g.prompt_tokens, g.completion_tokens, g.finish);
    let mut body = String::new();
    match request.path.as_str() {
        "/api/chat" => {
            for piece in &pieces {
                let line = json!({"model": model, "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": piece}, "done": false});
                body.push_str(&format!("{line}\n"));
            }
            let last = json!({"model": model, "created_at": "2025-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": ""}, "done": true,
                "done_reason": finish, "total_duration": 1_000_000,
                "prompt_eval_count": prompt_tokens, "eval_count": completion_tokens,
                "eval_duration": 250_000_000u64});
            body.push_str(&format!("{last}\n"));
            Some(("application/x-ndjson", body))
        }
        "/v1/chat/completions" => {
            for piece in &pieces {
                let event = json!({"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                    "model": model, "choices": [{"index": 0, "delta": {"content": piece},
                    "finish_reason": null}]});
                body.push_str(&format!("data: {event}\n\n"));
            }
            let last = json!({"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                "model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]});
            let usage = json!({"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                "model": model, "choices": [], "usage": {"prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens}});
            body.push_str(&format!(
                "data: {last}\n\ndata: {usage}\n\ndata: [DONE]\n\n"
            ));
            Some(("text/event-stream", body))
        }
        _ => None,
    }
}

fn default_answer(request: &Request, models: &[String], window: Option<u64>) -> (u16, String) {
    let model = request.json["model"].as_str().unwrap_or_default();
    match request.path.as_str() {
        "/props" if window.is_some() => (
            200,
            json!({"default_generation_settings": {"n_ctx": window}, "total_slots": 1}).to_string(),
        ),
        "/api/version" => (200, json!({"version": "0.6.8"}).to_string()),
        "/api/tags" => {
            let list: Vec<Value> = models
                .iter()
                .map(|m| {
                    json!({"name": m, "model": m, "modified_at": "2025-01-01T00:00:00Z",
                           "size": 986_061_892, "digest": "0".repeat(64)})
                })
                .collect();
            (200, json!({"models": list}).to_string())
        }
        "/v1/models" => {
            let list: Vec<Value> = models
                .iter()
                .map(|m| json!({"id": m, "object": "model", "created": 0, "owned_by": "stub"}))
                .collect();
            (200, json!({"object": "list", "data": list}).to_string())
        }
        "/api/chat"
            if !models
                .iter()
                .any(|m| m == model || *m == format!("{model}:latest")) =>
        {
            (
                404,
                json!({"error": format!("model \"{model}\" not found, try pulling it first")})
                    .to_string(),
            )
        }
        _ => match chat_answer(request, &Generation::plain("stub reply")) {
            Some(body) => (200, body),
            None => (404, json!({"error": "404 page not found"}).to_string()),
        },
    }
}

/// A successful chat body in the protocol of the request's path.
fn chat_answer(request: &Request, g: &Generation) -> Option<String> {
    let model = request.json["model"].as_str().unwrap_or(STUB_MODEL);
    let content = &g.content;
    let body = match request.path.as_str() {
        "/api/chat" => json!({
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content},
            "done": true,
            "done_reason": g.finish,
            "total_duration": 1_000_000,
            "prompt_eval_count": g.prompt_tokens,
            "eval_count": g.completion_tokens,
        }),
        "/v1/chat/completions" => json!({
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": g.finish,
            }],
            "usage": {"prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens,
                "total_tokens": g.prompt_tokens + g.completion_tokens},
        }),
        _ => return None,
    };
    Some(body.to_string())
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) {
    respond_as(stream, status, "application/json; charset=utf-8", body)
}

fn respond_as(stream: &mut TcpStream, status: u16, content_type: &str, body: &str) {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

type Parsed = (String, String, Vec<(String, String)>, String);

/// Reads one request: the request line, headers, and a body sized by
/// Content-Length or sent chunked.
fn read_request(stream: &TcpStream) -> Option<Parsed> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = header("content-length") {
        body.resize(length.parse().ok()?, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((
        method,
        path,
        headers,
        String::from_utf8_lossy(&body).into_owned(),
    ))
}
