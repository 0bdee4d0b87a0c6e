//! One run, in three steps with nothing shared but plain data:
//!
//! 1. [`Plan::load`]: configuration, suite and the planned cases (no side
//!    effects; `--list` stops here).
//! 2. [`Session::start`]: sandbox, backend (connection test or replay
//!    matching), run folder, journal, and the scheduler with its two pools.
//! 3. [`Session::finish`]: report from the journal, table, gate, exit status.
//!
//! Only `harness` knows libtest: it selects cases with libtest's filters,
//! turns each into a trial that waits for [`Session::wait`], and calls these.

mod error;
mod folder;
mod source;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use error::SetupError;
use folder::RunManifest;

use crate::backend::replay::Mismatch;
use crate::cache::ResponseCache;
use crate::case::{CaseId, ChainId, SnapshotState, Unevaluated};
use crate::config::{Config, Env};
use crate::history::HistoryEntry;
use crate::journal::{self, Journal};
use crate::output::{Event, Output};
use crate::report::{self, RunInfo};
use crate::run::{Pipeline, Recorder, trial_outcome_of};
use crate::sandbox::Sandbox;
use crate::schedule::{Pools, Scheduler, TrialOutcome};
use crate::snapshot::SnapshotStore;
use crate::suite::Suite;
use crate::{gate, plan};

/// What the run is about, before anything is started.
pub struct Plan {
    pub config: Config,
    pub suite: Suite,
    /// Every case of the run, in trial order (a resumed run: its own).
    pub planned: Vec<CaseId>,
    /// The interrupted run being finished, if any.
    pub resume: Option<Resume>,
}

/// An interrupted run being finished.
pub struct Resume {
    pub dir: PathBuf,
    manifest: RunManifest,
    /// Outcome of every case its journal holds.
    pub finished: HashMap<CaseId, TrialOutcome>,
    /// The history entries of those cases, per chain, oldest first.
    earlier: HashMap<ChainId, Vec<HistoryEntry>>,
}

impl Plan {
    pub fn load(env: &dyn Env, cwd: &Path) -> Result<Plan, SetupError> {
        let mut config = Config::load(env, cwd)?;
        let resume_dir = env
            .var("PROMPTEVAL_RESUME")
            .filter(|v| !v.trim().is_empty())
            .map(|d| cwd.join(d));
        let manifest = match &resume_dir {
            Some(dir) => Some(folder::read_manifest(dir)?),
            None => None,
        };
        if let Some(m) = &manifest {
            // A resumed run finishes what it started, whatever the environment says now.
            config.suite = m.suite.clone();
            config.model = m.model.clone();
            config.rounds = m.rounds;
        }
        let suite = Suite::load(&config.suite)?;
        let names: Vec<&str> = suite.prompts.iter().map(|p| p.name.as_str()).collect();
        config.check_gate_prompts(&names)?;
        let planned = match &manifest {
            Some(m) => m.cases.clone(),
            None => plan::cases(&suite, config.rounds),
        };
        let resume = match (resume_dir, manifest) {
            (Some(dir), Some(manifest)) => {
                Some(Resume::read(dir, manifest, config.history.max_entries)?)
            }
            _ => None,
        };
        Ok(Plan {
            config,
            suite,
            planned,
            resume,
        })
    }

    pub fn finished(&self, case: &CaseId) -> Option<&TrialOutcome> {
        self.resume.as_ref().and_then(|r| r.finished.get(case))
    }

    pub fn finished_count(&self) -> usize {
        self.resume.as_ref().map_or(0, |r| r.finished.len())
    }
}

impl Resume {
    /// Reads the journal one record at a time, keeping per chain only the
    /// `keep` most recent history entries (all a prompt can show).
    fn read(dir: PathBuf, manifest: RunManifest, keep: usize) -> Result<Resume, SetupError> {
        let mut finished = HashMap::new();
        let mut entries: HashMap<ChainId, std::collections::BTreeMap<usize, HistoryEntry>> =
            HashMap::new();
        journal::for_each(&dir, |r| {
            let chain = entries.entry(r.case.chain()).or_default();
            chain.insert(r.case.question, HistoryEntry::from_record(&r));
            if chain.len() > keep {
                chain.pop_first();
            }
            finished.insert(r.case, trial_outcome_of(r.verdict, r.api_failure, r.detail));
        })
        .map_err(|e| SetupError::Folder {
            path: dir.clone(),
            message: format!("cannot read the journal: {e}"),
        })?;
        let earlier = entries
            .into_iter()
            .map(|(chain, kept)| (chain, kept.into_values().collect()))
            .collect();
        Ok(Resume {
            dir,
            manifest,
            finished,
            earlier,
        })
    }
}

