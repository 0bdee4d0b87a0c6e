//! The HTTP plumbing both protocols share: one agent, one classification of
//! failures, one retry loop and one way of wording errors. A protocol module
//! only builds its request body and says where the answer is in the reply.

use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::Agent;

use super::retry::{Attempted, Outcome, RetryPolicy};
use super::stream::{self, ReadError, Wire};
use super::{BackendError, ChatRequest, ConnectError, Reply, reasoning};
use crate::case::ApiFailure;

/// The connection test must answer quickly: a server that takes longer than
/// this to list its models is not one to run a suite against.
pub(crate) const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// Connecting to a model server is quick or it is not there.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many characters of a server's error text go into a message.
const DETAIL_CHARS: usize = 300;

/// What the user reads about one kind of server.
#[derive(Debug)]
pub(crate) struct ServerHints {
    /// "Ollama", "the OpenAI-compatible server".
    pub label: &'static str,
    /// How to get a server answering at the configured address.
    pub unreachable: &'static str,
    /// What to do when `model` is not served.
    pub missing_model: fn(&str) -> String,
}

/// A model server's base URL, an agent and, for OpenAI-compatible servers,
/// the API key. The key is only ever put in the Authorization header.
pub(crate) struct HttpClient {
    agent: Agent,
    base_url: String,
    api_key: Option<String>,
    hints: &'static ServerHints,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish_non_exhaustive()
    }
}

/// One failed attempt: what happened, at which URL.
#[derive(Debug)]
pub(crate) struct CallError {
    outcome: Outcome,
    url: String,
    /// Already free of the API key.
    detail: String,
    hints: &'static ServerHints,
}

impl Attempted for CallError {
    fn outcome(&self) -> Outcome {
        self.outcome
    }

    fn summary(&self) -> String {
        match self.outcome {
            Outcome::ConnectFailed => format!("cannot connect ({})", self.detail),
            Outcome::Dropped => format!("connection dropped before an answer ({})", self.detail),
            Outcome::TimedOut | Outcome::Queued | Outcome::Generating => self.detail.clone(),
            Outcome::Status(code) => format!("HTTP {code}: {}", self.detail),
            Outcome::PromptTooLong => format!("the prompt does not fit: {}", self.detail),
            Outcome::BadBody => format!("unreadable answer: {}", self.detail),
        }
    }

    fn advice(&self) -> String {
        match self.outcome {
            Outcome::ConnectFailed | Outcome::Dropped => self.hints.unreachable.to_string(),
            Outcome::TimedOut => "check what else loads the server".into(),
            Outcome::Queued => "raise llm.queue_timeout_secs in harness.toml, or set \
                                `concurrency` to the server's parallel slots so fewer requests \
                                wait in its queue"
                .into(),
            Outcome::Generating => "raise llm.timeout_secs in harness.toml (it counts from the \
                                    start of the answer), lower llm.num_predict, or use a \
                                    smaller model"
                .into(),
            Outcome::PromptTooLong => "raise the server's context window (llama-server -c, \
                                       llm.num_ctx for Ollama) or lower history.max_entries / \
                                       history.max_chars"
                .into(),
            Outcome::Status(429) => {
                "run fewer cases at once (--test-threads) or raise llm.backoff_ms".into()
            }
            Outcome::Status(401 | 403) => {
                "set PROMPTEVAL_API_KEY (or OPENAI_API_KEY) to a key the server accepts".into()
            }
            Outcome::Status(code) if code >= 500 => {
                "check the server's log: it may still be loading the model or be out of memory"
                    .into()
            }
            Outcome::Status(_) => "check llm options in harness.toml and the model name".into(),
            Outcome::BadBody => format!(
                "check that {} points at {}, not another service",
                self.url, self.hints.label
            ),
        }
    }
}

impl CallError {
    fn failure(&self) -> ApiFailure {
        match self.outcome {
            Outcome::ConnectFailed | Outcome::Dropped => ApiFailure::ConnectionFailed,
            Outcome::TimedOut | Outcome::Queued | Outcome::Generating => ApiFailure::Timeout,
            Outcome::PromptTooLong => ApiFailure::PromptTooLong,
            Outcome::Status(_) | Outcome::BadBody => ApiFailure::ApiError,
        }
    }

    /// A 404 whose text says the model is unknown (Ollama: `model "x" not
    /// found, try pulling it first`).
    fn is_missing_model(&self) -> bool {
        self.outcome == Outcome::Status(404) && self.detail.contains("not found")
    }
}

