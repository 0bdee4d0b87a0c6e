//! Ollama's native API (`docs/api.md` of ollama/ollama): `POST /api/chat`
//! streamed (NDJSON), `GET /api/version` and `GET /api/tags` for the
//! connection test, `POST /api/show` for whether the model thinks.

use serde_json::{Map, Value, json};

use super::http::{HttpClient, ServerHints};
use super::stream::Wire;
use super::{Backend, BackendError, ChatRequest, ConnectError, Reply, Thinking};
use crate::case::CaseId;
use crate::config::LlmConfig;

static HINTS: ServerHints = ServerHints {
    label: "Ollama",
    unreachable: "start it with `ollama serve`, or set OLLAMA_HOST to the address it listens on",
    missing_model: |model| {
        format!("run `ollama pull {model}`, or choose a present model with PROMPTEVAL_MODEL")
    },
};

/// An Ollama server at a base URL such as `http://127.0.0.1:11434`.
#[derive(Debug)]
pub struct Ollama {
    http: HttpClient,
    /// The model's digest from `/api/tags`, once the connection test saw it.
    digest: std::sync::OnceLock<String>,
}

impl Ollama {
    /// `base_url` is `Config.ollama_host` (already normalised).
    pub fn new(base_url: &str) -> Ollama {
        Ollama {
            http: HttpClient::new(base_url, None, &HINTS),
            digest: std::sync::OnceLock::new(),
        }
    }
}

/// The `/api/chat` body: `options` holds only the values that are set, so the
/// model's own defaults apply to the rest.
pub fn chat_body(request: &ChatRequest) -> Value {
    let LlmConfig {
        temperature,
        seed,
        num_ctx,
        num_predict,
        keep_alive,
        ..
    } = &request.options;
    let mut options = Map::new();
    options.insert("temperature".into(), json!(temperature));
    if let Some(seed) = seed {
        options.insert("seed".into(), json!(seed));
    }
    if let Some(n) = num_ctx {
        options.insert("num_ctx".into(), json!(n));
    }
    if let Some(n) = num_predict {
        options.insert("num_predict".into(), json!(n));
    }
    let mut body = json!({
        "model": request.model,
        "messages": request.messages,
        // Streamed: the answer's timeout counts from its start (stream.rs).
        "stream": true,
        "options": options,
    });
    if let Some(keep_alive) = keep_alive {
        body["keep_alive"] = json!(keep_alive);
    }
    // Unset: nothing, so the server's default applies.
    if let Some(think) = request.options.think {
        body["think"] = think.json();
    }
    body
}

/// `foo` and `foo:latest` name the same model.
fn same_model(wanted: &str, listed: &str) -> bool {
    let full = |name: &str| {
        if name.contains(':') {
            name.to_string()
        } else {
            format!("{name}:latest")
        }
    };
    full(wanted) == full(listed)
}