/// A started run.
pub struct Session {
    config: Config,
    suite: Suite,
    run_dir: PathBuf,
    manifest: RunManifest,
    unmatched: HashMap<CaseId, Mismatch>,
    /// Cases run by this process.
    running: usize,
    scheduler: Scheduler<Arc<Pipeline>>,
    pipeline: Arc<Pipeline>,
    isolation: serde_json::Value,
    /// `None` when off, or when replaying (recordings are the answers).
    cache: Option<Arc<ResponseCache>>,
    interrupted: Arc<AtomicBool>,
    started: Instant,
}

/// What to do with a planned case.
pub enum CaseState<'a> {
    /// Finished in the run being resumed.
    Finished(&'a TrialOutcome),
    /// Selected, but no recording answers it.
    NotEvaluated(&'a Mismatch),
    /// Runs in this session (or is not selected).
    Run,
}

impl Session {
    /// Starts the run of `selected` (planned cases that libtest's filters
    /// keep and that have not finished yet). `cap` is libtest's
    /// `--test-threads`, which bounds both pools.
    pub fn start(
        plan: Plan,
        selected: Vec<CaseId>,
        cap: Option<usize>,
        interrupted: Arc<AtomicBool>,
        out: &Output,
    ) -> Result<Session, SetupError> {
        let Plan {
            config,
            suite,
            resume,
            ..
        } = plan;
        out.emit(Event::Starting {
            prompts: suite.prompts.len(),
            questions: suite.questions.len(),
            suite: &suite.path,
        });
        let sandbox = Sandbox::new(&config.sandbox)?;
        if resume.is_none() {
            folder::ensure_writable(&config.result_dir)?;
        }
        let earlier = resume
            .as_ref()
            .map(|r| r.earlier.clone())
            .unwrap_or_default();
        let cache = open_cache(&config);
        let source = source::open(&config, &suite, selected, &earlier, cache.as_ref(), out)?;
        let model = config.model.clone();

        let (run_dir, manifest) = match resume {
            Some(r) => (r.dir, r.manifest),
            None => {
                let (dir, test_id, timestamp) = folder::create(&config.result_dir)?;
                let manifest = RunManifest {
                    test_id,
                    timestamp,
                    suite: suite.path.clone(),
                    model: model.clone(),
                    rounds: config.rounds,
                    backend: source.backend.kind().into(),
                    endpoint: source.backend.endpoint(),
                    cases: source.runnable.clone(),
                    not_evaluated: source
                        .unmatched
                        .iter()
                        .map(|(case, m)| Unevaluated {
                            case: case.clone(),
                            reason: m.reason.label().to_string(),
                            detail: m.detail.clone(),
                        })
                        .collect(),
                };
                folder::write_manifest(&dir, &manifest)?;
                (dir, manifest)
            }
        };
        let journal = Journal::open(&run_dir).map_err(|e| SetupError::Folder {
            path: run_dir.clone(),
            message: format!("cannot create the journal: {e}"),
        })?;
        out.emit(Event::RunFolder(&run_dir));
        if let Some(tail) = journal.torn() {
            out.emit(Event::TornJournal {
                journal: journal.path(),
                tail,
            });
        }
        out.emit(Event::Testing {
            rounds: config.rounds,
            cases: source.runnable.len(),
            already_finished: earlier.values().map(Vec::len).sum(),
        });

        let source_replaying = source.replaying;
        let recorder = (!source.replaying).then(|| {
            let mut description = format!(
                "{model} via {} at {}",
                source.backend.kind(),
                source.backend.endpoint()
            );
            if let Some(info) = &config.model_info {
                description.push_str("; ");
                description.push_str(info);
            }
            Recorder {
                store: SnapshotStore::new(&config.snapshot_dir, &suite.stem(), &model),
                description,
            }
        });
        let isolation = serde_json::to_value(sandbox.isolation()).unwrap_or_default();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pools = Pools {
            model: cap.map_or(config.concurrency, |c| c.min(config.concurrency)),
            execute: cap.map_or(cores, |c| c.min(cores)),
        };
        let history = config.history.enabled.then_some(config.history.max_entries);
        let pipeline = Arc::new(Pipeline {
            config: config.clone(),
            suite: suite.clone(),
            backend: source.backend,
            model,
            sandbox,
            journal,
            recorder,
        });
        let running = source.runnable.len();
        let scheduler = Scheduler::start(
            pipeline.clone(),
            source.runnable,
            history,
            earlier,
            pools,
            interrupted.clone(),
        );
        Ok(Session {
            config,
            suite,
            run_dir,
            manifest,
            unmatched: source.unmatched.into_iter().collect(),
            running,
            scheduler,
            pipeline,
            isolation,
            cache: cache.filter(|_| !source_replaying),
            interrupted,
            started: Instant::now(),
        })
    }

    /// How many cases this session runs.
    pub fn running(&self) -> usize {
        self.running
    }

    pub fn not_evaluated(&self, case: &CaseId) -> Option<&Mismatch> {
        self.unmatched.get(case)
    }

    /// Blocks until `case` has finished; `None` if the run was interrupted first.
    pub fn wait(&self, case: &CaseId) -> Option<TrialOutcome> {
        self.scheduler.wait(case)
    }

    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Writes the report from the journal, shows the table and the gate, and
    /// returns the exit status (`libtest` is libtest's own).
    pub fn finish(self, libtest: ExitCode, out: &Output) -> Result<ExitCode, SetupError> {
        self.scheduler.close();
        let journal_error = |e: std::io::Error| SetupError::Folder {
            path: self.run_dir.clone(),
            message: format!("cannot read the journal: {e}"),
        };
        let located = journal::index(&self.run_dir)
            .map_err(journal_error)?
            .entries;
        let done: HashSet<&CaseId> = located.iter().map(|l| &l.case).collect();
        let intended = &self.manifest.cases;
        let complete = intended.iter().all(|c| done.contains(c));
        let info = RunInfo {
            test_id: self.manifest.test_id.clone(),
            timestamp: self.manifest.timestamp.clone(),
            total_execution_time: (self.started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
            suite: self.suite.path.display().to_string(),
            model: self.pipeline.model.clone(),
            backend: self.pipeline.backend.kind().into(),
            endpoint: self.pipeline.backend.endpoint(),
            rounds: self.config.rounds,
            prompts: self
                .suite
                .prompts
                .iter()
                .map(|p| (p.name.clone(), p.template.clone()))
                .collect(),
            question_count: self.suite.questions.len(),
            planned_cases: intended.len() + self.manifest.not_evaluated.len(),
            complete,
            isolation: self.isolation.clone(),
            thresholds: self
                .suite
                .prompts
                .iter()
                .filter_map(|p| {
                    self.config
                        .threshold_for(&p.name)
                        .map(|t| (p.name.clone(), t))
                })
                .collect(),
            not_evaluated: self.manifest.not_evaluated.clone(),
            cache: self.cache.as_ref().map(|c| c.stats()),
        };
        out.emit(Event::Reporting);
        let (summary, written) =
            report::write_from_journal(&self.run_dir, &info).map_err(|e| SetupError::Folder {
                path: self.run_dir.clone(),
                message: format!("cannot write the report: {e}"),
            })?;
        out.emit(Event::Table(&report::terminal_table(&summary)));
        out.emit(Event::Saved {
            summary: &written.summary_json,
            quick_view: &written.quick_view,
        });
        if !complete {
            out.emit(Event::Incomplete {
                finished: located.len(),
                intended: intended.len(),
                run_dir: &self.run_dir,
            });
        }
        if let Some(stats) = &info.cache {
            out.emit(Event::Cache(stats));
        }
        out.emit(Event::TotalTime(info.total_execution_time));
        let (new, changed) = snapshot_counts(&located);
        if new + changed > 0 {
            out.emit(Event::Snapshots { new, changed });
        }
        Ok(match gate::evaluate(&summary, &self.config) {
            Some(g) => {
                for line in g.lines() {
                    out.emit(Event::Gate(&line));
                }
                if g.passed() && complete {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(101)
                }
            }
            None if self.interrupted() => ExitCode::from(130),
            None => libtest,
        })
    }
}

/// The response cache, unless it is off or its folder cannot be used (then
/// the run goes on without it, and says so).
fn open_cache(config: &Config) -> Option<Arc<ResponseCache>> {
    if !config.cache {
        return None;
    }
    let var = |name| std::env::var(name).ok();
    let dir = ResponseCache::default_dir(var("XDG_CACHE_HOME").as_deref(), var("HOME").as_deref())?;
    match ResponseCache::open(&dir) {
        Ok(cache) => Some(Arc::new(cache)),
        Err(e) => {
            tracing::warn!(cache = %dir.display(), "the response cache is off: cannot create its folder: {e}; set XDG_CACHE_HOME to a writable folder, or PROMPTEVAL_CACHE=off");
            None
        }
    }
}

fn snapshot_counts(located: &[journal::Located]) -> (usize, usize) {
    let count = |s| located.iter().filter(|r| r.snapshot == Some(s)).count();
    (count(SnapshotState::New), count(SnapshotState::Changed))
}
