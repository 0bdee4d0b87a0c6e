//! libtest-mimic glue: arguments -> plan -> trials -> report -> exit status.
//!
//! `tests/prompts.rs` calls [`main`]. Exit status: 2 when the run cannot
//! start (bad config, suite, interpreter, unreachable server), otherwise the
//! gate's verdict when thresholds are set, else libtest's (101 when any case
//! failed).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Failed, FormatSetting, Trial};
use serde::{Deserialize, Serialize};

use crate::backend::Backend;
use crate::backend::ollama::Ollama;
use crate::backend::openai::{OpenAi, api_key_from_env};
use crate::backend::replay::{Mismatch, Replay, unmatched_lines};
use crate::case::{ApiFailure, CaseId, CaseRecord, Unevaluated, Verdict};
use crate::config::{BackendKind, Config, ProcessEnv};
use crate::console::{fatal, in_ci, say};
use crate::journal::{self, Journal};
use crate::report::{self, RunInfo};
use crate::run::RunState;
use crate::sandbox::Sandbox;
use crate::snapshot::SnapshotStore;
use crate::suite::Suite;
use crate::{gate, plan};

/// Status for "could not start": distinct from libtest's 101.
const SETUP_FAILED: u8 = 2;

/// What a run folder remembers about its run, so `PROMPTEVAL_RESUME` can
/// finish it with the same suite, model and cases.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunManifest {
    test_id: String,
    timestamp: String,
    suite: PathBuf,
    model: String,
    rounds: u32,
    backend: String,
    endpoint: String,
    cases: Vec<CaseId>,
    /// Selected cases the run could not evaluate (no matching recording).
    #[serde(default)]
    not_evaluated: Vec<Unevaluated>,
}

pub fn main() -> ExitCode {
    configure_insta();
    let mut args = Arguments::from_args();
    console_for(&args);
    match run(&mut args) {
        Ok(code) => code,
        Err(message) => {
            fatal(message);
            ExitCode::from(SETUP_FAILED)
        }
    }
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
    crate::console::use_stderr(matches!(args.format, Some(FormatSetting::Json)) || args.list);
}

