//! `harness.toml` plus `PROMPTEVAL_*` environment overrides -> [`Config`].
//!
//! Precedence: environment > harness.toml > built-in defaults. Relative paths
//! in harness.toml are relative to the file's folder; relative paths from the
//! environment are relative to the working directory (the package root under
//! `cargo test`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod models;
mod think;
pub use models::{ModelEntry, server_key};
pub use think::{Level, Think};

/// Which model server answers the cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// Ollama at OLLAMA_HOST when it answers, otherwise a replay of the
    /// recorded snapshots (announced).
    Auto,
    Ollama,
    Openai,
    Replay,
}

impl BackendKind {
    fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "ollama" => Some(Self::Ollama),
            "openai" => Some(Self::Openai),
            "replay" => Some(Self::Replay),
            _ => None,
        }
    }
}

/// A language of labels: top-level `language` for every label a user reads
/// (the console's lines, the table, the quick view, the `.py` headers; the
/// spec's Chinese by default), `[history] language` for the learning
/// history's labels (spec §3.2). The two are apart on purpose: the history
/// is part of the prompt, so its language changes what the model is asked
/// (and which recordings replay); the view's language changes nothing
/// measured. Machine-read names (summary.json keys, CSV columns, verdicts)
/// never change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Zh,
    En,
}

impl Language {
    /// The name harness.toml and a suite's settings use.
    pub fn name(self) -> &'static str {
        match self {
            Language::Zh => "zh",
            Language::En => "en",
        }
    }

    /// The language a [`name`](Language::name) names, in any case.
    pub fn parse(name: &str) -> Option<Language> {
        [Language::Zh, Language::En]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Options sent with every model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    pub temperature: f64,
    pub seed: Option<i64>,
    pub num_ctx: Option<u32>,
    pub num_predict: Option<u32>,
    /// Ollama's keep_alive, e.g. "5m"; ignored by OpenAI-compatible servers.
    pub keep_alive: Option<String>,
    /// How hard a reasoning model thinks (think.rs); None sends nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    /// Seconds an answer may take once the server started it (spec §4.2:
    /// 30 per call): counted from the response headers, which a server sends
    /// when it takes the request up, not while the request waits in its queue.
    pub timeout_secs: f64,
    /// Seconds a request may wait for the server to start answering (its
    /// queue, a model load). Generous: waiting costs the server nothing.
    pub queue_timeout_secs: f64,
    /// Retries after the first attempt on connection errors, timeouts and 5xx.
    pub retries: u32,
    /// First backoff in milliseconds; doubles per retry, with jitter.
    pub backoff_ms: u64,
    pub system_prompt: Option<String>,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            temperature: 0.0,
            seed: Some(42),
            num_ctx: Some(4096),
            num_predict: Some(1024),
            keep_alive: None,
            think: None,
            timeout_secs: 30.0,
            queue_timeout_secs: 600.0,
            retries: 3,
            backoff_ms: 500,
            system_prompt: None,
        }
    }
}

impl LlmConfig {
    /// The options of the `index`-th sample (0-based): its own seed,
    /// `seed + index`, so sample 0 asks what a run without samples asks.
    pub fn for_sample(&self, index: u32) -> LlmConfig {
        LlmConfig {
            seed: self.seed.map(|s| s.wrapping_add(i64::from(index))),
            ..self.clone()
        }
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_secs)
    }

    pub fn queue_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.queue_timeout_secs)
    }
}

/// One server of a pool (`[[endpoints]]`): its base URL (OpenAI-compatible,
/// `.../v1`) or Ollama host, per `backend`, and its parallel slots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    pub url: String,
    #[serde(default = "one_slot")]
    pub slots: usize,
}

fn one_slot() -> usize {
    1
}

/// PartialOrderEval's prompt variants (`[variants]`, see `variants`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VariantsConfig {
    /// Each question becomes its 41 variants plus the original
    /// (PROMPTEVAL_VARIANTS=on|off).
    pub enabled: bool,
    /// Decides the paragraph samples: the same seed, the same variants.
    pub seed: u64,
    pub writer: WriterConfig,
}

impl Default for VariantsConfig {
    fn default() -> Self {
        VariantsConfig {
            enabled: false,
            seed: 42,
            writer: WriterConfig::default(),
        }
    }
}

/// The model that writes p_top and the summaries (`[variants.writer]`);
/// each field defaults to the run's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WriterConfig {
    /// `ollama` or `openai`.
    pub backend: Option<BackendKind>,
    /// Ollama's host or the OpenAI-compatible base URL (`.../v1`).
    pub url: Option<String>,
    pub model: Option<String>,
    /// Seconds one text may take once the server started it: a p_top is
    /// several hundred tokens, longer than a case's reply (default: 120,
    /// or `llm.timeout_secs` when larger).
    pub timeout_secs: Option<f64>,
}

/// How much of the chain's history goes into each prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HistoryConfig {
    pub enabled: bool,
    /// Most recent entries kept (older ones are dropped first).
    pub max_entries: usize,
    /// Upper bound on the characters of the whole history block.
    pub max_chars: usize,
    /// Each earlier question is abbreviated to this many characters (most
    /// questions fit whole; the cap guards against pasted files).
    pub question_chars: usize,
    /// Each earlier answer (the extracted code) is abbreviated to this many characters.
    pub answer_chars: usize,
    pub language: Language,
    /// Leave out the oldest shown entries while a prompt would not fit
    /// `llm.num_ctx` with `llm.num_predict` left for the reply.
    pub fit_window: bool,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_entries: 10,
            max_chars: 6000,
            question_chars: 600,
            answer_chars: 300,
            language: Language::Zh,
            fit_window: true,
        }
    }
}

