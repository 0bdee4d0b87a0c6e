//! Several models in one run: `[[models]]` tables in harness.toml and
//! `PROMPTEVAL_MODELS=a,b`. Each model is run as if its own harness.toml
//! said so: [`Config::for_model`] gives the whole configuration of one
//! model, its table's keys over the run's values.
//!
//! One model (no table, one table, or `PROMPTEVAL_MODEL`) is a one-model
//! run exactly as before: case names, keys, folders and summary.json do not
//! change. Two or more make a multi-model run.

use super::schema::{BackendKind, Config, ModelEntry, normalise_ollama_host};
use super::sources::Source;

impl Config {
    /// The model's name on its server (a labelled table's `name`).
    pub fn server_model(&self) -> &str {
        self.served_model.as_deref().unwrap_or(&self.model)
    }

    /// Whether this run evaluates several models (case names then start
    /// with the model, and summary.json has `models`).
    pub fn is_multi_model(&self) -> bool {
        self.models.len() > 1
    }

    /// The models of the run in their order: `[[models]]` names, or the
    /// one `model`.
    pub fn model_names(&self) -> Vec<String> {
        if self.models.is_empty() {
            vec![self.model.clone()]
        } else {
            self.models.iter().map(|m| m.label().to_string()).collect()
        }
    }

    /// The configuration of one model: the run's, with its table's keys
    /// over it (and no `models`: it is a one-model configuration).
    pub fn for_model(&self, entry: &ModelEntry) -> Config {
        let mut c = self.clone();
        c.models = Vec::new();
        c.model = entry.label().to_string();
        c.served_model = (entry.label() != entry.name).then(|| entry.name.clone());
        if let Some(info) = &entry.model_info {
            c.model_info = Some(info.clone());
        }
        if let Some(backend) = entry.backend {
            c.backend = backend;
        }
        if let Some(url) = &entry.url {
            // Which of the two URLs it is depends on the model's backend;
            // setting both keeps `auto` (Ollama's host) and openai right.
            c.ollama_host = normalise_ollama_host(url);
            c.openai_base_url = url.trim().trim_end_matches('/').to_string();
            c.endpoints = Vec::new();
        }
        if !entry.endpoints.is_empty() {
            c.endpoints = entry.endpoints.clone();
            c.concurrency = entry.endpoints.iter().map(|e| e.slots).sum();
        }
        if let Some(n) = entry.concurrency {
            c.concurrency = n;
        }
        let llm = &mut c.llm;
        if let Some(v) = entry.temperature {
            llm.temperature = v;
        }
        if let Some(v) = entry.seed {
            llm.seed = Some(v);
        }
        if let Some(v) = entry.num_ctx {
            llm.num_ctx = Some(v);
        }
        if let Some(v) = entry.num_predict {
            llm.num_predict = Some(v);
        }
        if let Some(v) = &entry.keep_alive {
            llm.keep_alive = Some(v.clone());
        }
        if let Some(v) = entry.think {
            llm.think = Some(v);
        }
        if let Some(v) = entry.timeout_secs {
            llm.timeout_secs = v;
        }
        if let Some(v) = entry.queue_timeout_secs {
            llm.queue_timeout_secs = v;
        }
        if let Some(v) = &entry.system_prompt {
            llm.system_prompt = Some(v.clone());
        }
        // The table's keys are the model's `[llm]` keys: where each came
        // from, for what is decided later only when the user left a key
        // unset (a thinking model's budget, session/thinking.rs).
        let index = self.models.iter().position(|e| e.label() == entry.label());
        for (key, set) in [
            ("num_predict", entry.num_predict.is_some()),
            ("num_ctx", entry.num_ctx.is_some()),
            ("timeout_secs", entry.timeout_secs.is_some()),
        ] {
            if set {
                let table = index.map(|i| self.sources.of(&["models", &i.to_string(), key]));
                let source = table
                    .filter(|s| **s != Source::Default)
                    .cloned()
                    .unwrap_or(Source::File { line: 0 });
                c.sources.set(&["llm", key], source);
            }
        }
        c
    }

    /// Whether `[llm] key` (or the model's table) was set by the user,
    /// rather than left to its default.
    pub fn user_set(&self, key: &str) -> bool {
        *self.sources.of(&["llm", key]) != Source::Default
    }

    /// One configuration per model, in the run's order; a one-model run's
    /// is itself.
    pub fn model_configs(&self) -> Vec<Config> {
        match self.models.as_slice() {
            [] => vec![self.clone()],
            entries => entries.iter().map(|e| self.for_model(e)).collect(),
        }
    }

    /// A run of one `[[models]]` table is a one-model run of that model.
    pub fn settle_models(&mut self) {
        if let [only] = self.models.as_slice() {
            *self = self.for_model(&only.clone());
        }
    }
}

/// The first name that comes twice.
pub(super) fn duplicate<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

/// Which server a model's requests go to: models with the same key share
/// it and run one after another (one model resident at a time); models
/// with different keys run at once.
pub fn server_key(config: &Config) -> String {
    if !config.endpoints.is_empty() {
        let mut urls: Vec<&str> = config.endpoints.iter().map(|e| e.url.as_str()).collect();
        urls.sort_unstable();
        return urls.join(" ");
    }
    match config.backend {
        BackendKind::Openai => config.openai_base_url.clone(),
        BackendKind::Ollama | BackendKind::Auto => config.ollama_host.clone(),
        // Recordings ask no server: each model's replay is its own lane.
        BackendKind::Replay => format!("replay {}", config.model),
    }
}
