//! Step 1 of a run: the [`RunPlan`], what the run is about before anything
//! starts. Loading it reads files and the environment only (harness.toml,
//! the suite, a resumed run's folder and journal) and asks no server, so
//! `--list` stops here; the texts prompt variants need are written by the
//! writer model when the run starts (`variants::write_texts`).
//!
//! Not to be confused with [`crate::plan`], which lists a suite's cases in
//! trial order: the run plan uses it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::error::SetupError;
use super::folder::{self, RunManifest};
use super::pipeline::trial_outcome_of;
use super::variants::{self, UnwrittenVariants};
use crate::analysis::power::{PairTally, Pairs};
use crate::ask::history::HistoryEntry;
use crate::case::{CaseId, ChainId, Verdict};
use crate::config::{Config, Env};
use crate::plan;
use crate::plan::shard::Shard;
use crate::record::journal;
use crate::schedule::TrialOutcome;
use crate::suite::Suite;

/// What the run is about, before anything is started.
pub struct RunPlan {
    pub config: Config,
    pub suite: Suite,
    /// Prompt variants whose texts the writer model is still to write (the
    /// suite's variants carry placeholders until then); `None` without
    /// variants, or when a resumed run's folder holds them.
    pub unwritten_variants: Option<UnwrittenVariants>,
    /// Every case of the run, in trial order (a resumed run: its own).
    pub planned: Vec<CaseId>,
    /// The interrupted run being finished, if any.
    pub resume: Option<Resume>,
    /// `PROMPTEVAL_SHARD=k/n`: this run is one part of a larger one.
    pub shard: Option<Shard>,
    /// The run settings the suite set, each with where its value came from.
    pub suite_settings: Vec<String>,
    /// PROMPTEVAL_PROGRESS: seconds between progress lines, or `off`.
    pub progress: Option<String>,
    /// How often two prompts' verdicts differ in `[gate] baseline`, when
    /// one is set: the plan's discordance where a resume has too few.
    pub baseline_pairs: Option<Pairs>,
}

/// An interrupted run being finished.
pub struct Resume {
    pub dir: PathBuf,
    pub(super) manifest: RunManifest,
    /// Outcome of every case its journal holds.
    pub finished: HashMap<CaseId, TrialOutcome>,
    /// The history entries of those cases, per chain, oldest first.
    pub(super) earlier: HashMap<ChainId, Vec<HistoryEntry>>,
    /// With `PROMPTEVAL_RETRY=errors`: what is asked again.
    pub retried: Option<Retried>,
    /// What the finished cases' model calls spent, for the budget.
    pub spent: crate::results::budget::Spent,
    /// Some of those calls, for the plan's figures per call.
    pub evidence: crate::budget::evidence::Evidence,
    /// The finished cases per prompt, and how often two prompts' verdicts
    /// on a finished case differ: the plan's paired cases and discordance
    /// (the harness takes `finished` before the plan is made).
    pub finished_by_prompt: HashMap<String, usize>,
    pub finished_pairs: Pairs,
}

/// How many of a resumed journal's calls the plan looks at.
const EVIDENCE_CALLS: usize = 500;

/// `PROMPTEVAL_RESUME`'s folder and what its `run.json` says.
struct Resumed {
    dir: PathBuf,
    manifest: RunManifest,
}

impl RunPlan {
    /// The configuration (with a resumed run's own settings and the
    /// suite's), the suite (its prompt variants expanded), and the cases.
    pub fn load(env: &dyn Env, cwd: &Path) -> Result<RunPlan, SetupError> {
        let mut config = Config::load(env, cwd)?;
        // The theme codes are the variants' to know, not the loader's.
        variants::ablate(&config)?;
        let resumed = Resumed::find(env, cwd)?;
        if let Some(r) = &resumed {
            config.resume(&r.manifest.resumed_run());
        }
        let suite = load_suite(&config, cwd)?;
        let suite_settings = config.apply_suite(&suite.settings);
        config.settle_models();
        let (suite, unwritten_variants) =
            variants::planned_suite(&config, suite, resumed.as_ref().map(|r| r.dir.as_path()))?;
        let names: Vec<&str> = suite.prompts.iter().map(|p| p.name.as_str()).collect();
        config.check_gate_prompts(&names)?;
        let baseline_pairs = check_baseline(&config, &suite, unwritten_variants.is_none())?;
        let retry = Retry::from_env(env, resumed.is_some())?;
        // A resumed part keeps its cases (the manifest's); a new one deals
        // the chains.
        let shard = match &resumed {
            Some(r) => r.manifest.shard,
            None => Shard::parse(&env.var("PROMPTEVAL_SHARD").unwrap_or_default())?,
        };
        if let (true, Some(shard)) = (config.race.enabled, shard) {
            return Err(SetupError::Race(format!(
                "PROMPTEVAL_SHARD={shard} with a race ([race] enabled, PROMPTEVAL_RACE): a race \
                 decides after each question from every prompt's outcomes on it, which a part \
                 on another machine does not see; run the race in one part (unset \
                 PROMPTEVAL_SHARD), or turn the race off (PROMPTEVAL_RACE=off) to shard the full grid"
            )));
        }
        let planned = planned_cases(&config, &suite, resumed.as_ref(), retry, shard);
        let history = crate::ask::history::chain_memory(&config.history);
        let resume = match resumed {
            Some(r) => Some(Resume::read(r.dir, r.manifest, history, retry)?),
            None => None,
        };
        Ok(RunPlan {
            config,
            suite,
            unwritten_variants,
            planned,
            resume,
            shard,
            suite_settings,
            progress: env.var("PROMPTEVAL_PROGRESS"),
            baseline_pairs,
        })
    }

