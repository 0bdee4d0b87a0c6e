//! `prompteval merge PART... --out DIR`: the run folders of the parts of a
//! sharded run (`PROMPTEVAL_SHARD=k/n`) joined into one run folder whose
//! report is built exactly as a single run's: the journals concatenated,
//! the manifests' cases and not-evaluated cases joined, the report written
//! from the joined journal. Every part 1..n must be there, from the same
//! suite, model, rounds and samples: a report over some parts would be a
//! number over the wrong denominator.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::SetupError;
use super::folder::{RunManifest, read_manifest, write_manifest};
use crate::report::{self, RunInfo, RunSummary};

pub use crate::results::run_folder::RUN_INFO;
use crate::results::run_folder::{self, RunFolderError};
const JOURNAL: &str = crate::record::journal::FILE_NAME;
const VARIANTS: &str = super::variants::STORED;

struct Part {
    dir: PathBuf,
    manifest: RunManifest,
    info: RunInfo,
}

fn folder_error(path: &Path, message: String) -> SetupError {
    SetupError::Folder {
        path: path.to_path_buf(),
        message,
    }
}

fn read_part(dir: &Path) -> Result<Part, SetupError> {
    let manifest = read_manifest(dir)?;
    let info = run_folder::read_run_info(dir).map_err(|e| match e {
        RunFolderError::NoRunInfo { path, source } => folder_error(
            &path,
            format!(
                "{source}: the part's run did not write its report; finish it with PROMPTEVAL_RESUME={}",
                dir.display()
            ),
        ),
        RunFolderError::NotARunInfo { path, source } => {
            folder_error(&path, format!("not a prompteval run info: {source}"))
        }
        other => folder_error(dir, other.to_string()),
    })?;
    Ok(Part {
        dir: dir.to_path_buf(),
        manifest,
        info,
    })
}

/// Joins `parts` into `out` (which must not hold a run) and writes its
/// report; the summary and the terminal table.
pub fn merge(parts: &[PathBuf], out: &Path) -> Result<Merged, SetupError> {
    let parts: Vec<Part> = parts
        .iter()
        .map(|d| read_part(d))
        .collect::<Result<_, _>>()?;
    check(&parts)?;
    if out.join(JOURNAL).exists() {
        return Err(folder_error(
            out,
            "already holds a run; give --out a new folder".into(),
        ));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| folder_error(out, format!("cannot create the merged run folder: {e}")))?;
    let io = |e: std::io::Error| folder_error(out, format!("cannot write the merged run: {e}"));

    join_journals(&parts, out).map_err(io)?;

    let first = &parts[0];
    let test_id = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "merged".into());
    let models = merged_models(&parts);
    let manifest = merged_manifest(&parts, &test_id, &models);
    write_manifest(out, &manifest)?;

    let mut info = first.info.clone();
    info.test_id = test_id;
    info.timestamp = manifest.timestamp.clone();
    // The parts ran side by side: the run took as long as the longest.
    info.total_execution_time = parts
        .iter()
        .map(|p| p.info.total_execution_time)
        .fold(0.0, f64::max);
    info.planned_cases = parts.iter().map(|p| p.info.planned_cases).sum();
    info.complete = parts.iter().all(|p| p.info.complete);
    info.not_evaluated = manifest.not_evaluated.clone();
    info.cache = None;
    if !models.is_empty() {
        (info.backend, info.endpoint) = (manifest.backend.clone(), manifest.endpoint.clone());
    }
    info.models = models;
    report::write_json(&out.join(RUN_INFO), &info).map_err(io)?;
    let (summary, _) = crate::publish::write_from_journal(out, &info).map_err(io)?;
    let table = report::terminal_table(&summary, report::Labels::of(info.language));
    Ok(Merged {
        summary,
        table,
        info,
    })
}

/// The merged run: its summary, its table, and what its report was built
/// from (its gate's settings among them).
pub struct Merged {
    pub summary: RunSummary,
    pub table: String,
    pub info: report::RunInfo,
}

/// The parts' journals one after the other in `out`, and the variants
/// file of the first part that has one.
fn join_journals(parts: &[Part], out: &Path) -> std::io::Result<()> {
    let mut journal = std::fs::File::create(out.join(JOURNAL))?;
    for p in parts {
        let mut bytes = std::fs::read(p.dir.join(JOURNAL))?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            // A torn last line stays torn (the index skips it), never glued
            // to the next part's first line.
            bytes.push(b'\n');
        }
        journal.write_all(&bytes)?;
    }
    journal.sync_all()?;
    if let Some(variants) = parts
        .iter()
        .map(|p| p.dir.join(VARIANTS))
        .find(|p| p.is_file())
    {
        std::fs::copy(&variants, out.join(VARIANTS))?;
    }
    Ok(())
}

