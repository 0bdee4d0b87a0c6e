//! What calls already made say about the calls a run will make: their
//! prompt and reply tokens, the server's count against the project's
//! estimate of the same text, and their seconds. From a resumed run's
//! journal, the recordings, the response cache, and a probe.

use std::collections::BTreeMap;

use crate::backend::prompt_size::estimate_generated_tokens;
use crate::backend::{Message, Usage};
use crate::case::{CaseRecord, SnapshotState};
use crate::suite::CodeLanguage;

/// One call, as its server counted it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The project's central estimate of the prompt's tokens (about four
    /// characters a token, every message), to scale other prompts by.
    pub prompt_estimate: u64,
    pub prompt_tokens: u64,
    pub reply_tokens: u64,
    /// Characters of the reply.
    pub reply_chars: usize,
    /// Characters of its code as a later question's history shows it
    /// (extracted, trimmed).
    pub answer_chars: usize,
    /// Seconds from the request to the reply's end, when known.
    pub secs: Option<f64>,
    /// Seconds its program took to run and be judged, when it was.
    pub exec_secs: Option<f64>,
}

/// Calls seen, and where each was seen.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    pub calls: Vec<Call>,
    /// Source ("journal", "recordings", "cache", "probe") -> calls.
    pub sources: BTreeMap<&'static str, usize>,
}

/// The central estimate of the prompt tokens of `messages`.
pub fn prompt_estimate(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| estimate_generated_tokens(&m.content))
        .sum::<u64>()
        .max(1)
}

impl Call {
    /// A call with the server's figures, `None` when it gave no counts;
    /// `language` is its question's, whose code the history shows.
    pub fn of(
        messages: &[Message],
        usage: &Usage,
        reply: &str,
        secs: Option<f64>,
        language: CodeLanguage,
    ) -> Option<Call> {
        Some(Call {
            prompt_estimate: prompt_estimate(messages),
            prompt_tokens: usage.prompt_tokens?,
            reply_tokens: usage.completion_tokens?,
            reply_chars: reply.chars().count(),
            answer_chars: answer_chars(reply, language),
            secs: secs.filter(|s| s.is_finite() && *s >= 0.0),
            exec_secs: None,
        })
    }

    /// A journal's record of a model call (not a cache hit, not a replay)
    /// with the server's counts.
    pub fn of_record(r: &CaseRecord) -> Option<Call> {
        if r.cached || r.snapshot == Some(SnapshotState::Replayed) {
            return None;
        }
        let tokens = r.tokens?;
        let mut messages = Vec::new();
        if let Some(system) = &r.system_prompt {
            messages.push(Message::system(system));
        }
        messages.push(Message::user(r.prompt.clone()));
        Some(Call {
            prompt_estimate: prompt_estimate(&messages),
            prompt_tokens: tokens.prompt,
            reply_tokens: tokens.completion,
            reply_chars: r.reply.as_deref().map_or(0, |t| t.chars().count()),
            answer_chars: r.code.as_deref().map_or(0, |c| c.trim().chars().count()),
            secs: Some(r.llm_secs),
            exec_secs: Some(r.exec_secs),
        })
    }
}

impl Evidence {
    pub fn add(&mut self, source: &'static str, call: Call) {
        *self.sources.entry(source).or_default() += 1;
        self.calls.push(call);
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The server's prompt tokens per estimated token, over every call.
    pub fn ratio(&self) -> Option<f64> {
        let estimated: u64 = self.calls.iter().map(|c| c.prompt_estimate).sum();
        let counted: u64 = self.calls.iter().map(|c| c.prompt_tokens).sum();
        (estimated > 0 && counted > 0).then(|| counted as f64 / estimated as f64)
    }

    pub fn mean_reply_tokens(&self) -> Option<f64> {
        mean(self.calls.iter().map(|c| c.reply_tokens as f64))
    }

    /// Characters of a history entry's answer, over every call.
    pub fn mean_answer_chars(&self) -> Option<f64> {
        mean(self.calls.iter().map(|c| c.answer_chars as f64))
    }

    /// Seconds a call takes, over the calls that say.
    pub fn mean_secs(&self) -> Option<f64> {
        mean(self.calls.iter().filter_map(|c| c.secs))
    }

    /// Seconds a case's program takes, over the cases that ran one: the
    /// median, since a run's first program also starts the sandbox's
    /// interpreter.
    pub fn median_exec_secs(&self) -> Option<f64> {
        let mut secs: Vec<f64> = self.calls.iter().filter_map(|c| c.exec_secs).collect();
        secs.sort_by(f64::total_cmp);
        match secs.len() {
            0 => None,
            n if n % 2 == 1 => Some(secs[n / 2]),
            n => Some((secs[n / 2 - 1] + secs[n / 2]) / 2.0),
        }
    }

    /// "12 calls (10 recordings, 2 cache)".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .sources
            .iter()
            .map(|(source, n)| format!("{n} {source}"))
            .collect();
        format!("{} call(s) seen ({})", self.calls.len(), parts.join(", "))
    }
}

/// The characters of the code a reply's history entry shows: what the run
/// extracts from it, trimmed.
fn answer_chars(reply: &str, language: CodeLanguage) -> usize {
    crate::execute::extract::extract_for(reply, language)
        .code
        .trim()
        .chars()
        .count()
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(estimate: u64, prompt: u64, reply: u64, secs: f64) -> Call {
        Call {
            prompt_estimate: estimate,
            prompt_tokens: prompt,
            reply_tokens: reply,
            reply_chars: 4 * reply as usize,
            answer_chars: 3 * reply as usize,
            secs: Some(secs),
            exec_secs: None,
        }
    }

    #[test]
    fn the_ratio_and_means_weigh_every_call() {
        let mut e = Evidence::default();
        e.add("journal", call(100, 120, 40, 2.0));
        e.add("cache", call(300, 360, 60, 4.0));
        assert_eq!(e.ratio(), Some(1.2));
        assert_eq!(e.mean_reply_tokens(), Some(50.0));
        assert_eq!(e.mean_secs(), Some(3.0));
        assert_eq!(e.describe(), "2 call(s) seen (1 cache, 1 journal)");
    }

    #[test]
    fn a_server_without_counts_gives_no_call() {
        let usage = Usage::default();
        assert!(
            Call::of(
                &[Message::user("x")],
                &usage,
                "y",
                None,
                CodeLanguage::default()
            )
            .is_none()
        );
    }
}
