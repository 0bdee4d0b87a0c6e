//! The figures a multi-model run (and a run of prompt variants) adds to
//! summary.json: their shapes only; `crate::analysis` computes them.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

// --- best_prompt: the best prompt against its runner-up -------------------

/// The highest accuracy; prompts that share it are named in `tied_with`
/// (`name` is then the first in suite order, for the spec's field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestPrompt {
    pub name: String,
    pub accuracy: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tied_with: Vec<String>,
    /// Whether the best beats the next prompt by more than noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versus_runner_up: Option<VersusRunnerUp>,
}

/// The best prompt against the runner-up on the same cases (same question,
/// same round): the exact McNemar test on the cases only one of them passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersusRunnerUp {
    pub runner_up: String,
    /// Cases both prompts evaluated.
    pub shared_cases: usize,
    pub only_best_passed: usize,
    pub only_runner_up_passed: usize,
    /// Two-sided; below 0.05 the best is called better than noise.
    pub p_value: f64,
    pub beats_by_more_than_noise: bool,
}

// --- cross_model: prompts across models ------------------------------------

/// summary.json's `cross_model`, in a run of several models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrossModel {
    /// Model -> its best prompt (`null` when it evaluated none), in the
    /// shape of the top-level `best_prompt`: ties in `tied_with`, and
    /// `versus_runner_up` the exact McNemar test against the next prompt.
    pub best_prompts: IndexMap<String, Option<BestPrompt>>,
    /// One entry per unordered pair of models, in model order.
    pub rank_transfer: Vec<RankTransfer>,
}

/// Whether two models rank the prompts alike.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankTransfer {
    pub model_a: String,
    pub model_b: String,
    /// Prompts ranked: those both models evaluated.
    pub prompts: usize,
    /// Questions both models have: what the intervals resample.
    pub questions: usize,
    /// Kendall's tau-b between the two models' prompt accuracies (ties
    /// accounted for), from -1 (reversed) to 1 (same order); `null` with
    /// fewer than 3 prompts (over 2 it is always ±1), or when every prompt
    /// ties in one model.
    pub kendall_tau_b: Option<f64>,
    /// 95 % percentile-bootstrap interval of `kendall_tau_b`: questions
    /// resampled with replacement, each prompt's accuracy recomputed per
    /// model on the resample (2,000 resamples, fixed seed; resamples where
    /// tau is undefined are skipped); `null` with fewer than 2 questions.
    pub kendall_tau_b_interval: Option<[f64; 2]>,
    /// Spearman's rho (Pearson's r of the ranks, ties at their mean rank);
    /// `null` like `kendall_tau_b`.
    pub spearman_rho: Option<f64>,
    /// 95 % interval of `spearman_rho`, resampled like `kendall_tau_b_interval`.
    pub spearman_rho_interval: Option<[f64; 2]>,
    /// Prompt pairs whose order differs between the models with the
    /// difference beyond noise in both (exact McNemar p < 0.05 on each
    /// model's paired cases, in the direction of its order).
    pub flips: Vec<OrderFlip>,
    /// Prompt pairs whose order differs but not beyond noise in both models.
    pub flips_within_noise: usize,
}

/// A prompt pair the two models order oppositely.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderFlip {
    /// The prompt `model_a` ranks higher (and `model_b` lower).
    pub first: String,
    /// The prompt `model_b` ranks higher.
    pub second: String,
    pub on_a: PairOnModel,
    pub on_b: PairOnModel,
}

/// One model's figures for a prompt pair (`first`, `second` of a [`OrderFlip`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairOnModel {
    /// Accuracy of `first`, percent.
    pub first_accuracy: f64,
    /// Accuracy of `second`, percent.
    pub second_accuracy: f64,
    /// Cases both prompts evaluated (same question, round and sample).
    pub shared_cases: usize,
    pub only_first_passed: usize,
    pub only_second_passed: usize,
    /// Exact McNemar, two-sided.
    pub p_value: f64,
}

// --- robustness: how much an outcome depends on the prompt -----------------

