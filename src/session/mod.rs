//! One run, in three steps with nothing shared but plain data:
//!
//! 1. [`RunPlan::load`]: configuration, suite and the planned cases; it
//!    reads files and the environment only (`--list` stops here).
//! 2. [`Session::start`]: the prompt variants' texts from the writer model,
//!    sandbox, backend (connection test or replay matching), run folder,
//!    journal, and the scheduler with its two pools.
//! 3. [`Session::finish`]: report from the journal, table, gate, exit status.
//!
//! Only `harness` knows libtest: it selects cases with libtest's filters,
//! turns each into a trial that waits for [`Session::wait`], and calls these.

mod error;
mod folder;
pub mod merge;
mod model_sources;
pub mod pipeline;
mod preview;
mod qualify;
mod racing;
mod run_plan;
mod source;
mod themes;
mod thinking;
mod variants;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use error::SetupError;
use folder::RunManifest;
use model_sources::{Opened, lanes, open_models};
pub use preview::preview;
pub use run_plan::{Resume, Retried, Retry, RunPlan};
pub use themes::labeler as theme_labeler;

use crate::ask::cache::ResponseCache;
use crate::ask::replay::Mismatch;
use crate::ask::snapshot::SnapshotStore;
use crate::case::{CaseId, SnapshotState, Unevaluated};
use crate::config::Config;
use crate::plan::shard::Shard;
use crate::record::journal::{self, Journal};
use crate::report::{self, RunInfo};
use crate::results::GateSettings;
use crate::sandbox::Sandbox;
use crate::schedule::{Pools, Scheduler, TrialOutcome};
use crate::session::pipeline::{Pipeline, Recorder, ServedModel};
use crate::suite::Suite;
use crate::terminal::output::{Event, Output};

