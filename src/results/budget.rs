//! summary.json's `budget`: what the run's model calls spent, against the
//! caps of `[budget]` and the plan made before the first call (see
//! `crate::budget`).

use serde::{Deserialize, Serialize};

/// What a run spent and what it was allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetResult {
    pub spent: Spent,
    pub caps: Caps,
    /// What the plan expected of the calls this session made, for the
    /// comparison at the end; absent when it expected nothing it could
    /// count (no call was planned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned: Option<Planned>,
    /// Cases that never started because a cap would have been crossed.
    pub not_run: usize,
    /// Why they did not start: the cap, what was spent and what the next
    /// case was planned to take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Prompt -> the test names of its cases not run, for junit.xml's
    /// `<skipped>`.
    #[serde(default, skip_serializing_if = "indexmap::IndexMap::is_empty")]
    pub not_run_cases: indexmap::IndexMap<String, Vec<String>>,
}

/// The run's model calls: a reply from the response cache or a recording
/// is no call and spends nothing. Tokens and money count a resumed run's
/// earlier sessions too; `wall_secs` is this session's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// `prompt_tokens` + `reply_tokens`.
    pub tokens: u64,
    pub prompt_tokens: u64,
    pub reply_tokens: u64,
    /// At `[budget]`'s prices; null without them.
    pub cost: Option<f64>,
    /// From the start of this session's first case to the end of its last.
    pub wall_secs: f64,
    pub calls: usize,
    /// Calls whose server gave no token counts: counted by the project's
    /// estimate of their text.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub estimated_calls: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The caps of `[budget]` (and PROMPTEVAL_BUDGET_*), null when unset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Caps {
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
    pub wall_secs: Option<f64>,
}

/// What the plan expected of this session's calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Planned {
    pub calls: usize,
    /// Null when the replies' length could not be known beforehand.
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
    pub wall_secs: Option<f64>,
}

impl BudgetResult {
    /// Whether a cap stopped the run.
    pub fn stopped_the_run(&self) -> bool {
        self.not_run > 0
    }

    /// The test names of `prompt`'s cases the budget did not run.
    pub fn not_run_of<'a>(&'a self, prompt: &str) -> impl Iterator<Item = &'a str> + 'a {
        self.not_run_cases
            .get(prompt)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }
}
