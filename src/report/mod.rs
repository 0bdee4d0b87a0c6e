//! Journal records -> the files of a run folder and the terminal table.
//!
//! Layout written by [`write_all`] (spec §8.1), beside the existing
//! `journal.jsonl`, which is never touched:
//!
//! ```text
//! <run_dir>/summary.json                 spec §8.3 fields + run facts
//! <run_dir>/quick_view.html              self-contained, escaped, CSP-locked
//! <run_dir>/<prompt>/question_N.py       round 1 (and single-round runs)
//! <run_dir>/<prompt>/question_N_round_R.py   rounds R > 1
//! <run_dir>/report/detailed_report.json  run info + every record
//! <run_dir>/report/summary.csv           one row per prompt
//! <run_dir>/report/cases.csv             one row per case
//! ```
//!
//! Decisions a reader of the files needs to know:
//! - Rounds: round 1 keeps the spec's `question_N.py` so single-round runs
//!   look exactly like spec §8.1; later rounds sit beside it as
//!   `question_N_round_R.py`, which sorts next to its round-1 sibling.
//! - A prompt with no records (filtered out, or never reached before an
//!   interruption) is omitted from every output: a 0/0 line would read as
//!   0 % accuracy and could win or lose a gate it never took part in.
//!   `complete: false` (INCOMPLETE) says the run stopped early.
//! - Records of a prompt missing from `RunInfo::prompts` are kept, after the
//!   suite's prompts, in first-seen order: no result is silently dropped.
//! - Two records with the same [`CaseId`](crate::case::CaseId) count once (the
//!   later one wins), so a resumed journal cannot inflate totals.
//! - A prompt's folder is its name when that is a safe single path component;
//!   otherwise (or when it would collide with `report/`) a sanitised name.

mod aggregate;
pub mod curves;
mod diff;
mod files;
mod highlight;
mod html;
mod junit;
mod python;
pub mod stats;
pub mod step_summary;
mod svg;
mod table;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cache::CacheStats;
use crate::case::{CaseId, CaseRecord, Unevaluated};

pub use files::write_json;
pub use table::terminal_table;

/// (passed, evaluated) attempts of one question under one prompt; `None`
/// when the prompt has no evaluated case of it.
pub type MatrixCell = Option<(usize, usize)>;

fn one() -> u32 {
    1
}

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
    /// Replies drawn per case (`samples`).
    #[serde(default = "one")]
    pub samples: u32,
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
    /// Selected cases the run did not evaluate (no matching recording):
    /// counted and flagged per prompt, in no accuracy.
    #[serde(default)]
    pub not_evaluated: Vec<Unevaluated>,
    /// Response-cache hits and misses of this run; `None` when the cache
    /// was off or the run replayed recordings.
    #[serde(default)]
    pub cache: Option<CacheStats>,
    /// Question id -> its prompt variant, for the questions that are one
    /// (a run with `[variants]`): what the curves are drawn from.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variants: BTreeMap<String, crate::variants::Variant>,
    /// The k of the pass@k figures (`pass_at_k` in harness.toml).
    #[serde(default = "default_pass_at_k")]
    pub pass_at_k: Vec<usize>,
}

fn default_pass_at_k() -> Vec<usize> {
    crate::config::DEFAULT_PASS_AT_K.to_vec()
}

/// Where the report files were written.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub summary_json: PathBuf,
    pub quick_view: PathBuf,
    pub detailed_report: PathBuf,
    pub summary_csv: PathBuf,
    pub cases_csv: PathBuf,
    /// report/junit.xml: one testcase per case, for CI test views.
    pub junit_xml: PathBuf,
    /// report/partial_order.csv, in a run of prompt variants.
    pub partial_order_csv: Option<PathBuf>,
    /// Every `<prompt>/question_N[_round_R].py`, in report order.
    pub case_files: Vec<PathBuf>,
}

/// Writes summary.json, report/detailed_report.json, report/summary.csv,
/// report/cases.csv, `<prompt>/question_N.py` and quick_view.html into
/// `run_dir`, which must exist, from records held in memory.
pub fn write_all(
    run_dir: &Path,
    info: &RunInfo,
    records: &[CaseRecord],
) -> std::io::Result<(Summary, Written)> {
    let groups = group_records(info, records);
    write(run_dir, info, &groups, &Records::Memory)
}