impl Backend for Ollama {
    fn kind(&self) -> &'static str {
        "ollama"
    }

    fn endpoint(&self) -> String {
        self.http.base_url().to_string()
    }

    fn model_identity(&self) -> Option<String> {
        self.digest.get().map(|d| format!("digest {d}"))
    }

    /// Unloads the model (Ollama's documented `keep_alive: 0` request with
    /// no prompt): otherwise it stays resident for keep_alive (5 minutes by
    /// default) beside the next model of the run. A failure only costs
    /// memory, so it is logged, never an error.
    fn release(&self, model: &str) {
        let body = serde_json::json!({"model": model, "keep_alive": 0});
        if let Err(e) = self
            .http
            .send("/api/generate", Some(&body), super::http::CHECK_TIMEOUT)
        {
            tracing::debug!(
                "could not unload {model} from {}: {e:?}",
                self.http.base_url()
            );
        }
    }

    fn check(&self, model: &str) -> Result<(), ConnectError> {
        // /api/version proves the server is there; a server that answers but
        // does not implement it (an Ollama-compatible proxy) is still usable,
        // so only an unreachable server stops the run here.
        match self.http.check_get("/api/version") {
            Ok(version) => tracing::debug!(
                "Ollama {} at {}",
                version["version"].as_str().unwrap_or("(unknown version)"),
                self.http.base_url()
            ),
            Err(e) if e.server_answered => {
                tracing::debug!("no /api/version at {}: {}", self.http.base_url(), e.message)
            }
            Err(e) => return Err(e),
        }
        let tags = self.http.check_get("/api/tags")?;
        let models = tags["models"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let listed = |m: &Value| {
            ["name", "model"]
                .iter()
                .filter_map(|k| m[k].as_str())
                .any(|name| same_model(model, name))
        };
        if let Some(entry) = models.iter().find(|m| listed(m)) {
            // `ollama pull` of a newer build keeps the tag but changes the
            // digest: the cache must not answer for the old one.
            if let Some(digest) = entry["digest"].as_str() {
                let _ = self.digest.set(digest.to_string());
            }
            return Ok(());
        }
        let names: Vec<String> = models
            .iter()
            .filter_map(|m| m["name"].as_str().or(m["model"].as_str()))
            .map(str::to_string)
            .collect();
        Err(self.http.missing_model(model, &names))
    }

    /// `POST /api/show`: Ollama lists `"thinking"` in a model's
    /// `capabilities` when it can reason (0.6.4 and later; from 0.13 such a
    /// model thinks unless told not to), and its context length in
    /// `model_info` (`<architecture>.context_length`).
    fn thinking(&self, model: &str) -> Option<Thinking> {
        let shown = self
            .http
            .send(
                "/api/show",
                Some(&json!({"model": model})),
                super::http::CHECK_TIMEOUT,
            )
            .map_err(|e| tracing::debug!("no /api/show for {model}: {e:?}"))
            .ok()?;
        let capabilities = shown["capabilities"].as_array()?;
        if !capabilities.iter().any(|c| c == "thinking") {
            return None;
        }
        let context_length = shown["model_info"].as_object().and_then(|info| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .and_then(|(_, n)| n.as_u64())
                .and_then(|n| u32::try_from(n).ok())
        });
        Some(Thinking {
            how: "/api/show lists \"thinking\"".into(),
            context_length,
            recorded: None,
        })
    }

    fn chat(&self, _case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let body = chat_body(request);
        let reply = self.http.chat("/api/chat", &body, request, Wire::Ollama)?;
        // Ollama does not refuse a prompt longer than num_ctx: it drops part
        // of it and answers; its token count tells (window.rs).
        if let Some(how) = reply
            .usage
            .prompt_tokens
            .and_then(|used| super::prompt_size::cut_prompt(used, request, request.options.num_ctx))
        {
            return Err(BackendError {
                failure: crate::case::ApiFailure::PromptTooLong,
                message: format!("Ollama at {}: {how}", self.http.base_url()),
                usage: Some(Box::new(reply.usage)),
            });
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_is_the_default_tag() {
        assert!(same_model("llama3", "llama3:latest"));
        assert!(same_model("llama3:latest", "llama3"));
        assert!(same_model("qwen2.5-coder:1.5b", "qwen2.5-coder:1.5b"));
        assert!(!same_model("qwen2.5-coder", "qwen2.5-coder:1.5b"));
    }

    #[test]
    fn unset_options_are_left_out() {
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![],
            options: LlmConfig {
                seed: None,
                num_ctx: None,
                num_predict: Some(64),
                keep_alive: None,
                ..LlmConfig::default()
            },
            slot: None,
        };
        let body = chat_body(&request);
        assert_eq!(
            body["options"],
            json!({"temperature": 0.0, "num_predict": 64})
        );
        assert!(body.get("keep_alive").is_none());
        assert_eq!(body["stream"], json!(true));
    }
}
