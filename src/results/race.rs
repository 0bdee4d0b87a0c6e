//! summary.json's `race`: what a race between the prompts decided, and
//! what it did not (see `crate::race`).

use serde::{Deserialize, Serialize};

/// One model's race (a multi-model run races each model separately).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceResult {
    /// The chance, over the whole race, of any wrong elimination.
    pub alpha: f64,
    /// The e-value that eliminates: k(k-1)/alpha for k prompts.
    pub bound: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cases: Option<usize>,
    /// How the race ended.
    pub ended: RaceEnd,
    /// Questions the rule looked at.
    pub questions: usize,
    /// Cases asked (the model calls, each sample one), against the grid's.
    pub calls: usize,
    pub grid_calls: usize,
    /// Prompt -> its standing, in suite order.
    pub prompts: indexmap::IndexMap<String, RacePrompt>,
    /// The cases never asked because the race had decided (test names).
    pub not_run: Vec<String>,
}

impl RaceResult {
    /// The test names of `prompt`'s cases the race never asked.
    pub fn not_run_of<'a>(&'a self, prompt: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.not_run
            .iter()
            .filter(move |name| prompt_of(name) == Some(prompt))
            .map(String::as_str)
    }

    /// Why `prompt`'s cases were not asked, as libtest says it (without
    /// its `not run: ` start).
    pub fn why_not_run(&self, prompt: &str) -> String {
        let standing = self.prompts.get(prompt);
        match standing {
            Some(RacePrompt {
                status: RaceStatus::Eliminated,
                eliminated_after: Some(after),
                eliminated_by: Some(by),
                e_value,
                ..
            }) => format!(
                "the race had decided: {prompt} was eliminated after {after} question(s) by {by} \
                 (E = {} ≥ {})",
                e_value.map_or("?".to_string(), e_text),
                e_text(self.bound)
            ),
            _ => match self.ended {
                RaceEnd::Decided => "the race had decided".to_string(),
                RaceEnd::MaxCases => format!(
                    "the race stopped at [race] max_cases = {}",
                    self.max_cases.unwrap_or(0)
                ),
                RaceEnd::QuestionsRanOut | RaceEnd::Unfinished => {
                    "the race did not ask it".to_string()
                }
            },
        }
    }

    /// Whether the race eliminated `prompt`.
    pub fn eliminated(&self, prompt: &str) -> bool {
        self.prompts
            .get(prompt)
            .is_some_and(|p| p.status == RaceStatus::Eliminated)
    }
}

/// The prompt of a test name: `[model::]prompt::question::rN[::sK]`.
fn prompt_of(name: &str) -> Option<&str> {
    let parts: Vec<&str> = name.split("::").collect();
    let sampled = parts
        .last()
        .and_then(|last| last.strip_prefix('s'))
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
    let from_end = if sampled { 4 } else { 3 };
    parts.len().checked_sub(from_end).map(|i| parts[i])
}

/// Whether the race (if the run was one) eliminated `prompt`.
pub fn eliminated_by_race(race: Option<&RaceResult>, prompt: &str) -> bool {
    race.is_some_and(|r| r.eliminated(prompt))
}

/// One prompt's standing in its race.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RacePrompt {
    pub status: RaceStatus,
    /// For `eliminated`: after how many questions, by which prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eliminated_after: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eliminated_by: Option<String>,
    /// For `eliminated`: the e-value that eliminated it (at least `bound`);
    /// otherwise the largest e-value any live prompt holds over it, to set
    /// beside `bound` (`null`: no discordant question yet).
    pub e_value: Option<f64>,
    /// Its judged cases (not `api_error`, not evaluated) and those passed.
    pub judged: usize,
    pub passed: usize,
    /// Percent of `judged`, and its 95 % Wilson interval (percent).
    pub accuracy: f64,
    pub interval: Option<(f64, f64)>,
    /// True when it did not answer every question: its accuracy is over
    /// the questions it was asked before it was eliminated.
    pub partial: bool,
}

/// How a race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceEnd {
    /// One prompt left.
    Decided,
    QuestionsRanOut,
    MaxCases,
    /// The run stopped inside the race.
    Unfinished,
}

/// Where a prompt stands when its race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceStatus {
    /// The one prompt left.
    Winner,
    Eliminated,
    /// Not separated from another live prompt when the race ended.
    Tied,
    /// Live in an unfinished race.
    Running,
}

/// An e-value for a line a person reads (a skip reason, the table): a
/// whole number when large.
pub fn e_text(e: f64) -> String {
    if e >= 100.0 {
        format!("{e:.0}")
    } else {
        format!("{e:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::prompt_of;

    #[test]
    fn a_test_names_prompt_with_or_without_model_and_sample() {
        assert_eq!(prompt_of("p1::q1::r1"), Some("p1"));
        assert_eq!(prompt_of("m::p1::q1::r2"), Some("p1"));
        assert_eq!(prompt_of("p1::q1::r1::s3"), Some("p1"));
        assert_eq!(prompt_of("m::p1::q1::r1::s3"), Some("p1"));
        assert_eq!(prompt_of("q1"), None);
    }
}