/// The same files from the run folder's journal, one record at a time: a
/// run of any size never holds every reply, prompt and output at once.
pub fn write_from_journal(run_dir: &Path, info: &RunInfo) -> std::io::Result<(Summary, Written)> {
    let index = crate::journal::index(run_dir)?;
    let extra = unknown_prompts(
        info,
        index
            .templates
            .iter()
            .map(|(prompt, template)| (prompt.as_str(), template.as_str())),
    );
    let located = index
        .entries
        .iter()
        .map(|e| (&e.case, (e.offset, e.len)))
        .collect();
    let groups = groups(info, extra, located, Cases::Journal);
    let reader = crate::journal::Reader::open(run_dir)?;
    write(run_dir, info, &groups, &Records::Journal(reader))
}

/// Where a group's records are read from.
enum Records {
    Memory,
    Journal(crate::journal::Reader),
}

impl Records {
    /// Calls `f` with each record of `group`, in report order.
    fn each(
        &self,
        group: &PromptGroup,
        mut f: impl FnMut(&CaseRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match (&group.cases, self) {
            (Cases::Memory(cases), _) => cases.iter().try_for_each(|c| f(c)),
            (Cases::Journal(at), Records::Journal(reader)) => at
                .iter()
                .try_for_each(|&(offset, len)| f(&reader.record_at(offset, len)?)),
            (Cases::Journal(_), Records::Memory) => Err(std::io::Error::other(
                "internal error: journal cases without a journal",
            )),
        }
    }
}

/// Tallies every group (first pass), then writes every file (second pass).
fn write(
    run_dir: &Path,
    info: &RunInfo,
    groups: &[PromptGroup],
    records: &Records,
) -> std::io::Result<(Summary, Written)> {
    let mut tallies = Vec::with_capacity(groups.len());
    for group in groups {
        let mut tally = aggregate::Tally::default();
        records.each(group, |r| {
            tally.add(r);
            Ok(())
        })?;
        tallies.push(tally);
    }
    let summary = aggregate::summarize(info, groups, &tallies);
    let report_dir = run_dir.join("report");
    std::fs::create_dir_all(&report_dir)?;

    let summary_json = run_dir.join("summary.json");
    files::write_json(&summary_json, &summary)?;
    let summary_csv = report_dir.join("summary.csv");
    files::write_summary_csv(&summary_csv, &summary)?;
    let partial_order_csv =
        (!summary.partial_order.is_empty()).then(|| report_dir.join("partial_order.csv"));
    if let Some(path) = &partial_order_csv {
        files::write_partial_order_csv(path, &summary)?;
    }

    let detailed_report = report_dir.join("detailed_report.json");
    let cases_csv = report_dir.join("cases.csv");
    let quick_view = run_dir.join("quick_view.html");
    let mut detailed =
        files::DetailedWriter::create(&detailed_report, info, summary.finished_cases)?;
    let mut cases = files::CasesCsv::create(&cases_csv)?;
    let mut page = html::PageWriter::create(&quick_view, info, &summary)?;
    let junit_xml = report_dir.join("junit.xml");
    let mut junit = junit::JunitWriter::new(info);
    // The per-case .py files are written on a second thread: creating a
    // thousand files is most of a report's time (inode allocation), and the
    // run's other cores are idle by now. The channel is bounded, so at most
    // a few records are held at once.
    let (to_writer, cases_to_write) = std::sync::mpsc::sync_channel::<(PathBuf, String)>(64);
    let case_files = std::thread::scope(|scope| -> std::io::Result<Vec<PathBuf>> {
        let writer = scope.spawn(move || -> std::io::Result<Vec<PathBuf>> {
            let mut written = Vec::new();
            for (path, text) in cases_to_write {
                files::write_derived(&path, text.as_bytes())?;
                written.push(path);
            }
            Ok(written)
        });
        let mut main = || -> std::io::Result<()> {
            for group in groups {
                detailed.start_prompt(group)?;
                junit.start_prompt(group.name);
                page.start_prompt(group, &summary)?;
                let dir = run_dir.join(&group.dir);
                std::fs::create_dir_all(&dir)?;
                records.each(group, |r| {
                    detailed.case(r)?;
                    cases.case(r)?;
                    junit.case(r);
                    page.case(group, r)?;
                    // A closed channel means the writer failed: its error
                    // is the one reported below.
                    let _ = to_writer.send(python::case_file(&dir, r));
                    Ok(())
                })?;
                detailed.end_prompt()?;
                junit.end_prompt();
            }
            Ok(())
        };
        let written = main();
        drop(to_writer);
        let files = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the .py writer panicked")));
        written?;
        files
    })?;
    detailed.finish()?;
    cases.finish()?;
    page.finish()?;
    junit.finish(&junit_xml)?;

    let written = Written {
        summary_json,
        quick_view,
        detailed_report,
        summary_csv,
        cases_csv,
        partial_order_csv,
        junit_xml,
        case_files,
    };
    Ok((summary, written))
}

/// summary.json (spec §8.3 plus extra fields). The spec's fields come first
/// and keep their names; the rest describe the run so a summary can be read
/// on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub test_id: String,
    pub timestamp: String,
    pub total_execution_time: f64,
    pub prompt_count: usize,
    pub best_prompt: Option<BestPrompt>,
    /// In suite order; prompts without records are omitted.
    pub prompt_results: indexmap::IndexMap<String, PromptResult>,
    pub model: String,
    pub backend: String,
    pub endpoint: String,
    pub suite: String,
    pub rounds: u32,
    /// Replies drawn per case (`samples`): each question's pass@k n is
    /// rounds x samples.
    #[serde(default = "one")]
    pub samples: u32,
    /// False: the run was interrupted and every view says INCOMPLETE.
    pub complete: bool,
    pub planned_cases: usize,
    pub finished_cases: usize,
    /// Cases planned but not evaluated, over all prompts (see `PromptResult`).
    #[serde(default)]
    pub not_evaluated: usize,
    /// Response-cache hits and misses (`null`: cache off, or a replay).
    #[serde(default)]
    pub cache: Option<CacheStats>,
    pub isolation: serde_json::Value,
    /// Completion tokens per second of generation, over the cases whose
    /// server reported how long it generated (`null`: none did).
    #[serde(default)]
    pub generation_speed: Option<f64>,
    /// Model-call failure class (`api_error`, `timeout`, `connection_failed`)
    /// -> count; every class is listed so the schema does not vary.
    pub api_failures: BTreeMap<String, usize>,
    /// Prompt -> pass@1 against prompt detail (PartialOrderEval), in a run
    /// of prompt variants; also in report/partial_order.csv.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub partial_order: indexmap::IndexMap<String, curves::PartialOrder>,
    /// Question -> per prompt (summary order) its (passed, evaluated)
    /// attempts: the quick view's matrix. Not in summary.json.
    #[serde(skip)]
    pub matrix: Vec<(String, Vec<MatrixCell>)>,
}