/// Limits for running generated code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxConfig {
    /// Interpreter: a name on PATH or a path; resolved once per run to the
    /// real executable (pyenv shims cost ~100 ms per start).
    pub python: String,
    pub timeout_secs: f64,
    /// Bytes kept of stdout and of stderr each; the rest is cut off.
    pub output_limit_bytes: u64,
    pub memory_mb: u64,
    pub cpu_secs: u64,
    pub max_processes: u64,
    pub max_file_mb: u64,
    pub max_open_files: u64,
    /// One warm interpreter per execution slot, forked per case with the
    /// same isolation (docs/internals/sandbox.md); false starts a fresh
    /// interpreter per case. Falls back to fresh, with a warning, where the
    /// warm one cannot start.
    pub warm: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            python: "python3".into(),
            timeout_secs: 10.0,
            output_limit_bytes: 1 << 20,
            memory_mb: 1024,
            cpu_secs: 20,
            max_processes: 64,
            max_file_mb: 64,
            max_open_files: 256,
            warm: true,
        }
    }
}

impl SandboxConfig {
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_secs)
    }
}

/// Accuracy thresholds in percent (the unit of summary.json).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    pub min_accuracy: Option<Percent>,
    /// Per-prompt thresholds; they override `min_accuracy` for that prompt.
    pub prompts: BTreeMap<String, Percent>,
    /// `[gate.models."name"]`: thresholds of one model of a multi-model
    /// run, over the run's (its prompts' first, then its `min_accuracy`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelGate>,
}

/// One model's thresholds (`[gate.models."qwen2.5-coder:0.5b"]`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelGate {
    pub min_accuracy: Option<Percent>,
    pub prompts: BTreeMap<String, Percent>,
}

/// A threshold in percent: `60`, `60.5` or `"60%"`. A bare number in (0, 1]
/// is refused as a likely fraction: `0.6` would gate at 0.6 %, which passes
/// every run, and a gate that never fails is the one mistake a CI gate must
/// not make silently (a warning scrolls past in CI logs). `"0.6%"` says 0.6
/// percent on purpose and is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Percent(pub f64);

/// A threshold that is not a percentage, with the text or number given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PercentError {
    /// The text (trimmed) is not a number, with or without `%`.
    #[error("{0:?} is not a percentage; write e.g. 75 or 75%")]
    NotANumber(String),
    #[error("{0} is not a percentage between 0 and 100; write e.g. 75 or 75%")]
    OutOfRange(f64),
    /// A bare number in (0, 1]: likely a fraction, `meant` percent.
    #[error(
        "{value} looks like a fraction, but thresholds are percentages: it would gate at {value} %. Did you mean {meant}? Write {meant} (or \"{value}%\" if you do mean {value} percent)",
        meant = fraction_as_percent(*.value)
    )]
    Fraction { value: f64 },
}

/// 0.6 -> 60, without the float noise of the multiplication.
fn fraction_as_percent(value: f64) -> f64 {
    (value * 100.0 * 1e6).round() / 1e6
}

impl Percent {
    /// Parses `75`, `75.5` or `75%` (from the environment or a TOML string).
    pub fn parse(text: &str) -> Result<Percent, PercentError> {
        let trimmed = text.trim();
        let (number, sign) = match trimmed.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (trimmed, false),
        };
        let value: f64 = number
            .parse()
            .map_err(|_| PercentError::NotANumber(trimmed.to_string()))?;
        Percent::checked(value, sign)
    }

    fn checked(value: f64, percent_sign: bool) -> Result<Percent, PercentError> {
        if !(value.is_finite() && (0.0..=100.0).contains(&value)) {
            return Err(PercentError::OutOfRange(value));
        }
        if !percent_sign && value > 0.0 && value <= 1.0 {
            return Err(PercentError::Fraction { value });
        }
        Ok(Percent(value))
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Percent::checked(n, false),
            Raw::Text(t) => Percent::parse(&t),
        }
        .map_err(serde::de::Error::custom)
    }
}

/// The run settings a suite may carry: those that belong to the benchmark
/// (how its prompts are built and its answers sampled), not to the machine
/// (servers, timeouts, limits stay in harness.toml).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunSettings {
    /// `history.enabled`: HumanEval and the paper's variants run without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<bool>,
    /// `history.language`: the labels of the learning history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// `llm.temperature`: pass@1 at 0, pass@k sampled (Chen et al. 0.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass_at_k: Option<Vec<usize>>,
}

impl RunSettings {
    pub fn is_empty(&self) -> bool {
        *self == RunSettings::default()
    }
}

