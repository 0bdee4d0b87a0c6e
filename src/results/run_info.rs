//! run_info.json: the facts about a run that no case record holds (what
//! every report file is written from besides the journal), and the models
//! of a multi-model run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::race::RaceResult;
use crate::ask::cache::CacheStats;
use crate::case::Unevaluated;

pub(crate) fn one() -> u32 {
    1
}

/// Facts about the run that are not in any single case record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Folder name, e.g. `test_20250814_012345`.
    pub test_id: String,
    /// Local start time, `2025-08-14T01:23:45` (spec §8.3).
    pub timestamp: String,
    pub total_execution_time: f64,
    pub suite: String,
    pub model: String,
    /// "ollama", "openai" or "replay", plus the endpoint.
    pub backend: String,
    pub endpoint: String,
    pub rounds: u32,
    /// Replies drawn per case (`samples`).
    #[serde(default = "one")]
    pub samples: u32,
    /// Prompt names in suite order, with their templates.
    pub prompts: Vec<(String, String)>,
    pub question_count: usize,
    /// Cases planned (after filters); fewer records than this means not all ran.
    pub planned_cases: usize,
    /// False when the run was interrupted: the report is marked incomplete.
    pub complete: bool,
    /// The sandbox isolation in force (see `sandbox::Isolation`).
    pub isolation: serde_json::Value,
    /// Per-prompt accuracy thresholds in percent, when a gate is configured.
    pub thresholds: BTreeMap<String, f64>,
    /// Selected cases the run did not evaluate (no matching recording):
    /// counted and flagged per prompt, in no accuracy.
    #[serde(default)]
    pub not_evaluated: Vec<Unevaluated>,
    /// Response-cache hits and misses of this run; `None` when the cache
    /// was off or the run replayed recordings.
    #[serde(default)]
    pub cache: Option<CacheStats>,
    /// Question id -> its prompt variant, for the questions that are one
    /// (a run with `[variants]`): what the curves are drawn from.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variants: BTreeMap<String, crate::variants::Variant>,
    /// The k of the pass@k figures (`pass_at_k` in harness.toml).
    #[serde(default = "default_pass_at_k")]
    pub pass_at_k: Vec<usize>,
    /// The labels of the views a person reads (`language`).
    #[serde(default)]
    pub language: crate::config::Language,
    /// The models of a multi-model run, in order; empty for one model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelRun>,
    /// The suite's question ids in order (a multi-model run's robustness
    /// figures line the models' outcomes up by them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub question_ids: Vec<String>,
    /// Question id -> its `kind` (algorithm, indentation, bugfix, ...), for the
    /// questions that have one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kinds: BTreeMap<String, String>,
    /// Question id -> the language of its program, for the questions not
    /// in Python: the report names and highlights their files by it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub code_languages: BTreeMap<String, crate::suite::CodeLanguage>,
    /// Model -> the settings that decide what it was asked and how its
    /// programs were judged (`Config::settings`): what a baseline must share.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, crate::config::Settings>,
    /// Question id -> the fingerprint of what it asks and how it is judged,
    /// for every question of the suite.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub question_fingerprints: BTreeMap<String, String>,
    /// The gate's settings besides the per-prompt thresholds.
    #[serde(default)]
    pub gate: GateSettings,
    /// Language id -> the toolchain that built and ran its programs, as
    /// its first tool names its version (`Lua 5.4.4 ...`), or why none
    /// could (the package to install): the languages of MultiPL-E's the
    /// suite uses.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub toolchains: BTreeMap<String, String>,
    /// A one-model run's race (`[race]`); each model's is in `models`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceResult>,
    /// What the run's calls spent, against `[budget]` and the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<super::budget::BudgetResult>,
}

/// What the gate checks besides `thresholds`, as the run was configured
/// (a merge of shards gates the merged run the same way).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateSettings {
    /// `[gate] baseline`: the baseline file the run is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<std::path::PathBuf>,
    /// `[gate] alpha`: the level of the baseline's paired test.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// `[gate] min_accuracy_lower_bound`, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_accuracy_lower_bound: Option<f64>,
}

fn default_alpha() -> f64 {
    crate::config::DEFAULT_GATE_ALPHA
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            baseline: None,
            alpha: default_alpha(),
            min_accuracy_lower_bound: None,
        }
    }
}

/// `ModelRun::backend` of a model its run did not ask: it could not be
/// asked, or the filters (or a shard) left none of its cases.
pub const NOT_ASKED: [&str; 2] = ["none", "not selected"];

/// One model of a multi-model run, as the run saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRun {
    pub name: String,
    /// "ollama", "openai" or "replay"; "none" when it could not be asked,
    /// "not selected" when the filters left none of its cases.
    pub backend: String,
    pub endpoint: String,
    /// Why it could not be asked (its cases are not evaluated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// Per-prompt accuracy thresholds in percent for this model.
    #[serde(default)]
    pub thresholds: BTreeMap<String, f64>,
    /// Its planned cases (evaluated or not).
    #[serde(default)]
    pub planned_cases: usize,
    /// Its race, when the run was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<RaceResult>,
}

impl ModelRun {
    /// Whether its run asked its server (so `backend` and `endpoint` say
    /// where its replies came from).
    pub fn was_asked(&self) -> bool {
        self.unavailable.is_none() && !NOT_ASKED.contains(&self.backend.as_str())
    }
}

fn default_pass_at_k() -> Vec<usize> {
    crate::config::DEFAULT_PASS_AT_K.to_vec()
}

impl RunInfo {
    /// The language question `question_id`'s programs are written in.
    pub fn code_language(&self, question_id: &str) -> crate::suite::CodeLanguage {
        self.code_languages
            .get(question_id)
            .copied()
            .unwrap_or_default()
    }

    /// One model's share of a multi-model run, as a one-model run's info.
    pub fn of_model(&self, model: &ModelRun) -> RunInfo {
        let mut info = self.clone();
        info.model = model.name.clone();
        info.backend = model.backend.clone();
        info.endpoint = model.endpoint.clone();
        info.thresholds = model.thresholds.clone();
        info.planned_cases = model.planned_cases;
        info.race = model.race.clone();
        // The spending and caps are the run's; the cases not run, the
        // model's own (its junit.xml lists them).
        if let Some(budget) = &mut info.budget {
            let prefix = format!("{}::", model.name);
            for names in budget.not_run_cases.values_mut() {
                names.retain(|n| n.starts_with(&prefix));
            }
            budget.not_run_cases.retain(|_, names| !names.is_empty());
            budget.not_run = budget.not_run_cases.values().map(Vec::len).sum();
        }
        info.not_evaluated
            .retain(|u| u.case.model.as_deref() == Some(model.name.as_str()));
        info.models = Vec::new();
        info
    }
}
