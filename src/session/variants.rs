//! The plan's suite when `[variants]` is on: every question expanded into
//! its prompt variants ([`planned_suite`], asking no model: names need no
//! texts), then, as a step of the run's start, the texts the suite lacks
//! written by the writer model ([`write_texts`]).

use std::collections::HashMap;
use std::path::Path;

use super::error::SetupError;
use super::qualify::ModelQualifier;
use super::source::open_cache;
use crate::ask::cache::CachedBackend;
use crate::ask::variant_writer::{LlmWriter, WriterError};
use crate::backend::Backend;
use crate::case::CaseId;
use crate::config::{BackendKind, Config};
use crate::sandbox::Sandbox;
use crate::suite::{Question, Suite, SuiteError, SuiteProblem};
use crate::variants::parts::Parts;
use crate::variants::{self, Writer};

/// Seconds a written text may take by default: p_top runs to hundreds of
/// tokens, at tens of tokens per second on a CPU.
const WRITER_TIMEOUT_SECS: f64 = 120.0;

/// The stored expansion in a run folder, read back when it is resumed.
pub const STORED: &str = "variants.json";

/// A suite's prompt variants expanded with placeholders: the case names
/// are known, the texts the suite lacks (p_top, summaries) are not yet
/// written.
pub struct UnwrittenVariants {
    /// The suite before expansion.
    base: Suite,
}

/// The suite to plan, asking no model: expanded when variants are on, its
/// missing texts placeholders until [`write_texts`]. A resumed run reads
/// its folder's stored expansion, so it asks exactly what it asked before.
pub fn planned_suite(
    config: &Config,
    suite: Suite,
    resumed: Option<&Path>,
) -> Result<(Suite, Option<UnwrittenVariants>), SetupError> {
    let stored = resumed.map(|d| d.join(STORED)).filter(|p| p.is_file());
    let (mut planned, unwritten) = match stored {
        Some(path) => (Suite::load(&path)?, None),
        None if config.variants.enabled => (
            // The names do not depend on the texts, nor on the gates.
            expand(
                config,
                &suite,
                variants::Gates::leak_only(config.variants.p_top_tries),
                &Unwritten,
            )?
            .suite,
            Some(UnwrittenVariants { base: suite }),
        ),
        None => (suite, None),
    };
    // An expansion made before the gates (a committed variants.json) is
    // checked as a suite's own p_top is: marked, never rewritten. The
    // session says so once per problem, with what follows for its cases
    // ([`unqualified_cases`]).
    variants::gate_stored(&mut planned);
    if config.variants.themes.enabled {
        // Named now, made (or not) once p_top's sentences are labeled.
        for w in variants::themes::plan_ablations(&mut planned, &ablate(config)?) {
            tracing::debug!("{w}");
        }
    }
    if config.history.enabled && planned.questions.iter().any(|q| q.variant.is_some()) {
        return Err(SetupError::Suite(SuiteError {
            path: planned.path.clone(),
            line: None,
            problem: SuiteProblem::VariantsWithHistory,
        }));
    }
    Ok((planned, unwritten))
}

/// A step of the run's start: the writer model (`[variants.writer]`)
/// writes the texts the planned variants lack, behind the response cache.
/// The cases stay those planned: the names do not depend on the texts.
pub fn write_texts(
    config: &Config,
    planned: Suite,
    unwritten: Option<UnwrittenVariants>,
    sandbox: &Sandbox,
) -> Result<Suite, SetupError> {
    let Some(UnwrittenVariants { base }) = unwritten else {
        return Ok(planned);
    };
    let qualifier = config
        .variants
        .qualify
        .enabled
        .then(|| qualifier(config, &base, sandbox));
    if let Some(q) = &qualifier {
        tracing::info!("{}", q.describe());
    }
    let gates = variants::Gates {
        p_top_tries: config.variants.p_top_tries,
        qualify: qualifier.as_ref().map(|q| {
            (
                q as &dyn variants::Qualify,
                config.variants.qualify.min_pass,
            )
        }),
    };
    let mut expanded = expand(config, &base, gates, &writer(config))?;
    if config.variants.themes.enabled {
        // Placeholders again: labeling makes them (session/themes.rs).
        variants::themes::plan_ablations(&mut expanded.suite, &ablate(config)?);
    }
    debug_assert!(
        expanded
            .suite
            .questions
            .iter()
            .map(|q| &q.id)
            .eq(planned.questions.iter().map(|q| &q.id)),
        "the written variants are the planned ones"
    );
    for w in &expanded.warnings {
        tracing::warn!("{w}");
    }
    let fresh = base
        .questions
        .iter()
        .filter(|q| q.variant.is_none())
        .count();
    if fresh > 0 {
        tracing::info!(
            "prompt variants: {fresh} question(s) -> {} cases per prompt and round ({} per question: the 41 of the partial order and the original{}); the writer model wrote {} text(s)",
            expanded.suite.questions.len(),
            variants::PER_QUESTION,
            if config.variants.themes.enabled {
                ", and the ablations named so far"
            } else {
                ""
            },
            expanded.written
        );
    }
    Ok(expanded.suite)
}

