//! A baseline: the verdict of every case of one run, in a small,
//! diff-friendly TOML file committed beside the suite
//! (`prompteval baseline RUN --out FILE`), with the run's identity: the
//! suite, each model's settings (what it was asked, how it was judged) and
//! a fingerprint of each question. `[gate] baseline = "FILE"` (or
//! `PROMPTEVAL_BASELINE`) gates a later run on it: see [`judge`].
//!
//! ```toml
//! prompteval_baseline = 1
//! run = "test_20261125_055138"
//! suite = "example.json"
//!
//! [settings."qwen2.5-coder:1.5b"]
//! "llm.num_ctx" = "4096"
//!
//! [questions]
//! q1_two_sum = "3f9a0c1b2d4e5f60"
//!
//! [cases."qwen2.5-coder:1.5b"]
//! "prompt1::q1_two_sum::r1" = "correct"
//! ```

mod identity;
mod judge;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::case::Verdict;
use crate::config::Settings;
use crate::record::journal;
use crate::results::RunInfo;
use crate::results::run_folder::{self, RunFolderError};

pub use identity::{RunIdentity, differences};
pub use judge::{gate_run, judge};

/// The format's version: a later prompteval that changes the file says so
/// instead of misreading it.
const FORMAT: u32 = 1;

/// How the file begins: what it is and how to refresh it.
const HEADER: &str = "# prompteval baseline: the verdict of every case of one run, which\n\
# `[gate] baseline` (or PROMPTEVAL_BASELINE) gates later runs on.\n\
# Refresh it from a run folder with: prompteval baseline RUN --out FILE\n\n";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub prompteval_baseline: u32,
    /// The run folder's name it was made from.
    pub run: String,
    /// The suite's file name (runs from different clones still match).
    pub suite: String,
    /// Model -> its settings (`Config::settings`).
    pub settings: BTreeMap<String, Settings>,
    /// Question id -> the fingerprint of what it asks and how it is judged.
    pub questions: BTreeMap<String, String>,
    /// Model -> case name -> verdict, evaluated cases only.
    pub cases: BTreeMap<String, BTreeMap<String, Verdict>>,
}

/// A baseline that cannot be written, read or used, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    RunFolder(#[from] RunFolderError),
    #[error("{}: {message}", .path.display())]
    File { path: PathBuf, message: String },
    /// The run is not comparable with the baseline.
    #[error(
        "{}: the baseline is from another experiment, so no case of this run can be paired with it:\n{}\nRefresh it from a run of this suite and settings (prompteval baseline RUN --out {}), or unset [gate] baseline / PROMPTEVAL_BASELINE",
        .path.display(), .differences.iter().map(|d| format!("  - {d}")).collect::<Vec<_>>().join("\n"), .path.display()
    )]
    Differs {
        path: PathBuf,
        differences: Vec<String>,
    },
}

impl Baseline {
    /// How often two prompts' verdicts on the same case (model, question,
    /// round, sample) differ, over every such pair the baseline holds,
    /// and the number of pairs: the plan's discordance.
    pub fn discordance(&self) -> crate::analysis::power::Pairs {
        let mut tally = crate::analysis::power::PairTally::default();
        for (model, cases) in &self.cases {
            for (name, verdict) in cases {
                // The case without its prompt: `prompt::rest`.
                if let (Some((_, rest)), Some(passed)) = (name.split_once("::"), verdict.judged()) {
                    tally.add((model.as_str(), rest), passed);
                }
            }
        }
        tally.pairs()
    }

    /// The baseline of a run folder whose report was written.
    pub fn of_run(run_dir: &Path) -> Result<Baseline, BaselineError> {
        let info = run_folder::read_run_info(run_dir)?;
        if info.settings.is_empty() || info.question_fingerprints.is_empty() {
            return Err(BaselineError::File {
                path: run_dir.join(run_folder::RUN_INFO),
                message: "records no settings or question fingerprints (written by an older prompteval); rerun it with this version to make a baseline".into(),
            });
        }
        if !info.complete {
            return Err(BaselineError::File {
                path: run_dir.to_path_buf(),
                message: "the run was interrupted: a baseline needs a finished run (finish it with PROMPTEVAL_RESUME, or make one from another run)".into(),
            });
        }
        Ok(Baseline {
            prompteval_baseline: FORMAT,
            run: info.test_id.clone(),
            suite: run_folder::suite_file_name(&info.suite).to_string(),
            settings: info.settings.clone(),
            questions: info.question_fingerprints.clone(),
            cases: verdicts(run_dir, &info)?,
        })
    }

    /// Written whole or not at all (an interrupted refresh leaves the old
    /// file).
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let error = |message: String| BaselineError::File {
            path: path.to_path_buf(),
            message,
        };
        let body = toml::to_string(self).map_err(|e| error(format!("cannot write TOML: {e}")))?;
        run_folder::write_atomically(path, format!("{HEADER}{body}").as_bytes())
            .map_err(|e| error(format!("cannot write the baseline: {e}")))
    }

    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let error = |message: String| BaselineError::File {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            error(format!(
                "{e}; make it from a finished run with `prompteval baseline RUN --out {}`",
                path.display()
            ))
        })?;
        let baseline: Baseline = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|s| format!("line {}: ", crate::config::line_of_offset(&text, s.start)))
                .unwrap_or_default();
            error(format!("{line}not a prompteval baseline: {}", e.message()))
        })?;
        if baseline.prompteval_baseline != FORMAT {
            return Err(error(format!(
                "baseline format {} is not {FORMAT}, the one this prompteval reads; refresh it with `prompteval baseline RUN --out {}`",
                baseline.prompteval_baseline,
                path.display()
            )));
        }
        Ok(baseline)
    }
}

/// Model -> case name -> verdict of the run's evaluated cases (the later
/// record of a retried case wins), read by streaming the journal.
pub fn verdicts(
    run_dir: &Path,
    info: &RunInfo,
) -> Result<BTreeMap<String, BTreeMap<String, Verdict>>, BaselineError> {
    let mut out: BTreeMap<String, BTreeMap<String, Verdict>> = BTreeMap::new();
    let read = journal::for_each(run_dir, |r| {
        let model = r
            .case
            .model
            .as_deref()
            .map_or_else(|| info.model.clone(), str::to_string);
        let name = crate::case::test_name(
            &r.case.prompt,
            &r.case.question_id,
            r.case.round,
            r.case.sample,
        );
        let cases = out.entry(model).or_default();
        if r.verdict == Verdict::NotEvaluated {
            cases.remove(&name);
        } else {
            cases.insert(name, r.verdict);
        }
    });
    read.map_err(|source| {
        BaselineError::RunFolder(RunFolderError::Journal {
            path: run_dir.join(journal::FILE_NAME),
            source,
        })
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests;