/// A started run.
pub struct Session {
    config: Config,
    run_dir: PathBuf,
    manifest: RunManifest,
    unmatched: HashMap<CaseId, Mismatch>,
    /// Selected cases of problems whose p_top passed no gate: not asked,
    /// with the reason (`[variants] keep_unqualified` asks them).
    unqualified: HashMap<CaseId, String>,
    /// Planned cases whose question moved when the ablations were made
    /// (`[variants.themes]`): as planned -> as run.
    renumbered: HashMap<CaseId, CaseId>,
    /// Models of a multi-model run that could not be asked, with why.
    unavailable: Vec<(String, String)>,
    /// Cases run by this process.
    running: usize,
    /// Taken when the run finishes: the report needs none of its
    /// bookkeeping, and a report of 100,000 cases should not hold it.
    scheduler: Option<Scheduler<Arc<Pipeline>>>,
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
    /// `--test-threads`, which bounds both pools. In order: the writer
    /// model writes the prompt variants' texts, the run's first lines, the
    /// sandbox, each model's source (its server's connection test, or the
    /// recordings matched case by case), the run folder with its journal,
    /// and the scheduler.
    pub fn start(
        plan: RunPlan,
        selected: Vec<CaseId>,
        cap: Option<usize>,
        interrupted: Arc<AtomicBool>,
        out: &Arc<Output>,
    ) -> Result<Session, SetupError> {
        let RunPlan {
            config,
            suite,
            unwritten_variants,
            resume,
            shard,
            suite_settings,
            progress,
            baseline_pairs,
            ..
        } = plan;
        // The sandbox first: the qualification gate judges replies in it.
        let sandbox = Sandbox::new(&config.sandbox, &crate::python::RUNTIME)?;
        let suite = variants::write_texts(&config, suite, unwritten_variants, &sandbox)?;
        let suite = themes::label(&config, suite)?;
        // The ablations p_top gave no sentence for are not asked.
        let themes::Settled {
            selected,
            renumbered,
            not_made,
        } = themes::settle(selected, &suite);
        announce(&config, &suite, &suite_settings, shard, out);
        let languages = crate::execute::language::Languages::prepare(&config.cpp, &suite, &sandbox)
            .map_err(|e| match e {
                crate::execute::language::Unprepared::Suite(e) => SetupError::Suite(e),
                crate::execute::language::Unprepared::Toolchain(e) => SetupError::Sandbox(e),
            })?;
        if resume.is_none() {
            folder::ensure_writable(&config.result_dir)?;
        }
        let earlier = resume
            .as_ref()
            .map(|r| r.earlier.clone())
            .unwrap_or_default();
        let cache = source::open_cache(&config);
        let mut opened = open_models(&config, &suite, selected, &earlier, cache.as_ref(), out)?;
        let mut unqualified = variants::unqualified_cases(&config, &suite, &mut opened.runnable);
        unqualified.extend(not_made);
        let race = racing::gate(&config, resume.as_ref(), &opened, &suite)?;
        let budget = budget_of(
            &config,
            &suite,
            &opened,
            resume.as_ref(),
            &earlier,
            baseline_pairs,
            out,
        );
        let (run_dir, manifest, journal) =
            open_run_folder(&config, &suite, shard, resume, &opened, out)?;
        let isolation = serde_json::to_value(sandbox.isolation()).unwrap_or_default();
        let pools = pools(&config, cap);
        sandbox.prepare(pools.execute);
        let running = opened.runnable.len();
        let replaying = opened.models.iter().all(|(_, s)| s.replaying);
        let lanes = lanes(&opened.models, config.is_multi_model(), cap);
        let pipeline = Arc::new(Pipeline {
            config: config.clone(),
            models: served_models(opened.models, &suite),
            // The pipeline holds the one copy: a second one for the session
            // was 370 bytes a question (37 MB at 100,000).
            suite,
            sandbox,
            languages,
            journal,
            history_fitted: Default::default(),
            progress: crate::terminal::progress::Progress::new(
                running,
                progress.as_deref(),
                std::io::IsTerminal::is_terminal(&std::io::stderr()),
                out.clone(),
            )?,
            budget,
        });
        let scheduler = Scheduler::start_lanes(
            pipeline.clone(),
            opened.runnable,
            crate::ask::history::chain_memory(&config.history),
            earlier,
            lanes,
            pools.execute,
            interrupted.clone(),
            race,
        );
        Ok(Session {
            config,
            run_dir,
            manifest,
            unmatched: opened.unmatched.into_iter().collect(),
            unqualified,
            renumbered,
            unavailable: opened.unavailable,
            running,
            scheduler: Some(scheduler),
            pipeline,
            isolation,
            cache: cache.filter(|_| !replaying),
            interrupted,
            started: Instant::now(),
        })
    }

    /// The run folder.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// How many cases this session runs.
    pub fn running(&self) -> usize {
        self.running
    }

    pub fn not_evaluated(&self, case: &CaseId) -> Option<&Mismatch> {
        self.unmatched.get(case)
    }

    /// The case as this session runs it: a planned case whose question
    /// moved when the ablations were made has its new number.
    pub fn settled<'a>(&'a self, case: &'a CaseId) -> &'a CaseId {
        self.renumbered.get(case).unwrap_or(case)
    }

    /// Why `case` is not asked: its problem's p_top passed no gate, or the
    /// ablation it names was not made.
    pub fn unqualified(&self, case: &CaseId) -> Option<&str> {
        self.unqualified.get(case).map(String::as_str)
    }

    /// The position of each case this session runs, to wait for it by.
    pub fn positions(&self) -> HashMap<&CaseId, usize> {
        self.scheduler
            .as_ref()
            .map(Scheduler::positions)
            .unwrap_or_default()
    }

