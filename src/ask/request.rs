//! Case + chain history -> the request sent to the model.
//!
//! One function builds it, for a live call, for a replayed one and for the
//! replay's check before the run, so what replay compares is exactly what
//! the model would be asked.

use serde::{Deserialize, Serialize};

use crate::ask::history::{HistoryEntry, kept, render_prompt};
use crate::backend::{ChatRequest, Message};
use crate::config::Config;

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
    /// Earlier entries left out so the prompt fits the context window
    /// (`history.fit_window`), beyond what the history caps leave out.
    pub left_out_to_fit: usize,
}

/// The request for `question` under `template` with the `system` prompt
/// (`Suite::system_prompt_for`), after the chain's earlier entries
/// `history` (oldest first; the configured caps decide what is shown), as
/// the 0-based `sample` of its case (which decides the seed).
///
/// With `history.fit_window` (the default), the oldest shown entries are
/// also left out while the prompt's estimated size (see [`estimate_tokens`])
/// and the reply's room (`llm.num_predict`) exceed `llm.num_ctx`, so a
/// growing history never makes the server cut a prompt. It depends on the
/// configuration only, so replay rebuilds exactly the same request.
pub fn build(
    config: &Config,
    model: &str,
    system: Option<&str>,
    template: &str,
    question: &str,
    history: &[HistoryEntry],
    sample: u32,
) -> CaseRequest {
    let mut shown = kept(history, &config.history);
    let mut user = render_prompt(template, question, shown, &config.history);
    let mut left_out_to_fit = 0;
    if let Some(budget) = prompt_budget(config) {
        let system_tokens = system.map_or(0, estimate_tokens);
        // The same sum as `estimate_messages` of the request built below.
        while !shown.is_empty() && system_tokens + estimate_tokens(&user) > budget {
            // A block at a time (history.drop_block), as the caps drop.
            let rest = crate::ask::history::from_block(&shown[1..], config.history.drop_block);
            left_out_to_fit += shown.len() - rest.len();
            shown = rest;
            user = render_prompt(template, question, shown, &config.history);
        }
    }
    let mut messages = Vec::new();
    if let Some(system) = system {
        messages.push(Message::system(system));
    }
    messages.push(Message::user(user.clone()));
    CaseRequest {
        request: ChatRequest {
            // A labelled model is asked by its server's name.
            model: config.served_model.as_deref().unwrap_or(model).to_string(),
            messages,
            options: config.llm.for_sample(sample),
            slot: None,
        },
        user,
        inputs: PromptInputs {
            template: template.to_string(),
            question: question.to_string(),
            history: shown.to_vec(),
        },
        left_out_to_fit,
    }
}

/// Tokens a prompt may take, estimated: the window less the reply's room
/// and a margin for the chat template's own tokens. `None` when the history
/// is not fitted or no window is configured.
pub fn prompt_budget(config: &Config) -> Option<usize> {
    if !config.history.fit_window {
        return None;
    }
    Some(prompt_room(config.llm.num_ctx? as usize, config))
}

/// Tokens a prompt may take in a `window`-token context: what is left after
/// the reply's room (`llm.num_predict`) and the chat template's markers.
pub fn prompt_room(window: usize, config: &Config) -> usize {
    let reply = config.llm.num_predict.unwrap_or(0) as usize;
    window.saturating_sub(reply + CHAT_TEMPLATE_MARGIN)
}

/// Tokens the chat template adds around the messages (role markers).
const CHAT_TEMPLATE_MARGIN: usize = 32;

pub use crate::backend::prompt_size::{
    estimate_generated_tokens, estimate_messages, estimate_tokens,
};

#[cfg(test)]
mod tests {
    use super::*;

    const SYSTEM: Option<&str> = Some("You write Python.");

    fn entries(n: usize) -> Vec<HistoryEntry> {
        (1..=n)
            .map(|i| HistoryEntry {
                question_number: i,
                question: format!("Question {i}: {}", "explain the input. ".repeat(10)),
                answer: "def f(xs):\n    return sorted(xs)\nprint(f([3, 1, 2]))".into(),
                passed: i % 2 == 0,
                expected: "[1, 2, 3]".into(),
                actual: "[1, 2, 3]".into(),
            })
            .collect()
    }

    fn config(num_ctx: Option<u32>, fit: bool) -> Config {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Config::load(&[("X", "")], dir.path()).unwrap();
        c.llm.num_ctx = num_ctx;
        c.llm.num_predict = Some(256);
        c.history.fit_window = fit;
        c
    }

    fn tokens(r: &CaseRequest) -> usize {
        estimate_messages(&r.request.messages)
    }

    #[test]
    fn the_oldest_entries_are_left_out_until_the_prompt_fits_the_window() {
        let history = entries(8);
        let c = config(Some(1024), true);
        let whole = build(
            &config(None, true),
            "m",
            SYSTEM,
            "T: {question}",
            "Q9",
            &history,
            0,
        );
        assert_eq!(whole.inputs.history.len(), 8);
        assert!(
            tokens(&whole) > prompt_room(1024, &c),
            "the test needs a long history"
        );

        let fitted = build(&c, "m", SYSTEM, "T: {question}", "Q9", &history, 0);
        assert!(fitted.left_out_to_fit > 0);
        assert!(tokens(&fitted) <= prompt_room(1024, &c));
        // The most recent entries are the ones kept, and the inputs say so.
        let kept = &fitted.inputs.history;
        assert_eq!(kept.len() + fitted.left_out_to_fit, 8);
        assert_eq!(kept.last().unwrap().question_number, 8);
        assert!(fitted.user.contains("Question 8:"));
        assert!(!fitted.user.contains("Question 1:"));
        // Deterministic: replay rebuilds the same request from the config.
        assert_eq!(
            fitted,
            build(&c, "m", SYSTEM, "T: {question}", "Q9", &history, 0)
        );
    }

    #[test]
    fn fitting_off_or_no_window_keeps_what_the_caps_keep() {
        let history = entries(8);
        for c in [config(Some(1024), false), config(None, true)] {
            let r = build(&c, "m", SYSTEM, "T: {question}", "Q9", &history, 0);
            assert_eq!(r.left_out_to_fit, 0);
            assert_eq!(r.inputs.history.len(), 8);
        }
    }

    #[test]
    fn the_estimate_is_high_for_code_and_for_cjk_text() {
        // Real tokenizers: about 4 characters of code per token, about 1
        // to 1.5 CJK characters per token.
        assert_eq!(estimate_tokens("print(1)  "), 4);
        assert_eq!(estimate_tokens("之前的學習經驗"), 7);
        assert_eq!(estimate_tokens(""), 0);
    }
}
