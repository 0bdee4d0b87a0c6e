//! A run folder's files, for every step that writes or reads them: their
//! names, how they are written (atomically, through a temp file), the
//! folder names of prompts and models, and the typed reading of
//! run_info.json, summary.json and the journal that `prompteval compare`
//! and `prompteval merge` share.
//!
//! ```text
//! <run_dir>/run_info.json      RunInfo: the report's inputs beside the journal
//! <run_dir>/journal.jsonl      CaseRecord per line (crate::record::journal)
//! <run_dir>/summary.json       Summary (a multi-model run: RunSummary)
//! <run_dir>/quick_view.html    the page a person opens first
//! <run_dir>/report/cases/      its pages of cases, per prompt and verdict
//! <run_dir>/report/matrix/     the rest of its questions x prompts matrix
//! <run_dir>/<model>/           a multi-model run: each model's own run folder
//! ```

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::run_info::RunInfo;
use super::summary::Summary;
use crate::case::{CaseId, CaseRecord};
use crate::record::journal;

/// The report's inputs, stored by every finished run.
pub const RUN_INFO: &str = "run_info.json";
/// One model's results (or, in a multi-model run, every model's).
pub const SUMMARY: &str = "summary.json";
/// The page a person opens first (one model's, or the models side by side).
pub const QUICK_VIEW: &str = "quick_view.html";
/// The quick view's pages of cases, `<prompt folder>/<verdict>-<n>.html`:
/// the cases live beside the quick view so that it stays small at any size.
pub const CASE_PAGES: &str = "report/cases";
/// The quick view's questions x prompts matrix beyond its first rows,
/// `<n>.html`.
pub const MATRIX_PAGES: &str = "report/matrix";

/// Writes through a temp file and a rename, so a reader (a CI step, a
/// dashboard polling the folder) never sees half a file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, bytes, true)
}

/// Like [`write_atomically`] without forcing the bytes to disk: for the
/// per-case files, which the durable journal can always rebuild. An fsync
/// per file made the report of a 1,000-case run take 2.6 s (2 cores).
pub(crate) fn write_derived(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, bytes, false)
}

fn replace(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    if sync {
        file.sync_all()?;
    }
    drop(file);
    std::fs::rename(&tmp, path)
}

/// `value` as pretty JSON with a final newline, written atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    write_atomically(path, &bytes)
}

/// A file written through a temp file and renamed into place when finished.
pub(crate) struct Staged {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl Staged {
    pub(crate) fn create(path: &Path) -> std::io::Result<(Staged, std::io::BufWriter<File>)> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        let writer = std::io::BufWriter::new(tmp.reopen()?);
        Ok((
            Staged {
                path: path.to_path_buf(),
                tmp,
            },
            writer,
        ))
    }

    pub(crate) fn finish(self, writer: std::io::BufWriter<File>) -> std::io::Result<()> {
        self.persist(writer, true)
    }

    /// [`Staged::finish`] without forcing the bytes to disk, as
    /// [`write_derived`]: for files the journal can always rebuild.
    pub(crate) fn finish_derived(self, writer: std::io::BufWriter<File>) -> std::io::Result<()> {
        self.persist(writer, false)
    }