/// One model's robustness to its prompts: summary.json's `robustness`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Robustness {
    /// Prompts compared (the model's prompts in the run).
    pub prompts: usize,
    /// One entry per question, those whose outcome depends most on the
    /// prompt first: by `sensitivity` descending, then `spread` descending
    /// (a question without the figure after those with it), then suite order.
    pub questions: Vec<QuestionRobustness>,
    /// Questions in `mean_spread` and `mean_sensitivity`: those at least two
    /// prompts evaluated.
    pub compared_questions: usize,
    /// Mean over `compared_questions` of each question's `spread`, a
    /// fraction; `null` when no question was evaluated under two prompts.
    pub mean_spread: Option<f64>,
    /// 95 % percentile-bootstrap interval of `mean_spread` over questions
    /// (2,000 resamples, fixed seed); `null` with fewer than two questions.
    pub mean_spread_interval: Option<[f64; 2]>,
    /// Mean over `compared_questions` of each question's `sensitivity`
    /// (ProSA's PromptSensiScore at model level), a fraction.
    pub mean_sensitivity: Option<f64>,
    /// 95 % percentile-bootstrap interval of `mean_sensitivity` over
    /// questions; `null` with fewer than two questions.
    pub mean_sensitivity_interval: Option<[f64; 2]>,
    /// Questions in `robust_pass_at_k`: those with at least one attempt slot
    /// evaluated under every prompt.
    pub robust_questions: usize,
    /// ReCode's Robust pass@k averaged over `robust_questions`:
    /// `{"pass@1": 0.42, ...}`, for each configured k that every one of
    /// those questions has at least k fully evaluated slots for.
    pub robust_pass_at_k: BTreeMap<String, f64>,
    /// 95 % percentile-bootstrap interval of each `robust_pass_at_k` value
    /// over questions; a k is absent with fewer than two questions.
    pub robust_pass_at_k_interval: BTreeMap<String, [f64; 2]>,
}

/// How much one question's outcome depends on the prompt. Pass rates are
/// fractions: a prompt's passed over evaluated attempts of this question;
/// a prompt with no evaluated attempt of it is left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRobustness {
    /// The question's id.
    pub question: String,
    /// Prompts with at least one evaluated attempt of this question.
    pub prompts_evaluated: usize,
    /// The prompt with the lowest pass rate (the first in suite order on a
    /// tie); `null` when no prompt evaluated the question.
    pub lowest: Option<PromptRate>,
    /// The prompt with the highest pass rate (the first on a tie).
    pub highest: Option<PromptRate>,
    /// `highest` minus `lowest` pass rate; `null` with fewer than two
    /// `prompts_evaluated` (one prompt has no spread to speak of).
    pub spread: Option<f64>,
    /// 95 % percentile-bootstrap interval of `spread`, resampling the
    /// question's attempt slots (the same slots for every prompt, 2,000
    /// resamples, fixed seed; resamples that leave a prompt without an
    /// evaluated attempt are skipped); `null` with one slot, where every
    /// resample is the same and the interval would be zero-width.
    pub spread_interval: Option<[f64; 2]>,
    /// ProSA's PromptSensiScore: the mean over unordered prompt pairs of the
    /// absolute difference of their pass rates; `null` with fewer than two
    /// `prompts_evaluated`.
    pub sensitivity: Option<f64>,
    /// 95 % interval of `sensitivity`, resampled like `spread_interval`.
    pub sensitivity_interval: Option<[f64; 2]>,
    /// Attempt slots (round, sample) evaluated under every prompt: the n of
    /// `robust_pass_at_k`. A slot some prompt did not evaluate is left out.
    pub robust_attempts: usize,
    /// ReCode's Robust pass@k, for each configured k <= `robust_attempts`:
    /// a slot is correct only when every prompt passed in it, and with c
    /// such slots of n, RP@k = 1 - C(n - c, k) / C(n, k).
    pub robust_pass_at_k: BTreeMap<String, f64>,
    /// 95 % interval of each `robust_pass_at_k` value, resampling the
    /// `robust_attempts` slots; absent with one slot.
    pub robust_pass_at_k_interval: BTreeMap<String, [f64; 2]>,
}

