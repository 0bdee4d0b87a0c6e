//! Journal records -> the files of a run folder and the terminal table.
//! (interface placeholder; the implementation lands with the report work)

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::case::CaseRecord;

/// Facts about the run that are not in any single case record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Folder name, e.g. `test_20250814_012345`.
    pub test_id: String,
    /// Local start time, `2025-08-14T01:23:45` (spec §8.3).
    pub timestamp: String,
    pub total_execution_time: f64,
    pub suite: String,
    pub model: String,
    /// "ollama", "openai" or "replay", plus the endpoint.
    pub backend: String,
    pub endpoint: String,
    pub rounds: u32,
    /// Prompt names in suite order, with their templates.
    pub prompts: Vec<(String, String)>,
    pub question_count: usize,
    /// Cases planned (after filters); fewer records than this means not all ran.
    pub planned_cases: usize,
    /// False when the run was interrupted: the report is marked incomplete.
    pub complete: bool,
    /// The sandbox isolation in force (see `sandbox::Isolation`).
    pub isolation: serde_json::Value,
    /// Per-prompt accuracy thresholds in percent, when a gate is configured.
    pub thresholds: BTreeMap<String, f64>,
}

/// Where the report files were written.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub summary_json: std::path::PathBuf,
    pub quick_view: std::path::PathBuf,
}

/// Writes summary.json, report/detailed_report.json, report/summary.csv,
/// `<prompt>/question_N.py` and quick_view.html into `run_dir`.
pub fn write_all(
    run_dir: &Path,
    info: &RunInfo,
    records: &[CaseRecord],
) -> std::io::Result<(Summary, Written)> {
    let _ = (run_dir, info, records);
    unimplemented!()
}

/// summary.json (spec §8.3 plus extra fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub test_id: String,
    pub timestamp: String,
    pub total_execution_time: f64,
    pub prompt_count: usize,
    pub best_prompt: Option<BestPrompt>,
    /// In suite order.
    pub prompt_results: indexmap::IndexMap<String, PromptResult>,
}

/// One prompt's line of summary.json. Accuracy is in percent, one decimal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    pub accuracy: f64,
    pub correct_answers: usize,
    pub total_questions: usize,
    pub avg_execution_time: f64,
    /// Verdict name -> count, failures only (spec §8.3).
    pub error_breakdown: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestPrompt {
    pub name: String,
    pub accuracy: f64,
}

/// The spec §9 comparison table with the best prompt line.
pub fn terminal_table(summary: &Summary) -> String {
    let _ = summary;
    unimplemented!()
}
