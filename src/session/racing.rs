//! A run that is a race (`[race]`): the gate the scheduler starts with,
//! and the race's standing for the report, both from what the journal
//! holds (so a resumed race goes on where the killed one stopped).

use std::collections::HashMap;
use std::path::Path;

use super::SetupError;
use super::run_plan::Resume;
use crate::case::{CaseId, Verdict};
use crate::config::Config;
use crate::race::gate::{RaceGate, Step};
use crate::race::standing::{self, Rebuilt};
use crate::record::journal;

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

/// The gate of a race over `runnable` (the cases this session asks, in
/// the scheduler's order), fed first with the outcomes of the cases a
/// resumed run finished and with the cases that cannot be evaluated (they
/// pair with nothing, but count against `max_cases` as in the report);
/// `prompts` in suite order.
pub fn gate(
    config: &Config,
    resume: Option<&Resume>,
    runnable: &[CaseId],
    unevaluated: &[CaseId],
    prompts: &[String],
) -> Result<Option<(RaceGate, Step)>, SetupError> {
    if !config.race.enabled {
        return Ok(None);
    }
    // The journal's cases, less those this session asks (again, with
    // PROMPTEVAL_RETRY): the harness has taken `Resume::finished` by now.
    let asked_now: std::collections::HashSet<&CaseId> = runnable.iter().collect();
    let finished = match resume {
        Some(r) => verdicts(&r.dir, |c| !asked_now.contains(c))?,
        None => HashMap::new(),
    };
    let earlier: Vec<(CaseId, Option<bool>)> = finished
        .into_iter()
        .map(|(c, v)| (c, super::pipeline::judged(v)))
        .chain(unevaluated.iter().map(|c| (c.clone(), None)))
        .collect();
    Ok(Some(RaceGate::new(
        runnable,
        &earlier,
        prompts,
        config.race.alpha,
        config.race.max_cases,
    )))
}

/// The race as the journal of `dir` leaves it, over the run's `planned`
/// cases; `prompts` in suite order.
pub fn standing(
    config: &Config,
    dir: &Path,
    planned: &[CaseId],
    unevaluated: &[CaseId],
    prompts: &[String],
) -> Result<Option<Rebuilt>, SetupError> {
    if !config.race.enabled {
        return Ok(None);
    }
    let finished = verdicts(dir, |_| true)?;
    Ok(Some(standing::rebuild(
        planned,
        unevaluated,
        &finished,
        prompts,
        &config.race,
    )))
}