fn expand<W: Writer<Error = WriterError>>(
    config: &Config,
    suite: &Suite,
    gates: variants::Gates<'_>,
    writer: &W,
) -> Result<variants::Expanded, SetupError> {
    variants::expand(suite, config.variants.seed, gates, writer).map_err(|source| {
        SetupError::Variants {
            suite: suite.path.clone(),
            source,
        }
    })
}

/// The themes to ablate: `[variants.themes] ablate`, else the five the
/// paper saw grow; a code outside the taxonomy is refused with the key.
pub fn ablate(config: &Config) -> Result<Vec<String>, SetupError> {
    let Some(given) = &config.variants.themes.ablate else {
        return Ok(variants::themes::taxonomy::GROWING
            .iter()
            .map(|c| c.to_string())
            .collect());
    };
    if let Some(unknown) = given
        .iter()
        .find(|c| variants::themes::taxonomy::by_code(c).is_none())
    {
        return Err(SetupError::Config(config.key_error(
            &["variants", "themes", "ablate"],
            format!(
                "`variants.themes.ablate` names `{unknown}`, which is not a theme of the taxonomy; use codes from 1.1 to 4.4 (docs/guide/variants.md lists them), e.g. ablate = [\"1.3\", \"2.3\"]"
            ),
        )));
    }
    Ok(given.clone())
}

/// Placeholders: the plan names the cases without asking any model.
struct Unwritten;

impl Writer for Unwritten {
    /// The run's writer's, so listing and running expand alike.
    type Error = WriterError;
    fn p_top(&self, _: &Question, _: &Parts, _: u32) -> Result<String, WriterError> {
        Ok("(written when the run starts)".into())
    }
    fn summary(&self, _: &Question, _: &str, _: u32) -> Result<String, WriterError> {
        Ok("(written when the run starts)".into())
    }
}

/// The writer per `[variants.writer]`, defaulting to the run's own server
/// and model, behind the response cache.
fn writer(config: &Config) -> LlmWriter {
    let w = &config.variants.writer;
    let (kind, url, model) = server_of(config, w.backend, w.url.as_deref(), w.model.as_deref());
    let for_connect = (config.clone(), model.clone());
    let options = crate::config::LlmConfig {
        timeout_secs: w
            .timeout_secs
            .unwrap_or(WRITER_TIMEOUT_SECS)
            .max(config.llm.timeout_secs),
        ..config.llm.clone()
    };
    LlmWriter::new(
        &model,
        options,
        Box::new(move || {
            let (config, model) = &for_connect;
            cached_server(config, kind, &url, model)
                .map_err(WriterError::Unreachable)?
                .ok_or(WriterError::Backend(kind))
        }),
    )
}