impl HttpClient {
    pub fn new(base_url: &str, api_key: Option<String>, hints: &'static ServerHints) -> Self {
        let agent: Agent = Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("prompteval/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self {
            agent,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: api_key.filter(|k| !k.is_empty()),
            hints,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// GET `path` at the server's root (the base URL without a trailing
    /// `/v1`), for optional facts such as llama-server's `/props` or an
    /// Ollama behind its OpenAI endpoint: `None` on any failure.
    pub fn probe_root(&self, path: &str) -> Option<Value> {
        self.at_root(path, None)
    }

    /// POST `body` to `path` at the server's root, for optional services
    /// such as llama-server's `/tokenize`: `None` on any failure.
    pub fn post_root(&self, path: &str, body: &Value) -> Option<Value> {
        self.at_root(path, Some(body))
    }

    fn at_root(&self, path: &str, body: Option<&Value>) -> Option<Value> {
        let root = self.base_url.strip_suffix("/v1").unwrap_or(&self.base_url);
        let at_root = HttpClient {
            agent: self.agent.clone(),
            base_url: root.to_string(),
            api_key: self.api_key.clone(),
            hints: self.hints,
        };
        at_root.send(path, body, CHECK_TIMEOUT).ok()
    }

    /// Removes the API key from text that came from elsewhere (a server's
    /// error body may echo the request).
    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) => text.replace(key.as_str(), "[redacted]"),
            None => text.to_string(),
        }
    }

    fn error(&self, outcome: Outcome, url: &str, detail: &str) -> CallError {
        CallError {
            outcome,
            url: url.to_string(),
            detail: self.redact(detail),
            hints: self.hints,
        }
    }

    /// One request: GET when `body` is None, else POST of the JSON body.
    /// A 2xx with a JSON body is Ok; anything else is a classified error.
    pub fn send(
        &self,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let url = format!("{}{}", self.base_url, path);
        let auth = self.api_key.as_ref().map(|k| format!("Bearer {k}"));
        let result = match body {
            None => {
                let mut req = self.agent.get(&url);
                if let Some(auth) = &auth {
                    req = req.header("Authorization", auth);
                }
                req.config().timeout_global(Some(timeout)).build().call()
            }
            Some(body) => {
                let mut req = self.agent.post(&url);
                if let Some(auth) = &auth {
                    req = req.header("Authorization", auth);
                }
                req.config()
                    .timeout_global(Some(timeout))
                    .build()
                    .send_json(body)
            }
        };
        let mut response = result.map_err(|e| self.transport_error(e, &url, timeout))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| self.transport_error(e, &url, timeout))?;
        if !(200..300).contains(&status) {
            return Err(self.error(Outcome::Status(status), &url, &error_text(&text)));
        }
        serde_json::from_str(&text).map_err(|e| {
            self.error(
                Outcome::BadBody,
                &url,
                &format!("not JSON ({e}); it starts with {:?}", excerpt(&text)),
            )
        })
    }

    fn transport_error(&self, e: ureq::Error, url: &str, timeout: Duration) -> CallError {
        let outcome = classify(&e);
        let detail = match outcome {
            Outcome::TimedOut => format!(
                "no complete answer within {} s",
                trim_float(timeout.as_secs_f64())
            ),
            _ => e.to_string(),
        };
        self.error(outcome, url, &detail)
    }

    /// One chat completion with retries, streamed (see stream.rs): the wait
    /// for the server to start answering is bounded by
    /// `llm.queue_timeout_secs`, the answer itself by `llm.timeout_secs`.
    /// Neither timeout is retried: that would queue the request again or
    /// make the server redo its work. The reasoning, in whichever shape the
    /// server sends it, is kept apart from the answer (reasoning.rs).
    pub fn chat(
        &self,
        path: &str,
        body: &Value,
        request: &ChatRequest,
        wire: Wire,
    ) -> Result<Reply, BackendError> {
        let url = format!("{}{}", self.base_url, path);
        let limits = Limits {
            queue: request.options.queue_timeout(),
            answer: request.options.timeout(),
        };
        let started = Instant::now();
        let policy = RetryPolicy::from_config(&request.options);
        let answer = policy.run(&url, |_| self.stream_chat(&url, body, wire, &limits));
        match answer {
            Ok(answer) => {
                let split = reasoning::split(&answer.reasoning, &answer.content);
                Ok(Reply {
                    content: split.answer,
                    reasoning: (!split.reasoning.is_empty()).then_some(split.reasoning),
                    model: answer.model.unwrap_or_else(|| request.model.clone()),
                    elapsed: started.elapsed(),
                    cached: false,
                    usage: answer.usage,
                })
            }
            // The case logs this message once ("model call failed: ..."):
            // for a timeout it names the wait that ran out and its setting.
            Err((e, attempts)) => Err(self.chat_failure(&e, attempts, &request.model)),
        }
    }

    fn stream_chat(
        &self,
        url: &str,
        body: &Value,
        wire: Wire,
        limits: &Limits,
    ) -> Result<stream::Assembled, CallError> {
        let mut req = self.agent.post(url);
        if let Some(key) = &self.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = req
            .config()
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_recv_response(Some(limits.queue))
            .timeout_recv_body(Some(limits.answer))
            .build()
            .send_json(body)
            .map_err(|e| self.chat_transport_error(&e, url, limits))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let text = response
                .body_mut()
                .read_to_string()
                .map_err(|e| self.chat_transport_error(&e, url, limits))?;
            let outcome = if (400..500).contains(&status) && says_prompt_too_long(&text) {
                Outcome::PromptTooLong
            } else {
                Outcome::Status(status)
            };
            return Err(self.error(outcome, url, &error_text(&text)));
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let reader = std::io::BufReader::new(response.body_mut().as_reader());
        stream::read(wire, &content_type, reader).map_err(|e| match e {
            ReadError::Io(io) => {
                let outcome = match io.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
                    Some(inner) => chat_outcome(inner),
                    None if io.kind() == std::io::ErrorKind::TimedOut => Outcome::Generating,
                    None => Outcome::Dropped,
                };
                self.error(
                    outcome,
                    url,
                    &timeout_detail(outcome, limits, &io.to_string()),
                )
            }
            ReadError::Bad(detail) => self.error(Outcome::BadBody, url, &detail),
            ReadError::Cut => self.error(
                Outcome::Dropped,
                url,
                "the answer stopped before its last message",
            ),
        })
    }

    fn chat_transport_error(&self, e: &ureq::Error, url: &str, limits: &Limits) -> CallError {
        let outcome = chat_outcome(e);
        self.error(
            outcome,
            url,
            &timeout_detail(outcome, limits, &e.to_string()),
        )
    }

    fn chat_failure(&self, e: &CallError, attempts: u32, model: &str) -> BackendError {
        let advice = if e.is_missing_model() {
            (self.hints.missing_model)(model)
        } else {
            e.advice()
        };
        let tries = match attempts {
            1 => String::new(),
            n => format!(" (after {n} attempts)"),
        };
        BackendError {
            failure: e.failure(),
            message: format!(
                "{} at {}: {}{tries}; {advice}",
                self.hints.label,
                e.url,
                e.summary()
            ),
            usage: None,
        }
    }

    /// A GET for the connection test: short timeout, no retries.
    pub fn check_get(&self, path: &str) -> Result<Value, ConnectError> {
        self.send(path, None, CHECK_TIMEOUT).map_err(|e| {
            let unreachable = matches!(
                e.outcome,
                Outcome::ConnectFailed | Outcome::Dropped | Outcome::TimedOut
            );
            let message = match e.outcome {
                Outcome::ConnectFailed | Outcome::Dropped | Outcome::TimedOut => format!(
                    "cannot reach {} at {} ({}); {}",
                    self.hints.label, self.base_url, e.detail, self.hints.unreachable
                ),
                _ => format!(
                    "{} at {} failed the connection test: {}; {}",
                    self.hints.label,
                    e.url,
                    e.summary(),
                    e.advice()
                ),
            };
            ConnectError {
                message,
                server_answered: !unreachable,
            }
        })
    }

    /// The connection test's verdict when `model` is not among `available`.
    pub fn missing_model(&self, model: &str, available: &[String]) -> ConnectError {
        let present = if available.is_empty() {
            "none".to_string()
        } else {
            available.join(", ")
        };
        ConnectError {
            server_answered: true,
            message: format!(
                "model {model:?} is not available on {} at {}; {} (available: {present})",
                self.hints.label,
                self.base_url,
                (self.hints.missing_model)(model)
            ),
        }
    }
}