    /// Blocks until the case at `position` ([`Session::positions`]) has
    /// finished; `None` if the run was interrupted first.
    pub fn wait(&self, position: usize) -> Option<TrialOutcome> {
        self.scheduler.as_ref()?.wait(position)
    }

    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Writes the report from the journal, shows the table and the gate, and
    /// returns the exit status (`libtest` is libtest's own).
    pub fn finish(mut self, libtest: ExitCode, out: &Output) -> Result<ExitCode, SetupError> {
        // Its workers see the close and let go of what they share.
        drop(self.scheduler.take());
        self.pipeline.progress.close();
        let index = journal::index(&self.run_dir).map_err(|e| SetupError::Folder {
            path: self.run_dir.clone(),
            message: format!("cannot read the journal: {e}"),
        })?;
        let located = &index.entries;
        let race = racing::standing(
            &self.config,
            &self.run_dir,
            &self.manifest,
            &self.pipeline.suite,
        )?;
        let not_run = |c: &CaseId| {
            race.as_ref().is_some_and(|r| r.not_run.contains_key(c))
                || self.unqualified.contains_key(c)
        };
        // A case the race decided not to ask is not missing; one the
        // budget did not run is (a resume runs it), but the gate judges
        // what ran and says so.
        let missing = {
            let done: HashSet<&CaseId> = located.iter().map(|l| &l.case).collect();
            self.manifest
                .cases
                .iter()
                .filter(|c| !(done.contains(c) || not_run(c)))
                .count()
        };
        let complete = missing == 0;
        let info = self.run_info(complete, race.as_ref());
        let budget = info
            .budget
            .clone()
            .unwrap_or_else(|| self.pipeline.budget.result());
        let only_the_budget_stopped = !complete && missing <= budget.not_run && !self.interrupted();
        // Counted now: the report reads its cases from the journal, and a
        // report of 100,000 cases should not also hold the planned ones.
        // Cases not asked (unqualified, ablations not made) were never in
        // the manifest; the race's were.
        let intended = std::mem::take(&mut self.manifest.cases)
            .len()
            .saturating_sub(race.as_ref().map_or(0, |r| r.not_run.len()));
        // What the report was built from: `prompteval merge` rebuilds a
        // report from several parts' journals and these.
        store_run_info(&self.run_dir, &info)?;
        out.emit(Event::Reporting);
        let reporting = std::time::Instant::now();
        let (summary, written) = crate::publish::write_from_index(&self.run_dir, &info, &index)
            .map_err(|e| SetupError::Folder {
                path: self.run_dir.clone(),
                message: format!("cannot write the report: {e}"),
            })?;
        // Read by the scale bench (the report's share of a run's time).
        tracing::debug!(
            target: "prompteval::report_time",
            "report written in {:.3} s",
            reporting.elapsed().as_secs_f64()
        );
        self.tell_the_report(&info, &summary, &written, located, intended, out);
        let gate = crate::baseline::gate_run(&self.run_dir, &summary, &info)?;
        if let Some(g) = &gate {
            report::add_gate_to_junit(&self.run_dir, &info, g).map_err(|e| SetupError::Folder {
                path: self.run_dir.clone(),
                message: format!("cannot add the gate to junit.xml: {e}"),
            })?;
        }
        out.emit(Event::StepSummary(&report::step_summary::markdown(
            &summary,
            gate.as_ref(),
            crate::language::Labels::of(info.language),
        )));
        Ok(match gate {
            Some(g) => {
                for line in g.lines(info.language) {
                    out.emit(Event::Gate(&line));
                }
                if only_the_budget_stopped {
                    out.emit(Event::Gate(&format!(
                        "the gate judged only the cases that ran: the budget stopped the run \
                         before {} case(s) (PROMPTEVAL_RESUME={} with a new cap runs them)",
                        budget.not_run,
                        self.run_dir.display()
                    )));
                }
                if g.passed() && (complete || only_the_budget_stopped) {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(101)
                }
            }
            None if self.interrupted() => ExitCode::from(130),
            None => libtest,
        })
    }