fn run(args: &mut Arguments) -> Result<ExitCode, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let mut config = Config::load(&ProcessEnv, &cwd).map_err(|e| e.to_string())?;
    init_logging(&config.log);
    let resume = std::env::var_os("PROMPTEVAL_RESUME").map(|d| cwd.join(d));
    let manifest = match &resume {
        Some(dir) => Some(read_manifest(dir)?),
        None => None,
    };
    if let Some(m) = &manifest {
        // A resumed run finishes what it started, whatever the environment says now.
        config.suite = m.suite.clone();
        config.model = m.model.clone();
        config.rounds = m.rounds;
    }
    let suite = Suite::load(&config.suite).map_err(|e| e.to_string())?;
    let prompt_names: Vec<&str> = suite.prompts.iter().map(|p| p.name.as_str()).collect();
    config
        .check_gate_prompts(&prompt_names)
        .map_err(|e| e.to_string())?;
    let planned = match &manifest {
        Some(m) => m.cases.clone(),
        None => plan::cases(&suite, config.rounds),
    };
    let planned = apply_prompt_filter(args, &suite, planned);
    if args.test_threads.is_none() {
        args.test_threads = config.test_threads;
    }

    if std::env::var_os("NEXTEST").is_some() && !args.list {
        return Err("prompteval runs a suite in one process (chains share their history and the report is written after the last case); run it with `cargo test --test prompts`, not cargo-nextest".into());
    }
    if args.list {
        return Ok(libtest_mimic::run(args, placeholder_trials(&planned)).exit_code());
    }

    let finished: Vec<CaseRecord> = match &resume {
        Some(dir) => {
            journal::read(dir)
                .map_err(|e| format!("{}: cannot read the journal: {e}", dir.display()))?
                .records
        }
        None => Vec::new(),
    };
    let finished_ids: HashSet<&CaseId> = finished.iter().map(|r| &r.case).collect();
    let selected: Vec<CaseId> = planned
        .iter()
        .filter(|c| !finished_ids.contains(c))
        .filter(|c| !args.is_filtered_out(&placeholder_trial(c)))
        .filter(|_| !args.ignored)
        .cloned()
        .collect();

    if selected.is_empty() && finished.is_empty() {
        // Nothing to evaluate: libtest prints its "0 tests" summary, after
        // one line that says what exists. A misspelt filter in CI must not
        // be a green run.
        say(nothing_selected(args, &suite));
        let conclusion = libtest_mimic::run(args, placeholder_trials(&planned));
        return Ok(if in_ci() {
            ExitCode::from(SETUP_FAILED)
        } else {
            conclusion.exit_code()
        });
    }

    say("🚀 LLM Prompt 效能評測系統啟動 (prompteval)");
    say(format!(
        "✅ 載入完成: {} 個 Prompts, {} 個問題 ({})",
        suite.prompts.len(),
        suite.questions.len(),
        suite.path.display()
    ));
    let sandbox = Sandbox::new(&config.sandbox).map_err(|e| e.to_string())?;
    if resume.is_none() {
        ensure_writable(&config.result_dir)?;
    }
    let source = choose_backend(&config, &suite)?;
    let replaying = matches!(source, Source::Replay { .. });
    let (backend, model, selected, unmatched) =
        prepare_backend(source, &config, &suite, selected, &finished)?;

    // What this run sets out to finish: the selected cases of a new run that
    // can be evaluated, or everything the interrupted run had. A filtered
    // run is complete when its selection is.
    let (intended, mut not_evaluated) = match &manifest {
        Some(m) => (m.cases.clone(), m.not_evaluated.clone()),
        None => (selected.clone(), Vec::new()),
    };
    for (case, m) in &unmatched {
        if !not_evaluated.iter().any(|u| &u.case == case) {
            not_evaluated.push(Unevaluated {
                case: case.clone(),
                reason: m.reason.label().to_string(),
                detail: m.detail.clone(),
            });
        }
    }

    let (run_dir, test_id, timestamp) = match &resume {
        Some(dir) => {
            let m = manifest.as_ref().expect("manifest read with resume");
            (dir.clone(), m.test_id.clone(), m.timestamp.clone())
        }
        None => create_run_dir(&config.result_dir)?,
    };
    if manifest.is_none() {
        write_manifest(
            &run_dir,
            &RunManifest {
                test_id: test_id.clone(),
                timestamp: timestamp.clone(),
                suite: suite.path.clone(),
                model: model.clone(),
                rounds: config.rounds,
                backend: backend.kind().into(),
                endpoint: backend.endpoint(),
                cases: intended.clone(),
                not_evaluated: not_evaluated.clone(),
            },
        )?;
    }
    let journal = Journal::open(&run_dir)
        .map_err(|e| format!("{}: cannot create the journal: {e}", run_dir.display()))?;
    say(format!("📁 測試結果將儲存至: {}", run_dir.display()));
    say(format!(
        "🧪 開始執行測試 (共 {} 輪, {} 個測試{})",
        config.rounds,
        selected.len(),
        if finished.is_empty() {
            String::new()
        } else {
            format!(", {} 個已完成", finished.len())
        }
    ));

    let interrupted = Arc::new(AtomicBool::new(false));
    install_signal_handlers(&interrupted);
    let snapshots =
        (!replaying).then(|| SnapshotStore::new(&config.snapshot_dir, &suite.stem(), &model));
    let isolation = serde_json::to_value(sandbox.isolation()).unwrap_or_default();
    let state = Arc::new(RunState::new(
        config.clone(),
        suite.clone(),
        backend,
        sandbox,
        journal,
        snapshots,
        model.clone(),
        &selected,
        &finished,
        interrupted.clone(),
    ));

    let started = Instant::now();
    let finished_by_id: HashMap<&CaseId, &CaseRecord> =
        finished.iter().map(|r| (&r.case, r)).collect();
    let unmatched_by_id: HashMap<&CaseId, &Mismatch> =
        unmatched.iter().map(|(c, m)| (c, m)).collect();
    let trials = planned
        .iter()
        .map(
            |case| match (finished_by_id.get(case), unmatched_by_id.get(case)) {
                (Some(done), _) => finished_trial(done),
                (None, Some(m)) => unevaluated_trial(case, m),
                (None, None) => trial(&state, case),
            },
        )
        .collect();
    let conclusion = libtest_mimic::run(args, trials);

    let mut records = finished;
    records.extend(state.records());
    let done: HashSet<&CaseId> = records.iter().map(|r| &r.case).collect();
    let complete = intended.iter().all(|c| done.contains(c));
    let info = RunInfo {
        test_id,
        timestamp,
        total_execution_time: (started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
        suite: suite.path.display().to_string(),
        model,
        backend: state.backend.kind().into(),
        endpoint: state.backend.endpoint(),
        rounds: config.rounds,
        prompts: suite
            .prompts
            .iter()
            .map(|p| (p.name.clone(), p.template.clone()))
            .collect(),
        question_count: suite.questions.len(),
        planned_cases: intended.len() + not_evaluated.len(),
        complete,
        isolation,
        thresholds: suite
            .prompts
            .iter()
            .filter_map(|p| config.threshold_for(&p.name).map(|t| (p.name.clone(), t)))
            .collect(),
        not_evaluated,
    };
    say("\n📊 生成評估報告...");
    let (summary, written) = report::write_all(&run_dir, &info, &records)
        .map_err(|e| format!("{}: cannot write the report: {e}", run_dir.display()))?;
    say(report::terminal_table(&summary));
    say(format!(
        "📋 會話摘要已儲存: {}",
        written.summary_json.display()
    ));
    say(format!(
        "🌐 快速檢視已生成: {}",
        written.quick_view.display()
    ));
    if !complete {
        say(format!(
            "⚠️  執行未完成: {} of {} cases finished; finish it with PROMPTEVAL_RESUME={}",
            records.len(),
            intended.len(),
            run_dir.display()
        ));
    }
    say(format!(
        "⏱️  總執行時間: {:.2} 秒",
        info.total_execution_time
    ));
    let (new, changed) = snapshot_counts(&records);
    if new + changed > 0 {
        say(snapshot_note(new, changed));
    }
    match gate::evaluate(&summary, &config) {
        Some(g) => {
            for line in g.lines() {
                say(line);
            }
            Ok(if g.passed() && complete {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(101)
            })
        }
        None => Ok(if interrupted.load(Ordering::SeqCst) {
            ExitCode::from(130)
        } else {
            conclusion.exit_code()
        }),
    }
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
        "⚠️  no case matches {asked}. Prompts: {}. Question ids: {}. Case names are <prompt>::<question id>::r<round>",
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

/// A case that finished in an earlier (resumed) run passes or fails as it
/// did, without running again.
fn finished_trial(done: &CaseRecord) -> Trial {
    let outcome = verdict_outcome(done);
    Trial::ignorable_test(done.case.test_name(), move || outcome)
}

/// A selected case the run cannot evaluate: libtest reports it as ignored
/// with the reason, never as passed or as a model failure.
fn unevaluated_trial(case: &CaseId, why: &Mismatch) -> Trial {
    let reason = format!("not evaluated: {}", why.reason.label());
    Trial::ignorable_test(case.test_name(), move || {
        Ok(Completion::ignored_with(reason))
    })
}

/// One libtest trial per case to run.
fn trial(state: &Arc<RunState>, case: &CaseId) -> Trial {
    let state = state.clone();
    let case = case.clone();
    Trial::ignorable_test(case.test_name(), move || {
        // The case runs on its own thread so that an interrupt can abandon it
        // at once: a model call may block for its whole timeout. An abandoned
        // case that still finishes is journaled, so a resume keeps it.
        let (tx, rx) = mpsc::channel();
        let worker_state = state.clone();
        let worker_case = case.clone();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                worker_state.run_case(&worker_case)
            }));
            if result.is_err() {
                worker_state.mark_done(&worker_case, None);
            }
            let _ = tx.send(result);
        });
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(Some(record))) => return verdict_outcome(&record),
                Ok(Ok(None)) => return Err("not run: the run was interrupted".into()),
                Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(
                        "the harness panicked on this case; please report it with the journal line"
                            .into(),
                    );
                }
                Err(mpsc::RecvTimeoutError::Timeout)
                    if state.interrupted.load(Ordering::SeqCst) =>
                {
                    return Err("abandoned: the run was interrupted".into());
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    })
}