/// The whole configuration of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// `language` / PROMPTEVAL_LANGUAGE: the labels a user reads.
    pub language: Language,
    pub suite: PathBuf,
    /// Neither harness.toml nor PROMPTEVAL_SUITE named a suite, so `suite`
    /// is [`DEFAULT_SUITE`] (prompteval's own example) in the config's folder.
    #[serde(skip)]
    pub suite_is_default: bool,
    /// The model's name in the run (a `[[models]]` table's `label`).
    pub model: String,
    /// The name its server knows it by, where a `label` differs from it.
    #[serde(skip)]
    pub served_model: Option<String>,
    /// Free text recorded with each reply snapshot: quantisation, server and
    /// its flags (what the model name alone does not say).
    pub model_info: Option<String>,
    pub rounds: u32,
    /// Replies drawn per case (`samples`, PROMPTEVAL_SAMPLES), each with its
    /// own seed (`llm.seed` + sample - 1), cache key and journal line: the
    /// n of pass@k. 1: no sample dimension (case names end in `::rN`).
    pub samples: u32,
    pub result_dir: PathBuf,
    pub backend: BackendKind,
    /// Ollama base URL, normalised from OLLAMA_HOST's `host:port` or URL forms.
    pub ollama_host: String,
    /// OpenAI-compatible base URL, ending in `/v1`.
    pub openai_base_url: String,
    /// Where the insta snapshots of the replies live (one folder per suite).
    pub snapshot_dir: PathBuf,
    pub test_threads: Option<usize>,
    /// Model requests in flight at once: the server's parallel slots
    /// (OLLAMA_NUM_PARALLEL, llama-server's -np, vLLM's batch).
    pub concurrency: usize,
    /// Several servers of the model (`[[endpoints]]`), sharing the load:
    /// `concurrency` is then the sum of their slots.
    pub endpoints: Vec<Endpoint>,
    /// `[[models]]` / PROMPTEVAL_MODELS: the models of a multi-model run
    /// (two or more; one table is settled into a one-model run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelEntry>,
    /// The `[[models]]` labels (else names) of the file, whichever the environment picked:
    /// a gate may name any of them.
    #[serde(skip)]
    pub declared_models: Vec<String>,
    /// tracing filter, e.g. "info" or "prompteval=debug".
    pub log: String,
    /// Answer repeated identical requests from the response cache.
    pub cache: bool,
    /// The k of the pass@k figures reported (each where every question
    /// has at least k rounds).
    pub pass_at_k: Vec<usize>,
    pub llm: LlmConfig,
    pub history: HistoryConfig,
    pub variants: VariantsConfig,
    pub sandbox: SandboxConfig,
    pub gate: GateConfig,
    /// Where this configuration came from, for messages.
    pub source: Option<PathBuf>,
}

/// The paper's (and Chen et al.'s) k values.
pub const DEFAULT_PASS_AT_K: [usize; 3] = [1, 5, 10];

