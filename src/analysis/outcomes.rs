//! One model's outcomes laid out by prompt, question and attempt slot:
//! what the figures over several prompts or models (robustness, kinds,
//! cross-model) are computed from.

use std::collections::HashMap;

use crate::case::CaseRecord;

/// One model's outcomes: per prompt (suite order) x question (suite order),
/// the attempts in attempt order (round-major, then sample), each
/// `Some(passed)` when evaluated, `None` when not evaluated or never run.
/// Attempt `i` of every prompt and question is the same (round, sample)
/// slot, so attempts align across prompts.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    pub prompts: Vec<String>,
    /// Question ids.
    pub questions: Vec<String>,
    /// `[prompt][question][attempt]`, every inner vector as long as the
    /// number of slots.
    pub attempts: Vec<Vec<Vec<Option<bool>>>>,
}

impl Outcomes {
    /// One model's records laid out by prompt, question and (round, sample)
    /// slot; a record of a prompt or question not in the lists is ignored,
    /// and of two records of one case the later wins (as in every report).
    /// The slots are every (round, sample) seen in a kept record, in order;
    /// `sample` `None` is sample 1.
    pub fn from_records<'a>(
        prompts: &[String],
        questions: &[String],
        records: impl IntoIterator<Item = &'a CaseRecord>,
    ) -> Outcomes {
        let prompt_at = positions(prompts);
        let question_at = positions(questions);
        let kept: Vec<Placed> = records
            .into_iter()
            .filter_map(|r| {
                let p = *prompt_at.get(r.case.prompt.as_str())?;
                let q = *question_at.get(r.case.question_id.as_str())?;
                let slot = (r.case.round, r.case.sample.unwrap_or(1));
                Some((p, q, slot, r.evaluated().then(|| r.passed())))
            })
            .collect();
        let mut slots: Vec<(u32, u32)> = kept.iter().map(|k| k.2).collect();
        slots.sort_unstable();
        slots.dedup();
        let mut attempts = vec![vec![vec![None; slots.len()]; questions.len()]; prompts.len()];
        for (p, q, slot, outcome) in kept {
            if let Ok(i) = slots.binary_search(&slot) {
                attempts[p][q][i] = outcome;
            }
        }
        Outcomes {
            prompts: prompts.to_vec(),
            questions: questions.to_vec(),
            attempts,
        }
    }

    /// Attempt slots per prompt and question.
    pub fn slots(&self) -> usize {
        self.attempts
            .first()
            .and_then(|p| p.first())
            .map_or(0, Vec::len)
    }

    /// (passed, evaluated) attempts of `prompt` on `question` (indices).
    pub fn tally(&self, prompt: usize, question: usize) -> (usize, usize) {
        let cell = &self.attempts[prompt][question];
        tally(cell, 0..cell.len())
    }

    /// Each prompt's attempts on `question`.
    pub(crate) fn question_cells(&self, question: usize) -> Vec<&[Option<bool>]> {
        self.attempts
            .iter()
            .map(|p| p[question].as_slice())
            .collect()
    }
}

/// A record's (prompt, question, (round, sample), outcome).
type Placed = (usize, usize, (u32, u32), Option<bool>);

fn positions(names: &[String]) -> HashMap<&str, usize> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect()
}

/// Attempt `slot` of a cell; `None` past its end.
pub(crate) fn at(cell: &[Option<bool>], slot: usize) -> Option<bool> {
    cell.get(slot).copied().flatten()
}

/// (passed, evaluated) over the slots `draw` (which may repeat a slot: a
/// bootstrap resample).
pub(crate) fn tally(
    cell: &[Option<bool>],
    draw: impl IntoIterator<Item = usize>,
) -> (usize, usize) {
    draw.into_iter()
        .filter_map(|s| at(cell, s))
        .fold((0, 0), |(passed, n), ok| (passed + usize::from(ok), n + 1))
}