/// What happened to new and changed replies depends on insta's update mode.
fn snapshot_note(new: usize, changed: usize) -> String {
    let mode = std::env::var("INSTA_UPDATE").unwrap_or_default();
    if mode == "always" || mode == "force" {
        format!(
            "📸 {new} new and {changed} changed replies recorded into the snapshots (INSTA_UPDATE={mode})"
        )
    } else if in_ci() || mode == "no" {
        format!(
            "📸 {new} new and {changed} changed replies (not written: CI or INSTA_UPDATE=no); record them locally"
        )
    } else {
        format!("📸 {new} new and {changed} changed replies await review: `cargo insta review`")
    }
}

fn snapshot_counts(records: &[CaseRecord]) -> (usize, usize) {
    use crate::case::SnapshotState;
    let count = |s| records.iter().filter(|r| r.snapshot == Some(s)).count();
    (count(SnapshotState::New), count(SnapshotState::Changed))
}

/// Passed, failed, or (for a request no recording answers) ignored with the
/// reason: the model was not asked, so the case neither passes nor fails.
fn verdict_outcome(record: &CaseRecord) -> Result<Completion, Failed> {
    let detail = record.detail.clone().unwrap_or_default();
    match (record.verdict, record.api_failure) {
        (Verdict::Correct, _) => Ok(Completion::Completed),
        (Verdict::NotEvaluated, Some(ApiFailure::NotRecorded)) => Ok(Completion::ignored_with(
            "not evaluated: no recording of this exact request",
        )),
        (verdict, _) => Err(format!("{verdict}: {detail}").into()),
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
        planned.into_iter().filter(|c| c.prompt == f).collect()
    } else {
        args.filter = Some(format!("{f}::"));
        planned
    }
}

