//! The model that writes what the variants need and the suite lacks: p_top
//! from the reference solution with the paper's Appendix B prompt
//! (temperature 0.7, as the paper), and the summaries of p_top (temperature
//! 0.2, as the paper). It may be another server than the model under test
//! (`[variants.writer]`); its replies go through the response cache, and
//! what it wrote is stored in the run folder for review.

use std::sync::OnceLock;

use crate::ask::backend::{Backend, BackendError, ChatRequest, ConnectError, Message};
use crate::case::CaseId;
use crate::config::{BackendKind, LlmConfig};
use crate::suite::variants::Writer;
use crate::suite::variants::parts::Parts;
use crate::suite::{CodeLanguage, Question};

/// Appendix B's system prompt; `<C++ or Python, depending on the
/// language>` is the question's.
pub fn appendix_b_system(language: CodeLanguage) -> String {
    format!(
        "You are an expert in {}. The user will provide a code snippet, and the code snippet will contain a function whose name starts with **correct**. You should produce a description of that specific function as a hint for how to implement it. You should only describe the function itself (not the surrounding code), and refer to it as \"the function\" or \"the function provided,\" never by its actual name. If the implementation requires helper functions, your description should still be self-contained.\nYou should describe the function step by step, and include all the details of the function.",
        language.name()
    )
}

/// For a question that is not a function: the same request in words that fit.
fn plain_system(language: CodeLanguage) -> String {
    format!(
        "You are an expert in {}. The user will provide a task and a program that solves it. You should produce a description of how the program solves the task, as a hint for how to implement it. Describe it step by step and include all the details, without quoting the program.",
        language.name()
    )
}

