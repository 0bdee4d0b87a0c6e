//! The model that writes what the variants need and the suite lacks: p_top
//! from the reference solution with the paper's Appendix B prompt
//! (temperature 0.7, as the paper), and the summaries of p_top (temperature
//! 0.2, as the paper). It may be another server than the model under test
//! (`[variants.writer]`); its replies go through the response cache, and
//! what it wrote is stored in the run folder for review.

use std::sync::OnceLock;

use crate::backend::{Backend, BackendError, ChatRequest, ConnectError, Message};
use crate::case::CaseId;
use crate::config::{BackendKind, LlmConfig};
use crate::suite::{DescriptionStyle, Question};
use crate::variants::Writer;
use crate::variants::appendix_b::{
    appendix_b_system, commented_snippet, correct_name, plain_system, snippet, summary_system,
};
use crate::variants::parts::Parts;

/// The paper's sampling temperatures (Appendix A).
const P_TOP_TEMPERATURE: f64 = 0.7;
const SUMMARY_TEMPERATURE: f64 = 0.2;

/// Opens the writer's server on first use: a suite that gives every text
/// never contacts it.
pub type Connect = Box<dyn Fn() -> Result<Box<dyn Backend>, WriterError> + Send + Sync>;

/// Why the writer model did not write a text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WriterError {
    /// The question gives the writer nothing to describe.
    #[error(
        "it has neither `p_top` nor a `reference` solution for the writer model to describe; add one of them to the suite"
    )]
    NoReference,
    /// `[variants.writer] backend` names a backend that cannot write.
    #[error("[variants.writer] backend = {0:?} cannot write texts; use \"ollama\" or \"openai\"")]
    Backend(BackendKind),
    /// The writer's server or model is not there.
    #[error(
        "the writer model is needed for the texts the suite does not give (p_top, summaries): {}; configure [variants.writer] (backend, url, model) or give `p_top` in the suite",
        .0.message
    )]
    Unreachable(#[source] ConnectError),
    #[error("the writer model {model} failed: {}", .source.message)]
    Failed {
        model: String,
        source: Box<BackendError>,
    },
    #[error("the writer model {model} replied with nothing")]
    Empty { model: String },
}

pub struct LlmWriter {
    model: String,
    options: LlmConfig,
    connect: Connect,
    backend: OnceLock<Result<Box<dyn Backend>, WriterError>>,
}

impl LlmWriter {
    pub fn new(model: &str, options: LlmConfig, connect: Connect) -> LlmWriter {
        LlmWriter {
            model: model.to_string(),
            options,
            connect,
            backend: OnceLock::new(),
        }
    }

    /// Asks the writer; `attempt` (from 1) above 1 is a request of its own:
    /// its own seed and name, so neither the response cache nor the server
    /// hands back the text of an earlier attempt.
    fn ask(
        &self,
        q: &Question,
        what: &str,
        (system, user): (String, String),
        temperature: f64,
        attempt: u32,
    ) -> Result<String, WriterError> {
        let backend = self
            .backend
            .get_or_init(|| (self.connect)())
            .as_ref()
            .map_err(Clone::clone)?;
        let what = match attempt {
            1 => what.to_string(),
            n => format!("{what}.try{n}"),
        };
        let case = CaseId {
            model: None,
            prompt: "variants-writer".into(),
            question: q.index,
            question_id: format!("{}.{what}", q.id).into(),
            round: 1,
            sample: None,
        };
        let seed = self
            .options
            .seed
            .map(|s| s.wrapping_add(i64::from(attempt) - 1))
            .or((attempt > 1).then_some(i64::from(attempt)));
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![Message::system(system), Message::user(user)],
            options: LlmConfig {
                temperature,
                seed,
                system_prompt: None,
                ..self.options.clone()
            },
            slot: None,
        };
        let reply = backend
            .chat(&case, &request)
            .map_err(|e| WriterError::Failed {
                model: self.model.clone(),
                source: Box::new(e),
            })?;
        let mut text = clean(&reply.content);
        // The snippet's `correct` name is ours, not the problem's: a
        // writer that repeats it would point the model at a function the
        // tests never call.
        if let Some(entry) = &q.entry_point {
            text = text.replace(&correct_name(q.code_language(), entry), entry);
        }
        if text.is_empty() {
            return Err(WriterError::Empty {
                model: self.model.clone(),
            });
        }
        Ok(text)
    }
}

impl Writer for LlmWriter {
    type Error = WriterError;

    fn p_top(&self, q: &Question, parts: &Parts, attempt: u32) -> Result<String, WriterError> {
        let Some(reference) = &q.reference else {
            return Err(WriterError::NoReference);
        };
        let language = q.code_language();
        let (system, user) = match &q.entry_point {
            Some(entry) if parts.is_function() => (
                appendix_b_system(language),
                match language.info().description {
                    DescriptionStyle::Docstring => snippet(&q.question, parts, entry, reference),
                    DescriptionStyle::CComments | DescriptionStyle::Comments => {
                        commented_snippet(language, &q.question, parts, entry, reference)
                    }
                },
            ),
            _ => (
                plain_system(language),
                format!(
                    "Task:\n{}\n\nProgram:\n```{}\n{reference}\n```",
                    q.question,
                    language.as_str()
                ),
            ),
        };
        self.ask(q, "p_top", (system, user), P_TOP_TEMPERATURE, attempt)
    }

    fn summary(&self, q: &Question, p_top: &str, words: u32) -> Result<String, WriterError> {
        let user = format!(
            "Summarize the following description of a function in at most {words} words. Keep what is needed to implement it, refer to it as \"the function\", and reply with the summary only.\n\nDescription:\n{p_top}"
        );
        self.ask(
            q,
            &format!("summary_{words}w"),
            (summary_system(q.code_language()), user),
            SUMMARY_TEMPERATURE,
            1,
        )
    }
}

/// The reply without a reasoning block or a fence around all of it.
fn clean(reply: &str) -> String {
    let mut text = reply.trim();
    if let Some(end) = text.find("</think>") {
        text = text[end + "</think>".len()..].trim();
    }
    if text.starts_with("```") && text.ends_with("```") && text.len() > 6 {
        let inner = &text[3..text.len() - 3];
        text = inner
            .split_once('\n')
            .map_or(inner, |(_, rest)| rest)
            .trim();
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_lose_reasoning_and_an_outer_fence() {
        assert_eq!(
            clean("<think>hmm</think>\n\nThe function adds."),
            "The function adds."
        );
        assert_eq!(
            clean("```markdown\nStep 1.\n\nStep 2.\n```"),
            "Step 1.\n\nStep 2."
        );
        assert_eq!(clean("  plain  "), "plain");
    }
}
