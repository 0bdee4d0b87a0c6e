//! A run folder as `compare` needs it: summary.json's per-prompt numbers
//! and report/cases.csv's verdict per case.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{RunLabel, Score};

/// A run folder's file that `compare` cannot read, by its path.
#[derive(Debug, thiserror::Error)]
pub enum RunFolderError {
    #[error(
        "{}: {source}; give a run folder such as result/test_20261123_104105 (it has summary.json once its report is written)",
        .path.display()
    )]
    NoSummary {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a prompteval summary: {source}", .path.display())]
    NotASummary {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// report/cases.csv cannot be read as CSV.
    #[error("{}: {source}", .path.display())]
    Cases { path: PathBuf, source: csv::Error },
    #[error(
        "{}: not a prompteval cases.csv (no prompt, question_id, round and verdict columns)",
        .path.display()
    )]
    NotCases { path: PathBuf },
    /// A run of several models given without saying which.
    #[error(
        "{}: a run of several models ({}); say which to compare: `prompteval compare RUN --model A --model B` (two models of this run), `--model A` with two runs, or a model's folder, e.g. {}",
        .path.display(), .models.join(", "), .example.display()
    )]
    SeveralModels {
        path: PathBuf,
        models: Vec<String>,
        example: PathBuf,
    },
    /// `--model` names no model of the run.
    #[error("{}: no model `{model}` in this run; its models: {}", .path.display(), .models.join(", "))]
    NoSuchModel {
        path: PathBuf,
        model: String,
        models: Vec<String>,
    },
    /// `line` is the file's 1-based line, the header being line 1.
    #[error("{}: line {line}: round {value:?} is not a number", .path.display())]
    Round {
        path: PathBuf,
        line: usize,
        value: String,
    },
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
    pub cases: BTreeMap<CaseKey, String>,
}

impl Run {
    pub fn read(dir: &Path) -> Result<Run, RunFolderError> {
        let summary_path = dir.join("summary.json");
        let text =
            std::fs::read_to_string(&summary_path).map_err(|source| RunFolderError::NoSummary {
                path: summary_path.clone(),
                source,
            })?;
        let summary: Value =
            serde_json::from_str(&text).map_err(|source| RunFolderError::NotASummary {
                path: summary_path.clone(),
                source,
            })?;
        let field = |name: &str| summary[name].as_str().unwrap_or("").to_string();
        let mut scores = BTreeMap::new();
        if let Some(results) = summary["prompt_results"].as_object() {
            for (prompt, r) in results {
                let (Some(accuracy), Some(correct), Some(total)) = (
                    r["accuracy"].as_f64(),
                    r["correct_answers"].as_u64(),
                    r["total_questions"].as_u64(),
                ) else {
                    continue;
                };
                let interval = r["accuracy_interval"]
                    .as_array()
                    .and_then(|a| Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?]));
                scores.insert(
                    prompt.clone(),
                    Score {
                        accuracy,
                        correct: correct as usize,
                        total: total as usize,
                        interval,
                    },
                );
            }
        }
        let (cases, prompt_order) = read_cases(&dir.join("report/cases.csv"))?;
        Ok(Run {
            dir: dir.display().to_string(),
            test_id: field("test_id"),
            model: field("model"),
            suite: field("suite"),
            complete: summary["complete"].as_bool().unwrap_or(true),
            scores,
            prompt_order,
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
        Path::new(&self.suite)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&self.suite)
    }
}

type Cases = (BTreeMap<CaseKey, String>, Vec<String>);

fn read_cases(path: &Path) -> Result<Cases, RunFolderError> {
    let err = |source: csv::Error| RunFolderError::Cases {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(err)?;
    let header = reader.headers().map_err(err)?.clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(prompt), Some(id), Some(round), Some(verdict)) = (
        column("prompt"),
        column("question_id"),
        column("round"),
        column("verdict"),
    ) else {
        return Err(RunFolderError::NotCases {
            path: path.to_path_buf(),
        });
    };
    let sample = column("sample");
    let mut cases = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (line, row) in reader.records().enumerate() {
        let row = row.map_err(err)?;
        let get = |i: usize| row.get(i).unwrap_or("").to_string();
        // The CSV defuses formulas with a leading `'`; names never start with one.
        let p = get(prompt).trim_start_matches('\'').to_string();
        let key = CaseKey {
            prompt: p.clone(),
            question_id: get(id).trim_start_matches('\'').to_string(),
            round: get(round).parse().map_err(|_| RunFolderError::Round {
                path: path.to_path_buf(),
                line: line + 2,
                value: get(round),
            })?,
            sample: sample.and_then(|i| row.get(i)).and_then(|s| s.parse().ok()),
        };
        if !order.contains(&p) {
            order.push(p);
        }
        cases.insert(key, get(verdict));
    }
    Ok((cases, order))
}