/// The merged run's manifest: the first part's, with every part's cases
/// and not-evaluated cases, the earliest start, and no shard.
fn merged_manifest(parts: &[Part], test_id: &str, models: &[report::ModelRun]) -> RunManifest {
    let mut manifest = parts[0].manifest.clone();
    manifest.test_id = test_id.to_string();
    if !models.is_empty() {
        // A part says only the servers of the models it asked.
        (manifest.backend, manifest.endpoint) = served_by(models);
    }
    manifest.shard = None;
    manifest.cases = parts
        .iter()
        .flat_map(|p| p.manifest.cases.clone())
        .collect();
    manifest.not_evaluated = parts
        .iter()
        .flat_map(|p| p.manifest.not_evaluated.clone())
        .collect();
    manifest.timestamp = parts
        .iter()
        .map(|p| p.manifest.timestamp.clone())
        .min()
        .unwrap_or_default();
    manifest
}

/// A multi-model run's models over all the parts: each model's planned
/// cases are the sum of its parts' (a part plans only its own chains), and
/// its server is that of a part which asked it (a part the shard gave no
/// case of a model never contacted it, and says "not selected").
fn merged_models(parts: &[Part]) -> Vec<report::ModelRun> {
    let first = &parts[0].info.models;
    first
        .iter()
        .map(|model| {
            let mine: Vec<&report::ModelRun> = parts
                .iter()
                .filter_map(|p| p.info.models.iter().find(|m| m.name == model.name))
                .collect();
            let asked = mine
                .iter()
                .find(|m| m.was_asked())
                .or_else(|| mine.iter().find(|m| m.unavailable.is_some()))
                .copied()
                .unwrap_or(model);
            report::ModelRun {
                planned_cases: mine.iter().map(|m| m.planned_cases).sum(),
                ..asked.clone()
            }
        })
        .collect()
}

/// The run's `backend` and `endpoint` from its models', as a run of all
/// of them says them (session::models::Opened::served_by): the models that
/// were asked, in order, kinds without repeats next to each other.
fn served_by(models: &[report::ModelRun]) -> (String, String) {
    let asked: Vec<&report::ModelRun> = models.iter().filter(|m| m.was_asked()).collect();
    let mut kinds: Vec<&str> = asked.iter().map(|m| m.backend.as_str()).collect();
    kinds.dedup();
    let endpoints: Vec<&str> = asked.iter().map(|m| m.endpoint.as_str()).collect();
    (kinds.join(", "), endpoints.join(", "))
}

/// Parts 1..n of one run, each once.
fn check(parts: &[Part]) -> Result<(), SetupError> {
    let Some(first) = parts.first() else {
        return Err(SetupError::Resume(
            "merge needs the run folders of the parts".into(),
        ));
    };
    let describe = |p: &Part| p.dir.display().to_string();
    let Some(n) = first.manifest.shard.map(|s| s.count) else {
        return Err(folder_error(
            &first.dir,
            "is not a part of a sharded run (it ran without PROMPTEVAL_SHARD)".into(),
        ));
    };
    let mut seen = vec![None; n as usize];
    for p in parts {
        let same = p.manifest.model == first.manifest.model
            && p.manifest.models == first.manifest.models
            && p.manifest.rounds == first.manifest.rounds
            && p.manifest.samples == first.manifest.samples
            && p.manifest.suite.file_name() == first.manifest.suite.file_name();
        if !same {
            return Err(folder_error(
                &p.dir,
                format!(
                    "ran another experiment than {} (suite, model, rounds or samples differ): only parts of one run can be merged",
                    describe(first)
                ),
            ));
        }
        let Some(shard) = p.manifest.shard.filter(|s| s.count == n) else {
            return Err(folder_error(
                &p.dir,
                format!("is not one of the {n} parts of {}'s run", describe(first)),
            ));
        };
        let slot = &mut seen[(shard.index - 1) as usize];
        if let Some(other) = slot {
            return Err(folder_error(
                &p.dir,
                format!("is part {shard} again (so is {other}); give each part once"),
            ));
        }
        *slot = Some(describe(p));
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{}/{n}", i + 1))
        .collect();
    if !missing.is_empty() {
        return Err(SetupError::Resume(format!(
            "part(s) {} of the run are missing: a report over some parts would count over the wrong denominator; give every part's run folder",
            missing.join(", ")
        )));
    }
    Ok(())
}
