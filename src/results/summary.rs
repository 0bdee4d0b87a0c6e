//! summary.json's shape (spec §8.3 plus the fields that let a summary be
//! read on its own): one model's results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::figures::{BestPrompt, CrossModel, KindAccuracy, PartialOrder, Robustness};
use super::race::RaceResult;
use super::run_info::{RunInfo, one};
use crate::ask::cache::CacheStats;
use crate::case::Verdict;
use crate::language::{Language, report as words};

/// (passed, evaluated) attempts of one question under one prompt; `None`
/// when the prompt has no evaluated case of it.
pub type MatrixCell = Option<(usize, usize)>;

/// One model's summary.json (spec §8.3 plus extra fields): a one-model
/// run's, or each model's of a multi-model run. The spec's fields come first
/// and keep their names; the rest describe the run so a summary can be read
/// on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub test_id: String,
    pub timestamp: String,
    pub total_execution_time: f64,
    pub prompt_count: usize,
    pub best_prompt: Option<BestPrompt>,
    /// In suite order; prompts without records are omitted.
    pub prompt_results: indexmap::IndexMap<String, PromptResult>,
    pub model: String,
    pub backend: String,
    pub endpoint: String,
    pub suite: String,
    pub rounds: u32,
    /// Replies drawn per case (`samples`): each question's pass@k n is
    /// rounds x samples.
    #[serde(default = "one")]
    pub samples: u32,
    /// False: the run was interrupted and every view says INCOMPLETE.
    pub complete: bool,
    pub planned_cases: usize,
    pub finished_cases: usize,
    /// Cases planned but not evaluated, over all prompts (see `PromptResult`).
    #[serde(default)]
    pub not_evaluated: usize,
    /// Response-cache hits and misses (`null`: cache off, or a replay).
    #[serde(default)]
    pub cache: Option<CacheStats>,
    pub isolation: serde_json::Value,
    /// Completion tokens per second of generation, over the cases whose
    /// server reported how long it generated (`null`: none did).
    #[serde(default)]
    pub generation_speed: Option<f64>,
    /// Model-call failure class (`api_error`, `timeout`, `connection_failed`)
    /// -> count; every class is listed so the schema does not vary.
    pub api_failures: BTreeMap<String, usize>,
    /// Prompt -> pass@1 against prompt detail (PartialOrderEval), in a run
    /// of prompt variants; also in report/partial_order.csv.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub partial_order: indexmap::IndexMap<String, PartialOrder>,
    /// Prompt -> the variants' themes and the ablations
    /// (`[variants.themes]`), in a run whose variants are labeled.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub themes: indexmap::IndexMap<String, super::themes::ThemeResults>,
    /// Per model of a multi-model run whose questions have a `kind`:
    /// prompt -> kind -> accuracy over that kind's questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind_results: Option<indexmap::IndexMap<String, indexmap::IndexMap<String, KindAccuracy>>>,
    /// Per model of a multi-model run: how much each question's outcome
    /// depends on the prompt (spread, robust pass@k, PromptSensiScore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Robustness>,
    /// What the race between the prompts decided (`[race]`); absent when
    /// the run was not a race.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceResult>,
    /// What the run's model calls spent, against `[budget]`'s caps and
    /// the plan; absent in a report rebuilt without it (a merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::budget::BudgetResult>,
    /// Question -> per prompt (summary order) its (passed, evaluated)
    /// attempts: the quick view's matrix. Not in summary.json.
    #[serde(skip)]
    pub matrix: Vec<(String, Vec<MatrixCell>)>,
}

impl Summary {
    /// The run's own facts (id, time, model, server, suite, shape, cache,
    /// isolation) with no results yet: what every summary of the run shares,
    /// whether it tallies one model's cases or sums several models.
    pub(crate) fn of_run(info: &RunInfo) -> Summary {
        Summary {
            test_id: info.test_id.clone(),
            timestamp: info.timestamp.clone(),
            total_execution_time: round_to(info.total_execution_time, 2),
            prompt_count: info.prompts.len(),
            best_prompt: None,
            prompt_results: Default::default(),
            model: info.model.clone(),
            backend: info.backend.clone(),
            endpoint: info.endpoint.clone(),
            suite: info.suite.clone(),
            rounds: info.rounds,
            samples: info.samples,
            complete: info.complete,
            planned_cases: info.planned_cases,
            finished_cases: 0,
            not_evaluated: 0,
            cache: info.cache.clone(),
            isolation: info.isolation.clone(),
            generation_speed: None,
            api_failures: Default::default(),
            partial_order: Default::default(),
            themes: Default::default(),
            kind_results: None,
            robustness: None,
            race: info.race.clone(),
            budget: info.budget.clone(),
            matrix: Vec::new(),
        }
    }
}