/// The qualification gate's model per `[variants.qualify]`, defaulting to
/// the model under test (the first of a multi-model run) on its server,
/// with its options (the samples' temperature may be the gate's own),
/// behind the response cache.
fn qualifier<'a>(config: &Config, base: &'a Suite, sandbox: &'a Sandbox) -> ModelQualifier<'a> {
    let under_test = config
        .model_configs()
        .into_iter()
        .next()
        .unwrap_or_else(|| config.clone());
    let q = &config.variants.qualify;
    let (kind, url, model) =
        server_of(&under_test, q.backend, q.url.as_deref(), q.model.as_deref());
    let mut asking = under_test.clone();
    if q.model.is_some() {
        asking.served_model = None;
    }
    asking.model = model.clone();
    if let Some(t) = q.temperature {
        asking.llm.temperature = t;
    }
    // The name the server knows: the gate's own model, else the model
    // under test's served name.
    let server = asking.served_model.clone().unwrap_or_else(|| model.clone());
    let for_connect = under_test;
    ModelQualifier::new(
        asking,
        base,
        sandbox,
        Box::new(move || {
            cached_server(&for_connect, kind, &url, &server)
                .map_err(|e| {
                    format!(
                        "the qualifying model is not reachable: {}; configure [variants.qualify] (backend, url, model) or turn it off (PROMPTEVAL_QUALIFY=off)",
                        e.message
                    )
                })?
                .ok_or_else(|| {
                    format!(
                        "[variants.qualify] backend = {kind:?} cannot be asked; use \"ollama\" or \"openai\""
                    )
                })
        }),
    )
}

/// Which server and model a helper model (writer, qualifier) asks: its
/// own keys, else the run's.
pub(super) fn server_of(
    config: &Config,
    backend: Option<BackendKind>,
    url: Option<&str>,
    model: Option<&str>,
) -> (BackendKind, String, String) {
    let kind = backend.unwrap_or(match config.backend {
        BackendKind::Openai => BackendKind::Openai,
        _ => BackendKind::Ollama,
    });
    let model = model.map_or_else(|| config.model.clone(), str::to_string);
    let url = url.map_or_else(
        || match kind {
            BackendKind::Openai => config.openai_base_url.clone(),
            _ => config.ollama_host.clone(),
        },
        str::to_string,
    );
    (kind, url, model)
}

/// The server at `url` after its connection test for `model`, behind the
/// response cache when it is on; `None` for a kind that asks no server.
pub(super) fn cached_server(
    config: &Config,
    kind: BackendKind,
    url: &str,
    model: &str,
) -> Result<Option<Box<dyn Backend>>, crate::backend::ConnectError> {
    let Some(backend) = super::source::server(kind, url) else {
        return Ok(None);
    };
    backend.check(model)?;
    Ok(Some(match open_cache(config) {
        Some(cache) => {
            let identity = backend.model_identity().unwrap_or_default();
            Box::new(CachedBackend::new(backend, cache, model, identity))
        }
        None => backend,
    }))
}

/// The selected cases of problems whose p_top passed no gate, taken out of
/// `runnable` with the reason (said once per problem in the run's first
/// lines), unless `[variants] keep_unqualified` asks them all the same.
/// Such problems are left out of the curves either way
/// (analysis/curves.rs).
pub fn unqualified_cases(
    config: &Config,
    suite: &Suite,
    runnable: &mut Vec<CaseId>,
) -> HashMap<CaseId, String> {
    let by_id: HashMap<&str, &variants::Variant> = suite
        .questions
        .iter()
        .filter_map(|q| q.variant.as_deref().map(|v| (q.id.as_str(), v)))
        .collect();
    let problems: HashMap<String, String> = variants::unqualified(by_id.values().copied())
        .into_iter()
        .collect();
    if problems.is_empty() {
        return HashMap::new();
    }
    let mut said: Vec<&String> = problems.keys().collect();
    said.sort();
    for problem in said {
        let what = match config.variants.keep_unqualified {
            true => {
                "asked all the same ([variants] keep_unqualified = true), and left out of the curves"
            }
            false => {
                "its variants are not asked, and it is left out of the curves ([variants] keep_unqualified = true asks them)"
            }
        };
        tracing::warn!("problem `{problem}`: {}; {what}", problems[problem]);
    }
    if config.variants.keep_unqualified {
        return HashMap::new();
    }
    let mut skipped = HashMap::new();
    runnable.retain(|case| {
        let problem = by_id.get(&*case.question_id).map(|v| &v.of);
        match problem.and_then(|p| problems.get(p).map(|why| (p, why))) {
            Some((p, why)) => {
                skipped.insert(
                    case.clone(),
                    format!("not run: problem {p} is unqualified ({why})"),
                );
                false
            }
            None => true,
        }
    });
    skipped
}