/// One prompt's line of summary.json. Accuracy is in percent, one decimal:
/// `correct_answers / total_questions`, where `total_questions` counts the
/// evaluated cases (every spec verdict, `api_error` included) and never the
/// `not_evaluated` ones. `null` when no case was evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    pub accuracy: Option<f64>,
    /// 95 % Wilson interval of `accuracy`, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_interval: Option<[f64; 2]>,
    /// pass@k (Chen et al. 2021's unbiased estimator) over each question's
    /// evaluated rounds and samples, averaged over questions: `{"pass@1": 0.66, ...}`,
    /// for the configured k (`pass_at_k`, default 1, 5, 10) where every
    /// question has at least k rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k: BTreeMap<String, f64>,
    /// 95 % interval of each `pass_at_k` value: a percentile bootstrap over
    /// questions (2,000 resamples, fixed seed); absent for one question.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k_interval: BTreeMap<String, [f64; 2]>,
    pub correct_answers: usize,
    /// The denominator of `accuracy`: evaluated cases.
    pub total_questions: usize,
    /// Mean seconds of the programs that ran (`null` when none ran).
    pub avg_execution_time: Option<f64>,
    /// Verdict name -> count, failures only (spec §8.3).
    pub error_breakdown: BTreeMap<String, usize>,
    /// Selected cases of this prompt that were not evaluated (no matching
    /// recording, or the sandbox failed); not in `total_questions`.
    #[serde(default)]
    pub not_evaluated: usize,
    /// Why, reason -> count.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_evaluated_reasons: BTreeMap<String, usize>,
    /// What a reader must know before trusting this accuracy: api errors
    /// counted as failures, cases not evaluated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Ids of the questions that passed in some rounds and failed in others
    /// (evaluated rounds only; other failure kinds are all "failed").
    #[serde(default)]
    pub unstable_questions: Vec<String>,
    /// The server's prompt and completion tokens, summed over the cases
    /// that reported them.
    #[serde(default)]
    pub tokens: crate::case::Tokens,
    /// Evaluated cases whose reply stopped at the length limit
    /// (`finish_reason` = `length`): judged, but on a cut reply.
    #[serde(default)]
    pub truncated_replies: usize,
    /// Cases whose prompt did not fit the context window: not evaluated
    /// (also in `not_evaluated`), never a model failure.
    #[serde(default)]
    pub truncated_prompts: usize,
    /// How many cases `tokens` sums (the table's per-case mean).
    #[serde(skip)]
    pub cases_with_tokens: usize,
    /// Spread of the per-round accuracies, when the prompt ran several rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// `accuracy >= threshold`, on the rounded accuracy shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_passed: Option<bool>,
}