/// A multi-model run's summary.json: each model's [`Summary`] under
/// `models`, and `cross_model`, after the run's own facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsSummary {
    /// The run's facts and its totals over the models (finished and not
    /// evaluated cases, api failures), in summary.json's fields and order;
    /// no results of its own (`prompt_results` empty, `best_prompt` null):
    /// a figure over several models would mix their denominators.
    #[serde(flatten)]
    pub run: Summary,
    /// Model -> that model's results, in run order.
    pub models: indexmap::IndexMap<String, Summary>,
    /// Best prompts per model against their runners-up, and whether the
    /// prompts' ranking transfers between models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_model: Option<CrossModel>,
}

impl ModelsSummary {
    /// The run's facts, totals over `models`, and each model's results.
    pub(crate) fn across(info: &RunInfo, models: indexmap::IndexMap<String, Summary>) -> Self {
        let mut api_failures: BTreeMap<String, usize> = BTreeMap::new();
        for (k, v) in models.values().flat_map(|s| &s.api_failures) {
            *api_failures.entry(k.clone()).or_default() += v;
        }
        let run = Summary {
            finished_cases: models.values().map(|s| s.finished_cases).sum(),
            not_evaluated: models.values().map(|s| s.not_evaluated).sum(),
            api_failures,
            ..Summary::of_run(info)
        };
        ModelsSummary {
            run,
            models,
            cross_model: None,
        }
    }
}

/// What a run's report computed: one model's summary, or a multi-model
/// run's. Every view takes this and says which it is once.
#[derive(Debug, Clone, PartialEq)]
pub enum RunSummary {
    OneModel(Summary),
    Models(ModelsSummary),
}

impl RunSummary {
    /// What the run's calls spent (`[budget]`), when the run said.
    pub fn budget(&self) -> Option<&super::budget::BudgetResult> {
        match self {
            RunSummary::OneModel(s) => s.budget.as_ref(),
            RunSummary::Models(m) => m.run.budget.as_ref(),
        }
    }

    /// The one model's summary, or each model's in run order.
    pub fn each_model(&self) -> Box<dyn Iterator<Item = &Summary> + '_> {
        match self {
            RunSummary::OneModel(s) => Box::new(std::iter::once(s)),
            RunSummary::Models(m) => Box::new(m.models.values()),
        }
    }

    pub fn finished_cases(&self) -> usize {
        match self {
            RunSummary::OneModel(s) => s.finished_cases,
            RunSummary::Models(m) => m.run.finished_cases,
        }
    }
}

/// One prompt's line of summary.json. Accuracy is in percent, one decimal:
/// `correct_answers / total_questions`, where `total_questions` counts the
/// evaluated cases (every spec verdict, `api_error` included) and never the
/// `not_evaluated` ones. `null` when no case was evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptResult {
    pub accuracy: Option<f64>,
    /// 95 % Wilson interval of `accuracy`, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_interval: Option<[f64; 2]>,
    /// pass@k (Chen et al. 2021's unbiased estimator) over each question's
    /// evaluated rounds and samples, averaged over questions: `{"pass@1": 0.66, ...}`,
    /// for the configured k (`pass_at_k`, default 1, 5, 10) where every
    /// question has at least k rounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k: BTreeMap<String, f64>,
    /// 95 % interval of each `pass_at_k` value: a percentile bootstrap over
    /// questions (2,000 resamples, fixed seed); absent for one question.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k_interval: BTreeMap<String, [f64; 2]>,
    pub correct_answers: usize,
    /// The denominator of `accuracy`: evaluated cases.
    pub total_questions: usize,
    /// Mean seconds of the programs that ran (`null` when none ran).
    pub avg_execution_time: Option<f64>,
    /// Verdict name -> count, failures only (spec §8.3).
    pub error_breakdown: BTreeMap<String, usize>,
    /// Selected cases of this prompt that were not evaluated (no matching
    /// recording, or the sandbox failed); not in `total_questions`.
    #[serde(default)]
    pub not_evaluated: usize,
    /// Why, reason -> count.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_evaluated_reasons: BTreeMap<String, usize>,
    /// What a reader must know before trusting this accuracy: api errors
    /// counted as failures, cases not evaluated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Ids of the questions that passed in some rounds and failed in others
    /// (evaluated rounds only; other failure kinds are all "failed").
    #[serde(default)]
    pub unstable_questions: Vec<String>,
    /// The server's prompt and completion tokens, summed over the cases
    /// that reported them.
    #[serde(default)]
    pub tokens: crate::case::Tokens,
    /// Evaluated cases whose reply stopped at the length limit
    /// (`finish_reason` = `length`): judged, but on a cut reply.
    #[serde(default)]
    pub truncated_replies: usize,
    /// Evaluated cases whose program defines a class that compares equal
    /// to any object, so that its hidden tests could not fail: judged
    /// `wrong_answer`, counted here (and named in `suspect_questions`).
    #[serde(default)]
    pub suspect_cases: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect_questions: Vec<String>,
    /// Cases whose prompt did not fit the context window: not evaluated
    /// (also in `not_evaluated`), never a model failure.
    #[serde(default)]
    pub truncated_prompts: usize,
    /// How many cases `tokens` sums (the table's per-case mean).
    #[serde(skip)]
    pub cases_with_tokens: usize,
    /// Spread of the per-round accuracies, when the prompt ran several rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundStats>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// `accuracy >= threshold`, on the rounded accuracy shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_passed: Option<bool>,
    /// ParEval's speed figures of the prompt's correct C++ cases (`[cpp]
    /// speed`); reported, never part of the accuracy or the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<SpeedSummary>,
}