fn summary_system(language: CodeLanguage) -> String {
    format!(
        "You condense descriptions of {} functions.",
        language.name()
    )
}

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

    fn ask(
        &self,
        q: &Question,
        what: &str,
        system: String,
        user: String,
        temperature: f64,
    ) -> Result<String, WriterError> {
        let backend = self
            .backend
            .get_or_init(|| (self.connect)())
            .as_ref()
            .map_err(Clone::clone)?;
        let case = CaseId {
            model: None,
            prompt: "variants-writer".into(),
            question: q.index,
            question_id: format!("{}.{what}", q.id).into(),
            round: 1,
            sample: None,
        };
        let request = ChatRequest {
            model: self.model.clone(),
            messages: vec![Message::system(system), Message::user(user)],
            options: LlmConfig {
                temperature,
                system_prompt: None,
                ..self.options.clone()
            },
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

    fn p_top(&self, q: &Question, parts: &Parts) -> Result<String, WriterError> {
        let Some(reference) = &q.reference else {
            return Err(WriterError::NoReference);
        };
        let language = q.code_language();
        let (system, user) = match &q.entry_point {
            Some(entry) if parts.is_function() => (
                appendix_b_system(language),
                match language {
                    CodeLanguage::Python => snippet(&q.question, parts, entry, reference),
                    CodeLanguage::Cpp => cpp_snippet(&q.question, parts, entry, reference),
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
        self.ask(q, "p_top", system, user, P_TOP_TEMPERATURE)
    }

    fn summary(&self, q: &Question, p_top: &str, words: u32) -> Result<String, WriterError> {
        let user = format!(
            "Summarize the following description of a function in at most {words} words. Keep what is needed to implement it, refer to it as \"the function\", and reply with the summary only.\n\nDescription:\n{p_top}"
        );
        self.ask(
            q,
            &format!("summary_{words}w"),
            summary_system(q.code_language()),
            user,
            SUMMARY_TEMPERATURE,
        )
    }
}

/// Appendix B's code snippet: the original prompt and its solution, the
/// function renamed `correct_<name>`.
pub fn snippet(question: &str, parts: &Parts, entry: &str, reference: &str) -> String {
    let renamed = |text: &str| {
        regex::Regex::new(&format!(r"\bdef(\s+){entry}(\s*)\("))
            .map(|re| {
                re.replace_all(text, format!("def${{1}}correct_{entry}${{2}}("))
                    .into_owned()
            })
            .unwrap_or_else(|_| text.to_string())
    };
    let whole_function = reference.contains(&format!("def {entry}"));
    if whole_function {
        format!("{}{}", parts.preamble, renamed(reference))
    } else {
        format!("{}{reference}", renamed(question))
    }
}

/// The name the snippet gives the function: HumanEval's `correct_<name>`,
/// ParEval's own `correct<Name>` (its baselines are written so).
fn correct_name(language: CodeLanguage, entry: &str) -> String {
    match language {
        CodeLanguage::Python => format!("correct_{entry}"),
        CodeLanguage::Cpp => {
            let mut chars = entry.chars();
            let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
            format!("correct{}{}", first.unwrap_or_default(), chars.as_str())
        }
    }
}

/// Appendix B's code snippet for a C++ question: the prompt as written
/// (preamble, its description) with the reference as the function's
/// definition, renamed `correct<Name>` as ParEval's baselines name it. A
/// reference that is a body only completes the prompt's signature.
pub fn cpp_snippet(question: &str, parts: &Parts, entry: &str, reference: &str) -> String {
    let head = question
        .strip_suffix(parts.signature.as_str())
        .unwrap_or(&parts.preamble);
    let renamed = |text: &str| {
        regex::Regex::new(&format!(r"\b{}(\s*)\(", regex::escape(entry)))
            .map(|re| {
                re.replace(
                    text,
                    format!("{}${{1}}(", correct_name(CodeLanguage::Cpp, entry)),
                )
                .into_owned()
            })
            .unwrap_or_else(|_| text.to_string())
    };
    let whole_function = regex::Regex::new(&format!(r"\b{}\s*\(", regex::escape(entry)))
        .is_ok_and(|re| re.is_match(reference));
    if whole_function {
        format!("{head}{}", renamed(reference.trim_start()))
    } else {
        format!("{head}{}\n{}", renamed(&parts.signature), reference)
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
    fn the_snippet_is_the_prompt_and_solution_with_the_function_renamed() {
        let question = "import math\n\n\ndef area(r):\n    \"\"\"Area.\"\"\"\n";
        let parts = Parts::of(question, Some("area"));
        assert_eq!(
            snippet(question, &parts, "area", "    return math.pi * r * r\n"),
            "import math\n\n\ndef correct_area(r):\n    \"\"\"Area.\"\"\"\n    return math.pi * r * r\n"
        );
        assert_eq!(
            snippet(
                question,
                &parts,
                "area",
                "def area(r):\n    return 3 * r * r\n"
            ),
            "import math\n\n\ndef correct_area(r):\n    return 3 * r * r\n"
        );
    }

    #[test]
    fn a_cpp_snippet_is_the_prompt_with_the_reference_named_as_pareval_names_it() {
        let question = "#include <vector>\n\n/* Sum x.\n   Example: [1, 2] -> 3\n*/\nint sumOf(std::vector<int> const& x) {";
        let parts = Parts::of_cpp(question, Some("sumOf"));
        let whole = "int sumOf(std::vector<int> const& x) {\n    int s = 0;\n    for (int v : x) s += v;\n    return s;\n}";
        assert_eq!(
            cpp_snippet(question, &parts, "sumOf", whole),
            "#include <vector>\n\n/* Sum x.\n   Example: [1, 2] -> 3\n*/\nint correctSumOf(std::vector<int> const& x) {\n    int s = 0;\n    for (int v : x) s += v;\n    return s;\n}"
        );
        assert!(
            cpp_snippet(question, &parts, "sumOf", "    return 0;\n}")
                .ends_with("*/\nint correctSumOf(std::vector<int> const& x) {\n    return 0;\n}")
        );
        assert_eq!(correct_name(CodeLanguage::Cpp, "sumOf"), "correctSumOf");
        assert!(
            appendix_b_system(CodeLanguage::Cpp).starts_with("You are an expert in C++. The user")
        );
    }

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