    /// The report's inputs that no case record holds.
    fn run_info(&self, complete: bool, race: Option<&crate::race::standing::Rebuilt>) -> RunInfo {
        let race_of = |model: Option<&str>| {
            race.and_then(|r| r.races.iter().find(|(m, _)| m.as_deref() == model))
                .map(|(_, result)| result.clone())
        };
        RunInfo {
            test_id: self.manifest.test_id.clone(),
            timestamp: self.manifest.timestamp.clone(),
            total_execution_time: (self.started.elapsed().as_secs_f64() * 100.0).round() / 100.0,
            suite: self.pipeline.suite.path.display().to_string(),
            model: self.config.model_names().join(", "),
            backend: match self.config.is_multi_model() {
                true => self.manifest.backend.clone(),
                false => self.pipeline.models[0].backend.kind().into(),
            },
            endpoint: match self.config.is_multi_model() {
                true => self.manifest.endpoint.clone(),
                false => self.pipeline.models[0].backend.endpoint(),
            },
            rounds: self.config.rounds,
            samples: self.config.samples,
            prompts: self
                .pipeline
                .suite
                .prompts
                .iter()
                .map(|p| (p.name.clone(), p.template.clone()))
                .collect(),
            question_count: self.pipeline.suite.questions.len(),
            variants: self
                .pipeline
                .suite
                .questions
                .iter()
                .filter_map(|q| q.variant.as_deref().map(|v| (q.id.clone(), v.clone())))
                .collect(),
            planned_cases: self.manifest.cases.len() + self.manifest.not_evaluated.len(),
            complete,
            isolation: self.isolation.clone(),
            thresholds: self
                .pipeline
                .suite
                .prompts
                .iter()
                .filter_map(|p| {
                    self.config
                        .threshold_for_model(&self.config.model, &p.name)
                        .map(|t| (p.name.clone(), t))
                })
                .collect(),
            models: self.model_runs(&race_of),
            question_ids: match self.config.is_multi_model() {
                true => self
                    .pipeline
                    .suite
                    .questions
                    .iter()
                    .map(|q| q.id.clone())
                    .collect(),
                false => Vec::new(),
            },
            kinds: self
                .pipeline
                .suite
                .questions
                .iter()
                .filter_map(|q| q.kind.clone().map(|k| (q.id.clone(), k)))
                .collect(),
            code_languages: self
                .pipeline
                .suite
                .questions
                .iter()
                .filter(|q| q.code_language() != crate::suite::CodeLanguage::default())
                .map(|q| (q.id.clone(), q.code_language()))
                .collect(),
            not_evaluated: self.manifest.not_evaluated.clone(),
            cache: self.cache.as_ref().map(|c| c.stats()),
            pass_at_k: self.config.pass_at_k.clone(),
            language: self.config.language,
            // Each served model's own: a thinking model's budget is
            // decided after its connection test (thinking.rs).
            settings: {
                let mut settings = self.config.model_settings();
                for m in &self.pipeline.models {
                    settings.insert(m.config.model.clone(), m.asking().settings());
                }
                settings
            },
            question_fingerprints: self.pipeline.suite.fingerprints(),
            gate: GateSettings {
                baseline: self.config.gate.baseline.clone(),
                alpha: self.config.gate.alpha(),
                min_accuracy_lower_bound: self.config.gate.min_accuracy_lower_bound.map(|p| p.0),
            },
            toolchains: self.pipeline.languages.toolchains(&self.pipeline.suite),
            race: match self.config.is_multi_model() {
                true => None,
                false => race_of(None),
            },
            budget: Some(self.pipeline.budget.result()),
        }
    }

    /// Each model of a multi-model run: its server, or why it could not be
    /// asked, and its thresholds.
    fn model_runs(
        &self,
        race_of: &dyn Fn(Option<&str>) -> Option<crate::results::race::RaceResult>,
    ) -> Vec<report::ModelRun> {
        if !self.config.is_multi_model() {
            return Vec::new();
        }
        self.config
            .model_names()
            .into_iter()
            .map(|name| {
                let served = self.pipeline.models.iter().find(|m| m.name() == name);
                let unavailable = self
                    .unavailable
                    .iter()
                    .find(|(m, _)| *m == name)
                    .map(|(_, why)| why.clone());
                let thresholds = self
                    .pipeline
                    .suite
                    .prompts
                    .iter()
                    .filter_map(|p| {
                        self.config
                            .threshold_for_model(&name, &p.name)
                            .map(|t| (p.name.clone(), t))
                    })
                    .collect();
                let mine = |c: &CaseId| c.model.as_deref() == Some(name.as_str());
                let planned_cases = self.manifest.cases.iter().filter(|c| mine(c)).count()
                    + self
                        .manifest
                        .not_evaluated
                        .iter()
                        .filter(|u| mine(&u.case))
                        .count();
                report::ModelRun {
                    planned_cases,
                    // "none": it could not be asked; "not selected": the
                    // filters left none of its cases (its server was not contacted).
                    backend: match (served, &unavailable) {
                        (Some(m), _) => m.backend.kind().to_string(),
                        (None, Some(_)) => "none".into(),
                        (None, None) => "not selected".into(),
                    },
                    endpoint: served.map_or(String::new(), |m| m.backend.endpoint()),
                    race: race_of(Some(&name)),
                    name,
                    unavailable,
                    thresholds,
                }
            })
            .collect()
    }

