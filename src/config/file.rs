//! The config file: `PROMPTEVAL_CONFIG` or `./harness.toml`, parsed once
//! into its format ([`ConfigFile`]: every key optional, unknown keys
//! refused) and the line of each key it holds (`locations.rs`), then
//! settled over the defaults into a [`Config`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::env::Env;
use super::error::ConfigError;
use super::locations::{key_lines, line_of_offset, line_of_offset_bytes};
use super::schema::{
    BackendKind, BudgetConfig, Config, CppConfig, DEFAULT_CONCURRENCY, DEFAULT_MODEL,
    DEFAULT_OLLAMA_HOST, DEFAULT_OPENAI_BASE_URL, DEFAULT_PASS_AT_K, DEFAULT_SUITE, Endpoint,
    GateConfig, HistoryConfig, Language, LlmConfig, ModelEntry, RaceConfig, SandboxConfig,
    VariantsConfig, normalise_ollama_host,
};
use super::sources::Sources;

/// The file format: every field optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConfigFile {
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
    cpp: CppConfig,
    #[serde(default)]
    gate: GateConfig,
    #[serde(default)]
    race: RaceConfig,
    #[serde(default)]
    budget: BudgetConfig,
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
/// The file `PROMPTEVAL_CONFIG` names, else `./harness.toml` when there
/// is one.
pub(super) fn path(env: &dyn Env, cwd: &Path) -> Option<PathBuf> {
    match env.var("PROMPTEVAL_CONFIG").filter(|v| !v.is_empty()) {
        Some(p) => Some(cwd.join(p)),
        None => Some(cwd.join("harness.toml")).filter(|p| p.exists()),
    }
}

/// The file's settings with the line of each key it holds.
pub(super) fn read(path: &Path) -> Result<(ConfigFile, Sources), ConfigError> {
    let bytes = std::fs::read(path).map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        line: None,
        message: format!(
            "cannot read the config file: {e}; check PROMPTEVAL_CONFIG or create harness.toml"
        ),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        line: Some(line_of_offset_bytes(
            e.as_bytes(),
            e.utf8_error().valid_up_to(),
        )),
        message: "the file is not valid UTF-8; save it as UTF-8".into(),
    })?;
    parse(path, &text)
}

fn parse(path: &Path, text: &str) -> Result<(ConfigFile, Sources), ConfigError> {
    let located = |e: toml::de::Error| {
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
    };
    let document = toml::de::DeTable::parse(text).map_err(located)?;
    let sources = Sources::of_file(key_lines(text, document.get_ref()));
    let file = ConfigFile::deserialize(toml::de::Deserializer::from(document)).map_err(located)?;
    Ok((file, sources))
}

impl Config {
    /// The file's settings over the defaults. Relative paths are relative
    /// to `base`, the file's folder.
    pub(super) fn from_file(
        file: ConfigFile,
        sources: Sources,
        base: &Path,
        source: Option<PathBuf>,
    ) -> Config {
        let rel = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        let mut sources = sources;
        if let Some(line) = sources.line(&["endpoints"]) {
            // The endpoints' slots decide it (see below).
            sources.set(&["concurrency"], super::sources::Source::File { line });
        }
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
            cpp: file.cpp,
            gate: GateConfig {
                baseline: file.gate.baseline.clone().map(rel),
                ..file.gate
            },
            race: file.race,
            budget: file.budget,
            source,
            sources,
        }
    }
}
