//! libtest-mimic glue: arguments -> plan -> trials -> session -> exit status.
//!
//! `tests/prompts.rs` calls [`main`]. Exit status: 2 when the run cannot
//! start (bad config, suite, interpreter, unreachable server), otherwise the
//! gate's verdict when thresholds are set, else libtest's (101 when any case
//! failed). The work itself happens in [`crate::session`]; trials only wait
//! for their case, so `--test-threads` does not bound the model requests.

pub mod nextest;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use libtest_mimic::{Arguments, Completion, Failed, FormatSetting, Trial};

use crate::case::CaseId;
use crate::config::{Env, ProcessEnv};
use crate::schedule::TrialOutcome;
use crate::session::{RunPlan, Session, SetupError};
use crate::suite::Suite;
use crate::terminal::console::{fatal, in_ci};
use crate::terminal::output::{Console, Event, JobSummary, Output, Sink};

/// Status for "could not start": distinct from libtest's 101.
const SETUP_FAILED: u8 = 2;

pub fn main() -> ExitCode {
    configure_insta();
    let mut args = Arguments::from_args();
    console_for(&args);
    let out = Arc::new(Output::new(sinks(&ProcessEnv)));
    match run(&mut args, &out) {
        Ok(code) => code,
        Err(e) => {
            fatal(e);
            ExitCode::from(SETUP_FAILED)
        }
    }
}

/// The terminal, and GitHub's job summary when the job has one.
fn sinks(env: &dyn Env) -> Vec<Box<dyn Sink>> {
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(Console::default())];
    if let Some(file) = env.var("GITHUB_STEP_SUMMARY").filter(|f| !f.is_empty()) {
        sinks.push(Box::new(JobSummary { file: file.into() }));
    }
    sinks
}

/// Snapshot policy for live runs: a changed reply never fails a case (it
/// waits for `cargo insta review`), insta does not call `cargo metadata`, and
/// the report, not insta, tells which replies changed. A user's own INSTA_*
/// settings win.
fn configure_insta() {
    let defaults = [
        ("INSTA_FORCE_PASS", "1".to_string()),
        ("INSTA_OUTPUT", "none".to_string()),
        (
            "INSTA_WORKSPACE_ROOT",
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| ".".into()),
        ),
    ];
    for (name, value) in defaults {
        if std::env::var_os(name).is_none() {
            // SAFETY: the first thing main does, before any other thread exists.
            unsafe { std::env::set_var(name, value) };
        }
    }
}

fn console_for(args: &Arguments) {
    crate::terminal::console::use_stderr(
        matches!(args.format, Some(FormatSetting::Json)) || args.list,
    );
}

/// The run as the configuration and the environment plan it, with
/// libtest's filters applied (`-- prompt1` narrowed to that prompt), and
/// the log started.
fn load(
    args: &mut Arguments,
    out: &Arc<Output>,
) -> Result<(RunPlan, std::path::PathBuf), SetupError> {
    let cwd = std::env::current_dir().map_err(|e| SetupError::Folder {
        path: ".".into(),
        message: format!("cannot read the working directory: {e}"),
    })?;
    let mut plan = RunPlan::load(&ProcessEnv, &cwd)?;
    init_logging(&plan.config.log, out.clone());
    plan.planned = apply_prompt_filter(args, &plan.suite, std::mem::take(&mut plan.planned));
    Ok((plan, cwd))
}

/// The planned cases this session runs: libtest's filters keep them and
/// a resumed run did not finish them.
fn selected(args: &Arguments, plan: &RunPlan) -> Vec<CaseId> {
    plan.planned
        .iter()
        .filter(|c| plan.finished(c).is_none())
        .filter(|c| !args.is_filtered_out(&placeholder_trial(c)))
        .filter(|_| !args.ignored)
        .cloned()
        .collect()
}