    /// The report's last lines: the table, cut replies, where the files
    /// are, an unfinished run, the cache, the time and the snapshots.
    fn tell_the_report(
        &self,
        info: &RunInfo,
        summary: &report::RunSummary,
        written: &crate::publish::Written,
        located: &[journal::Located],
        intended: usize,
        out: &Output,
    ) {
        out.emit(Event::Table(&report::terminal_table(
            summary,
            report::Labels::of(info.language),
        )));
        // Every prompt's results: the run's, or each model's.
        let results = || summary.each_model().flat_map(|s| s.prompt_results.values());
        // The budget the cases were asked with: a thinking model's may be
        // its own (thinking.rs).
        let budget = match self.pipeline.models.as_slice() {
            [one] => one.asking().llm.num_predict,
            _ => self.config.llm.num_predict,
        };
        let cut: usize = results().map(|r| r.truncated_replies).sum();
        if cut > 0 {
            out.emit(Event::CutReplies {
                replies: cut,
                limit: budget,
            });
        }
        let no_answer: usize = results()
            .filter_map(|r| {
                r.error_breakdown
                    .get(crate::case::Verdict::NoAnswer.as_str())
            })
            .sum();
        if no_answer > 0 {
            out.emit(Event::NoAnswer {
                cases: no_answer,
                limit: budget,
            });
        }
        if let Some(lines) = summary
            .budget()
            .map(report::render::budget::budget_lines)
            .filter(|l| !l.is_empty())
        {
            out.emit(Event::Table(&lines));
        }
        out.emit(Event::Saved {
            summary: &written.summary_json,
            quick_view: &written.quick_view,
        });
        if !info.complete {
            out.emit(Event::Incomplete {
                finished: located.len(),
                intended,
                run_dir: &self.run_dir,
            });
        }
        if let Some(stats) = &info.cache {
            out.emit(Event::Cache(stats));
        }
        out.emit(Event::TotalTime(info.total_execution_time));
        let (new, changed) = snapshot_counts(located);
        if new + changed > 0 {
            out.emit(Event::Snapshots { new, changed });
        }
    }
}

/// The run's first lines: what is loaded, the settings the suite set, and
/// which part of a sharded run this is.
fn announce(
    config: &Config,
    suite: &Suite,
    settings: &[String],
    shard: Option<Shard>,
    out: &Output,
) {
    if let Some(shard) = shard {
        tracing::info!(
            "shard {shard}: this run is one of {} parts (whole chains dealt round-robin); join the parts' run folders with `prompteval merge DIR... --out DIR` (`cargo run -- merge` in prompteval's repository)",
            shard.count
        );
    }
    let mut lines = settings.to_vec();
    lines.extend(reasoning_settings(config));
    out.emit(Event::Starting {
        prompts: suite.prompts.len(),
        questions: suite.questions.len(),
        suite: &suite.path,
        settings: &lines,
        language: config.language,
    });
}

/// What the run asks of reasoning models: each model's `think`. Whether
/// its budget fits reasoning is said once its server says whether it
/// thinks (thinking.rs).
fn reasoning_settings(config: &Config) -> Vec<String> {
    config
        .model_configs()
        .iter()
        .filter_map(|model| {
            let think = model.llm.think?;
            Some(format!(
                "think = {} for {}{}",
                think.describe(),
                model.model,
                model
                    .served_model
                    .as_ref()
                    .map(|name| format!(" ({name})"))
                    .unwrap_or_default()
            ))
        })
        .collect()
}