    pub fn finished(&self, case: &CaseId) -> Option<&TrialOutcome> {
        self.resume.as_ref().and_then(|r| r.finished.get(case))
    }

    pub fn finished_count(&self) -> usize {
        self.resume.as_ref().map_or(0, |r| r.finished.len())
    }
}

impl Resumed {
    fn find(env: &dyn Env, cwd: &Path) -> Result<Option<Resumed>, SetupError> {
        let Some(dir) = env
            .var("PROMPTEVAL_RESUME")
            .filter(|v| !v.trim().is_empty())
            .map(|d| cwd.join(d))
        else {
            return Ok(None);
        };
        let manifest = folder::read_manifest(&dir)?;
        Ok(Some(Resumed { dir, manifest }))
    }
}

/// A configured baseline must be readable and from this experiment
/// before a model is asked anything (the gate checks it again at the end,
/// and a merge of shards too). Prompt variants not yet written have no
/// final text, so their questions are checked at the end only. Returns
/// its pairs of prompts' verdicts, for the plan.
fn check_baseline(
    config: &Config,
    suite: &Suite,
    texts_final: bool,
) -> Result<Option<Pairs>, SetupError> {
    let Some(path) = &config.gate.baseline else {
        return Ok(None);
    };
    let baseline = crate::baseline::Baseline::read(path)?;
    let mut settings = config.model_settings();
    // A budget the user left unset is decided once the server says whether
    // the model thinks (session/thinking.rs): compared at the end only.
    for model in config.model_configs() {
        let (Some(now), Some(then)) = (
            settings.get_mut(&model.model),
            baseline.settings.get(&model.model),
        ) else {
            continue;
        };
        for key in ["num_predict", "num_ctx"] {
            let name = format!("llm.{key}");
            if let (false, Some(value)) = (model.user_set(key), then.get(&name)) {
                now.insert(name, value.clone());
            }
        }
    }
    let questions = match texts_final {
        true => suite.fingerprints(),
        false => Default::default(),
    };
    let suite_path = suite.path.display().to_string();
    let identity = crate::baseline::RunIdentity {
        suite: &suite_path,
        settings: &settings,
        questions: &questions,
    };
    let differences = crate::baseline::differences(&baseline, &identity);
    if differences.is_empty() {
        Ok(Some(baseline.discordance()))
    } else {
        Err(crate::baseline::BaselineError::Differs {
            path: path.clone(),
            differences,
        }
        .into())
    }
}

/// The suite the configuration names; when none was named and the default
/// is not there, an error that says how to name one.
fn load_suite(config: &Config, cwd: &Path) -> Result<Suite, SetupError> {
    Ok(
        Suite::load(&config.suite).map_err(|e| match config.unset_suite_hint(cwd) {
            Some(hint) => crate::suite::SuiteError {
                problem: crate::suite::SuiteProblem::NotSet { hint },
                ..e
            },
            None => e,
        })?,
    )
}

/// The run's cases in trial order: every case of the suite, or a resumed
/// run's own (with `PROMPTEVAL_RETRY=errors`, also those no recording
/// answered), or a new shard's part.
fn planned_cases(
    config: &Config,
    suite: &Suite,
    resumed: Option<&Resumed>,
    retry: Retry,
    shard: Option<Shard>,
) -> Vec<CaseId> {
    let all_cases = || match config.is_multi_model() {
        true => plan::cases_of_models(suite, config.rounds, config.samples, &config.model_names()),
        false => plan::cases(suite, config.rounds, config.samples),
    };
    match (resumed, retry, shard) {
        // Cases no recording answered were never run: retrying asks for them too.
        (Some(r), Retry::Errors, _) => {
            let m = &r.manifest;
            let wanted: HashSet<&CaseId> = m
                .cases
                .iter()
                .chain(m.not_evaluated.iter().map(|u| &u.case))
                .collect();
            all_cases()
                .into_iter()
                .filter(|c| wanted.contains(c))
                .collect()
        }
        (Some(r), Retry::Nothing, _) => r.manifest.cases.clone(),
        (None, _, Some(shard)) => shard.select(all_cases()),
        (None, _, None) => all_cases(),
    }
}

/// Which finished cases of a resumed run are asked again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// None: a resume finishes only what never finished.
    Nothing,
    /// `PROMPTEVAL_RETRY=errors`: also the cases that ended in `api_error`
    /// (a server error or a timeout at the server) or were not evaluated.
    Errors,
}