/// ParEval's speedup of a prompt's correct cases, measured on the machine
/// that ran them (analysis/speed.rs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedSummary {
    /// The timing runs' thread count: the largest configured (1 for serial).
    pub threads: u32,
    /// Correct cases with figures.
    pub timed: usize,
    /// ParEval problems among them (a variant counts for its problem).
    #[serde(default)]
    pub problems: usize,
    /// Correct cases without figures (journals written before the timing
    /// was part of ParEval's verdict).
    pub failed: usize,
    /// Mean of each timed case's own T_best / T (not ParEval's figure).
    pub mean_speedup: Option<f64>,
    /// ParEval's speedup_n@1 at n = `threads` (its analysis/metrics.py,
    /// k = 1): per problem, the least T_best of its timed correct attempts
    /// times the mean of 1/T over them; the mean over problems.
    pub speedup_n_at_1: Option<f64>,
    /// The same per ParEval problem type, as ParEval reports it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub speedup_n_at_1_by_type: std::collections::BTreeMap<String, f64>,
    /// Mean seconds of the reply's compute() and of ParEval's best().
    pub mean_time_secs: Option<f64>,
    pub mean_best_secs: Option<f64>,
    /// The cores of the machine that measured them.
    pub cores: usize,
}

impl SpeedSummary {
    /// `speedup_8@1 1.52 · mean T_best/T 1.61 over 12 correct cases (8 threads, measured on this machine: 2 cores)`.
    pub fn text(&self) -> String {
        let figure = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
        let failed = if self.failed > 0 {
            format!(", {} not timed", self.failed)
        } else {
            String::new()
        };
        let problems = match self.problems {
            0 => String::new(),
            1 => " of 1 problem".to_string(),
            n => format!(" of {n} problems"),
        };
        format!(
            "speedup_{n}@1 {} · mean T_best/T {} over {} correct cases{problems}{failed} ({n} thread{s}, measured on this machine: {} cores)",
            figure(self.speedup_n_at_1),
            figure(self.mean_speedup),
            self.timed,
            self.cores,
            n = self.threads,
            s = if self.threads == 1 { "" } else { "s" },
        )
    }
}

impl SpeedSummary {
    /// `per problem type (ParEval's report): dense_la 1.52 · scan 0.98`,
    /// when the cases name their types.
    pub fn by_type_text(&self) -> Option<String> {
        if self.speedup_n_at_1_by_type.is_empty() {
            return None;
        }
        let types: Vec<String> = self
            .speedup_n_at_1_by_type
            .iter()
            // Two decimals, or three where they would read 0.00.
            .map(|(kind, v)| match *v >= 0.01 {
                true => format!("{kind} {v:.2}"),
                false => format!("{kind} {v:.3}"),
            })
            .collect();
        Some(format!(
            "speedup_{}@1 per problem type (as ParEval reports it): {}",
            self.threads,
            types.join(" · ")
        ))
    }
}

impl PromptResult {
    /// `66.7%`, or `-` when no case was evaluated.
    pub fn accuracy_text(&self) -> String {
        self.accuracy
            .map_or_else(|| "-".to_string(), |a| format!("{a:.1}%"))
    }

