//! Case + chain history -> the request sent to the model.
//!
//! One function builds it, for a live call, for a replayed one and for the
//! replay's check before the run, so what replay compares is exactly what
//! the model would be asked.

use serde::{Deserialize, Serialize};

use crate::backend::{ChatRequest, Message};
use crate::config::Config;
use crate::history::{HistoryEntry, build_prompt, kept};

/// What a case's user message is built from; recorded with each reply so a
/// later run can say why its request differs (template, question, history).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptInputs {
    pub template: String,
    pub question: String,
    /// The earlier entries of the chain that the message shows, oldest first.
    pub history: Vec<HistoryEntry>,
}

/// A case's request and the user message inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRequest {
    pub request: ChatRequest,
    /// The full user message, history included.
    pub user: String,
    pub inputs: PromptInputs,
}

/// The request for `question` under `template`, after the chain's earlier
/// entries `history` (oldest first; the configured caps decide what is shown).
pub fn build(
    config: &Config,
    model: &str,
    template: &str,
    question: &str,
    history: &[HistoryEntry],
) -> CaseRequest {
    let user = build_prompt(template, question, history, &config.history);
    let mut messages = Vec::new();
    if let Some(system) = &config.llm.system_prompt {
        messages.push(Message::system(system.clone()));
    }
    messages.push(Message::user(user.clone()));
    CaseRequest {
        request: ChatRequest {
            model: model.to_string(),
            messages,
            options: config.llm.clone(),
        },
        user,
        inputs: PromptInputs {
            template: template.to_string(),
            question: question.to_string(),
            history: kept(history, &config.history).to_vec(),
        },
    }
}
