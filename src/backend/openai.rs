//! The OpenAI chat-completions protocol as llama.cpp's `llama-server` (and
//! vLLM, LM Studio, Ollama's `/v1`) implement it: `POST {base}/chat/completions`
//! and `GET {base}/models`, where `base` ends in `/v1`.

use crate::config::Think;
use serde_json::{Map, Value, json};

use super::http::{HttpClient, ServerHints};
use super::stream::Wire;
use super::{Backend, BackendError, ChatRequest, ConnectError, Reply, ServerWindow};
use crate::case::CaseId;

static HINTS: ServerHints = ServerHints {
    label: "the OpenAI-compatible server",
    unreachable: "start one with `scripts/local-llm.sh start`, or set PROMPTEVAL_BASE_URL \
                  to its /v1 URL",
    missing_model: |model| {
        format!(
            "start the server with that model (llama-server: `--alias {model}`), \
             or choose a listed model with PROMPTEVAL_MODEL"
        )
    },
};

/// The API key for OpenAI-compatible servers: `PROMPTEVAL_API_KEY`, else
/// `OPENAI_API_KEY`. Keys never come from harness.toml, which gets committed.
pub fn api_key_from_env() -> Option<String> {
    first_key(|name| std::env::var(name).ok())
}

/// The first non-empty key among the variables, in order of precedence.
fn first_key(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    ["PROMPTEVAL_API_KEY", "OPENAI_API_KEY"]
        .into_iter()
        .filter_map(var)
        .map(|key| key.trim().to_string())
        .find(|key| !key.is_empty())
}

/// An OpenAI-compatible server at a base URL ending in `/v1`. Its Debug
/// output never shows the key.
#[derive(Debug)]
pub struct OpenAi {
    http: HttpClient,
    /// Set by the connection test.
    window: std::sync::OnceLock<ServerWindow>,
}

impl OpenAi {
    /// `base_url` is `Config.openai_base_url`; `api_key` is sent as
    /// `Authorization: Bearer` when set (see [`api_key_from_env`]).
    pub fn new(base_url: &str, api_key: Option<String>) -> OpenAi {
        OpenAi {
            http: HttpClient::new(base_url, api_key, &HINTS),
            window: std::sync::OnceLock::new(),
        }
    }

    /// llama-server says its window per slot at `/props`; an Ollama answers
    /// `/api/version` at the same root. Other servers say neither.
    fn probe_window(&self) -> ServerWindow {
        let props = self.http.probe_root("/props");
        let tokens = props.as_ref().and_then(|p| {
            p["default_generation_settings"]["n_ctx"]
                .as_u64()
                .or(p["n_ctx"].as_u64())
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n > 0)
        });
        let ollama_behind_openai = tokens.is_none()
            && self
                .http
                .probe_root("/api/version")
                .is_some_and(|v| v["version"].is_string());
        let slots = props
            .as_ref()
            .and_then(|p| p["total_slots"].as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0);
        ServerWindow {
            tokens,
            ollama_behind_openai,
            slots,
        }
    }
}

/// The `/chat/completions` body; `num_predict` becomes `max_tokens`.
/// Ollama-only options (`num_ctx`, `keep_alive`) have no counterpart here.
pub fn chat_body(request: &ChatRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), json!(request.messages));
    body.insert("temperature".into(), json!(request.options.temperature));
    if let Some(seed) = request.options.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(n) = request.options.num_predict {
        body.insert("max_tokens".into(), json!(n));
    }
    match request.options.think {
        // OpenAI's and vLLM's name for a level; llama-server passes it to
        // the chat template (gpt-oss's `reasoning_effort`).
        Some(Think::Level(level)) => {
            body.insert("reasoning_effort".into(), json!(level.name()));
        }
        // What llama.cpp and vLLM document for Qwen3-style templates.
        Some(Think::On(on)) => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": on}),
            );
        }
        None => {}
    }
    // Streamed: the answer's timeout counts from its start (stream.rs); the
    // last event then carries the token counts.
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(body)
}