impl PromptResult {
    /// `66.7%`, or `-` when no case was evaluated.
    pub fn accuracy_text(&self) -> String {
        self.accuracy
            .map_or_else(|| "-".to_string(), |a| format!("{a:.1}%"))
    }

    /// `pass@1 0.500 [0.300, 0.700] · pass@5 0.810 [...]`, by k; empty
    /// without pass@k figures.
    pub fn pass_at_k_text(&self) -> String {
        let mut ks: Vec<(&String, &f64)> = self.pass_at_k.iter().collect();
        // pass@1, pass@5, pass@10: by k, not as text.
        ks.sort_by_key(|(k, _)| k.trim_start_matches("pass@").parse::<usize>().unwrap_or(0));
        ks.into_iter()
            .map(|(k, v)| match self.pass_at_k_interval.get(k) {
                Some([lo, hi]) => format!("{k} {v:.3} [{lo:.3}, {hi:.3}]"),
                None => format!("{k} {v:.3}"),
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Whether pass@k says more than the accuracy: some k > 1 is reported.
    pub fn has_pass_at_k_beyond_1(&self) -> bool {
        self.pass_at_k.keys().any(|k| k != "pass@1")
    }

    /// `[52.8, 84.1]`, or `-` without an interval.
    pub fn interval_text(&self) -> String {
        match self.accuracy_interval {
            Some([lo, hi]) => format!("[{lo:.1}, {hi:.1}]"),
            None => "-".to_string(),
        }
    }

    /// Mean prompt + completion tokens per case, e.g. `412+96`; `-` when
    /// the server reported none.
    pub fn tokens_text(&self) -> String {
        match self.cases_with_tokens {
            0 => "-".to_string(),
            n => format!(
                "{}+{}",
                self.tokens.prompt / n as u64,
                self.tokens.completion / n as u64
            ),
        }
    }

    /// `0.07s`, or `-` when no program ran.
    pub fn avg_time_text(&self) -> String {
        self.avg_execution_time
            .map_or_else(|| "-".to_string(), |t| format!("{t:.2}s"))
    }

    /// What the table's note column says: api errors and cases not evaluated.
    pub fn flags(&self) -> String {
        let mut flags = Vec::new();
        if let Some(n) = self.error_breakdown.get("api_error") {
            flags.push(format!("⚠ {n} api_error"));
        }
        if self.not_evaluated > 0 {
            flags.push(format!("⚠ {} not evaluated", self.not_evaluated));
        }
        if self.truncated_prompts > 0 {
            flags.push(format!("✂ {} cut prompts", self.truncated_prompts));
        }
        if self.truncated_replies > 0 {
            flags.push(format!("✂ {} cut replies", self.truncated_replies));
        }
        if !self.unstable_questions.is_empty() {
            const SHOWN: usize = 3;
            let mut ids =
                self.unstable_questions[..self.unstable_questions.len().min(SHOWN)].join(" ");
            if self.unstable_questions.len() > SHOWN {
                ids.push_str(" …");
            }
            flags.push(format!(
                "≠ {} unstable ({ids})",
                self.unstable_questions.len()
            ));
        }
        flags.join(", ")
    }
}

/// Per-round accuracies of one prompt, in percent with one decimal; the
/// standard deviation is the population one (every round ran, none sampled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundStats {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub stddev: f64,
}

/// The highest accuracy; prompts that share it are named in `tied_with`
/// (`name` is then the first in suite order, for the spec's field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestPrompt {
    pub name: String,
    pub accuracy: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tied_with: Vec<String>,
    /// Whether the best beats the next prompt by more than noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versus_runner_up: Option<Comparison>,
}

/// The best prompt against the runner-up on the same cases (same question,
/// same round): the exact McNemar test on the cases only one of them passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub runner_up: String,
    /// Cases both prompts evaluated.
    pub shared_cases: usize,
    pub only_best_passed: usize,
    pub only_runner_up_passed: usize,
    /// Two-sided; below 0.05 the best is called better than noise.
    pub p_value: f64,
    pub beats_by_more_than_noise: bool,
}

