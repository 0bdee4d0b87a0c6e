//! The environment's layer: `PROMPTEVAL_*` (and `OLLAMA_HOST`) over
//! harness.toml. Each variable is read once, here, and each value it
//! decides is recorded with it ([`Sources`](super::sources::Sources)), so
//! later layers and messages never read the environment again. Relative
//! paths from the environment are relative to the working directory (the
//! package root under `cargo test`).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::error::ConfigError;
use super::model_tables::duplicate;
use super::percent::Percent;
use super::schema::{BackendKind, Config, Language, ModelEntry, normalise_ollama_host};
use super::think::Think;

/// Reads the environment through a function so tests need not mutate the
/// process environment.
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }
}

impl<const N: usize> Env for [(&str, &str); N] {
    fn var(&self, name: &str) -> Option<String> {
        self.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

/// The environment as the layer reads it: a variable set to blanks is unset.
struct Vars<'a>(&'a dyn Env);

impl Vars<'_> {
    fn get(&self, var: &str) -> Option<String> {
        self.0.var(var).filter(|v| !v.trim().is_empty())
    }

    /// `var`'s value read by `parse`; a value it refuses is an error whose
    /// message is `expected`.
    fn parse<T>(
        &self,
        var: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
        expected: impl FnOnce() -> String,
    ) -> Result<Option<(T, String)>, ConfigError> {
        let Some(value) = self.get(var) else {
            return Ok(None);
        };
        match parse(&value) {
            Some(parsed) => Ok(Some((parsed, value))),
            None => Err(ConfigError::Env {
                var,
                value,
                message: expected(),
            }),
        }
    }
}

/// A whole number, at least one.
fn count<T: FromStr + PartialOrd + From<u8>>(text: &str) -> Option<T> {
    text.trim().parse().ok().filter(|n| *n >= T::from(1))
}