    /// `pass@1 0.500 [0.300, 0.700] · pass@5 0.810 [...]`, by k; empty
    /// without pass@k figures.
    pub fn pass_at_k_text(&self) -> String {
        let mut ks: Vec<(&String, &f64)> = self.pass_at_k.iter().collect();
        // pass@1, pass@5, pass@10: by k, not as text.
        ks.sort_by_key(|(k, _)| k.trim_start_matches("pass@").parse::<usize>().unwrap_or(0));
        ks.into_iter()
            .map(|(k, v)| match self.pass_at_k_interval.get(k) {
                Some([lo, hi]) => format!("{k} {v:.3} [{lo:.3}, {hi:.3}]"),
                None => format!("{k} {v:.3}"),
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Whether pass@k says more than the accuracy: some k > 1 is reported.
    pub fn has_pass_at_k_beyond_1(&self) -> bool {
        self.pass_at_k.keys().any(|k| k != "pass@1")
    }

    /// `[52.8, 84.1]`, or `-` without an interval.
    pub fn interval_text(&self) -> String {
        match self.accuracy_interval {
            Some([lo, hi]) => format!("[{lo:.1}, {hi:.1}]"),
            None => "-".to_string(),
        }
    }

    /// Mean prompt + completion tokens per case, e.g. `412+96`; `-` when
    /// the server reported none.
    /// Mean prompt + completion tokens per case; with reasoning, the
    /// completion as reasoning + answer (`~` when the reasoning's count is
    /// estimated): `812+(~1450r+210)`; the prompt's cached part where the
    /// server said (`812(700c)+96`).
    pub fn tokens_text(&self) -> String {
        let n = match self.cases_with_tokens {
            0 => return "-".to_string(),
            n => n as u64,
        };
        let t = &self.tokens;
        // The part of the prompt the server reused from its cache, where it
        // said: `812(700c)`.
        let prompt = match t.prompt_cached {
            Some(cached) => format!("{}({}c)", t.prompt / n, cached / n),
            None => (t.prompt / n).to_string(),
        };
        if t.reasoning == 0 {
            return format!("{prompt}+{}", t.completion / n);
        }
        format!(
            "{prompt}+({}{}r+{})",
            if t.reasoning_estimated { "~" } else { "" },
            t.reasoning / n,
            t.completion.saturating_sub(t.reasoning) / n
        )
    }

    /// `0.07s`, or `-` when no program ran.
    pub fn avg_time_text(&self) -> String {
        self.avg_execution_time
            .map_or_else(|| "-".to_string(), |t| format!("{t:.2}s"))
    }

    /// What the table's note column says: api errors and cases not evaluated.
    pub fn flags(&self, lang: Language) -> String {
        words::note_flags(lang, &self.notes())
    }

    /// The warnings in the run's language (`warnings` keeps the English).
    pub fn warnings_in(&self, lang: Language) -> Vec<String> {
        words::warnings(lang, &self.notes())
    }

    /// What a reader must know before trusting this prompt's numbers.
    pub fn notes(&self) -> words::Notes<'_> {
        words::Notes {
            api_errors: self
                .error_breakdown
                .get(Verdict::ApiError.as_str())
                .copied(),
            not_evaluated: self.not_evaluated,
            not_evaluated_reasons: &self.not_evaluated_reasons,
            cut_prompts: self.truncated_prompts,
            cut_replies: self.truncated_replies,
            suspect: &self.suspect_questions,
            unstable: &self.unstable_questions,
        }
    }
}

/// Per-round accuracies of one prompt, in percent with one decimal; the
/// standard deviation is the population one (every round ran, none sampled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundStats {
    pub count: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub stddev: f64,
}

/// The failure verdicts, in the order columns show them: the spec's five,
/// then `no_answer` when any of `results` has one (a reasoning model's
/// budget spent reasoning); a run without one keeps the spec's columns.
pub(crate) fn failure_verdicts<'a>(
    results: impl IntoIterator<Item = &'a PromptResult>,
) -> Vec<Verdict> {
    let no_answer = results
        .into_iter()
        .any(|r| r.error_breakdown.contains_key(Verdict::NoAnswer.as_str()));
    Verdict::ALL
        .into_iter()
        .filter(|v| !v.passed())
        .chain(no_answer.then_some(Verdict::NoAnswer))
        .collect()
}

/// `value` rounded to `decimals` places: how every figure of summary.json
/// is shown (accuracy one decimal, p-values four).
pub(crate) fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}