    fn persist(self, writer: std::io::BufWriter<File>, sync: bool) -> std::io::Result<()> {
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        if sync {
            file.sync_all()?;
        }
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A folder name for a prompt: the name itself when it is one safe path
/// component, otherwise a sanitised form; never `report` (the report
/// folder) and never one already used by another prompt.
pub(crate) fn prompt_dir_name(name: &str, used: &[String]) -> String {
    let mut dir: String = name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    dir = truncate_bytes(dir.trim(), 100).to_string();
    let reserved = ["", ".", "..", "report"];
    if reserved.contains(&dir.to_lowercase().as_str()) || dir.starts_with('.') {
        dir = format!("prompt_{dir}");
    }
    let base = dir.clone();
    let mut n = 2;
    while used.iter().any(|u| u.eq_ignore_ascii_case(&dir)) {
        dir = format!("{base}_{n}");
        n += 1;
    }
    dir
}

fn truncate_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Each model's folder name: its name made a safe path component (as
/// `<prompt>/` folders are), never `report`, distinct from the others.
pub(crate) fn model_dirs(info: &RunInfo) -> Vec<String> {
    let mut used: Vec<String> = Vec::new();
    for m in &info.models {
        let dir = prompt_dir_name(&m.name, &used);
        used.push(dir);
    }
    used
}

/// A run's suite by its file name: runs from different clones (and a
/// baseline) still match.
pub fn suite_file_name(suite: &str) -> &str {
    Path::new(suite)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(suite)
}

/// The models of a multi-model run folder and their folders, from its
/// run_info.json; `None` for a one-model run (or no run folder).
pub fn models_of(run_dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let info = read_run_info(run_dir).ok()?;
    let names = info.models.iter().map(|m| m.name.clone()).collect();
    Some((names, model_dirs(&info)))
}

/// The folder of `model` in a multi-model run folder.
pub fn model_folder(run_dir: &Path, model: &str) -> Result<PathBuf, RunFolderError> {
    let (models, dirs) = models_of(run_dir).unwrap_or_default();
    match models.iter().position(|m| m == model) {
        Some(i) => Ok(run_dir.join(&dirs[i])),
        None => Err(RunFolderError::NoSuchModel {
            path: run_dir.to_path_buf(),
            model: model.to_string(),
            models,
        }),
    }
}

/// run_info.json of `run_dir`, typed. Missing: the run did not write its
/// report.
pub fn read_run_info(run_dir: &Path) -> Result<RunInfo, RunFolderError> {
    read_typed(
        run_dir.join(RUN_INFO),
        |path, source| RunFolderError::NoRunInfo { path, source },
        |path, source| RunFolderError::NotARunInfo { path, source },
    )
}

/// summary.json of a one-model run folder (or of one model's folder of a
/// multi-model run), typed.
pub fn read_summary(run_dir: &Path) -> Result<Summary, RunFolderError> {
    read_typed(
        run_dir.join(SUMMARY),
        |path, source| RunFolderError::NoSummary { path, source },
        |path, source| RunFolderError::NotASummary { path, source },
    )
}

/// A JSON file of the run folder as `T`; `missing` and `invalid` name the
/// file's two errors.
fn read_typed<T: serde::de::DeserializeOwned>(
    path: PathBuf,
    missing: fn(PathBuf, std::io::Error) -> RunFolderError,
    invalid: fn(PathBuf, serde_json::Error) -> RunFolderError,
) -> Result<T, RunFolderError> {
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => return Err(missing(path, e)),
    };
    serde_json::from_str(&text).map_err(|e| invalid(path, e))
}

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
    #[error("{}: {source}", .path.display())]
    NoRunInfo {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a prompteval run info: {source}", .path.display())]
    NotARunInfo {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// The journal of the run folder (or of the run a model's folder is
    /// part of) cannot be read.
    #[error("{}: {source}", .path.display())]
    Journal {
        path: PathBuf,
        source: std::io::Error,
    },
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
}

/// The case records of a run folder, the later record of a case replacing
/// the earlier (as in every report): its own journal, or, for one model's
/// folder of a multi-model run (`<run>/<model>/`), the run's journal
/// filtered to that model's cases.
pub fn case_records(dir: &Path) -> Result<Vec<CaseRecord>, RunFolderError> {
    let (journal_dir, model) = journal_of(dir)?;
    let mut latest: indexmap::IndexMap<CaseId, CaseRecord> = indexmap::IndexMap::new();
    let read = journal::for_each(&journal_dir, |r| {
        if model.is_none() || r.case.model.as_deref() == model.as_deref() {
            latest.insert(r.case.clone(), r);
        }
    });
    read.map_err(|source| RunFolderError::Journal {
        path: journal_dir.join(journal::FILE_NAME),
        source,
    })?;
    Ok(latest.into_values().collect())
}

/// The folder whose journal holds `dir`'s cases, and the model to keep
/// (`None`: every record).
fn journal_of(dir: &Path) -> Result<(PathBuf, Option<String>), RunFolderError> {
    if dir.join(journal::FILE_NAME).is_file() {
        return Ok((dir.to_path_buf(), None));
    }
    let run = dir.parent().unwrap_or(Path::new("."));
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let model = read_run_info(run).ok().and_then(|info| {
        let at = model_dirs(&info).iter().position(|d| d == name)?;
        Some(info.models[at].name.clone())
    });
    match model {
        Some(model) => Ok((run.to_path_buf(), Some(model))),
        None => Err(RunFolderError::Journal {
            path: dir.join(journal::FILE_NAME),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_folders_are_single_safe_components() {
        let none: Vec<String> = Vec::new();
        assert_eq!(prompt_dir_name("prompt1", &none), "prompt1");
        assert_eq!(prompt_dir_name("詳細提示", &none), "詳細提示");
        assert_eq!(prompt_dir_name("../../etc", &none), "prompt_.._.._etc");
        assert_eq!(prompt_dir_name("report", &none), "prompt_report");
        assert_eq!(prompt_dir_name("..", &none), "prompt_..");
        assert_eq!(prompt_dir_name("a/b", &["a_b".to_string()]), "a_b_2");
    }
}
