//! What harness.toml's settings are: the types of [`Config`] and its
//! sections, their defaults, and the values a user may write. Where a
//! value comes from is `file.rs`, `env.rs` and `sources.rs`; whether it
//! is acceptable is `validate.rs`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::percent::Percent;
use super::sources::Sources;
use super::think::Think;

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
    pub(super) fn parse(s: &str) -> Option<Self> {
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
    /// The HTML `lang` of a page in this language (the spec's Chinese is
    /// Traditional).
    pub fn html_lang(self) -> &'static str {
        match self {
            Language::Zh => "zh-Hant",
            Language::En => "en",
        }
    }

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
    /// Texts the writer may write for one p_top until one passes the leak
    /// gate (variants/leak.rs), each a request of its own.
    pub p_top_tries: u32,
    /// Ask the variants of a problem whose p_top passed no gate all the
    /// same (they stay out of the curves either way).
    pub keep_unqualified: bool,
    pub writer: WriterConfig,
    /// The paper's second gate: p_top must be solvable by a model.
    pub qualify: QualifyConfig,
    /// The paper's theme analysis (§5) and the ablation of each theme.
    pub themes: ThemesConfig,
}

impl Default for VariantsConfig {
    fn default() -> Self {
        VariantsConfig {
            enabled: false,
            seed: 42,
            p_top_tries: 3,
            keep_unqualified: false,
            writer: WriterConfig::default(),
            qualify: QualifyConfig::default(),
            themes: ThemesConfig::default(),
        }
    }
}

/// The theme labels (`[variants.themes]`, paper §5): every variant's
/// description labeled with the paper's taxonomy by a labeler model
/// (server fields default to the writer's), p_top sentence by sentence,
/// and one `ablate_<theme>` variant per theme of `ablate`: p_top without
/// that theme's sentences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThemesConfig {
    /// PROMPTEVAL_THEMES=on|off; needs `[variants] enabled`.
    pub enabled: bool,
    /// `ollama` or `openai`.
    pub backend: Option<BackendKind>,
    pub url: Option<String>,
    pub model: Option<String>,
    /// Seconds one label may take (default: the writer's).
    pub timeout_secs: Option<f64>,
    /// Theme codes to ablate; `None`: the five the paper saw grow (the
    /// taxonomy is the variants' business: variants::themes::taxonomy).
    pub ablate: Option<Vec<String>>,
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

/// The qualification gate (`[variants.qualify]`, paper §3.2: every p_top
/// reaches pass@1 >= 0.8 with a model): each p_top that passed the leak
/// gate is asked `samples` times with the suite's first prompt and judged
/// as cases are; below `min_pass` it is written again. The server fields
/// default to the model under test (the first of a multi-model run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QualifyConfig {
    /// PROMPTEVAL_QUALIFY=on|off.
    pub enabled: bool,
    pub samples: u32,
    /// The least share of the samples that must pass, in (0, 1].
    pub min_pass: f64,
    /// `ollama` or `openai`.
    pub backend: Option<BackendKind>,
    pub url: Option<String>,
    pub model: Option<String>,
    /// The samples' temperature (default `llm.temperature`): at 0 every
    /// sample is the same greedy reply, so pass@1 is 0 or 1.
    pub temperature: Option<f64>,
}

impl Default for QualifyConfig {
    fn default() -> Self {
        QualifyConfig {
            enabled: false,
            samples: 5,
            min_pass: 0.8,
            backend: None,
            url: None,
            model: None,
            temperature: None,
        }
    }
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
    /// Entries leave the shown history this many at a time, on a grid of
    /// question numbers (1, 1 + n, 1 + 2n, ...): once a cap drops one,
    /// the shown history starts at the next block, and its start (the
    /// prefix a server's prompt cache holds) stays the same for `n`
    /// questions. 1 slides by one entry per question.
    pub drop_block: usize,
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
            // Measured (docs/internals/performance.md): on python-basics a
            // server's prompt cache then processes 33 % of the prompt
            // tokens sent, against 80 % sliding by one; the model still
            // sees 5 to 10 earlier questions.
            drop_block: 5,
        }
    }
}

/// How C++ questions are built and run (`[cpp]`). The compiled program
/// runs under `[sandbox]`'s limits; the compiler under these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CppConfig {
    /// The compiler: g++ (a name on PATH, resolved once per run, or a path).
    pub compiler: String,
    /// Thread counts an OpenMP question runs at (ParEval's first four); a
    /// suite's `settings.threads` wins.
    pub threads: Vec<u32>,
    /// Seconds one compilation may take (a template or preprocessor bomb
    /// ends here, as a timeout).
    pub compile_timeout_secs: f64,
    /// Address space of the compiler, in MiB.
    pub compile_memory_mb: u64,
    /// Seconds one ParEval process may take at one thread count:
    /// `validate()` and ParEval's timing loops (5 runs of compute() and of
    /// best() at the problem's size), ParEval's `run-all.py --run-timeout`
    /// (120). Past it the run is not valid, as under ParEval's harness; the
    /// sandbox's general `timeout_secs` does not apply to ParEval cases.
    pub pareval_run_timeout_secs: f64,
}