/// Where the replies come from.
enum Source {
    Live(Box<dyn Backend>),
    Replay {
        replay: Replay,
        /// The user asked for replay (rather than `auto` falling back to it).
        explicit: bool,
        why: String,
    },
}

/// The backend, the model, the cases it will run, and (for replay) the
/// selected cases no recording answers. An explicit replay stops before the
/// first case when any selected case has no matching recording; `auto`
/// runs the recorded ones and says which are left out and why.
#[allow(clippy::type_complexity)]
fn prepare_backend(
    source: Source,
    config: &Config,
    suite: &Suite,
    selected: Vec<CaseId>,
    finished: &[CaseRecord],
) -> Result<
    (
        Box<dyn Backend>,
        String,
        Vec<CaseId>,
        Vec<(CaseId, Mismatch)>,
    ),
    String,
> {
    let model = config.model.clone();
    let (replay, explicit, why) = match source {
        Source::Live(backend) => return Ok((backend, model, selected, Vec::new())),
        Source::Replay {
            replay,
            explicit,
            why,
        } => (replay, explicit, why),
    };
    announce_replay(&replay, &model, &why);
    let matched = replay.match_cases(&selected, finished, suite, config, &model);
    if !matched.unmatched.is_empty() {
        let lines = unmatched_lines(&matched.unmatched, &selected).join("\n");
        let missing = matched.unmatched.len();
        let of = selected.len();
        if explicit {
            return Err(format!(
                "replay: {missing} of {of} selected cases have no recording of their exact request (model, options, system prompt, template, question and history):\n{lines}\nRecord them with a live backend (INSTA_UPDATE=always), select only recorded cases, or use backend = \"auto\" to run just the recorded ones"
            ));
        }
        if matched.runnable.is_empty() && finished.is_empty() {
            return Err(format!(
                "replay: none of the {of} selected cases has a recording of its exact request, so nothing can be evaluated:\n{lines}\nStart a model server to evaluate them live (`ollama serve`, or scripts/local-llm.sh start and PROMPTEVAL_BACKEND=openai)"
            ));
        }
        say(format!(
            "⚠️  replay: {missing} of {of} selected cases have no recording of their exact request; they are not evaluated (ignored, and in no accuracy):\n{lines}"
        ));
    }
    Ok((Box::new(replay), model, matched.runnable, matched.unmatched))
}

