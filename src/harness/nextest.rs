//! `cargo nextest run --test prompts`: nextest starts one process per case
//! (in any order, in parallel, maybe under `--partition`), but a chain's
//! cases need each other's history and the report needs every case. So
//! one process of the nextest run, the coordinator, runs the whole suite
//! as `cargo test --test prompts` would (chains in order with their
//! history, one run folder, one report); every other process waits for
//! its own case's verdict in that run's journal and exits with it.
//!
//! The processes of one nextest run share `<result_dir>/.nextest/<run id>/`
//! (`NEXTEST_RUN_ID`): a lock file (whoever holds it is the coordinator),
//! `run` (the run folder, once started) and `done`. A coordinator that
//! dies releases the lock; the next waiter takes over and resumes its run
//! folder (the journal keeps every finished case), so nobody waits forever.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use libtest_mimic::{Arguments, Completion, Trial};

use crate::case::CaseId;
use crate::config::Env;
use crate::schedule::TrialOutcome;
use crate::session::{RunPlan, Session, SetupError};
use crate::terminal::output::{Event, Output};

const POLL: Duration = Duration::from_millis(200);

/// The process environment with `PROMPTEVAL_RESUME` set to a run folder.
struct Resuming(PathBuf);

impl Env for Resuming {
    fn var(&self, name: &str) -> Option<String> {
        if name == "PROMPTEVAL_RESUME" {
            return Some(self.0.display().to_string());
        }
        crate::config::ProcessEnv.var(name)
    }
}

/// Runs this process's case under nextest; `plan` was loaded for it.
pub fn run(
    args: &Arguments,
    plan: RunPlan,
    cwd: &Path,
    out: &Arc<Output>,
) -> Result<ExitCode, SetupError> {
    let name = args.filter.clone().unwrap_or_default();
    let Some(case) = plan.planned.iter().find(|c| c.test_name() == name).cloned() else {
        return Err(SetupError::Backend(format!(
            "cargo-nextest asked for `{name}`, which is not a case of this suite; run `cargo nextest list --test prompts` to see the cases"
        )));
    };
    let run_id = std::env::var("NEXTEST_RUN_ID").map_err(|_| {
        SetupError::Backend(
            "cargo-nextest did not set NEXTEST_RUN_ID, which ties its processes to one run; use cargo-nextest 0.9.60 or later".into(),
        )
    })?;
    let shared = plan.config.result_dir.join(".nextest").join(&run_id);
    std::fs::create_dir_all(&shared).map_err(|e| SetupError::Folder {
        path: shared.clone(),
        message: format!("cannot create the nextest coordination folder: {e}"),
    })?;
    let mut plan = Some(plan);
    loop {
        if let Some(outcome) = outcome_of(&shared, &case)? {
            return Ok(report(args, &case, outcome));
        }
        let lock = File::create(shared.join("lock")).map_err(|e| SetupError::Folder {
            path: shared.clone(),
            message: format!("cannot create the lock file: {e}"),
        })?;
        let mine =
            rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok();
        if mine && !shared.join("done").exists() {
            coordinate(&shared, cwd, plan.take(), out)?;
            std::fs::write(shared.join("done"), b"").map_err(|e| SetupError::Folder {
                path: shared.clone(),
                message: format!("cannot mark the run done: {e}"),
            })?;
            drop(lock);
            continue;
        }
        drop(lock);
        std::thread::sleep(POLL);
    }
}

/// Runs every case of the plan (or finishes the run folder an earlier
/// coordinator left) and writes the report.
fn coordinate(
    shared: &Path,
    cwd: &Path,
    plan: Option<RunPlan>,
    out: &Arc<Output>,
) -> Result<(), SetupError> {
    let started = std::fs::read_to_string(shared.join("run"))
        .ok()
        .map(PathBuf::from);
    let plan = match (&started, plan) {
        (Some(dir), _) => RunPlan::load(&Resuming(dir.clone()), cwd)?,
        (None, Some(plan)) => plan,
        (None, None) => RunPlan::load(&crate::config::ProcessEnv, cwd)?,
    };
    out.emit(Event::UnderNextest {
        cases: plan.planned.len(),
    });
    let selected: Vec<CaseId> = plan
        .planned
        .iter()
        .filter(|c| plan.finished(c).is_none())
        .cloned()
        .collect();
    let session = Session::start(
        plan,
        selected.clone(),
        None,
        Arc::new(AtomicBool::new(false)),
        out,
    )?;
    std::fs::write(shared.join("run"), session.run_dir().display().to_string()).map_err(|e| {
        SetupError::Folder {
            path: shared.to_path_buf(),
            message: format!("cannot record the run folder: {e}"),
        }
    })?;
    for position in 0..session.running() {
        session.wait(position);
    }
    session.finish(ExitCode::SUCCESS, out)?;
    Ok(())
}

/// This case's outcome once the run has it: its journal record, or its
/// reason for not being evaluated; `None` while it is still to come.
fn outcome_of(shared: &Path, case: &CaseId) -> Result<Option<TrialOutcome>, SetupError> {
    let Ok(dir) = std::fs::read_to_string(shared.join("run")) else {
        return Ok(None);
    };
    let dir = PathBuf::from(dir);
    let folder_error = |e: std::io::Error| SetupError::Folder {
        path: dir.clone(),
        message: format!("cannot read the run's journal: {e}"),
    };
    let index = crate::record::journal::index(&dir).map_err(folder_error)?;
    if let Some(at) = index.entries.iter().find(|e| &e.case == case) {
        let record = crate::record::journal::Reader::open(&dir)
            .and_then(|r| r.record_at(at.offset, at.len))
            .map_err(folder_error)?;
        return Ok(Some(crate::session::pipeline::trial_outcome(&record)));
    }
    if shared.join("done").exists() {
        let unevaluated = crate::session::unevaluated_reason(&dir, case);
        return Ok(Some(TrialOutcome::Ignored(format!(
            "not evaluated: {}",
            unevaluated.unwrap_or_else(|| "the run did not reach it".into())
        ))));
    }
    Ok(None)
}

/// libtest's output and exit status for the one case.
fn report(args: &Arguments, case: &CaseId, outcome: TrialOutcome) -> ExitCode {
    let trial = Trial::ignorable_test(case.test_name(), move || match outcome {
        TrialOutcome::Passed => Ok(Completion::Completed),
        TrialOutcome::Ignored(reason) => Ok(Completion::ignored_with(reason)),
        TrialOutcome::Failed(message) => Err(message.into()),
    });
    libtest_mimic::run(args, vec![trial]).exit_code()
}