impl Default for CppConfig {
    fn default() -> Self {
        Self {
            compiler: "g++".into(),
            threads: vec![1, 2, 4, 8],
            compile_timeout_secs: 60.0,
            compile_memory_mb: 2048,
            pareval_run_timeout_secs: 120.0,
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

/// A race between the prompts (`[race]`, see `race`): prompts answer the
/// questions in lockstep and a prompt that has lost beyond noise is asked
/// nothing more.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RaceConfig {
    /// PROMPTEVAL_RACE=on|off.
    pub enabled: bool,
    /// The chance, over the whole run, that any prompt is eliminated by
    /// one that is not better (the rule's anytime-valid level).
    pub alpha: f64,
    /// The race stops before a question that would take it past this many
    /// cases (per model); its remaining cases are not run.
    pub max_cases: Option<usize>,
}

/// The race's level when `[race] alpha` is not set.
pub const DEFAULT_RACE_ALPHA: f64 = 0.05;

impl Default for RaceConfig {
    fn default() -> Self {
        RaceConfig {
            enabled: false,
            alpha: DEFAULT_RACE_ALPHA,
            max_cases: None,
        }
    }
}

/// What a run may spend (`[budget]`, docs/guide/budget.md): no case starts
/// that would take the run past a cap as planned; the rest end as not run.
/// Tokens and money count the run's model calls (a resumed run's earlier
/// ones too); wall time counts this session's. Prices are per million
/// tokens, for the plan's money and `max_cost`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetConfig {
    /// Prompt and reply tokens of every call (PROMPTEVAL_BUDGET_TOKENS).
    pub max_tokens: Option<f64>,
    /// Money, in the prices' currency (PROMPTEVAL_BUDGET_COST).
    pub max_cost: Option<f64>,
    /// Seconds of this session's run (PROMPTEVAL_BUDGET_WALL_SECS).
    pub max_wall_secs: Option<f64>,
    /// Price of a million prompt tokens.
    pub price_in: Option<f64>,
    /// Price of a million reply tokens.
    pub price_out: Option<f64>,
}

impl BudgetConfig {
    /// Whether any cap is set.
    pub fn capped(&self) -> bool {
        self.max_tokens.is_some() || self.max_cost.is_some() || self.max_wall_secs.is_some()
    }

    /// Both prices, when both are set.
    pub fn prices(&self) -> Option<(f64, f64)> {
        self.price_in.zip(self.price_out)
    }
}

/// Accuracy thresholds in percent (the unit of summary.json).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    pub min_accuracy: Option<Percent>,
    /// A threshold on the lower end of each prompt's 95 % Wilson interval
    /// instead of its accuracy: a prompt passes only when its accuracy is
    /// above it beyond noise (teams without a baseline).
    pub min_accuracy_lower_bound: Option<Percent>,
    /// A baseline file (`prompteval baseline RUN --out FILE`): the gate
    /// fails when a prompt lost to it beyond noise (exact McNemar on the
    /// shared cases). Relative to harness.toml's folder.
    pub baseline: Option<PathBuf>,
    /// The level of the baseline's paired test (default 0.05).
    pub alpha: Option<f64>,
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

/// One `[[models]]` table: the server's model name and what differs for it.
/// Every key but `name` is optional and defaults to the run's value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// The model name as its server knows it (Ollama tag, OpenAI model id).
    pub name: String,
    /// What the run calls this entry (default: `name`): case names,
    /// folders, summary.json's `models`, the gate's `[gate.models."<label>"]`,
    /// snapshots and the cache. Two tables may share a `name` (one model at
    /// two `think` levels, say) under different labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendKind>,
    /// Its server: an OpenAI-compatible base URL (`.../v1`) or an Ollama
    /// host, per its backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Several servers of this model, sharing its cases (like the run's
    /// `[[endpoints]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_info: Option<String>,
    /// Its server's parallel slots (requests in flight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_ctx: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_alive: Option<String>,
    /// This entry's `think` (think.rs), over `[llm] think`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_timeout_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

impl ModelEntry {
    /// The entry's name in the run: its `label`, else its `name`.
    pub fn label(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }

    pub fn named(name: &str) -> ModelEntry {
        ModelEntry {
            name: name.to_string(),
            ..ModelEntry::default()
        }
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
    /// `history.drop_block`: a suite recorded with another block keeps it,
    /// so its recordings' prompts are the ones asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_block: Option<usize>,
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
    pub cpp: CppConfig,
    pub gate: GateConfig,
    pub race: RaceConfig,
    pub budget: BudgetConfig,
    /// Where this configuration came from, for messages.
    pub source: Option<PathBuf>,
    /// Where each setting's value was decided: harness.toml (with its
    /// line), the suite, the environment, or a resumed run's folder.
    #[serde(skip)]
    pub sources: Sources,
}

/// The paper's (and Chen et al.'s) k values.
pub const DEFAULT_PASS_AT_K: [usize; 3] = [1, 5, 10];
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

/// The baseline test's level when `[gate] alpha` is not set.
pub const DEFAULT_GATE_ALPHA: f64 = 0.05;

impl GateConfig {
    /// The level of the baseline's paired test.
    pub fn alpha(&self) -> f64 {
        self.alpha.unwrap_or(DEFAULT_GATE_ALPHA)
    }
}

impl Config {
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