/// The two limits of a chat call.
struct Limits {
    queue: Duration,
    answer: Duration,
}

/// Which of a chat call's limits a timeout hit.
fn chat_outcome(e: &ureq::Error) -> Outcome {
    match e {
        ureq::Error::Timeout(ureq::Timeout::RecvResponse) => Outcome::Queued,
        ureq::Error::Timeout(ureq::Timeout::RecvBody | ureq::Timeout::PerRead) => {
            Outcome::Generating
        }
        other => classify(other),
    }
}

/// Words for a timeout that say which wait ran out; other details as given.
fn timeout_detail(outcome: Outcome, limits: &Limits, other: &str) -> String {
    let secs = |d: Duration| trim_float(d.as_secs_f64());
    match outcome {
        Outcome::Queued => format!(
            "the server did not start answering within {} s (llm.queue_timeout_secs: the \
             request waited in its queue or for a model to load)",
            secs(limits.queue)
        ),
        Outcome::Generating => format!(
            "the answer did not finish within {} s of its start (llm.timeout_secs)",
            secs(limits.answer)
        ),
        Outcome::TimedOut => format!("no connection within {} s", secs(CONNECT_TIMEOUT)),
        _ => other.to_string(),
    }
}

/// Maps a transport error to what retrying needs to know.
fn classify(e: &ureq::Error) -> Outcome {
    use std::io::ErrorKind;
    match e {
        ureq::Error::Timeout(_) => Outcome::TimedOut,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => Outcome::ConnectFailed,
        ureq::Error::Io(io) => match io.kind() {
            ErrorKind::TimedOut | ErrorKind::WouldBlock => Outcome::TimedOut,
            ErrorKind::ConnectionRefused
            | ErrorKind::AddrNotAvailable
            | ErrorKind::HostUnreachable
            | ErrorKind::NetworkUnreachable
            | ErrorKind::NotFound => Outcome::ConnectFailed,
            _ => Outcome::Dropped,
        },
        // Most often the server closed the connection mid-answer.
        ureq::Error::Protocol(_) => Outcome::Dropped,
        _ => Outcome::BadBody,
    }
}

