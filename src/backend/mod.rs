//! Model servers: one trait, one implementation per protocol. Only this
//! module knows HTTP.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::case::{ApiFailure, CaseId};
use crate::config::LlmConfig;

mod http;
pub mod ollama;
pub mod openai;
pub mod pool;
pub mod prompt_size;
pub mod reasoning;
pub mod retry;
mod stream;

/// One chat message, as both protocols spell it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// Everything a backend needs for one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub options: LlmConfig,
    /// The model slot the scheduler asks on (schedule.rs), for a server
    /// that takes it (llama-server's `id_slot`): where the chain's prefix
    /// already is. Never part of the request's key.
    #[serde(skip)]
    pub slot: Option<usize>,
}

impl ChatRequest {
    /// What decides the reply, for matching against a recording.
    pub fn key(&self) -> RequestKey {
        RequestKey {
            model: self.model.clone(),
            messages: self.messages.clone(),
            options: Sampling::of(&self.options),
        }
    }
}

/// The parts of a request that decide the model's reply: the model, every
/// message (system prompt and history included) and the sampling options.
/// Replay answers a case only when the recorded key equals the new one.
/// Transport settings (timeouts, retries, keep_alive) are not part of it.
/// Deserialises from a recorded [`ChatRequest`] (its other options are ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestKey {
    pub model: String,
    pub messages: Vec<Message>,
    pub options: Sampling,
}

/// The options that change what the model says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    pub temperature: f64,
    pub seed: Option<i64>,
    /// The context window: a smaller one can cut the prompt.
    pub num_ctx: Option<u32>,
    pub num_predict: Option<u32>,
    /// How hard a reasoning model thinks; absent when unset, so recordings
    /// made without it keep their key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<crate::config::Think>,
}

impl Sampling {
    pub fn of(options: &LlmConfig) -> Sampling {
        Sampling {
            temperature: options.temperature,
            seed: options.seed,
            num_ctx: options.num_ctx,
            num_predict: options.num_predict,
            think: options.think,
        }
    }

    /// `temperature 0 -> 0.7, seed 42 -> 7`: what differs from `recorded`.
    pub fn changes_from(&self, recorded: &Sampling) -> Vec<String> {
        fn show<T: std::fmt::Debug>(v: &Option<T>) -> String {
            match v {
                Some(v) => format!("{v:?}"),
                None => "unset".into(),
            }
        }
        let mut out = Vec::new();
        if self.temperature != recorded.temperature {
            out.push(format!(
                "temperature {} -> {}",
                recorded.temperature, self.temperature
            ));
        }
        let pairs = [
            ("seed", show(&recorded.seed), show(&self.seed)),
            ("num_ctx", show(&recorded.num_ctx), show(&self.num_ctx)),
            (
                "num_predict",
                show(&recorded.num_predict),
                show(&self.num_predict),
            ),
        ];
        if self.think != recorded.think {
            let show = |t: &Option<crate::config::Think>| {
                t.map_or_else(|| "unset".to_string(), |t| t.describe())
            };
            out.push(format!(
                "think {} -> {}",
                show(&recorded.think),
                show(&self.think)
            ));
        }
        for (name, old, new) in pairs {
            if old != new {
                out.push(format!("{name} {old} -> {new}"));
            }
        }
        out
    }
}

/// A model's answer, its reasoning apart (reasoning.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The answer: what is judged and what the learning history shows.
    pub content: String,
    /// The model's reasoning, from the server's own field or split off the
    /// content (`<think>`, harmony channels); None when there was none.
    pub reasoning: Option<String>,
    /// The model name the server reports (may differ from the requested alias).
    pub model: String,
    pub elapsed: Duration,
    /// Answered from the response cache, without calling the model.
    pub cached: bool,
    /// The server's own figures for this answer, as far as it gave them.
    pub usage: Usage,
}

/// What the server reported about one answer: Ollama's `prompt_eval_count`,
/// `eval_count`, `done_reason` and `eval_duration`; OpenAI's `usage` and
/// `finish_reason` (llama-server's `timings` for the duration).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// `stop`, or `length` when the reply hit `num_predict` / `max_tokens`.
    pub finish_reason: Option<String>,
    /// Seconds the server spent generating the completion tokens.
    pub generation_secs: Option<f64>,
    /// Of `completion_tokens`, those spent reasoning, where the server says
    /// (`usage.completion_tokens_details.reasoning_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// Of `prompt_tokens`, those the server reused from its prompt cache
    /// rather than processed, where it says: OpenAI's
    /// `usage.prompt_tokens_details.cached_tokens`, llama-server's
    /// `timings.cache_n`, Ollama's `prompt_eval_cached_count`. A
    /// measurement, never part of a request's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cached: Option<u64>,
}

