//! libtest-mimic glue: arguments -> plan -> trials -> report -> exit status.
//!
//! `tests/prompts.rs` calls [`main`]. Exit status: 2 when the run cannot
//! start (bad config, suite, interpreter, unreachable server), otherwise the
//! gate's verdict when thresholds are set, else libtest's (101 when any case
//! failed).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, FormatSetting, Trial};
use serde::{Deserialize, Serialize};

use crate::backend::Backend;
use crate::backend::ollama::Ollama;
use crate::backend::openai::{OpenAi, api_key_from_env};
use crate::backend::replay::Replay;
use crate::case::{CaseId, CaseRecord};
use crate::config::{BackendKind, Config, ProcessEnv};
use crate::console::{fatal, say};
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
    let planned = match &manifest {
        Some(m) => m.cases.clone(),
        None => plan::cases(&suite, config.rounds),
    };
    let planned = narrow_prompt_filter(args, &suite, planned);
    if args.test_threads.is_none() {
        args.test_threads = config.test_threads;
    }

    if std::env::var_os("NEXTEST").is_some() && !args.list {
        return Err("prompteval runs a suite in one process (chains share their history and the report is written after the last case); run it with `cargo test --test prompts`, not cargo-nextest".into());
    }
    if args.list {
        return Ok(libtest_mimic::run(args, placeholder_trials(&planned)).exit_code());
    }

    let finished = match &resume {
        Some(dir) => {
            journal::read(dir)
                .map_err(|e| format!("{}: cannot read the journal: {e}", dir.display()))?
                .records
        }
        None => Vec::new(),
    };
    let selected: Vec<CaseId> = planned
        .iter()
        .filter(|c| !finished.iter().any(|r| &r.case == *c))
        .filter(|c| !args.is_filtered_out(&placeholder_trial(c)))
        .filter(|_| !args.ignored)
        .cloned()
        .collect();

    if selected.is_empty() && finished.is_empty() {
        // Nothing to evaluate: let libtest print its "0 tests" summary.
        return Ok(libtest_mimic::run(args, placeholder_trials(&planned)).exit_code());
    }

    // What this run sets out to finish: the selected cases of a new run, or
    // everything the interrupted run had selected. A filtered run is complete
    // when its selection is.
    let intended: Vec<CaseId> = match &manifest {
        Some(m) => m.cases.clone(),
        None => selected.clone(),
    };

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
    let (backend, model, replaying) = choose_backend(&config, &suite)?;

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
    let trials = planned
        .iter()
        .map(|case| trial(&state, case, &finished))
        .collect();
    let conclusion = libtest_mimic::run(args, trials);

    let mut records = finished;
    records.extend(state.records());
    let complete = intended
        .iter()
        .all(|c| records.iter().any(|r| &r.case == c));
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
        planned_cases: intended.len(),
        complete,
        isolation,
        thresholds: suite
            .prompts
            .iter()
            .filter_map(|p| config.threshold_for(&p.name).map(|t| (p.name.clone(), t)))
            .collect(),
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

/// A trial that only carries a case's name: for `--list`, for asking
/// libtest's filters which cases are selected, and for runs with nothing to do.
fn placeholder_trial(case: &CaseId) -> Trial {
    Trial::test(case.test_name(), || Ok(()))
}

fn placeholder_trials(cases: &[CaseId]) -> Vec<Trial> {
    cases.iter().map(placeholder_trial).collect()
}

/// One libtest trial per case. A case that already finished in an earlier
/// (resumed) run passes or fails as it did, without running again.
fn trial(state: &Arc<RunState>, case: &CaseId, finished: &[CaseRecord]) -> Trial {
    if let Some(done) = finished.iter().find(|r| &r.case == case) {
        let outcome = verdict_outcome(done);
        return Trial::test(case.test_name(), move || {
            outcome.clone().map_err(Failed::from)
        });
    }
    let state = state.clone();
    let case = case.clone();
    Trial::test(case.test_name(), move || {
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
                Ok(Ok(Some(record))) => return verdict_outcome(&record).map_err(Failed::from),
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
    } else if std::env::var_os("CI").is_some() || mode == "no" {
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

fn verdict_outcome(record: &CaseRecord) -> Result<(), String> {
    if record.passed() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            record.verdict,
            record.detail.clone().unwrap_or_default()
        ))
    }
}

/// `-- prompt1` must select exactly prompt1's cases, not also prompt10's: a
/// filter equal to a prompt name selects that prompt by name.
fn narrow_prompt_filter(args: &mut Arguments, suite: &Suite, planned: Vec<CaseId>) -> Vec<CaseId> {
    match &args.filter {
        Some(f) if !args.exact && suite.prompt(f).is_some() => {
            let name = f.clone();
            args.filter = None;
            planned.into_iter().filter(|c| c.prompt == name).collect()
        }
        _ => planned,
    }
}

/// The backend the configuration asks for, after its connection test.
/// Returns the backend, the model whose replies it gives, and whether it replays.
fn choose_backend(
    config: &Config,
    suite: &Suite,
) -> Result<(Box<dyn Backend>, String, bool), String> {
    let model = config.model.clone();
    let store = |m: &str| SnapshotStore::new(&config.snapshot_dir, &suite.stem(), m);
    match config.backend {
        BackendKind::Ollama => {
            let b = Ollama::new(&config.ollama_host);
            b.check(&model).map_err(|e| e.message)?;
            Ok((Box::new(b), model, false))
        }
        BackendKind::Openai => {
            let b = OpenAi::new(&config.openai_base_url, api_key_from_env());
            b.check(&model).map_err(|e| e.message)?;
            Ok((Box::new(b), model, false))
        }
        BackendKind::Replay => {
            let b = Replay::new(store(&model));
            b.check(&model).map_err(|e| e.message)?;
            announce_replay(&b, &model, "PROMPTEVAL_BACKEND=replay");
            Ok((Box::new(b), model, true))
        }
        BackendKind::Auto => {
            let live = Ollama::new(&config.ollama_host);
            let why = match live.check(&model) {
                Ok(()) => return Ok((Box::new(live), model, false)),
                // Ollama is running but cannot serve this run: say so rather
                // than replaying behind the user's back.
                Err(e) if e.server_answered => return Err(e.message),
                Err(e) => e.message,
            };
            // No Ollama: replay the recordings of the configured model, or of
            // the only recorded model of this suite.
            let recorded = if store(&model).count() > 0 {
                Some(model.clone())
            } else {
                recorded_models(&config.snapshot_dir.join(suite.stem()))
                    .into_iter()
                    .next()
            };
            match recorded {
                Some(m) => {
                    let b = Replay::new(store(&m));
                    announce_replay(
                        &b,
                        &m,
                        &format!("no Ollama answers at {}", config.ollama_host),
                    );
                    Ok((Box::new(b), m, true))
                }
                None => Err(format!(
                    "{why}\n(no recorded replies for suite `{}` in {} to replay either)",
                    suite.stem(),
                    config.snapshot_dir.display()
                )),
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
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}