impl Backend for OpenAi {
    fn kind(&self) -> &'static str {
        "openai"
    }

    fn endpoint(&self) -> String {
        self.http.base_url().to_string()
    }

    fn count_prompt_tokens(&self, request: &ChatRequest) -> Option<u64> {
        // The prompt as the model reads it (the chat template applied),
        // then the model's own tokenizer.
        let templated = self
            .http
            .post_root("/apply-template", &json!({"messages": request.messages}))?;
        let prompt = templated["prompt"].as_str()?;
        let tokens = self.http.post_root(
            "/tokenize",
            &json!({"content": prompt, "add_special": true}),
        )?;
        tokens["tokens"].as_array().map(|t| t.len() as u64)
    }

    fn check(&self, model: &str) -> Result<(), ConnectError> {
        let models = self.http.check_get("/models")?;
        let ids: Vec<String> = models["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["id"].as_str())
            .map(str::to_string)
            .collect();
        if !ids.iter().any(|id| id == model) {
            return Err(self.http.missing_model(model, &ids));
        }
        let _ = self.window.set(self.probe_window());
        Ok(())
    }

    fn window(&self) -> ServerWindow {
        self.window.get().cloned().unwrap_or_default()
    }

    /// OpenAI-compatible servers report no digest: the server's address
    /// stands in (with `model_info`, added by the cache).
    fn model_identity(&self) -> Option<String> {
        Some(format!("served at {}", self.http.base_url()))
    }

    fn chat(&self, _case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let mut body = chat_body(request);
        // llama-server keeps each slot's last prompt: the scheduler's slot
        // is where the chain's prefix is. Only a slot the server has.
        let slots = self.window.get().and_then(|w| w.slots);
        if let (Some(slot), Some(n)) = (request.slot, slots)
            && slot < n as usize
        {
            body["id_slot"] = json!(slot);
        }
        let reply = self
            .http
            .chat("/chat/completions", &body, request, Wire::OpenAi)?;
        // llama-server and vLLM refuse a prompt beyond their window; an
        // Ollama behind its OpenAI endpoint cuts it without a word, and
        // only its token count tells (window.rs). It applies no num_ctx.
        if let Some(how) = reply
            .usage
            .prompt_tokens
            .and_then(|used| super::prompt_size::cut_prompt(used, request, None))
        {
            return Err(BackendError {
                failure: crate::case::ApiFailure::PromptTooLong,
                message: format!("{}: {how}", self.http.base_url()),
                usage: Some(Box::new(reply.usage)),
            });
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Env, LlmConfig};

    #[test]
    fn num_predict_becomes_max_tokens() {
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![super::super::Message::user("hi")],
            options: LlmConfig {
                num_predict: Some(99),
                seed: Some(3),
                ..LlmConfig::default()
            },
            slot: None,
        };
        let body = chat_body(&request);
        assert_eq!(body["max_tokens"], json!(99));
        assert_eq!(body["seed"], json!(3));
        assert!(body.get("num_ctx").is_none());
        assert_eq!(body["messages"][0]["content"], json!("hi"));
    }

    #[test]
    fn prompteval_api_key_wins_and_empty_values_are_skipped() {
        let both = [("PROMPTEVAL_API_KEY", "a"), ("OPENAI_API_KEY", "b")];
        assert_eq!(first_key(|n| both.var(n)), Some("a".into()));
        let empty_first = [("PROMPTEVAL_API_KEY", " "), ("OPENAI_API_KEY", "b")];
        assert_eq!(first_key(|n| empty_first.var(n)), Some("b".into()));
        assert_eq!(first_key(|n| [("X", "")].var(n)), None);
    }

    #[test]
    fn debug_never_shows_the_key() {
        let backend = OpenAi::new("http://127.0.0.1:1/v1", Some("sk-very-secret".into()));
        assert!(!format!("{backend:?}").contains("sk-very-secret"));
    }
}