/// The plan of what this session asks (said in the run's first lines),
/// and the keeper of `[budget]`'s caps with it.
fn budget_of(
    config: &Config,
    suite: &Suite,
    opened: &Opened,
    resume: Option<&Resume>,
    earlier: &HashMap<crate::case::ChainId, Vec<crate::ask::history::HistoryEntry>>,
    baseline_pairs: Option<crate::analysis::power::Pairs>,
    out: &Output,
) -> crate::budget::Keeper {
    let evidence = resume.map(|r| r.evidence.clone()).unwrap_or_default();
    let plan = preview::plan_of(
        config,
        suite,
        opened,
        resume,
        earlier,
        baseline_pairs,
        evidence,
    );
    out.emit(Event::Settled(&plan.lines()));
    let spent = resume.map(|r| r.spent.clone()).unwrap_or_default();
    let num_predict = opened
        .models
        .iter()
        .map(|(c, _)| c.llm.num_predict)
        .max()
        .flatten();
    crate::budget::Keeper::new(&config.budget, spent, Some(&plan), num_predict)
}

/// A resumed run's folder; with PROMPTEVAL_RETRY=errors, the cases no
/// recording answered before that run now join the run's cases (the
/// manifest says what the run covers).
fn resumed_folder(
    r: Resume,
    retrying: bool,
    runnable: &[CaseId],
) -> Result<(PathBuf, RunManifest), SetupError> {
    if !retrying {
        return Ok((r.dir, r.manifest));
    }
    let mut manifest = r.manifest;
    let runnable: HashSet<&CaseId> = runnable.iter().collect();
    let (now_run, still): (Vec<Unevaluated>, Vec<Unevaluated>) = manifest
        .not_evaluated
        .into_iter()
        .partition(|u| runnable.contains(&u.case));
    manifest.not_evaluated = still;
    manifest.cases.extend(now_run.into_iter().map(|u| u.case));
    folder::write_manifest(&r.dir, &manifest)?;
    Ok((r.dir, manifest))
}

/// A new run folder with its manifest (and the expanded suite of a run of
/// prompt variants).
fn new_folder(
    config: &Config,
    suite: &Suite,
    shard: Option<Shard>,
    opened: &Opened,
) -> Result<(PathBuf, RunManifest), SetupError> {
    let (backend, endpoint) = opened.served_by();
    let (dir, test_id, timestamp) = folder::create(&config.result_dir)?;
    let manifest = RunManifest {
        test_id,
        timestamp,
        suite: suite.path.clone(),
        model: config.model.clone(),
        models: match config.is_multi_model() {
            true => config.model_names(),
            false => Vec::new(),
        },
        rounds: config.rounds,
        samples: config.samples,
        shard,
        backend,
        endpoint,
        cases: opened.runnable.clone(),
        not_evaluated: opened
            .unmatched
            .iter()
            .map(|(case, m)| Unevaluated {
                case: case.clone(),
                reason: m.reason.label().to_string(),
                detail: m.detail.clone(),
            })
            .collect(),
        race: config.race.enabled.then(|| config.race.clone()),
    };
    folder::write_manifest(&dir, &manifest)?;
    if suite.questions.iter().any(|q| q.variant.is_some()) {
        store_variants(&dir, suite)?;
    }
    Ok((dir, manifest))
}

/// The run's folder (a new one, or the resumed run's) with its journal,
/// said with what the run is about to test.
fn open_run_folder(
    config: &Config,
    suite: &Suite,
    shard: Option<Shard>,
    resume: Option<Resume>,
    opened: &Opened,
    out: &Output,
) -> Result<(PathBuf, RunManifest, Journal), SetupError> {
    let already_finished = resume.as_ref().map_or(0, |r| r.finished.len());
    let retried = resume.as_ref().and_then(|r| r.retried.clone());
    let (run_dir, manifest) = match resume {
        Some(r) => resumed_folder(r, retried.is_some(), &opened.runnable)?,
        None => new_folder(config, suite, shard, opened)?,
    };
    let journal = open_journal(&run_dir, retried.as_ref(), out)?;
    warn_of_greedy_samples(config);
    out.emit(Event::Testing {
        rounds: config.rounds,
        cases: opened.runnable.len(),
        already_finished,
    });
    Ok((run_dir, manifest, journal))
}

