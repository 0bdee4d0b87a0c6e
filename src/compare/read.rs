//! A run folder as `compare` needs it, read typed through
//! [`crate::results::run_folder`]: summary.json's per-prompt numbers and
//! the journal's verdict per case.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::case::Verdict;
use crate::results::run_folder::{self, RunFolderError};

/// Which run a side of the comparison is.
#[derive(Debug, Serialize)]
pub struct RunLabel {
    pub dir: String,
    pub test_id: String,
    pub model: String,
    pub suite: String,
    pub complete: bool,
}

/// One prompt's accuracy in one run: percent, and its 95 % Wilson interval.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    pub accuracy: f64,
    pub correct: usize,
    pub total: usize,
    pub interval: Option<[f64; 2]>,
}

/// One case's identity across runs, as in its test name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CaseKey {
    pub prompt: String,
    pub question_id: String,
    pub round: u32,
    pub sample: Option<u32>,
}

impl CaseKey {
    pub fn name(&self) -> String {
        crate::case::test_name(&self.prompt, &self.question_id, self.round, self.sample)
    }
}

pub struct Run {
    pub dir: String,
    pub test_id: String,
    pub model: String,
    pub suite: String,
    pub complete: bool,
    pub scores: BTreeMap<String, Score>,
    /// Prompts in the order the run reported them.
    pub prompt_order: Vec<String>,
    /// Verdict per case (the last record of a retried case).
    pub cases: BTreeMap<CaseKey, Verdict>,
}

impl Run {
    pub fn read(dir: &Path) -> Result<Run, RunFolderError> {
        let summary = run_folder::read_summary(dir)?;
        let scores = summary
            .prompt_results
            .iter()
            .filter_map(|(prompt, r)| {
                let score = Score {
                    accuracy: r.accuracy?,
                    correct: r.correct_answers,
                    total: r.total_questions,
                    interval: r.accuracy_interval,
                };
                Some((prompt.clone(), score))
            })
            .collect();
        let cases = run_folder::case_records(dir)?
            .into_iter()
            .map(|r| {
                let key = CaseKey {
                    prompt: r.case.prompt.to_string(),
                    question_id: r.case.question_id.to_string(),
                    round: r.case.round,
                    sample: r.case.sample,
                };
                (key, r.verdict)
            })
            .collect();
        Ok(Run {
            dir: dir.display().to_string(),
            test_id: summary.test_id,
            model: summary.model,
            suite: summary.suite,
            complete: summary.complete,
            scores,
            prompt_order: summary.prompt_results.keys().cloned().collect(),
            cases,
        })
    }
    pub fn label(&self) -> RunLabel {
        RunLabel {
            dir: self.dir.clone(),
            test_id: self.test_id.clone(),
            model: self.model.clone(),
            suite: self.suite.clone(),
            complete: self.complete,
        }
    }

    /// The suite's file name: runs from different clones still match.
    pub fn suite_name(&self) -> &str {
        run_folder::suite_file_name(&self.suite)
    }
}