/// The backend the configuration asks for, after its connection test.
/// Replay answers only for the configured model: a model with no
/// recordings is an error naming the recorded ones, never a silent swap.
fn choose_backend(config: &Config, suite: &Suite) -> Result<Source, String> {
    let model = &config.model;
    let store = SnapshotStore::new(&config.snapshot_dir, &suite.stem(), model);
    let replay_or = |why: String, explicit: bool, no_server: Option<&str>| {
        if store.count() > 0 {
            return Ok(Source::Replay {
                replay: Replay::new(store.clone()),
                explicit,
                why,
            });
        }
        let recorded = recorded_models(&config.snapshot_dir.join(suite.stem()));
        let others = if recorded.is_empty() {
            format!(
                "no model has recorded replies for suite `{}` in {}",
                suite.stem(),
                config.snapshot_dir.display()
            )
        } else {
            format!(
                "recorded models for suite `{}`: {}; pick one with PROMPTEVAL_MODEL",
                suite.stem(),
                recorded.join(", ")
            )
        };
        let head = match no_server {
            Some(e) => format!("{e}\nand there are no recorded replies of model {model} to replay"),
            None => format!("replay: there are no recorded replies of model {model}"),
        };
        Err(format!("{head} ({others})"))
    };
    match config.backend {
        BackendKind::Ollama => {
            let b = Ollama::new(&config.ollama_host);
            b.check(model).map_err(|e| e.message)?;
            Ok(Source::Live(Box::new(b)))
        }
        BackendKind::Openai => {
            let b = OpenAi::new(&config.openai_base_url, api_key_from_env());
            b.check(model).map_err(|e| e.message)?;
            Ok(Source::Live(Box::new(b)))
        }
        BackendKind::Replay => replay_or("PROMPTEVAL_BACKEND=replay".into(), true, None),
        BackendKind::Auto => {
            let live = Ollama::new(&config.ollama_host);
            match live.check(model) {
                Ok(()) => Ok(Source::Live(Box::new(live))),
                // Ollama is running but cannot serve this run: say so rather
                // than replaying behind the user's back.
                Err(e) if e.server_answered => Err(e.message),
                Err(e) => replay_or(
                    format!("no Ollama answers at {}", config.ollama_host),
                    false,
                    Some(&e.message),
                ),
            }
        }
    }
}

/// Model folders with snapshots, by their recorded model name.
fn recorded_models(suite_dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(suite_dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|d| SnapshotStore::at(d).recorded_model())
        .collect()
}

fn announce_replay(b: &Replay, model: &str, why: &str) {
    let dir = b.store().dir();
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| dir.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| dir.to_path_buf());
    // The description is "<model> via <server>; <model_info>": the part after
    // the model says where the recording came from.
    let origin = b
        .store()
        .any_description()
        .and_then(|d| d.split_once(" via ").map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| "an earlier live run".into());
    say(format!(
        "▶ replay ({why}): {} recorded replies of {model} from {} (recorded via {origin}). Go live: `ollama serve`, or scripts/local-llm.sh start and PROMPTEVAL_BACKEND=openai",
        b.store().count(),
        shown.display(),
    ));
}

/// Checked before the connection test, so a bad result folder is reported
/// before anything else happens (the run folder itself is created only once
/// the server answered, so a failed start leaves no empty folder behind).
fn ensure_writable(root: &Path) -> Result<(), String> {
    std::fs::create_dir_all(root)
        .and_then(|()| tempfile::tempfile_in(root).map(drop))
        .map_err(|e| {
            format!(
                "{}: the result folder is not writable: {e}; set PROMPTEVAL_RESULT_DIR or `result_dir` in harness.toml to a writable folder",
                root.display()
            )
        })
}

fn create_run_dir(root: &Path) -> Result<(PathBuf, String, String), String> {
    let now = jiff::Zoned::now();
    let stamp = now.strftime("%Y%m%d_%H%M%S").to_string();
    let timestamp = now.strftime("%Y-%m-%dT%H:%M:%S").to_string();
    std::fs::create_dir_all(root).map_err(|e| {
        format!(
            "{}: cannot create the result folder: {e}; set PROMPTEVAL_RESULT_DIR or `result_dir` in harness.toml to a writable folder",
            root.display()
        )
    })?;
    // Two runs in the same second get distinct folders.
    for n in 1..1000 {
        let test_id = if n == 1 {
            format!("test_{stamp}")
        } else {
            format!("test_{stamp}_{n}")
        };
        let dir = root.join(&test_id);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok((dir, test_id, timestamp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "{}: cannot create the run folder: {e}",
                    dir.display()
                ));
            }
        }
    }
    Err(format!("{}: too many runs in one second", root.display()))
}

const MANIFEST: &str = "run.json";

fn write_manifest(dir: &Path, m: &RunManifest) -> Result<(), String> {
    let text = serde_json::to_string_pretty(m).map_err(|e| e.to_string())?;
    std::fs::write(dir.join(MANIFEST), text)
        .map_err(|e| format!("{}: cannot write {MANIFEST}: {e}", dir.display()))
}

fn read_manifest(dir: &Path) -> Result<RunManifest, String> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!("PROMPTEVAL_RESUME={}: {e}; point it at a run folder such as result/test_20250814_012345", dir.display())
    })?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a prompteval run manifest: {e}", path.display()))
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

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only for a terminal: CI logs and files stay plain text.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}