fn run(args: &mut Arguments, out: &Arc<Output>) -> Result<ExitCode, SetupError> {
    let (mut plan, cwd) = load(args, out)?;
    plan.config.check_prices_have_a_use()?;
    let cap = args.test_threads.or(plan.config.test_threads);

    if std::env::var_os("NEXTEST").is_some() && !args.list {
        // One process per case: see nextest.rs for how they share one run.
        return crate::harness::nextest::run(args, plan, &cwd, out);
    }
    if args.list {
        return Ok(libtest_mimic::run(args, placeholder_trials(&plan.planned)).exit_code());
    }

    let selected = selected(args, &plan);
    if selected.is_empty() && plan.finished_count() == 0 {
        // Nothing to evaluate: libtest prints its "0 tests" summary, after
        // one line that says what exists. A misspelt filter in CI must not
        // be a green run.
        out.emit(Event::NothingSelected {
            line: &nothing_selected(args, &plan.suite),
        });
        let conclusion = libtest_mimic::run(args, placeholder_trials(&plan.planned));
        return Ok(if in_ci() {
            ExitCode::from(SETUP_FAILED)
        } else {
            conclusion.exit_code()
        });
    }

    let interrupted = Arc::new(AtomicBool::new(false));
    install_signal_handlers(&interrupted);
    // The session needs neither: the trials take them.
    let finished = plan
        .resume
        .as_mut()
        .map(|r| std::mem::take(&mut r.finished))
        .unwrap_or_default();
    let planned = std::mem::take(&mut plan.planned);
    let session = Arc::new(Session::start(plan, selected, cap, interrupted, out)?);
    // Trials only wait for results: enough of them to print each case as it
    // finishes, whatever order the pools finish them in.
    args.test_threads = Some(cap.unwrap_or(session.running().clamp(1, 64)));
    let trials = {
        let positions = session.positions();
        planned
            .iter()
            .map(|case| {
                if let Some(why) = session.unqualified(case) {
                    return recorded_trial(case, TrialOutcome::Ignored(why.to_string()));
                }
                let case = session.settled(case);
                if let Some(why) = session.unqualified(case) {
                    return recorded_trial(case, TrialOutcome::Ignored(why.to_string()));
                }
                match (
                    finished.get(case),
                    session.not_evaluated(case),
                    positions.get(case),
                ) {
                    (Some(outcome), _, _) => recorded_trial(case, outcome.clone()),
                    (None, Some(m), _) => recorded_trial(
                        case,
                        TrialOutcome::Ignored(format!("not evaluated: {}", m.reason.label())),
                    ),
                    (None, None, Some(&at)) => waiting_trial(&session, case, at),
                    // Filtered out (libtest never runs it), or a case the
                    // session could not run: never a pass.
                    (None, None, None) => not_run_trial(case),
                }
            })
            .collect()
    };
    // The trials hold their names: the plan's cases are not needed again.
    drop(planned);
    drop(finished);
    let conclusion = libtest_mimic::run(args, trials);
    let session = Arc::try_unwrap(session).map_err(|_| {
        SetupError::Backend(
            "internal error: a test case still holds the run; please report it".into(),
        )
    })?;
    session.finish(conclusion.exit_code(), out)
}

/// `prompteval plan`: what `cargo test --test prompts` with the same
/// configuration, environment and libtest `filters` (`prompt1`, `--skip
/// q3`, `--exact`) would ask and spend, without running it. The lines a
/// run shows go to stderr; the plan is returned.
pub fn plan(filters: &[String], probes: Option<usize>) -> Result<crate::budget::Plan, SetupError> {
    let mut args = Arguments::from_iter(
        std::iter::once("prompteval-plan".to_string()).chain(filters.iter().cloned()),
    );
    crate::terminal::console::use_stderr(true);
    let out = Arc::new(Output::new(vec![Box::new(Console::default())]));
    let (plan, _) = load(&mut args, &out)?;
    let selected = selected(&args, &plan);
    if selected.is_empty() && plan.finished_count() == 0 {
        return Err(SetupError::Resume(nothing_selected(&args, &plan.suite)));
    }
    crate::session::preview(plan, selected, probes, &out)
}

/// The one line for a filter that selects nothing: what the names are.
fn nothing_selected(args: &Arguments, suite: &Suite) -> String {
    let shown = |names: Vec<&str>| -> String {
        const MAX: usize = 30;
        let more = names.len().saturating_sub(MAX);
        let mut text = names.into_iter().take(MAX).collect::<Vec<_>>().join(", ");
        if more > 0 {
            text.push_str(&format!(" and {more} more (see --list)"));
        }
        text
    };
    let asked = match (&args.filter, args.skip.is_empty()) {
        (Some(f), _) => format!("the filter `{}`", f.trim_end_matches("::")),
        (None, false) => format!("--skip {}", args.skip.join(" --skip ")),
        (None, true) => "this selection".to_string(),
    };
    format!(
        "⚠️  no case matches {asked}. Prompts: {}. Question ids: {}. Case names are <prompt>::<question id>::r<round> (and ::s<sample> with samples)",
        shown(suite.prompts.iter().map(|p| p.name.as_str()).collect()),
        shown(suite.questions.iter().map(|q| q.id.as_str()).collect()),
    )
}