/// Each model of the run with its source, and where its live replies are
/// recorded.
fn served_models(models: Vec<(Config, source::Source)>, suite: &Suite) -> Vec<ServedModel> {
    models
        .into_iter()
        .map(|(config, source)| ServedModel {
            recorder: recorder(&config, suite, &source),
            watch: thinking::Watch::new(source.thinks),
            config,
            backend: source.backend,
        })
        .collect()
}

/// The run folder's journal, said with what opening it repaired and what a
/// retry asks again.
fn open_journal(
    run_dir: &Path,
    retried: Option<&Retried>,
    out: &Output,
) -> Result<Journal, SetupError> {
    let journal = Journal::open(run_dir).map_err(|e| SetupError::Folder {
        path: run_dir.to_path_buf(),
        message: format!("cannot create the journal: {e}"),
    })?;
    out.emit(Event::RunFolder(run_dir));
    if let Some(tail) = journal.torn() {
        out.emit(Event::TornJournal {
            journal: journal.path(),
            tail,
        });
    }
    if let Some(retried) = retried {
        out.emit(Event::Retrying {
            errors: retried.errors,
            later_in_chain: retried.later_in_chain,
        });
    }
    Ok(journal)
}

fn warn_of_greedy_samples(config: &Config) {
    if config.samples > 1 && config.llm.temperature == 0.0 {
        tracing::warn!(
            "samples = {} at llm.temperature = 0: greedy decoding gives every sample the \
             same reply, so pass@k for k > 1 only repeats pass@1; set llm.temperature \
             (Chen et al. use 0.2 for pass@1 and 0.8 for pass@10 and beyond)",
            config.samples
        );
    }
}

/// Where a live run records its replies; none when replaying.
fn recorder(config: &Config, suite: &Suite, source: &source::Source) -> Option<Recorder> {
    if source.replaying {
        return None;
    }
    let mut description = format!(
        "{} via {} at {}",
        config.model,
        source.backend.kind(),
        source.backend.endpoint()
    );
    if let Some(info) = &config.model_info {
        description.push_str("; ");
        description.push_str(info);
    }
    Some(Recorder {
        store: SnapshotStore::new(&config.snapshot_dir, &suite.stem(), &config.model),
        description,
    })
}

/// The two pools: model requests (the server's slots) and program runs
/// (the cores), both bounded by libtest's `--test-threads`.
fn pools(config: &Config, cap: Option<usize>) -> Pools {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Pools {
        model: cap.map_or(config.concurrency, |c| c.min(config.concurrency)),
        execute: cap.map_or(cores, |c| c.min(cores)),
    }
}

/// Why `case` of the run in `dir` was not evaluated, per its manifest.
pub fn unevaluated_reason(dir: &Path, case: &CaseId) -> Option<String> {
    let manifest = folder::read_manifest(dir).ok()?;
    manifest
        .not_evaluated
        .into_iter()
        .find(|u| &u.case == case)
        .map(|u| format!("{} ({})", u.reason, u.detail))
}

/// run_info.json: the report's inputs beside the journal's records.
fn store_run_info(dir: &Path, info: &RunInfo) -> Result<(), SetupError> {
    let path = dir.join(merge::RUN_INFO);
    report::write_json(&path, info).map_err(|e| SetupError::Folder {
        path,
        message: format!("cannot write the run's info: {e}"),
    })
}

/// The expanded suite in the run folder: for review, for reuse as a suite,
/// and for a resume to ask exactly the same prompts.
fn store_variants(dir: &Path, suite: &Suite) -> Result<(), SetupError> {
    let path = dir.join(variants::STORED);
    report::write_json(&path, &crate::variants::store::to_json(suite)).map_err(|e| {
        SetupError::Folder {
            path,
            message: format!("cannot store the prompt variants: {e}"),
        }
    })
}

fn snapshot_counts(located: &[journal::Located]) -> (usize, usize) {
    let count = |s| located.iter().filter(|r| r.snapshot == Some(s)).count();
    (count(SnapshotState::New), count(SnapshotState::Changed))
}

#[cfg(test)]
mod tests;
