//! `harness.toml` plus `PROMPTEVAL_*` environment overrides -> [`Config`].
//!
//! In files by job:
//!
//! - `schema.rs`: what the settings are, with their defaults;
//! - `file.rs`: the config file, parsed once; `locations.rs`: the line of
//!   each of its keys, from the TOML parser's spans;
//! - `env.rs`: the environment's layer;
//! - `layers.rs`: the later layers (a suite's settings, a resumed run's
//!   folder); `sources.rs`: where each value was decided;
//! - `validate.rs`: whether the settings make a run;
//! - `model_tables.rs`: `[[models]]`, one configuration per model;
//!   `think.rs`, `percent.rs`: two kinds of value.
//!
//! Precedence: environment > suite > harness.toml > built-in defaults (a
//! resumed run's folder over all for what the run set out to do). Relative
//! paths in harness.toml are relative to the file's folder; relative paths
//! from the environment are relative to the working directory (the package
//! root under `cargo test`).

use std::path::Path;

mod env;
mod error;
mod file;
mod identity;
mod layers;
mod locations;
mod model_tables;
mod percent;
mod schema;
mod sources;
mod think;
mod validate;

pub use env::{Env, ProcessEnv};
pub use error::ConfigError;
pub use identity::{Settings, fingerprint};
pub use layers::ResumedRun;
pub use locations::line_of_offset;
pub use model_tables::server_key;
pub use percent::{Percent, PercentError};
pub use schema::{
    BackendKind, BudgetConfig, Config, CppConfig, DEFAULT_CONCURRENCY, DEFAULT_GATE_ALPHA,
    DEFAULT_MODEL, DEFAULT_OLLAMA_HOST, DEFAULT_OPENAI_BASE_URL, DEFAULT_PASS_AT_K, DEFAULT_SUITE,
    Endpoint, GateConfig, HistoryConfig, Language, LlmConfig, ModelGate, RaceConfig, RunSettings,
    SandboxConfig, VariantsConfig, WriterConfig, normalise_ollama_host,
};
pub use sources::{Key, Source, Sources};
pub use think::{Level, Think};

impl Config {
    /// Loads the configuration: `PROMPTEVAL_CONFIG` or `./harness.toml` when
    /// present, then the environment overrides, then checks it.
    pub fn load(env: &dyn Env, cwd: &Path) -> Result<Config, ConfigError> {
        let path = file::path(env, cwd);
        let mut config = match &path {
            Some(path) => {
                let (settings, sources) = file::read(path)?;
                let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
                Config::from_file(settings, sources, &base, Some(path.clone()))
            }
            None => Config::from_file(Default::default(), Default::default(), cwd, None),
        };
        config.apply_env(env, cwd)?;
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests;