impl Retry {
    fn from_env(env: &dyn Env, resuming: bool) -> Result<Retry, SetupError> {
        let value = env.var("PROMPTEVAL_RETRY").unwrap_or_default();
        let retry = match value.trim() {
            "" => Retry::Nothing,
            "errors" => Retry::Errors,
            other => {
                return Err(SetupError::Resume(format!(
                    "PROMPTEVAL_RETRY={other:?} is not understood; the only value is `errors` \
                     (ask again for the cases that ended in api_error or were not evaluated)"
                )));
            }
        };
        if retry == Retry::Errors && !resuming {
            return Err(SetupError::Resume(
                "PROMPTEVAL_RETRY=errors retries the errors of an earlier run: set \
                 PROMPTEVAL_RESUME=<its run folder, e.g. result/test_20260101_120000> too"
                    .into(),
            ));
        }
        Ok(retry)
    }

    /// Whether a case that ended with `verdict` is asked again.
    fn wants(self, verdict: Verdict) -> bool {
        self == Retry::Errors && matches!(verdict, Verdict::ApiError | Verdict::NotEvaluated)
    }
}

/// What `PROMPTEVAL_RETRY=errors` found in a journal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Retried {
    /// Cases whose last outcome was an error.
    pub errors: usize,
    /// Later cases of the same chains, asked again because the history
    /// their prompt shows changes with the retried case.
    pub later_in_chain: usize,
}

impl Resume {
    /// Reads the journal one record at a time (twice when retrying),
    /// keeping per chain only the most recent history entries a prompt can
    /// show. `history` is the entries a prompt shows, None when it is off.
    fn read(
        dir: PathBuf,
        manifest: RunManifest,
        history: Option<usize>,
        retry: Retry,
    ) -> Result<Resume, SetupError> {
        let journal_error = |e: std::io::Error| SetupError::Folder {
            path: dir.clone(),
            message: format!("cannot read the journal: {e}"),
        };
        // The latest record of a case wins: a retried case's new outcome
        // is appended after its old one.
        let mut last: HashMap<CaseId, Verdict> = HashMap::new();
        if retry != Retry::Nothing {
            journal::for_each(&dir, |r| {
                last.insert(r.case, r.verdict);
            })
            .map_err(journal_error)?;
        }
        // Per chain, the first question asked again: with the history on,
        // every later question of the chain is asked again too.
        let mut first_retried: HashMap<ChainId, usize> = HashMap::new();
        for (case, _) in last.iter().filter(|(_, v)| retry.wants(**v)) {
            let first = first_retried.entry(case.chain()).or_insert(case.question);
            *first = (*first).min(case.question);
        }
        let asked_again = |case: &CaseId| match first_retried.get(&case.chain()) {
            Some(&first) if history.is_some() => case.question >= first,
            Some(_) => last.get(case).is_some_and(|v| retry.wants(*v)),
            None => false,
        };
        let keep = history.unwrap_or(0);
        let mut finished = HashMap::new();
        let mut finished_by_prompt: HashMap<String, usize> = HashMap::new();
        let mut pairs = PairTally::default();
        let mut spent = crate::results::budget::Spent::default();
        let mut evidence = crate::budget::evidence::Evidence::default();
        let mut entries: HashMap<ChainId, std::collections::BTreeMap<usize, HistoryEntry>> =
            HashMap::new();
        journal::for_each(&dir, |r| {
            // Every call spent, a retried case's earlier one too.
            let called = !r.cached && r.snapshot != Some(crate::case::SnapshotState::Replayed);
            if called {
                spent.calls += 1;
                match r.tokens {
                    Some(t) => {
                        spent.prompt_tokens += t.prompt;
                        spent.reply_tokens += t.completion;
                        spent.tokens += t.prompt + t.completion;
                    }
                    None => spent.estimated_calls += 1,
                }
            }
            if evidence.calls.len() < EVIDENCE_CALLS
                && let Some(call) = crate::budget::evidence::Call::of_record(&r)
            {
                evidence.add("journal", call);
            }
            if asked_again(&r.case) {
                return;
            }
            let chain = entries.entry(r.case.chain()).or_default();
            chain.insert(r.case.question, HistoryEntry::from_record(&r));
            if chain.len() > keep.max(1) {
                chain.pop_first();
            }
            *finished_by_prompt
                .entry(r.case.prompt.to_string())
                .or_default() += 1;
            if let Some(passed) = r.verdict.judged() {
                let c = &r.case;
                pairs.add((c.model.clone(), c.question, c.round, c.sample), passed);
            }
            finished.insert(r.case, trial_outcome_of(r.verdict, r.api_failure, r.detail));
        })
        .map_err(journal_error)?;
        let errors = last.values().filter(|v| retry.wants(**v)).count();
        let retried = (retry != Retry::Nothing).then(|| Retried {
            errors,
            later_in_chain: last.keys().filter(|c| asked_again(c)).count() - errors,
        });
        let earlier = entries
            .into_iter()
            .map(|(chain, kept)| (chain, kept.into_values().collect()))
            .collect();
        Ok(Resume {
            dir,
            manifest,
            finished,
            earlier,
            retried,
            spent,
            evidence,
            finished_by_prompt,
            finished_pairs: pairs.pairs(),
        })
    }
}