/// The human part of an error body: Ollama's `{"error": "..."}`, OpenAI's
/// `{"error": {"message": "..."}}`, or the raw text, shortened.
fn error_text(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let error = v.get("error").unwrap_or(&v);
        error
            .as_str()
            .or_else(|| error.get("message").and_then(Value::as_str))
            .map(str::to_string)
    });
    match from_json {
        Some(text) => excerpt(&text),
        None if body.trim().is_empty() => "(empty body)".into(),
        None => excerpt(body.trim()),
    }
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(DETAIL_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

fn trim_float(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Whether a refusal says the prompt exceeds the context window, in the
/// words of the servers that refuse rather than cut: llama-server
/// (`exceed_context_size_error`), OpenAI (`context_length_exceeded`), vLLM
/// and LiteLLM ("maximum context length is N tokens").
fn says_prompt_too_long(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    [
        "exceed_context_size",
        "context_length_exceeded",
        "maximum context length",
        "exceeds the available context size",
    ]
    .iter()
    .any(|phrase| body.contains(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_of_a_long_prompt_are_recognised_in_each_servers_words() {
        for body in [
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            r#"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens","type":"BadRequestError","code":400}"#,
        ] {
            assert!(says_prompt_too_long(body), "{body}");
        }
        assert!(!says_prompt_too_long(
            r#"{"error":{"message":"bad n_predict"}}"#
        ));
    }

    #[test]
    fn error_text_reads_both_protocols_and_raw_bodies() {
        assert_eq!(
            error_text(r#"{"error":"model \"x\" not found, try pulling it first"}"#),
            r#"model "x" not found, try pulling it first"#
        );
        assert_eq!(
            error_text(
                r#"{"error":{"code":400,"message":"bad n_predict","type":"invalid_request_error"}}"#
            ),
            "bad n_predict"
        );
        assert_eq!(error_text("  \n"), "(empty body)");
        assert_eq!(error_text("<html>502</html>"), "<html>502</html>");
        assert_eq!(
            error_text(&"x".repeat(1000)).chars().count(),
            DETAIL_CHARS + 1
        );
    }

    #[test]
    fn debug_output_hides_the_key() {
        static HINTS: ServerHints = ServerHints {
            label: "stub",
            unreachable: "start it",
            missing_model: |m| format!("get {m}"),
        };
        let client = HttpClient::new("http://h/v1", Some("sk-secret".into()), &HINTS);
        let debug = format!("{client:?}");
        assert!(!debug.contains("sk-secret"), "{debug}");
        assert_eq!(client.redact("echo sk-secret"), "echo [redacted]");
    }
}