/// One prompt's pass rate on one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptRate {
    pub prompt: String,
    /// `passed / evaluated`, a fraction.
    pub pass_rate: f64,
    pub passed: usize,
    /// Evaluated attempts of this prompt on the question.
    pub evaluated: usize,
}

// --- kind_results: accuracy per question kind ------------------------------

/// One prompt's accuracy on the questions of one kind, in PromptResult's
/// terms: `correct_answers / total_questions` over evaluated cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindAccuracy {
    /// Questions of this kind in the suite.
    pub questions: usize,
    /// Percent, one decimal; `null` when no case of this kind was evaluated.
    pub accuracy: Option<f64>,
    /// 95 % Wilson interval of `accuracy`, in percent.
    pub accuracy_interval: Option<[f64; 2]>,
    pub correct_answers: usize,
    /// Evaluated cases (every round and sample) of this kind's questions:
    /// the denominator of `accuracy`; not-evaluated cases are not in it.
    pub total_questions: usize,
}

// --- partial_order: PartialOrderEval's curves ------------------------------

/// One prompt template's curves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialOrder {
    /// The benchmark's own prompt: the horizontal line.
    pub original: Option<Point>,
    /// Strategy -> its points from p_bot to p_top, least detailed first.
    pub curves: BTreeMap<String, Vec<Point>>,
    /// Over all problems: pairs of one strategy's points where the more
    /// detailed scored lower by more than noise.
    pub violations: Vec<Violation>,
    /// The same per problem (Fisher's exact test on its attempts).
    pub problem_violations: Vec<ProblemViolation>,
    /// Problems with a violation / problems compared.
    pub problems_with_violations: usize,
    pub problems: usize,
    /// Problems left out of the curves and the violations: no p_top of
    /// theirs passed the gates (variants/leak.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unqualified: Vec<Unqualified>,
}

impl PartialOrder {
    /// `the curves run over 7 problems; left out (no p_top passed the
    /// gates): HumanEval_20 (...)`, when a problem was left out.
    pub fn unqualified_text(&self) -> Option<String> {
        if self.unqualified.is_empty() {
            return None;
        }
        let left: Vec<String> = self
            .unqualified
            .iter()
            .map(|u| format!("{} ({})", u.problem, u.reason))
            .collect();
        Some(format!(
            "the curves run over {} problem{}; left out, no p_top of theirs passed the gates: {}",
            self.problems,
            if self.problems == 1 { "" } else { "s" },
            left.join("; ")
        ))
    }
}

/// A problem whose p_top never passed the gates, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unqualified {
    pub problem: String,
    pub reason: String,
}

/// pass@1 at one detail level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// `p_bot`, `summary_50w`, `paragraph_0.4`, `masking_0.8`, `p_top`.
    pub label: String,
    pub strategy: String,
    /// r_p, r_s or L; `null` for p_bot, p_top and the original.
    pub level: Option<f64>,
    /// 0 (p_bot) to 1 (p_top): the x of the curve.
    pub detail: f64,
    /// Problems with an evaluated attempt at this level.
    pub problems: usize,
    pub attempts: usize,
    pub passed: usize,
    pub pass_at_1: f64,
    /// 95 % bootstrap interval over problems (`null` for one problem).
    pub interval: Option<[f64; 2]>,
    /// pass@k at this level for the configured k (n: each problem's
    /// attempts here), with its bootstrap interval, as per prompt.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k_interval: BTreeMap<String, [f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub strategy: String,
    pub less_detailed: String,
    pub more_detailed: String,
    /// pass@1 of each.
    pub less_pass_at_1: f64,
    pub more_pass_at_1: f64,
    /// 95 % bootstrap interval of (more - less) over shared problems.
    pub difference_interval: [f64; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemViolation {
    pub problem: String,
    pub strategy: String,
    pub less_detailed: String,
    pub more_detailed: String,
    /// `passed/attempts` of each.
    pub less: [usize; 2],
    pub more: [usize; 2],
    pub p_value: f64,
}
