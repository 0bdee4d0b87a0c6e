//! Whether the decided settings make a run: ranges, required values, the
//! `[[models]]` tables, and gate keys that must name the suite's prompts
//! and the run's models. Each mistake names the config file, the line of
//! the key when the file set it (from the parser's spans, `locations.rs`),
//! and what to do.

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::model_tables::duplicate;
use super::schema::{Config, DEFAULT_SUITE, ModelEntry};

impl Config {
    /// The config file's path, or `harness.toml` when there is none.
    fn file_path(&self) -> PathBuf {
        self.source
            .clone()
            .unwrap_or_else(|| PathBuf::from("harness.toml"))
    }

    /// A mistake in the setting `key`, at its line when the file set it.
    /// An error about the value of `key`, located where it was set: for
    /// checks that need another layer's knowledge (a theme's code).
    pub fn key_error(&self, key: &[&str], message: String) -> ConfigError {
        self.file_error(key, message)
    }

    fn file_error(&self, key: &[&str], message: String) -> ConfigError {
        ConfigError::File {
            path: self.file_path(),
            line: self.sources.line(key),
            message,
        }
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.rounds == 0 {
            return Err(self.file_error(&["rounds"], "`rounds` must be at least 1".into()));
        }
        self.check_models()
            .map_err(|message| self.file_error(&["models"], message))?;
        if let Some((i, e)) = self
            .endpoints
            .iter()
            .enumerate()
            .find(|(_, e)| e.slots == 0 || e.url.trim().is_empty())
        {
            return Err(self.file_error(
                &["endpoints", &i.to_string()],
                format!(
                    "[[endpoints]] url = {:?}: each endpoint needs a url and slots >= 1 (its parallel requests)",
                    e.url
                ),
            ));
        }
        self.check_counts()?;
        if self.model.trim().is_empty() {
            return Err(self.file_error(
                &["model"],
                "`model` is empty; set it or PROMPTEVAL_MODEL, e.g. qwen2.5-coder:7b".into(),
            ));
        }
        self.check_ranges()?;
        self.check_gate_alpha()?;
        self.check_race()?;
        self.check_budget()
    }

    /// A run (not `prompteval plan`) prices its spending only to keep a
    /// cap: prices without one would be set for nothing a run does.
    pub fn check_prices_have_a_use(&self) -> Result<(), ConfigError> {
        let b = &self.budget;
        if b.prices().is_some() && !b.capped() {
            return Err(self.file_error(
                &["budget", "price_in"],
                "[budget] price_in and price_out are set without a cap: a run uses prices to keep [budget] max_cost (or PROMPTEVAL_BUDGET_COST); set a cap, or see what the run would cost with `prompteval plan` (`cargo run -- plan` in prompteval's repository)".into(),
            ));
        }
        Ok(())
    }

