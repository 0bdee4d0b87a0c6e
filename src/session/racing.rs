//! A run that is a race (`[race]`): the gate the scheduler starts with,
//! and the race's standing for the report, both from what the journal
//! holds (so a resumed race goes on where the killed one stopped).

use std::collections::HashMap;
use std::path::Path;

use super::SetupError;
use super::folder::RunManifest;
use super::model_sources::Opened;
use super::run_plan::Resume;
use crate::case::{CaseId, Verdict};
use crate::config::Config;
use crate::race::gate::{RaceGate, Step};
use crate::race::standing::{self, Rebuilt};
use crate::record::journal;
use crate::suite::Suite;

/// The latest verdict of each case the journal of `dir` holds, of the
/// cases `keep` accepts.
pub fn verdicts(
    dir: &Path,
    keep: impl Fn(&CaseId) -> bool,
) -> Result<HashMap<CaseId, Verdict>, SetupError> {
    let mut out = HashMap::new();
    journal::for_each(dir, |r| {
        if keep(&r.case) {
            out.insert(r.case, r.verdict);
        }
    })
    .map_err(|e| SetupError::Folder {
        path: dir.to_path_buf(),
        message: format!("cannot read the journal to rebuild the race: {e}"),
    })?;
    Ok(out)
}

/// The suite's prompt names, in its order: every gate numbers prompts so.
fn prompt_names(suite: &Suite) -> Vec<String> {
    suite.prompts.iter().map(|p| p.name.clone()).collect()
}

/// The gate of a race over the cases this session asks (`opened.runnable`,
/// in the scheduler's order), fed first with the outcomes of the cases a
/// resumed run finished and with the cases that cannot be evaluated (they
/// pair with nothing, but count against `max_cases` as in the report).
pub fn gate(
    config: &Config,
    resume: Option<&Resume>,
    opened: &Opened,
    suite: &Suite,
) -> Result<Option<(RaceGate, Step)>, SetupError> {
    if !config.race.enabled {
        return Ok(None);
    }
    let runnable = &opened.runnable;
    // The journal's cases, less those this session asks (again, with
    // PROMPTEVAL_RETRY): the harness has taken `Resume::finished` by now.
    let asked_now: std::collections::HashSet<&CaseId> = runnable.iter().collect();
    let finished = match resume {
        Some(r) => verdicts(&r.dir, |c| !asked_now.contains(c))?,
        None => HashMap::new(),
    };
    let earlier: Vec<(CaseId, Option<bool>)> = finished
        .into_iter()
        .map(|(c, v)| (c, v.judged()))
        .chain(opened.unmatched.iter().map(|(c, _)| (c.clone(), None)))
        .collect();
    Ok(Some(RaceGate::new(
        runnable,
        &earlier,
        &prompt_names(suite),
        config.race.alpha,
        config.race.max_cases,
    )))
}

/// The race as the journal of `dir` leaves it, over the run's planned
/// cases (the manifest's).
pub fn standing(
    config: &Config,
    dir: &Path,
    manifest: &RunManifest,
    suite: &Suite,
) -> Result<Option<Rebuilt>, SetupError> {
    if !config.race.enabled {
        return Ok(None);
    }
    let finished = verdicts(dir, |_| true)?;
    let unevaluated: Vec<CaseId> = manifest
        .not_evaluated
        .iter()
        .map(|u| u.case.clone())
        .collect();
    Ok(Some(standing::rebuild(
        &manifest.cases,
        &unevaluated,
        &finished,
        &prompt_names(suite),
        &config.race,
    )))
}