/// The file format: every field optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    language: Option<Language>,
    suite: Option<PathBuf>,
    model: Option<String>,
    model_info: Option<String>,
    rounds: Option<u32>,
    samples: Option<u32>,
    result_dir: Option<PathBuf>,
    backend: Option<BackendKind>,
    snapshot_dir: Option<PathBuf>,
    test_threads: Option<usize>,
    concurrency: Option<usize>,
    #[serde(default)]
    endpoints: Vec<Endpoint>,
    #[serde(default)]
    models: Vec<ModelEntry>,
    log: Option<String>,
    cache: Option<bool>,
    pass_at_k: Option<Vec<usize>>,
    #[serde(default)]
    ollama: OllamaSection,
    #[serde(default)]
    openai: OpenaiSection,
    #[serde(default)]
    llm: LlmConfig,
    #[serde(default)]
    history: HistoryConfig,
    #[serde(default)]
    variants: VariantsConfig,
    #[serde(default)]
    sandbox: SandboxConfig,
    #[serde(default)]
    gate: GateConfig,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OllamaSection {
    host: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenaiSection {
    base_url: Option<String>,
}

/// The suite when none is set: the spec's example, which prompteval's own
/// repository has; anywhere else `suite` must be set.
pub const DEFAULT_SUITE: &str = "benches-data/example.json";
pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";
pub const DEFAULT_OPENAI_BASE_URL: &str = "http://127.0.0.1:8088/v1";
pub const DEFAULT_MODEL: &str = "qwen2.5-coder:1.5b";
/// One request in flight unless told otherwise: the per-call timeout still
/// counts time spent in the server's queue, so more requests than the
/// server has slots would time out on a slow server and be counted as
/// failures. Set `concurrency` to the server's slots to keep it full.
pub const DEFAULT_CONCURRENCY: usize = 1;

/// A configuration mistake, with where it is and what to do.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// A problem inside a config file; `line` is 1-based when known.
    File {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// A bad environment variable value.
    Env {
        var: &'static str,
        value: String,
        message: String,
    },
    /// An environment variable's threshold that is not a percentage.
    Threshold {
        var: &'static str,
        value: String,
        source: PercentError,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::File {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            ConfigError::File {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
            ConfigError::Env {
                var,
                value,
                message,
            } => write!(f, "environment variable {var}={value:?}: {message}"),
            ConfigError::Threshold { var, value, source } => {
                write!(f, "environment variable {var}={value:?}: {source}")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Threshold { source, .. } => Some(source),
            _ => None,
        }
    }
}

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

impl Config {
    /// Loads the configuration: `PROMPTEVAL_CONFIG` or `./harness.toml` when
    /// present, then the environment overrides.
    pub fn load(env: &dyn Env, cwd: &Path) -> Result<Config, ConfigError> {
        let explicit = env.var("PROMPTEVAL_CONFIG").filter(|v| !v.is_empty());
        let path = match &explicit {
            Some(p) => Some(cwd.join(p)),
            None => Some(cwd.join("harness.toml")).filter(|p| p.exists()),
        };
        let (file, base) = match &path {
            Some(path) => {
                let bytes = std::fs::read(path).map_err(|e| ConfigError::File {
                    path: path.clone(),
                    line: None,
                    message: format!(
                        "cannot read the config file: {e}; check PROMPTEVAL_CONFIG or create harness.toml"
                    ),
                })?;
                let text = String::from_utf8(bytes).map_err(|e| ConfigError::File {
                    path: path.clone(),
                    line: Some(line_of_offset_bytes(
                        e.as_bytes(),
                        e.utf8_error().valid_up_to(),
                    )),
                    message: "the file is not valid UTF-8; save it as UTF-8".into(),
                })?;
                let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
                (parse_file(path, &text)?, base)
            }
            None => (ConfigFile::default(), cwd.to_path_buf()),
        };
        let mut config = Config::from_file(file, &base, path.clone());
        config.apply_env(env, cwd)?;
        config.validate()?;
        Ok(config)
    }

    fn from_file(file: ConfigFile, base: &Path, source: Option<PathBuf>) -> Config {
        let rel = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        Config {
            language: file.language.unwrap_or_default(),
            suite_is_default: file.suite.is_none(),
            suite: rel(file.suite.unwrap_or_else(|| PathBuf::from(DEFAULT_SUITE))),
            model: file.model.unwrap_or_else(|| DEFAULT_MODEL.into()),
            served_model: None,
            model_info: file.model_info,
            rounds: file.rounds.unwrap_or(1),
            samples: file.samples.unwrap_or(1),
            result_dir: rel(file.result_dir.unwrap_or_else(|| PathBuf::from("result"))),
            backend: file.backend.unwrap_or(BackendKind::Auto),
            ollama_host: file
                .ollama
                .host
                .map(|h| normalise_ollama_host(&h))
                .unwrap_or_else(|| DEFAULT_OLLAMA_HOST.into()),
            openai_base_url: file
                .openai
                .base_url
                .map(|u| u.trim_end_matches('/').to_string())
                .unwrap_or_else(|| DEFAULT_OPENAI_BASE_URL.into()),
            snapshot_dir: rel(file
                .snapshot_dir
                .unwrap_or_else(|| PathBuf::from("tests/snapshots"))),
            test_threads: file.test_threads,
            concurrency: match file.endpoints.iter().map(|e| e.slots).sum::<usize>() {
                0 => file.concurrency.unwrap_or(DEFAULT_CONCURRENCY),
                slots => slots,
            },
            endpoints: file.endpoints,
            declared_models: file.models.iter().map(|m| m.label().to_string()).collect(),
            models: file.models,
            log: file.log.unwrap_or_else(|| "info".into()),
            cache: file.cache.unwrap_or(true),
            pass_at_k: file.pass_at_k.unwrap_or_else(|| DEFAULT_PASS_AT_K.to_vec()),
            llm: file.llm,
            history: file.history,
            variants: file.variants,
            sandbox: file.sandbox,
            gate: file.gate,
            source,
        }
    }

    fn apply_env(&mut self, env: &dyn Env, cwd: &Path) -> Result<(), ConfigError> {
        let get = |name: &str| env.var(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = get("PROMPTEVAL_SUITE") {
            self.suite = cwd.join(v);
            self.suite_is_default = false;
        }
        self.apply_model_env(get("PROMPTEVAL_MODELS"), get("PROMPTEVAL_MODEL"))?;
        if let Some(v) = get("PROMPTEVAL_MODEL_INFO") {
            self.model_info = Some(v.trim().to_string());
        }
        for (var, setting, what) in [
            ("PROMPTEVAL_ROUNDS", &mut self.rounds, "rounds"),
            ("PROMPTEVAL_SAMPLES", &mut self.samples, "samples per case"),
        ] {
            if let Some(v) = get(var) {
                *setting =
                    v.trim()
                        .parse()
                        .ok()
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| ConfigError::Env {
                            var,
                            value: v.clone(),
                            message: format!(
                                "expected a whole number of {what}, at least one, e.g. {var}=3"
                            ),
                        })?;
            }
        }
        if let Some(v) = get("PROMPTEVAL_CONCURRENCY") {
            self.concurrency = v
                .trim()
                .parse()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| ConfigError::Env {
                    var: "PROMPTEVAL_CONCURRENCY",
                    value: v.clone(),
                    message: "expected the number of model requests in flight, >= 1, e.g. PROMPTEVAL_CONCURRENCY=4 (the server's parallel slots)".into(),
                })?;
        }
        if let Some(v) = get("PROMPTEVAL_THINK") {
            let think = Think::parse(&v).ok_or_else(|| ConfigError::Env {
                var: "PROMPTEVAL_THINK",
                value: v.clone(),
                message: "expected true, false, low, medium or high, e.g. PROMPTEVAL_THINK=high"
                    .into(),
            })?;
            // Over the file: [llm] and every [[models]] table.
            self.llm.think = Some(think);
            for entry in &mut self.models {
                entry.think = Some(think);
            }
        }
        if let Some(v) = get("PROMPTEVAL_RESULT_DIR") {
            self.result_dir = cwd.join(v);
        }
        if let Some(v) = get("PROMPTEVAL_MIN_ACCURACY") {
            self.gate.min_accuracy =
                Some(Percent::parse(&v).map_err(|source| ConfigError::Threshold {
                    var: "PROMPTEVAL_MIN_ACCURACY",
                    value: v.clone(),
                    source,
                })?);
        }
        if let Some(v) = get("PROMPTEVAL_BACKEND") {
            self.backend = BackendKind::parse(&v).ok_or_else(|| ConfigError::Env {
                var: "PROMPTEVAL_BACKEND",
                value: v.clone(),
                message: "expected one of: auto, ollama, openai, replay".into(),
            })?;
            // The environment is over the file for every model: a
            // `[[models]]` table's `backend` must not undo
            // PROMPTEVAL_BACKEND=replay (each model then replays its own
            // recordings instead of asking its server).
            for m in &mut self.models {
                m.backend = None;
            }
        }
        if let Some(v) = get("PROMPTEVAL_LANGUAGE") {
            self.language = Language::parse(&v).ok_or_else(|| ConfigError::Env {
                var: "PROMPTEVAL_LANGUAGE",
                value: v.clone(),
                message: "expected zh (the spec's Chinese labels) or en".into(),
            })?;
        }
        if let Some(v) = get("OLLAMA_HOST") {
            self.ollama_host = normalise_ollama_host(&v);
        }
        if let Some(v) = get("PROMPTEVAL_BASE_URL") {
            self.openai_base_url = v.trim().trim_end_matches('/').to_string();
        }
        for (var, setting) in [
            ("PROMPTEVAL_CACHE", &mut self.cache),
            ("PROMPTEVAL_HISTORY", &mut self.history.enabled),
            ("PROMPTEVAL_VARIANTS", &mut self.variants.enabled),
        ] {
            if let Some(v) = get(var) {
                *setting = match v.trim().to_ascii_lowercase().as_str() {
                    "on" | "true" | "1" | "yes" => true,
                    "off" | "false" | "0" | "no" => false,
                    _ => {
                        return Err(ConfigError::Env {
                            var,
                            value: v.clone(),
                            message: "expected on or off".into(),
                        });
                    }
                };
            }
        }
        if let Some(v) = get("PROMPTEVAL_LOG") {
            self.log = v;
        }
        Ok(())
    }

    /// Applies a suite's run settings (`settings` in the suite file) over
    /// harness.toml: the environment > the suite > harness.toml > defaults.
    /// Returns one line per setting the suite set: its value and where the
    /// value in force came from, for the run's first lines.
    pub fn apply_suite(&mut self, suite: &RunSettings, env: &dyn Env) -> Vec<String> {
        let mut lines = Vec::new();
        // Notes the suite's value and says whether it applies: not when
        // the environment variable that overrides it is set.
        let mut applies = |name: &str, value: String, var: Option<&str>| {
            let overriding = var.and_then(|var| {
                env.var(var)
                    .filter(|v| !v.trim().is_empty())
                    .map(|v| format!("; {var}={} overrides it", v.trim()))
            });
            lines.push(format!(
                "{name} = {value} (the suite's setting{})",
                overriding.as_deref().unwrap_or("")
            ));
            overriding.is_none()
        };
        if let Some(v) = suite.history
            && applies(
                "history",
                if v { "on" } else { "off" }.into(),
                Some("PROMPTEVAL_HISTORY"),
            )
        {
            self.history.enabled = v;
        }
        if let Some(v) = suite.language
            && applies("language", v.name().into(), None)
        {
            self.history.language = v;
        }
        if let Some(v) = suite.rounds
            && applies("rounds", v.to_string(), Some("PROMPTEVAL_ROUNDS"))
        {
            self.rounds = v;
        }
        if let Some(v) = suite.samples
            && applies("samples", v.to_string(), Some("PROMPTEVAL_SAMPLES"))
        {
            self.samples = v;
        }
        if let Some(v) = suite.temperature
            && applies("temperature", v.to_string(), None)
        {
            self.llm.temperature = v;
        }
        if let Some(v) = &suite.pass_at_k
            && applies("pass_at_k", format!("{v:?}"), None)
        {
            self.pass_at_k = v.clone();
        }
        lines
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let file_err = |message: String| ConfigError::File {
            path: self
                .source
                .clone()
                .unwrap_or_else(|| PathBuf::from("harness.toml")),
            line: None,
            message,
        };
        if self.rounds == 0 {
            return Err(file_err("`rounds` must be at least 1".into()));
        }
        self.check_models().map_err(file_err)?;
        if let Some(e) = self
            .endpoints
            .iter()
            .find(|e| e.slots == 0 || e.url.trim().is_empty())
        {
            return Err(file_err(format!(
                "[[endpoints]] url = {:?}: each endpoint needs a url and slots >= 1 (its parallel requests)",
                e.url
            )));
        }
        if self.samples == 0 {
            return Err(file_err(
                "`samples` must be at least 1 (replies drawn per case)".into(),
            ));
        }
        if self.pass_at_k.contains(&0) {
            return Err(file_err(
                "`pass_at_k` values must be at least 1, e.g. pass_at_k = [1, 5, 10]".into(),
            ));
        }
        if self.concurrency == 0 {
            return Err(file_err(
                "`concurrency` must be at least 1: it is how many model requests are in flight at once (the server's parallel slots)".into(),
            ));
        }
        if self.model.trim().is_empty() {
            return Err(file_err(
                "`model` is empty; set it or PROMPTEVAL_MODEL, e.g. qwen2.5-coder:7b".into(),
            ));
        }
        let positive = [
            ("llm.timeout_secs", self.llm.timeout_secs),
            ("llm.queue_timeout_secs", self.llm.queue_timeout_secs),
            ("sandbox.timeout_secs", self.sandbox.timeout_secs),
        ];
        for (key, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(file_err(format!(
                    "`{key}` is {value}; it must be a positive number of seconds"
                )));
            }
        }
        if !(0.0..=2.0).contains(&self.llm.temperature) {
            return Err(file_err(format!(
                "`llm.temperature` is {}; use a value between 0 and 2",
                self.llm.temperature
            )));
        }
        if self.sandbox.output_limit_bytes == 0 || self.sandbox.memory_mb == 0 {
            return Err(file_err(
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

    /// The threshold that applies to a prompt, if any.
    pub fn threshold_for(&self, prompt: &str) -> Option<f64> {
        self.gate
            .prompts
            .get(prompt)
            .or(self.gate.min_accuracy.as_ref())
            .map(|p| p.0)
    }

    /// The threshold of a prompt on one model of a multi-model run: the
    /// model's own for the prompt, the model's `min_accuracy`, then the run's.
    pub fn threshold_for_model(&self, model: &str, prompt: &str) -> Option<f64> {
        let own = self.gate.models.get(model);
        own.and_then(|g| g.prompts.get(prompt))
            .or_else(|| own.and_then(|g| g.min_accuracy.as_ref()))
            .map(|p| p.0)
            .or_else(|| self.threshold_for(prompt))
    }

    /// Every `[gate.prompts]` key (and each `[gate.models."m".prompts]`
    /// key) must name a prompt of the suite, and every `[gate.models."m"]`
    /// a model of harness.toml or of the run: a misspelt key would
    /// otherwise leave that prompt or model ungated.
    pub fn check_gate_prompts(&self, prompts: &[&str]) -> Result<(), ConfigError> {
        let path = self
            .source
            .clone()
            .unwrap_or_else(|| PathBuf::from("harness.toml"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let closest = |names: &[&str], unknown: &str| {
            names
                .iter()
                .min_by_key(|p| strsim::levenshtein(p, unknown))
                .filter(|p| strsim::levenshtein(p, unknown) <= 2)
                .map(|p| format!(" (did you mean `{p}`?)"))
                .unwrap_or_default()
        };
        let mut models: Vec<String> = self.model_names();
        models.extend(self.declared_models.iter().cloned());
        let models: Vec<&str> = models.iter().map(String::as_str).collect();
        if let Some(unknown) = self
            .gate
            .models
            .keys()
            .find(|k| !models.contains(&k.as_str()))
        {
            return Err(ConfigError::File {
                line: gate_key_line(&text, &format!("gate.models.\"{unknown}\""), None),
                path,
                message: format!(
                    "[gate.models.\"{unknown}\"] sets thresholds for a model that is neither in [[models]] nor the run's model{}; the models are: {}",
                    closest(&models, unknown),
                    models.join(", ")
                ),
            });
        }
        let sections = std::iter::once(("gate.prompts".to_string(), &self.gate.prompts)).chain(
            self.gate
                .models
                .iter()
                .map(|(m, g)| (format!("gate.models.\"{m}\".prompts"), &g.prompts)),
        );
        for (section, thresholds) in sections {
            if let Some(unknown) = thresholds.keys().find(|k| !prompts.contains(&k.as_str())) {
                return Err(ConfigError::File {
                    line: gate_key_line(&text, &section, Some(unknown)),
                    path,
                    message: format!(
                        "[{section}] has a threshold for `{unknown}`, which is not a prompt of the suite{}; its prompts are: {}",
                        closest(prompts, unknown),
                        prompts.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }
}

fn parse_file(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of_offset(text, s.start));
        // toml's message says what is wrong with a value but not which key
        // it belongs to: quote the line so the user sees both.
        let quoted = line
            .and_then(|n| text.lines().nth(n - 1))
            .map(|l| format!(" (in `{}`)", l.trim()))
            .unwrap_or_default();
        ConfigError::File {
            path: path.to_path_buf(),
            line,
            message: format!(
                "{}{quoted}; fix it there (prompteval's own harness.toml documents every key), or point PROMPTEVAL_CONFIG at another file",
                e.message().trim()
            ),
        }
    })
}

/// 1-based line of a byte offset.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
    line_of_offset_bytes(text.as_bytes(), offset)
}

fn line_of_offset_bytes(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The 1-based line of `key = ...` inside `[gate.prompts]`.
/// The line of `key` in table `section` (dotted or under its header), or
/// of the header itself when `key` is None.
fn gate_key_line(text: &str, section: &str, key: Option<&str>) -> Option<usize> {
    let mut in_section = false;
    let dotted_prefix = format!("{section}.");
    let short_prefix = section.strip_prefix("gate.").map(|s| format!("{s}."));
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line.trim_start_matches('[').trim_end_matches(']').trim() == section;
            if in_section && key.is_none() {
                return Some(i + 1);
            }
            continue;
        }
        let Some(key) = key else { continue };
        let name = line
            .split('=')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"');
        let dotted = line.starts_with(&dotted_prefix)
            || short_prefix
                .as_ref()
                .is_some_and(|p| line.starts_with(p.as_str()));
        if (in_section && name == key) || (dotted && name.ends_with(&format!(".{key}"))) {
            return Some(i + 1);
        }
    }
    None
}

/// OLLAMA_HOST follows Ollama's own convention: `host`, `host:port`, `:port`
/// or a full URL; the default scheme is http and the default port 11434.
pub fn normalise_ollama_host(raw: &str) -> String {
    let raw = raw.trim().trim_end_matches('/');
    let (scheme, rest) = match raw.split_once("://") {
        Some((s, r)) => (s.to_string(), r.to_string()),
        None => ("http".to_string(), raw.to_string()),
    };
    let (hostport, path) = match rest.find('/') {
        Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
        None => (rest, String::new()),
    };
    let has_port = if hostport.starts_with('[') {
        hostport.contains("]:")
    } else {
        hostport.contains(':')
    };
    let hostport = if hostport.is_empty() {
        "127.0.0.1:11434".to_string()
    } else if hostport.starts_with(':') {
        format!("127.0.0.1{hostport}")
    } else if has_port {
        hostport
    } else {
        let default_port = match scheme.as_str() {
            "https" => 443,
            _ => 11434,
        };
        format!("{hostport}:{default_port}")
    };
    // 0.0.0.0 is a listen address; connect to loopback instead, as the ollama CLI does.
    let hostport = hostport.replacen("0.0.0.0", "127.0.0.1", 1);
    format!("{scheme}://{hostport}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(env: &dyn Env, toml: Option<&str>) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        if let Some(toml) = toml {
            std::fs::write(dir.path().join("harness.toml"), toml).unwrap();
        }
        Config::load(env, dir.path())
    }

    #[test]
    fn defaults_without_a_file() {
        let c = load(&[("X", "")], None).unwrap();
        assert_eq!(c.rounds, 1);
        assert_eq!(c.backend, BackendKind::Auto);
        assert_eq!(c.llm.timeout_secs, 30.0);
        assert_eq!(c.sandbox.timeout_secs, 10.0);
        assert!(c.suite.ends_with("benches-data/example.json"));
        assert!(c.suite_is_default);
    }

    #[test]
    fn a_missing_default_suite_says_to_set_one() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(&[("X", "")], dir.path()).unwrap();
        let hint = c.unset_suite_hint(dir.path()).unwrap();
        assert!(hint.contains("no suite is set"), "{hint}");
        assert!(hint.contains("there is none"), "{hint}");
        assert!(hint.contains(&dir.path().display().to_string()), "{hint}");

        std::fs::write(dir.path().join("harness.toml"), "model = \"m\"\n").unwrap();
        let c = Config::load(&[("X", "")], dir.path()).unwrap();
        let hint = c.unset_suite_hint(dir.path()).unwrap();
        assert!(
            hint.contains(&format!("in {}", dir.path().join("harness.toml").display())),
            "{hint}"
        );
        assert!(hint.contains("PROMPTEVAL_SUITE"), "{hint}");

        // A suite that was set is reported as it is: no hint.
        let c = Config::load(&[("PROMPTEVAL_SUITE", "mine.json")], dir.path()).unwrap();
        assert!(!c.suite_is_default);
        assert_eq!(c.unset_suite_hint(dir.path()), None);
        std::fs::write(dir.path().join("harness.toml"), "suite = \"s.json\"\n").unwrap();
        let c = Config::load(&[("X", "")], dir.path()).unwrap();
        assert_eq!(c.unset_suite_hint(dir.path()), None);
    }

    #[test]
    fn env_overrides_file() {
        let c = load(
            &[
                ("PROMPTEVAL_MODEL", "llama3"),
                ("PROMPTEVAL_ROUNDS", "5"),
                ("PROMPTEVAL_MIN_ACCURACY", "70%"),
                ("PROMPTEVAL_BACKEND", "replay"),
                ("OLLAMA_HOST", "example.org"),
            ],
            Some("model = \"x\"\nrounds = 2\n"),
        )
        .unwrap();
        assert_eq!(c.model, "llama3");
        assert_eq!(c.rounds, 5);
        assert_eq!(c.gate.min_accuracy, Some(Percent(70.0)));
        assert_eq!(c.backend, BackendKind::Replay);
        assert_eq!(c.ollama_host, "http://example.org:11434");
    }

    #[test]
    fn samples_and_variants_come_from_the_file_or_the_environment() {
        let c = load(
            &[("PROMPTEVAL_SAMPLES", "10"), ("PROMPTEVAL_VARIANTS", "on")],
            Some("samples = 3\n[variants]\nseed = 7\n[variants.writer]\nmodel = \"w\"\n"),
        )
        .unwrap();
        assert_eq!(c.samples, 10);
        assert!(c.variants.enabled);
        assert_eq!(c.variants.seed, 7);
        assert_eq!(c.variants.writer.model.as_deref(), Some("w"));
        let e = load(&[("PROMPTEVAL_SAMPLES", "0")], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PROMPTEVAL_SAMPLES") && e.contains("at least one"),
            "{e}"
        );
        let e = load(&[("X", "")], Some("samples = 0\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`samples`"), "{e}");
        // The repository's harness.toml documents the defaults.
        let shipped = Config::load(&[("X", "")], Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert_eq!(shipped.samples, 1);
        assert_eq!(shipped.variants, VariantsConfig::default());
    }

    #[test]
    fn endpoints_set_the_concurrency_to_their_slots() {
        let c = load(
            &[("X", "")],
            Some("concurrency = 2\n[[endpoints]]\nurl = \"http://a:8000/v1\"\nslots = 8\n[[endpoints]]\nurl = \"http://b:8000/v1\"\n"),
        )
        .unwrap();
        assert_eq!(c.concurrency, 9);
        assert_eq!(c.endpoints.len(), 2);
        let e = load(
            &[("X", "")],
            Some("[[endpoints]]\nurl = \"http://a\"\nslots = 0\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("slots >= 1"), "{e}");
    }

    #[test]
    fn bad_rounds_names_the_variable() {
        let e = load(&[("PROMPTEVAL_ROUNDS", "abc")], None).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("PROMPTEVAL_ROUNDS"), "{msg}");
        assert!(msg.contains("abc"), "{msg}");
    }

    #[test]
    fn unknown_key_names_its_line() {
        let e = load(
            &[("X", "")],
            Some("model = \"m\"\n\n[llm]\ntemprature = 0.5\n"),
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("harness.toml:4:"), "{msg}");
        assert!(msg.contains("temprature"), "{msg}");
    }

    #[test]
    fn negative_timeout_is_rejected() {
        let e = load(&[("X", "")], Some("[sandbox]\ntimeout_secs = -1\n")).unwrap_err();
        assert!(e.to_string().contains("sandbox.timeout_secs"), "{e}");
    }

    #[test]
    fn ollama_host_forms() {
        assert_eq!(normalise_ollama_host("localhost"), "http://localhost:11434");
        assert_eq!(
            normalise_ollama_host("0.0.0.0:8080"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(normalise_ollama_host(":9999"), "http://127.0.0.1:9999");
        assert_eq!(
            normalise_ollama_host("https://ollama.example.com/"),
            "https://ollama.example.com:443"
        );
        assert_eq!(
            normalise_ollama_host("http://10.0.0.2:11434"),
            "http://10.0.0.2:11434"
        );
    }

    #[test]
    fn per_prompt_threshold_overrides_global() {
        let c = load(
            &[("X", "")],
            Some("[gate]\nmin_accuracy = 50\n[gate.prompts]\nprompt1 = 90\n"),
        )
        .unwrap();
        assert_eq!(c.threshold_for("prompt1"), Some(90.0));
        assert_eq!(c.threshold_for("prompt2"), Some(50.0));
    }

    #[test]
    fn a_fraction_threshold_is_refused_with_the_percentage_meant() {
        let e = load(&[("X", "")], Some("[gate]\nmin_accuracy = 0.6\n")).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("harness.toml:2:"), "{msg}");
        assert!(msg.contains("Did you mean 60?"), "{msg}");
        let e = load(&[("X", "")], Some("[gate.prompts]\np = 1\n")).unwrap_err();
        assert!(e.to_string().contains("Did you mean 100?"), "{e}");
        let e = load(&[("PROMPTEVAL_MIN_ACCURACY", "0.75")], None).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("PROMPTEVAL_MIN_ACCURACY"), "{msg}");
        assert!(msg.contains("Did you mean 75?"), "{msg}");
        // Written with a percent sign, a small threshold is meant.
        let c = load(&[("PROMPTEVAL_MIN_ACCURACY", "0.6%")], None).unwrap();
        assert_eq!(c.threshold_for("p"), Some(0.6));
        let c = load(&[("X", "")], Some("[gate]\nmin_accuracy = \"0.5%\"\n")).unwrap();
        assert_eq!(c.threshold_for("p"), Some(0.5));
        let c = load(&[("X", "")], Some("[gate]\nmin_accuracy = 0\n")).unwrap();
        assert_eq!(c.threshold_for("p"), Some(0.0));
        let e = load(&[("X", "")], Some("[gate]\nmin_accuracy = 150\n")).unwrap_err();
        assert!(e.to_string().contains("between 0 and 100"), "{e}");
    }

    #[test]
    fn a_gate_key_naming_no_prompt_is_an_error_with_the_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("harness.toml"),
            "model = \"m\"\n[gate]\nmin_accuracy = 50\n[gate.prompts]\nprompt2 = 70\npromt1 = 80\n",
        )
        .unwrap();
        let c = Config::load(&[("X", "")], dir.path()).unwrap();
        let e = c
            .check_gate_prompts(&["prompt1", "prompt2", "prompt3"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("harness.toml:6:"), "{e}");
        assert!(e.contains("`promt1`"), "{e}");
        assert!(e.contains("did you mean `prompt1`?"), "{e}");
        assert!(e.contains("prompt1, prompt2, prompt3"), "{e}");
        assert!(
            c.check_gate_prompts(&["prompt1", "prompt2", "promt1"])
                .is_ok()
        );
    }

    #[test]
    fn concurrency_defaults_to_one_and_reads_file_and_env() {
        assert_eq!(load(&[("X", "")], None).unwrap().concurrency, 1);
        let c = load(&[("X", "")], Some("concurrency = 4\n")).unwrap();
        assert_eq!(c.concurrency, 4);
        let c = load(
            &[("PROMPTEVAL_CONCURRENCY", "8")],
            Some("concurrency = 4\n"),
        )
        .unwrap();
        assert_eq!(c.concurrency, 8);
        let e = load(&[("PROMPTEVAL_CONCURRENCY", "0")], None).unwrap_err();
        assert!(e.to_string().contains("parallel slots"), "{e}");
        let e = load(&[("X", "")], Some("concurrency = 0\n")).unwrap_err();
        assert!(e.to_string().contains("at least 1"), "{e}");
    }

    #[test]
    fn the_cache_is_on_by_default_and_off_by_env() {
        assert!(load(&[("X", "")], None).unwrap().cache);
        assert!(!load(&[("PROMPTEVAL_CACHE", "off")], None).unwrap().cache);
        assert!(!load(&[("X", "")], Some("cache = false\n")).unwrap().cache);
        let e = load(&[("PROMPTEVAL_CACHE", "maybe")], None).unwrap_err();
        assert!(e.to_string().contains("on or off"), "{e}");
    }

    #[test]
    fn suite_settings_sit_between_the_environment_and_harness_toml() {
        let suite = RunSettings {
            history: Some(false),
            language: Some(Language::En),
            rounds: Some(3),
            ..Default::default()
        };
        let toml = "rounds = 5\n[history]\nenabled = true\nlanguage = \"zh\"\n";
        // The suite over harness.toml.
        let mut c = load(&[("X", "")], Some(toml)).unwrap();
        let lines = c.apply_suite(&suite, &[("X", "")]);
        assert!(!c.history.enabled);
        assert_eq!(c.history.language, Language::En);
        assert_eq!(c.rounds, 3);
        assert_eq!(
            lines,
            [
                "history = off (the suite's setting)",
                "language = en (the suite's setting)",
                "rounds = 3 (the suite's setting)"
            ]
        );
        // The environment over the suite, and the line says so.
        let env = [("PROMPTEVAL_HISTORY", "on"), ("PROMPTEVAL_ROUNDS", "2")];
        let mut c = load(&env, Some(toml)).unwrap();
        let lines = c.apply_suite(&suite, &env);
        assert!(c.history.enabled);
        assert_eq!(c.rounds, 2);
        assert_eq!(
            lines[0],
            "history = off (the suite's setting; PROMPTEVAL_HISTORY=on overrides it)"
        );
        // A suite without settings changes nothing.
        let mut c = load(&[("X", "")], Some(toml)).unwrap();
        let before = c.clone();
        assert!(c.apply_suite(&Default::default(), &[("X", "")]).is_empty());
        assert_eq!(c, before);
    }
}
