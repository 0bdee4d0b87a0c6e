//! The model that labels the variants' descriptions with the paper's
//! themes (`[variants.themes]`, defaulting to the writer's server and
//! model): greedy, one description per request, behind the response cache.

use std::sync::OnceLock;

use crate::backend::{Backend, ChatRequest, Message};
use crate::case::CaseId;
use crate::config::LlmConfig;
use crate::variants::themes::{Ask, Labeler};

/// Opens the labeler's server on first use: a labeled expansion never
/// contacts it.
pub type Connect = Box<dyn Fn() -> Result<Box<dyn Backend>, String> + Send + Sync>;

pub struct LlmLabeler {
    model: String,
    options: LlmConfig,
    connect: Connect,
    backend: OnceLock<Result<Box<dyn Backend>, String>>,
}

impl LlmLabeler {
    pub fn new(model: &str, options: LlmConfig, connect: Connect) -> LlmLabeler {
        LlmLabeler {
            model: model.to_string(),
            options,
            connect,
            backend: OnceLock::new(),
        }
    }

    pub fn model(&self) -> &str {
        &self.model
    }
}

impl Labeler for LlmLabeler {
    fn name(&self) -> String {
        self.model.clone()
    }

    fn ask(&self, ask: &Ask<'_>) -> Result<String, String> {
        let backend = self
            .backend
            .get_or_init(|| (self.connect)())
            .as_ref()
            .map_err(Clone::clone)?;
        let mut messages = vec![Message::system(ask.system), Message::user(ask.user)];
        // The second request shows the first reply and what was wrong with
        // it: greedy decoding would otherwise write the same reply again.
        if let Some((reply, why)) = ask.retry {
            messages.push(Message {
                role: "assistant".into(),
                content: reply.to_string(),
            });
            messages.push(Message::user(format!(
                "That reply cannot be used: {why}. Reply again with only the JSON asked for, using only codes from the list."
            )));
        }
        let what = match ask.retry {
            Some(_) => format!("{}.retry", ask.what),
            None => ask.what.to_string(),
        };
        let case = CaseId {
            model: None,
            prompt: "variants-labeler".into(),
            question: 0,
            question_id: format!("{}.{what}", ask.question).into(),
            round: 1,
            sample: None,
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages,
            options: LlmConfig {
                temperature: 0.0,
                system_prompt: None,
                ..self.options.clone()
            },
            slot: None,
        };
        let reply = backend
            .chat(&case, &request)
            .map_err(|e| format!("the labeler model {} failed: {}", self.model, e.message))?;
        let text = reply.content.trim();
        // A reasoning model's thoughts are not its answer.
        Ok(match text.find("</think>") {
            Some(end) => text[end + "</think>".len()..].trim().to_string(),
            None => text.to_string(),
        })
    }
}
