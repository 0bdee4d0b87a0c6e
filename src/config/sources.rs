//! Layering: where each setting's value was decided, and the layers only a
//! run knows about (a suite's settings, the folder of a run being resumed).
//!
//! Precedence, lowest first: built-in defaults, harness.toml (`file.rs`),
//! the suite's `settings` ([`Config::apply_suite`]), the environment
//! (`env.rs`, read before the suite but never overridden by it); a resumed
//! run's folder ([`Config::resume`]) decides what the run set out to do
//! (its suite, models, rounds and samples) over all of them. Each layer
//! records what it decided in [`Sources`], so later code can say where a
//! value came from instead of reading the environment again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::model_tables::ModelEntry;
use super::schema::{Config, RunSettings};

/// A setting's place in harness.toml: its keys from the root
/// (`["llm", "temperature"]`), a table of an array by its index
/// (`["models", "0", "name"]`).
pub type Key = Vec<String>;

/// Where a setting's value came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Source {
    /// Nothing set it.
    #[default]
    Default,
    /// The config file ([`Config::source`]), at this 1-based line.
    File { line: usize },
    /// The suite's `settings`.
    Suite,
    /// An environment variable, with its value (trimmed).
    Env { var: &'static str, value: String },
    /// The run folder's `run.json` (`PROMPTEVAL_RESUME`).
    Resumed,
}

/// Each decided setting's [`Source`]; a setting not listed has its default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sources {
    decided: BTreeMap<Key, Source>,
}

const DEFAULT: Source = Source::Default;

fn owned(key: &[&str]) -> Key {
    key.iter().map(|k| k.to_string()).collect()
}

impl Sources {
    /// Every key of the config file, at its line.
    pub(super) fn of_file(lines: Vec<(Key, usize)>) -> Sources {
        Sources {
            decided: lines
                .into_iter()
                .map(|(key, line)| (key, Source::File { line }))
                .collect(),
        }
    }

    /// Where `key`'s value came from.
    pub fn of(&self, key: &[&str]) -> &Source {
        self.decided.get(&owned(key)).unwrap_or(&DEFAULT)
    }

    /// The config file's line of `key`, when the file set it.
    pub fn line(&self, key: &[&str]) -> Option<usize> {
        match self.of(key) {
            Source::File { line } => Some(*line),
            _ => None,
        }
    }

    pub(super) fn set(&mut self, key: &[&str], source: Source) {
        self.decided.insert(owned(key), source);
    }

    pub(super) fn env(&mut self, key: &[&str], var: &'static str, value: &str) {
        self.set(
            key,
            Source::Env {
                var,
                value: value.trim().to_string(),
            },
        );
    }
}

/// What a run folder's `run.json` decided for the run it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedRun {
    pub suite: PathBuf,
    pub model: String,
    /// The models of a multi-model run; empty for one model.
    pub models: Vec<String>,
    pub rounds: u32,
    pub samples: u32,
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