/// One prompt's records in report order, shared by every output so they
/// cannot disagree on what belongs to a prompt.
pub(crate) struct PromptGroup<'a> {
    pub name: &'a str,
    pub template: &'a str,
    /// Folder under the run dir for this prompt's `.py` files.
    pub dir: String,
    /// Ordered by round, then question.
    pub cases: Cases<'a>,
}

/// A group's records: in memory, or where they are in the journal.
pub(crate) enum Cases<'a> {
    Memory(Vec<&'a CaseRecord>),
    /// (byte offset, length) of each record's line.
    Journal(Vec<(u64, usize)>),
}

fn group_records<'a>(info: &'a RunInfo, records: &'a [CaseRecord]) -> Vec<PromptGroup<'a>> {
    let mut latest: HashMap<&CaseId, &CaseRecord> = HashMap::new();
    for record in records {
        latest.insert(&record.case, record);
    }
    let extra = unknown_prompts(
        info,
        records
            .iter()
            .map(|r| (r.case.prompt.as_str(), r.template.as_str())),
    );
    let located: Vec<(&CaseId, &CaseRecord)> = latest.into_iter().collect();
    groups(info, extra, located, Cases::Memory)
}

/// Prompts of records that are not in the suite, in first-seen order: kept
/// after the suite's, so no result is silently dropped.
fn unknown_prompts<'a>(
    info: &RunInfo,
    prompts: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<(&'a str, &'a str)> {
    let mut extra: Vec<(&str, &str)> = Vec::new();
    for (name, template) in prompts {
        if !info.prompts.iter().any(|(n, _)| n == name) && !extra.iter().any(|(n, _)| *n == name) {
            extra.push((name, template));
        }
    }
    extra
}

/// Prompts in suite order (then prompts only the records know), each with
/// its cases ordered by round and question.
fn groups<'a, T>(
    info: &'a RunInfo,
    extra: Vec<(&'a str, &'a str)>,
    mut located: Vec<(&'a CaseId, T)>,
    make: impl Fn(Vec<T>) -> Cases<'a>,
) -> Vec<PromptGroup<'a>> {
    located.sort_by(|(a, _), (b, _)| {
        (&a.prompt, a.round, a.sample, a.question, &a.question_id).cmp(&(
            &b.prompt,
            b.round,
            b.sample,
            b.question,
            &b.question_id,
        ))
    });
    let mut by_prompt: HashMap<&str, Vec<(&'a CaseId, T)>> = HashMap::new();
    for (case, at) in located {
        by_prompt
            .entry(case.prompt.as_str())
            .or_default()
            .push((case, at));
    }
    let order = info
        .prompts
        .iter()
        .map(|(name, template)| (name.as_str(), template.as_str()))
        .chain(extra);
    let mut used_dirs = Vec::new();
    let mut out = Vec::new();
    for (name, template) in order {
        let cases = by_prompt.remove(name).unwrap_or_default();
        // A prompt none of whose selected cases could be evaluated still
        // gets a line: "not evaluated" must be seen, not silently absent.
        if cases.is_empty() && !info.not_evaluated.iter().any(|u| u.case.prompt == name) {
            continue;
        }
        let dir = files::prompt_dir_name(name, &used_dirs);
        used_dirs.push(dir.clone());
        out.push(PromptGroup {
            name,
            template,
            dir,
            cases: make(cases.into_iter().map(|(_, at)| at).collect()),
        });
    }
    out
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests {
    use super::fixtures::{info, three_by_three};
    use super::*;

    #[test]
    fn write_all_writes_the_spec_layout_beside_the_journal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (summary, written) =
            write_all(dir.path(), &info(1), &three_by_three()).expect("written");
        if let Ok(keep) = std::env::var("PROMPTEVAL_KEEP_REPORT") {
            let _ = std::fs::remove_dir_all(&keep);
            let _ = std::process::Command::new("cp")
                .args(["-r"])
                .arg(dir.path())
                .arg(&keep)
                .status();
            println!("{}", terminal_table(&summary));
        }
        for rel in [
            "summary.json",
            "quick_view.html",
            "report/detailed_report.json",
            "report/summary.csv",
            "report/cases.csv",
            "prompt1/question_1.py",
            "prompt3/question_3.py",
        ] {
            assert!(dir.path().join(rel).is_file(), "{rel} missing");
        }
        assert_eq!(written.case_files.len(), 9);
        assert_eq!(written.summary_json, dir.path().join("summary.json"));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("report"))
            .expect("report dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temp files left behind");
    }
}