    /// Caps above zero, tokens whole, prices not negative and in pairs, a
    /// cost cap with its prices, and prices with a cap to price.
    fn check_budget(&self) -> Result<(), ConfigError> {
        let b = &self.budget;
        let err = |key: &str, message: String| self.file_error(&["budget", key], message);
        for (key, cap) in [
            ("max_tokens", b.max_tokens),
            ("max_cost", b.max_cost),
            ("max_wall_secs", b.max_wall_secs),
        ] {
            if let Some(n) = cap.filter(|n| !(n.is_finite() && *n > 0.0)) {
                return Err(err(
                    key,
                    format!(
                        "[budget] {key} = {n}: a cap must be above 0 (a cap of 0 or less would run nothing); leave it out for no cap"
                    ),
                ));
            }
        }
        if let Some(n) = b.max_tokens.filter(|n| n.fract() != 0.0) {
            return Err(err(
                "max_tokens",
                format!("[budget] max_tokens = {n}: tokens are counted whole; give a whole number"),
            ));
        }
        for (key, price) in [("price_in", b.price_in), ("price_out", b.price_out)] {
            if let Some(p) = price.filter(|p| !(p.is_finite() && *p >= 0.0)) {
                return Err(err(
                    key,
                    format!("[budget] {key} = {p}: a price per million tokens is 0 or more"),
                ));
            }
        }
        match (b.price_in, b.price_out) {
            (Some(_), None) => {
                return Err(err(
                    "price_in",
                    "[budget] price_in is set without price_out: give both prices per million tokens (prompt and reply), e.g. price_in = 0.15 and price_out = 0.60".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(err(
                    "price_out",
                    "[budget] price_out is set without price_in: give both prices per million tokens (prompt and reply), e.g. price_in = 0.15 and price_out = 0.60".into(),
                ));
            }
            _ => {}
        }
        if b.max_cost.is_some() && b.prices().is_none() {
            return Err(err(
                "max_cost",
                "[budget] max_cost needs the prices to count money by: set price_in and price_out (per million tokens) too".into(),
            ));
        }
        Ok(())
    }

    /// The race's level is a probability, and a race of no cases asks nothing.
    fn check_race(&self) -> Result<(), ConfigError> {
        let a = self.race.alpha;
        if !(a > 0.0 && a <= 0.5) {
            return Err(self.file_error(
                &["race", "alpha"],
                format!(
                    "[race] alpha = {a}: the chance of any wrong elimination is a probability in (0, 0.5], e.g. 0.05 (the default) or 0.01"
                ),
            ));
        }
        if self.race.max_cases == Some(0) {
            return Err(self.file_error(
                &["race", "max_cases"],
                "[race] max_cases = 0 would ask nothing; leave it out (no cap) or set at least one question's cases".into(),
            ));
        }
        Ok(())
    }

    /// The baseline's test level is a probability a team would call noise.
    fn check_gate_alpha(&self) -> Result<(), ConfigError> {
        match self.gate.alpha {
            Some(a) if !(a > 0.0 && a <= 0.5) => Err(self.file_error(
                &["gate", "alpha"],
                format!(
                    "[gate] alpha = {a}: the level of the baseline's paired test is a probability in (0, 0.5], e.g. 0.05 (the default) or 0.01"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Samples, pass@k and concurrency count something: at least 1.
    fn check_counts(&self) -> Result<(), ConfigError> {
        if self.samples == 0 {
            return Err(self.file_error(
                &["samples"],
                "`samples` must be at least 1 (replies drawn per case)".into(),
            ));
        }
        if self.pass_at_k.contains(&0) {
            return Err(self.file_error(
                &["pass_at_k"],
                "`pass_at_k` values must be at least 1, e.g. pass_at_k = [1, 5, 10]".into(),
            ));
        }
        if self.variants.p_top_tries == 0 {
            return Err(self.file_error(
                &["variants", "p_top_tries"],
                "`variants.p_top_tries` must be at least 1: it is how many texts the writer may write for one p_top until one passes the leak gate".into(),
            ));
        }
        let qualify = &self.variants.qualify;
        if qualify.samples == 0 {
            return Err(self.file_error(
                &["variants", "qualify", "samples"],
                "`variants.qualify.samples` must be at least 1: it is how many replies to each p_top the qualification gate judges".into(),
            ));
        }
        if !(qualify.min_pass > 0.0 && qualify.min_pass <= 1.0) {
            return Err(self.file_error(
                &["variants", "qualify", "min_pass"],
                format!(
                    "`variants.qualify.min_pass` is {}, outside (0, 1]: it is the least share of the samples that must pass, e.g. 0.8 as in the paper",
                    qualify.min_pass
                ),
            ));
        }
        if qualify
            .temperature
            .is_some_and(|t| !(t >= 0.0 && t.is_finite()))
        {
            return Err(self.file_error(
                &["variants", "qualify", "temperature"],
                "`variants.qualify.temperature` must be 0 or more".into(),
            ));
        }
        let themes = &self.variants.themes;
        if themes.enabled && !self.variants.enabled {
            return Err(self.file_error(
                &["variants", "themes", "enabled"],
                "`variants.themes.enabled` labels the prompt variants, but `variants.enabled` is off: there are none to label; turn on [variants] (PROMPTEVAL_VARIANTS=on) or turn the themes off (PROMPTEVAL_THEMES=off)".into(),
            ));
        }
        if themes
            .timeout_secs
            .is_some_and(|t| !(t > 0.0 && t.is_finite()))
        {
            return Err(self.file_error(
                &["variants", "themes", "timeout_secs"],
                "`variants.themes.timeout_secs` must be more than 0".into(),
            ));
        }
        if self.concurrency == 0 {
            return Err(self.file_error(
                &["concurrency"],
                "`concurrency` must be at least 1: it is how many model requests are in flight at once (the server's parallel slots)".into(),
            ));
        }
        Ok(())
    }

    /// Timeouts, the temperature and the sandbox's sizes.
    fn check_ranges(&self) -> Result<(), ConfigError> {
        let positive = [
            (["llm", "timeout_secs"], self.llm.timeout_secs),
            (["llm", "queue_timeout_secs"], self.llm.queue_timeout_secs),
            (["sandbox", "timeout_secs"], self.sandbox.timeout_secs),
            (
                ["cpp", "compile_timeout_secs"],
                self.cpp.compile_timeout_secs,
            ),
            (
                ["cpp", "pareval_run_timeout_secs"],
                self.cpp.pareval_run_timeout_secs,
            ),
        ];
        for (key, value) in positive {
            // Under a second no model answers and no compiler starts: a
            // unit slip (milliseconds), never a limit a run could keep.
            if !(value.is_finite() && value >= 1.0) {
                return Err(self.file_error(
                    &key,
                    format!(
                        "`{}` is {value}; it must be a number of seconds, at least 1",
                        key.join(".")
                    ),
                ));
            }
        }
        for (key, value) in [
            (["llm", "num_ctx"], self.llm.num_ctx),
            (["llm", "num_predict"], self.llm.num_predict),
        ] {
            if value == Some(0) {
                return Err(self.file_error(
                    &key,
                    format!(
                        "`{}` is 0; it must be at least 1 token (or leave it unset: a model \
                         that thinks then gets one fitted to its reasoning)",
                        key.join(".")
                    ),
                ));
            }
        }
        if !(0.0..=2.0).contains(&self.llm.temperature) {
            return Err(self.file_error(
                &["llm", "temperature"],
                format!(
                    "`llm.temperature` is {}; use a value between 0 and 2",
                    self.llm.temperature
                ),
            ));
        }
        if self.sandbox.output_limit_bytes == 0 || self.sandbox.memory_mb == 0 {
            let key = match self.sandbox.memory_mb {
                0 => "memory_mb",
                _ => "output_limit_bytes",
            };
            return Err(self.file_error(
                &["sandbox", key],
                "`sandbox.output_limit_bytes` and `sandbox.memory_mb` must be above 0".into(),
            ));
        }
        Ok(())
    }

    /// Why the suite file is missing when no suite was set: the default is
    /// prompteval's own example, which exists only in its repository (a
    /// crate that uses prompteval must name its suite). None when a suite
    /// was set or the default file exists.
    pub fn unset_suite_hint(&self, cwd: &Path) -> Option<String> {
        if !self.suite_is_default || self.suite.exists() {
            return None;
        }
        let config = match &self.source {
            Some(path) => format!("`suite = \"my-suite.json\"` in {}", path.display()),
            None => format!(
                "`suite = \"my-suite.json\"` in a harness.toml in {} (there is none: `cargo test` runs the tests in the package's root; or point PROMPTEVAL_CONFIG at your harness.toml)",
                cwd.display()
            ),
        };
        Some(format!(
            "no suite is set, and the default, {DEFAULT_SUITE} (the example in prompteval's own repository), is not here; set {config}, or PROMPTEVAL_SUITE=path/to/suite.json"
        ))
    }

    /// Every `[gate.prompts]` key (and each `[gate.models."m".prompts]`
    /// key) must name a prompt of the suite, and every `[gate.models."m"]`
    /// a model of harness.toml or of the run: a misspelt key would
    /// otherwise leave that prompt or model ungated.
    pub fn check_gate_prompts(&self, prompts: &[&str]) -> Result<(), ConfigError> {
        let mut models: Vec<String> = self.model_names();
        models.extend(self.declared_models.iter().cloned());
        let models: Vec<&str> = models.iter().map(String::as_str).collect();
        if let Some(unknown) = self
            .gate
            .models
            .keys()
            .find(|k| !models.contains(&k.as_str()))
        {
            return Err(self.file_error(
                &["gate", "models", unknown],
                format!(
                    "[gate.models.\"{unknown}\"] sets thresholds for a model that is neither in [[models]] nor the run's model{}; the models are: {}",
                    closest(&models, unknown),
                    models.join(", ")
                ),
            ));
        }
        let sections = std::iter::once((None, &self.gate.prompts)).chain(
            self.gate
                .models
                .iter()
                .map(|(m, g)| (Some(m.as_str()), &g.prompts)),
        );
        for (model, thresholds) in sections {
            if let Some(unknown) = thresholds.keys().find(|k| !prompts.contains(&k.as_str())) {
                let (section, key) = match model {
                    None => ("gate.prompts".to_string(), vec!["gate", "prompts", unknown]),
                    Some(m) => (
                        format!("gate.models.\"{m}\".prompts"),
                        vec!["gate", "models", m, "prompts", unknown],
                    ),
                };
                return Err(self.file_error(
                    &key,
                    format!(
                        "[{section}] has a threshold for `{unknown}`, which is not a prompt of the suite{}; its prompts are: {}",
                        closest(prompts, unknown),
                        prompts.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Each table names a model, once.
    pub(super) fn check_models(&self) -> Result<(), String> {
        if let Some((i, _)) = self
            .models
            .iter()
            .enumerate()
            .find(|(_, m)| m.name.trim().is_empty())
        {
            return Err(format!(
                "[[models]] number {} has no `name`; set it to the model's name on its server, e.g. name = \"qwen2.5-coder:1.5b\"",
                i + 1
            ));
        }
        if let Some(m) = self
            .models
            .iter()
            .find(|m| m.label.as_deref().is_some_and(|l| l.trim().is_empty()))
        {
            return Err(format!(
                "[[models]] `{}` has an empty `label`; leave it out (the label is then the name) or name the entry, e.g. label = \"{}-high\"",
                m.name, m.name
            ));
        }
        if let Some(twice) = duplicate(self.models.iter().map(ModelEntry::label)) {
            return Err(format!(
                "[[models]] names `{twice}` twice; give each table its own `label` (one model at two settings: label = \"{twice}-low\" and label = \"{twice}-high\")"
            ));
        }
        if let Some(m) = self.models.iter().find(|m| m.concurrency == Some(0)) {
            return Err(format!(
                "[[models]] `{}`: concurrency must be at least 1 (its server's parallel slots)",
                m.name
            ));
        }
        if let Some(m) = self.models.iter().find(|m| {
            m.endpoints
                .iter()
                .any(|e| e.slots == 0 || e.url.trim().is_empty())
        }) {
            return Err(format!(
                "[[models]] `{}`: each of its endpoints needs a url and slots >= 1",
                m.name
            ));
        }
        if let Some(m) = self
            .models
            .iter()
            .find(|m| m.url.is_some() && !m.endpoints.is_empty())
        {
            return Err(format!(
                "[[models]] `{}` sets both `url` and `endpoints`; keep one (endpoints: several servers of the model)",
                m.name
            ));
        }
        Ok(())
    }
}

/// " (did you mean `x`?)" for a name at most two edits from `unknown`.
fn closest(names: &[&str], unknown: &str) -> String {
    names
        .iter()
        .min_by_key(|p| strsim::levenshtein(p, unknown))
        .filter(|p| strsim::levenshtein(p, unknown) <= 2)
        .map(|p| format!(" (did you mean `{p}`?)"))
        .unwrap_or_default()
}