fn on_off(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

impl Config {
    /// The environment over the file, in the order its mistakes are told.
    pub(super) fn apply_env(&mut self, env: &dyn Env, cwd: &Path) -> Result<(), ConfigError> {
        let vars = Vars(env);
        self.env_folders(&vars, cwd);
        self.env_models(&vars)?;
        if let Some(v) = vars.get("PROMPTEVAL_MODEL_INFO") {
            self.sources
                .env(&["model_info"], "PROMPTEVAL_MODEL_INFO", &v);
            self.model_info = Some(v.trim().to_string());
        }
        self.env_counts(&vars)?;
        self.env_think(&vars)?;
        self.env_gate(&vars)?;
        self.env_servers(&vars)?;
        self.env_switches(&vars)?;
        self.env_budget(&vars)?;
        if let Some(v) = vars.get("PROMPTEVAL_LOG") {
            self.sources.env(&["log"], "PROMPTEVAL_LOG", &v);
            self.log = v;
        }
        Ok(())
    }

    /// The suite and the result folder, relative to the working directory.
    fn env_folders(&mut self, vars: &Vars, cwd: &Path) {
        if let Some(v) = vars.get("PROMPTEVAL_SUITE") {
            self.sources.env(&["suite"], "PROMPTEVAL_SUITE", &v);
            self.suite = cwd.join(v);
            self.suite_is_default = false;
        }
        if let Some(v) = vars.get("PROMPTEVAL_RESULT_DIR") {
            self.sources
                .env(&["result_dir"], "PROMPTEVAL_RESULT_DIR", &v);
            self.result_dir = cwd.join(v);
        }
    }

    /// Rounds, samples and requests in flight.
    fn env_counts(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        for (var, key, setting, what) in [
            ("PROMPTEVAL_ROUNDS", "rounds", &mut self.rounds, "rounds"),
            (
                "PROMPTEVAL_SAMPLES",
                "samples",
                &mut self.samples,
                "samples per case",
            ),
        ] {
            if let Some((n, v)) = vars.parse(var, count, || {
                format!("expected a whole number of {what}, at least one, e.g. {var}=3")
            })? {
                *setting = n;
                self.sources.env(&[key], var, &v);
            }
        }
        if let Some((n, v)) = vars.parse("PROMPTEVAL_CONCURRENCY", count, || {
            "expected the number of model requests in flight, >= 1, e.g. PROMPTEVAL_CONCURRENCY=4 (the server's parallel slots)".into()
        })? {
            self.concurrency = n;
            self.sources
                .env(&["concurrency"], "PROMPTEVAL_CONCURRENCY", &v);
        }
        Ok(())
    }

    /// How hard reasoning models think: over `[llm]` and every `[[models]]`
    /// table.
    fn env_think(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        if let Some((think, v)) = vars.parse("PROMPTEVAL_THINK", Think::parse, || {
            "expected true, false, low, medium or high, e.g. PROMPTEVAL_THINK=high".into()
        })? {
            self.llm.think = Some(think);
            for entry in &mut self.models {
                entry.think = Some(think);
            }
            self.sources.env(&["llm", "think"], "PROMPTEVAL_THINK", &v);
        }
        Ok(())
    }

    fn env_gate(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        const VAR: &str = "PROMPTEVAL_MIN_ACCURACY";
        if let Some(v) = vars.get(VAR) {
            let percent = Percent::parse(&v).map_err(|source| ConfigError::Threshold {
                var: VAR,
                value: v.clone(),
                source,
            })?;
            self.gate.min_accuracy = Some(percent);
            self.sources.env(&["gate", "min_accuracy"], VAR, &v);
        }
        // Relative to the current folder, as every path given on a
        // command line is.
        const BASELINE: &str = "PROMPTEVAL_BASELINE";
        if let Some(v) = vars.get(BASELINE) {
            self.gate.baseline = Some(PathBuf::from(v.trim()));
            self.sources.env(&["gate", "baseline"], BASELINE, &v);
        }
        Ok(())
    }

    /// The backend, the label language, and the servers' addresses.
    fn env_servers(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        if let Some((backend, v)) = vars.parse("PROMPTEVAL_BACKEND", BackendKind::parse, || {
            "expected one of: auto, ollama, openai, replay".into()
        })? {
            self.backend = backend;
            // The environment is over the file for every model: a
            // `[[models]]` table's `backend` must not undo
            // PROMPTEVAL_BACKEND=replay (each model then replays its own
            // recordings instead of asking its server).
            for m in &mut self.models {
                m.backend = None;
            }
            self.sources.env(&["backend"], "PROMPTEVAL_BACKEND", &v);
        }
        if let Some((language, v)) = vars.parse("PROMPTEVAL_LANGUAGE", Language::parse, || {
            "expected zh (the spec's Chinese labels) or en".into()
        })? {
            self.language = language;
            self.sources.env(&["language"], "PROMPTEVAL_LANGUAGE", &v);
        }
        if let Some(v) = vars.get("OLLAMA_HOST") {
            self.ollama_host = normalise_ollama_host(&v);
            self.sources.env(&["ollama", "host"], "OLLAMA_HOST", &v);
        }
        if let Some(v) = vars.get("PROMPTEVAL_BASE_URL") {
            self.openai_base_url = v.trim().trim_end_matches('/').to_string();
            self.sources
                .env(&["openai", "base_url"], "PROMPTEVAL_BASE_URL", &v);
        }
        Ok(())
    }

    /// The on/off switches: the response cache, the history, the variants,
    /// the race.
    fn env_switches(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        if let Some(value) = vars.get("PROMPTEVAL_SPEED") {
            // Once it skipped a timing run apart from the verdict; ParEval's
            // timing is now part of its verdict, so nothing can skip it.
            return Err(ConfigError::Env {
                var: "PROMPTEVAL_SPEED",
                value,
                message: "no longer exists: ParEval's timing loops are part of its verdict (as \
                          in ParEval's harness) and run in the same process as validate(); \
                          unset it ([cpp] pareval_run_timeout_secs bounds each run)"
                    .into(),
            });
        }
        for (var, key, setting) in [
            ("PROMPTEVAL_CACHE", &["cache"][..], &mut self.cache),
            (
                "PROMPTEVAL_HISTORY",
                &["history", "enabled"][..],
                &mut self.history.enabled,
            ),
            (
                "PROMPTEVAL_VARIANTS",
                &["variants", "enabled"][..],
                &mut self.variants.enabled,
            ),
            (
                "PROMPTEVAL_QUALIFY",
                &["variants", "qualify", "enabled"][..],
                &mut self.variants.qualify.enabled,
            ),
            (
                "PROMPTEVAL_THEMES",
                &["variants", "themes", "enabled"][..],
                &mut self.variants.themes.enabled,
            ),
            (
                "PROMPTEVAL_RACE",
                &["race", "enabled"][..],
                &mut self.race.enabled,
            ),
        ] {
            if let Some((on, v)) = vars.parse(var, on_off, || "expected on or off".into())? {
                *setting = on;
                self.sources.env(key, var, &v);
            }
        }
        Ok(())
    }

    /// The caps of `[budget]`: PROMPTEVAL_BUDGET_TOKENS, _COST, _WALL_SECS
    /// (a resumed run goes on with the cap they set now).
    fn env_budget(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        for (var, key, cap) in [
            (
                "PROMPTEVAL_BUDGET_TOKENS",
                "max_tokens",
                &mut self.budget.max_tokens,
            ),
            (
                "PROMPTEVAL_BUDGET_COST",
                "max_cost",
                &mut self.budget.max_cost,
            ),
            (
                "PROMPTEVAL_BUDGET_WALL_SECS",
                "max_wall_secs",
                &mut self.budget.max_wall_secs,
            ),
        ] {
            let positive = |t: &str| {
                t.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite() && *n > 0.0)
            };
            let expected =
                || format!("expected a number above 0 ([budget] {key}); unset it for no cap");
            if let Some((n, v)) = vars.parse(var, positive, expected)? {
                *cap = Some(n);
                self.sources.env(&["budget", key], var, &v);
            }
        }
        Ok(())
    }

    /// `PROMPTEVAL_MODELS=a,b` (these models, each with its `[[models]]`
    /// table if it has one, else the run's server) and `PROMPTEVAL_MODEL=x`
    /// (that one model, with its table's keys if it has one).
    fn env_models(&mut self, vars: &Vars) -> Result<(), ConfigError> {
        let (models, model) = (vars.get("PROMPTEVAL_MODELS"), vars.get("PROMPTEVAL_MODEL"));
        let table = |name: &str, models: &[ModelEntry]| {
            models
                .iter()
                .find(|m| m.label() == name)
                .or_else(|| models.iter().find(|m| m.name == name))
                .cloned()
                .unwrap_or_else(|| ModelEntry::named(name))
        };
        match (models, model) {
            (Some(list), Some(one)) => Err(ConfigError::Env {
                var: "PROMPTEVAL_MODELS",
                value: list,
                message: format!(
                    "PROMPTEVAL_MODEL={one} is set too; set one of them (PROMPTEVAL_MODEL for one model, PROMPTEVAL_MODELS=a,b for several)"
                ),
            }),
            (Some(list), None) => {
                let names: Vec<&str> = list.split(',').map(str::trim).collect();
                if names.iter().any(|n| n.is_empty()) {
                    return Err(ConfigError::Env {
                        var: "PROMPTEVAL_MODELS",
                        value: list.clone(),
                        message: "expected model names separated by commas, e.g. PROMPTEVAL_MODELS=qwen2.5-coder:1.5b,qwen2.5-coder:0.5b".into(),
                    });
                }
                if let Some(twice) = duplicate(names.iter().copied()) {
                    return Err(ConfigError::Env {
                        var: "PROMPTEVAL_MODELS",
                        value: list.clone(),
                        message: format!("`{twice}` is named twice; name each model once"),
                    });
                }
                self.models = names.iter().map(|n| table(n, &self.models)).collect();
                if let [only] = names.as_slice() {
                    self.model = only.to_string();
                }
                self.sources.env(&["models"], "PROMPTEVAL_MODELS", &list);
                self.sources.env(&["model"], "PROMPTEVAL_MODELS", &list);
                Ok(())
            }
            (None, Some(one)) => {
                let one = one.trim().to_string();
                self.models = match self
                    .models
                    .iter()
                    .any(|m| m.label() == one || m.name == one)
                {
                    true => vec![table(&one, &self.models)],
                    false => Vec::new(),
                };
                self.sources.env(&["models"], "PROMPTEVAL_MODEL", &one);
                self.sources.env(&["model"], "PROMPTEVAL_MODEL", &one);
                self.model = one;
                Ok(())
            }
            (None, None) => Ok(()),
        }
    }
}
