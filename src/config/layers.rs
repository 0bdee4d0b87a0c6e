//! The layers only a run knows about: a suite's settings and the folder of
//! a run being resumed.
//!
//! Precedence, lowest first: built-in defaults, harness.toml (`file.rs`),
//! the suite's `settings` ([`Config::apply_suite`]), the environment
//! (`env.rs`, read before the suite but never overridden by it); a resumed
//! run's folder ([`Config::resume`]) decides what the run set out to do
//! (its suite, models, rounds and samples) over all of them. Each layer
//! records what it decided (`sources.rs`).

use std::path::PathBuf;

use super::schema::{Config, ModelEntry, RunSettings};
use super::sources::Source;

/// What a run folder's `run.json` decided for the run it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedRun {
    pub suite: PathBuf,
    pub model: String,
    /// The models of a multi-model run; empty for one model.
    pub models: Vec<String>,
    pub rounds: u32,
    pub samples: u32,
    /// `[race]` when the run was a race.
    pub race: Option<super::schema::RaceConfig>,
}

impl Config {
    /// A resumed run finishes what it started, whatever harness.toml, the
    /// suite or the environment say now. Each `[[models]]` table of the file
    /// still applies to its model.
    pub fn resume(&mut self, run: &ResumedRun) {
        self.suite = run.suite.clone();
        self.suite_is_default = false;
        self.model = run.model.clone();
        self.rounds = run.rounds;
        self.samples = run.samples;
        self.models = run
            .models
            .iter()
            .map(|name| {
                self.models
                    .iter()
                    .find(|e| &e.name == name)
                    .cloned()
                    .unwrap_or_else(|| ModelEntry::named(name))
            })
            .collect();
        for key in ["suite", "model", "models", "rounds", "samples"] {
            self.sources.set(&[key], Source::Resumed);
        }
        // A race resumed goes on as the race it was; a run that was not one
        // does not become one half way.
        self.race = run.race.clone().unwrap_or_default();
        for key in ["enabled", "alpha", "max_cases"] {
            self.sources.set(&["race", key], Source::Resumed);
        }
    }

    /// Applies a suite's run settings (`settings` in the suite file) over
    /// harness.toml, under the environment and a resumed run's folder.
    /// Returns one line per setting the suite set: its value and where the
    /// value in force came from, for the run's first lines.
    pub fn apply_suite(&mut self, suite: &RunSettings) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(v) = suite.history
            && self.suite_decides(&["history", "enabled"], on_off(v), &mut lines)
        {
            self.history.enabled = v;
        }
        if let Some(v) = suite.language
            && self.suite_decides(&["history", "language"], v.name().into(), &mut lines)
        {
            self.history.language = v;
        }
        if let Some(v) = suite.drop_block
            && self.suite_decides(&["history", "drop_block"], v.to_string(), &mut lines)
        {
            self.history.drop_block = v;
        }
        if let Some(v) = suite.rounds
            && self.suite_decides(&["rounds"], v.to_string(), &mut lines)
        {
            self.rounds = v;
        }
        if let Some(v) = suite.samples
            && self.suite_decides(&["samples"], v.to_string(), &mut lines)
        {
            self.samples = v;
        }
        if let Some(v) = suite.temperature
            && self.suite_decides(&["llm", "temperature"], v.to_string(), &mut lines)
        {
            self.llm.temperature = v;
        }
        if let Some(v) = &suite.pass_at_k
            && self.suite_decides(&["pass_at_k"], format!("{v:?}"), &mut lines)
        {
            self.pass_at_k = v.clone();
        }
        lines
    }

    /// Notes the suite's value of `key` in `lines` and says whether it
    /// applies: not over the environment or a resumed run's folder.
    fn suite_decides(&mut self, key: &[&str], value: String, lines: &mut Vec<String>) -> bool {
        // The name the suite's settings use: the last key.
        let name = match key {
            ["history", "enabled"] => "history",
            ["history", "language"] => "language",
            [.., last] => last,
            [] => "",
        };
        let over = match self.sources.of(key) {
            Source::Env { var, value } => format!("; {var}={value} overrides it"),
            Source::Resumed => "; the resumed run keeps its own".to_string(),
            _ => String::new(),
        };
        lines.push(format!("{name} = {value} (the suite's setting{over})"));
        let applies = over.is_empty();
        if applies {
            self.sources.set(key, Source::Suite);
        }
        applies
    }
}

fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.into()
}