/// A failed call after retries: the class and one line that says what
/// happened, where, and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendError {
    pub failure: ApiFailure,
    pub message: String,
    /// What the server reported for a call it answered but that cannot be
    /// judged (Ollama's cut prompt): the tokens were spent all the same.
    /// Boxed: a failure is rare, and it travels in every call's Result.
    pub usage: Option<Box<Usage>>,
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.failure.as_str(), self.message)
    }
}

impl std::error::Error for BackendError {}

/// Why the run cannot start: the server or the model is not there.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectError {
    pub message: String,
    /// The server is there but refused the run (e.g. the model is missing):
    /// `backend = "auto"` must report this, not fall back to a replay.
    pub server_answered: bool,
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConnectError {}

/// A model server.
pub trait Backend: Send + Sync {
    /// "ollama", "openai" or "replay".
    fn kind(&self) -> &'static str;
    /// Where it talks to: a base URL or a snapshot folder.
    fn endpoint(&self) -> String;
    /// The connection test run once before the first case.
    fn check(&self, model: &str) -> Result<(), ConnectError>;
    /// What pins the model down beyond its name (Ollama: the digest the
    /// connection test saw), for the response cache's key.
    fn model_identity(&self) -> Option<String> {
        None
    }
    /// What the connection test learnt of the server's context window.
    fn window(&self) -> ServerWindow {
        ServerWindow::default()
    }
    /// Whether `model` reasons before it answers, where the server (or the
    /// recordings) say so before any case: `None` when it does not, or
    /// when nothing says (an OpenAI-compatible server tells only by its
    /// replies, which session/thinking.rs watches).
    fn thinking(&self, _model: &str) -> Option<Thinking> {
        None
    }
    /// One chat completion for `case`.
    fn chat(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError>;
    /// The figures of a reply this backend would give `case` without
    /// calling the model (the response cache's), `None` when answering
    /// would take a call: the plan counts no call for it and the budget
    /// charges it nothing.
    fn answered_without_a_call(&self, _case: &CaseId, _request: &ChatRequest) -> Option<Usage> {
        None
    }
    /// One call for the plan's probe: as [`Backend::chat`], but past the
    /// response cache (neither answered from it nor stored in it, so the
    /// run that follows makes the call the plan counted).
    fn probe(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        self.chat(case, request)
    }
    /// The server's own count of the tokens of `request`'s prompt, chat
    /// template included, where it has a tokenizer to ask (llama-server's
    /// `/apply-template` and `/tokenize`); `None` elsewhere.
    fn count_prompt_tokens(&self, _request: &ChatRequest) -> Option<u64> {
        None
    }
    /// Every case of `model` has been asked: a server that keeps models
    /// loaded may let it go, so the next model of a multi-model run has
    /// the server to itself (one model resident at a time).
    fn release(&self, _model: &str) {}
}

/// What says that a model reasons before it answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thinking {
    /// How it is known, for the run's first lines: `/api/show lists
    /// "thinking"`, `its recordings carry reasoning`.
    pub how: String,
    /// The model's own context length, where the server says it.
    pub context_length: Option<u32>,
    /// A replay's: the `num_predict` and `num_ctx` its recordings were
    /// asked with, so a run that set neither asks what was recorded.
    pub recorded: Option<(Option<u32>, Option<u32>)>,
}

/// The server's context window as the connection test saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerWindow {
    /// Tokens per request where the server says (llama-server's `/props`:
    /// `n_ctx` per slot, that is `-c` divided by `-np`).
    pub tokens: Option<u32>,
    /// The OpenAI endpoint of an Ollama: it does not apply `num_ctx` and
    /// cuts a longer prompt without a word.
    pub ollama_behind_openai: bool,
    /// The server's parallel slots where it says (llama-server's `/props`:
    /// `total_slots`): a request may then name its slot.
    pub slots: Option<u32>,
}
