//! A run folder as `compare` needs it: summary.json's per-prompt numbers
//! and report/cases.csv's verdict per case.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::{RunLabel, Score};

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
    pub fn read(dir: &Path) -> Result<Run, String> {
        let summary_path = dir.join("summary.json");
        let text = std::fs::read_to_string(&summary_path).map_err(|e| {
            format!(
                "{}: {e}; give a run folder such as result/test_20261123_104105 (it has summary.json once its report is written)",
                summary_path.display()
            )
        })?;
        let summary: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a prompteval summary: {e}", summary_path.display()))?;
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

fn read_cases(path: &Path) -> Result<Cases, String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut reader = csv::Reader::from_path(path).map_err(|e| err(&e))?;
    let header = reader.headers().map_err(|e| err(&e))?.clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(prompt), Some(id), Some(round), Some(verdict)) = (
        column("prompt"),
        column("question_id"),
        column("round"),
        column("verdict"),
    ) else {
        return Err(err(
            &"not a prompteval cases.csv (no prompt, question_id, round and verdict columns)",
        ));
    };
    let sample = column("sample");
    let mut cases = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (line, row) in reader.records().enumerate() {
        let row = row.map_err(|e| err(&e))?;
        let get = |i: usize| row.get(i).unwrap_or("").to_string();
        // The CSV defuses formulas with a leading `'`; names never start with one.
        let p = get(prompt).trim_start_matches('\'').to_string();
        let key = CaseKey {
            prompt: p.clone(),
            question_id: get(id).trim_start_matches('\'').to_string(),
            round: get(round).parse().map_err(|_| {
                err(&format!(
                    "line {}: round {:?} is not a number",
                    line + 2,
                    get(round)
                ))
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
