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
        let mut layout = OutcomesLayout::new(prompts, questions);
        records.into_iter().for_each(|r| layout.add(r));
        layout.finish()
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

/// [`Outcomes`] built a record at a time, so the report's one pass over a
/// model's journal records also lays them out.
pub struct OutcomesLayout<'n> {
    prompts: &'n [String],
    questions: &'n [String],
    prompt_at: HashMap<&'n str, usize>,
    question_at: HashMap<&'n str, usize>,
    kept: Vec<Placed>,
}

impl<'n> OutcomesLayout<'n> {
    pub fn new(prompts: &'n [String], questions: &'n [String]) -> Self {
        OutcomesLayout {
            prompts,
            questions,
            prompt_at: positions(prompts),
            question_at: positions(questions),
            kept: Vec::new(),
        }
    }

    /// Keeps `r` when its prompt and question are in the lists.
    pub fn add(&mut self, r: &CaseRecord) {
        let (Some(&p), Some(&q)) = (
            self.prompt_at.get(&*r.case.prompt),
            self.question_at.get(&*r.case.question_id),
        ) else {
            return;
        };
        let slot = (r.case.round, r.case.sample.unwrap_or(1));
        self.kept
            .push((p, q, slot, r.evaluated().then(|| r.passed())));
    }

    /// The layout: a later record of a case replaces an earlier one.
    pub fn finish(self) -> Outcomes {
        let mut slots: Vec<(u32, u32)> = self.kept.iter().map(|k| k.2).collect();
        slots.sort_unstable();
        slots.dedup();
        let mut attempts =
            vec![vec![vec![None; slots.len()]; self.questions.len()]; self.prompts.len()];
        for (p, q, slot, outcome) in self.kept {
            if let Ok(i) = slots.binary_search(&slot) {
                attempts[p][q][i] = outcome;
            }
        }
        Outcomes {
            prompts: self.prompts.to_vec(),
            questions: self.questions.to_vec(),
            attempts,
        }
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
