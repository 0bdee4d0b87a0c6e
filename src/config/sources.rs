//! Where each setting's value was decided: each layer (`file.rs`,
//! `env.rs`, `layers.rs`) records what it set in the config's [`Sources`],
//! so later code can say where a value came from instead of reading the
//! file or the environment again.

use std::collections::BTreeMap;

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
    /// The config file (`Config::source`), at this 1-based line.
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