/// A trial that only carries a case's name: for `--list`, for asking
/// libtest's filters which cases are selected, and for runs with nothing to do.
fn placeholder_trial(case: &CaseId) -> Trial {
    Trial::test(case.test_name(), || Ok(()))
}

fn placeholder_trials(cases: &[CaseId]) -> Vec<Trial> {
    cases.iter().map(placeholder_trial).collect()
}

/// A case whose outcome is already known: finished in the run being
/// resumed, or not evaluated (libtest reports it as ignored with the reason).
fn recorded_trial(case: &CaseId, outcome: TrialOutcome) -> Trial {
    Trial::ignorable_test(case.test_name(), move || completion(outcome))
}

/// A case the session does not run.
fn not_run_trial(case: &CaseId) -> Trial {
    Trial::ignorable_test(case.test_name(), || Err("not run".into()))
}

/// A case the session runs at `position`: the trial waits for its result.
fn waiting_trial(session: &Arc<Session>, case: &CaseId, position: usize) -> Trial {
    let session = session.clone();
    Trial::ignorable_test(case.test_name(), move || match session.wait(position) {
        Some(outcome) => completion(outcome),
        None if session.interrupted() => Err("abandoned: the run was interrupted".into()),
        None => Err("not run".into()),
    })
}

fn completion(outcome: TrialOutcome) -> Result<Completion, Failed> {
    match outcome {
        TrialOutcome::Passed => Ok(Completion::Completed),
        TrialOutcome::Ignored(reason) => Ok(Completion::ignored_with(reason)),
        TrialOutcome::Failed(message) => Err(message.into()),
    }
}

/// `-- prompt1` must select exactly prompt1's cases, not also prompt10's.
/// A filter equal to a prompt name becomes `prompt1::`, which only that
/// prompt's case names contain, so libtest still counts what it filtered out.
/// Should another prompt name or a question id end in the same text (where
/// `prompt1::` would match too), the plan is narrowed to the prompt instead.
fn apply_prompt_filter(args: &mut Arguments, suite: &Suite, planned: Vec<CaseId>) -> Vec<CaseId> {
    let Some(f) = args.filter.clone() else {
        return planned;
    };
    if args.exact || suite.prompt(&f).is_none() {
        return planned;
    }
    let ambiguous = suite
        .prompts
        .iter()
        .any(|p| p.name != f && p.name.ends_with(f.as_str()))
        || suite.questions.iter().any(|q| q.id.ends_with(f.as_str()));
    if ambiguous {
        args.filter = None;
        planned.into_iter().filter(|c| *c.prompt == *f).collect()
    } else {
        args.filter = Some(format!("{f}::"));
        planned
    }
}

/// SIGINT/SIGTERM: stop starting cases, let running ones finish, write the
/// report marked incomplete. A second signal exits at once (the journal
/// already holds every finished case).
fn install_signal_handlers(flag: &Arc<AtomicBool>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone());
        let _ = signal_hook::flag::register(sig, flag.clone());
    }
}

/// The log's lines go through the event stream, like every other line.
struct LogLines(Arc<Output>);

impl std::io::Write for LogLines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.emit(Event::Log(&String::from_utf8_lossy(buf)));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn init_logging(filter: &str, out: Arc<Output>) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only for a terminal: CI logs and files stay plain text.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(move || LogLines(out.clone()))
        .with_target(false)
        .without_time()
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_summary_is_one_more_sink_when_the_job_has_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("summary.md");
        assert_eq!(sinks(&[("X", "")]).len(), 1);
        let out = Output::new(sinks(&[("GITHUB_STEP_SUMMARY", file.to_str().unwrap())]));
        out.emit(Event::Gate("gate: passed (1 prompt(s) checked)"));
        out.emit(Event::StepSummary("## prompteval\n"));
        out.emit(Event::StepSummary("| p | 100.0% |\n"));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "## prompteval\n| p | 100.0% |\n"
        );
    }
}
