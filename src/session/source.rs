//! Where the replies come from: a live server after its connection test,
//! or the recordings, and then only for the cases whose exact request was
//! recorded (see `ask::replay`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::SetupError;
use crate::ask::cache::{CachedBackend, ResponseCache};
use crate::ask::history::HistoryEntry;
use crate::ask::replay::{Mismatch, Replay, unmatched_lines};
use crate::ask::snapshot::SnapshotStore;
use crate::backend::Backend;
use crate::backend::ollama::Ollama;
use crate::backend::openai::{OpenAi, api_key_from_env};
use crate::backend::pool::{Member, Pool};
use crate::case::{CaseId, ChainId};
use crate::config::{BackendKind, Config, Language};
use crate::suite::Suite;
use crate::terminal::output::{Event, Output};

/// The chosen backend and what it can answer.
pub struct Source {
    pub backend: Box<dyn Backend>,
    /// The selected cases it will run.
    pub runnable: Vec<CaseId>,
    /// Selected cases no recording answers (auto replay only).
    pub unmatched: Vec<(CaseId, Mismatch)>,
    pub replaying: bool,
    /// Known to reason before it answers, before the first case
    /// (thinking.rs).
    pub thinks: bool,
}

enum Chosen {
    Live(Box<dyn Backend>),
    Replay {
        replay: Replay,
        /// The user asked for replay (rather than `auto` falling back to it).
        explicit: bool,
        why: String,
    },
}

/// The backend for `selected`. An explicit replay stops before the first
/// case when any selected case has no matching recording; `auto` runs the
/// recorded ones and says which are left out and why. A live source takes
/// the cases (`selected` is left empty); on an error they stay.
pub fn open(
    config: &mut Config,
    suite: &Suite,
    selected: &mut Vec<CaseId>,
    earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
    cache: Option<&Arc<ResponseCache>>,
    out: &Output,
) -> Result<Source, SetupError> {
    let (replay, explicit, why) = match choose(config, suite)? {
        Chosen::Live(backend) => {
            let thinking =
                super::thinking::evidence(config, backend.thinking(config.server_model()));
            out.emit(Event::Settled(&super::thinking::fit(
                config,
                thinking.as_ref(),
            )));
            let backend: Box<dyn Backend> = match cache {
                Some(cache) => {
                    let identity = format!(
                        "{}; {}",
                        backend.model_identity().unwrap_or_default(),
                        config.model_info.as_deref().unwrap_or_default()
                    );
                    Box::new(CachedBackend::new(
                        backend,
                        cache.clone(),
                        &config.model,
                        identity,
                    ))
                }
                None => backend,
            };
            return Ok(Source {
                backend,
                runnable: std::mem::take(selected),
                unmatched: Vec::new(),
                replaying: false,
                thinks: thinking.is_some(),
            });
        }
        Chosen::Replay {
            replay,
            explicit,
            why,
        } => (replay, explicit, why),
    };
    announce(&replay, &config.model, &why, out);
    let thinking = super::thinking::evidence(config, replay.thinking(&config.model));
    out.emit(Event::Settled(&super::thinking::fit(
        config,
        thinking.as_ref(),
    )));
    let matched = replay.match_cases(selected, earlier, suite, config, &config.model);
    if !matched.unmatched.is_empty() {
        let missing = matched.unmatched.len();
        let of = selected.len();
        if explicit {
            let lines = unmatched_lines(&matched.unmatched, selected, Language::En);
            return Err(SetupError::Backend(format!(
                "replay: {missing} of {of} selected cases have no recording of their exact request (model, options, system prompt, template, question and history):\n{}\nRecord them with a live backend (INSTA_UPDATE=always), select only recorded cases, or use backend = \"auto\" to run just the recorded ones",
                lines.join("\n")
            )));
        }
        if matched.runnable.is_empty() && earlier.is_empty() {
            let lines = unmatched_lines(&matched.unmatched, selected, Language::En);
            return Err(SetupError::Backend(format!(
                "replay: none of the {of} selected cases has a recording of its exact request, so nothing can be evaluated:\n{}\nStart a model server to evaluate them live (`ollama serve`, or scripts/local-llm.sh start and PROMPTEVAL_BACKEND=openai)",
                lines.join("\n")
            )));
        }
        let lines = unmatched_lines(&matched.unmatched, selected, config.language);
        out.emit(Event::Unmatched {
            missing,
            selected: of,
            lines: &lines,
        });
    }
    Ok(Source {
        backend: Box::new(replay),
        runnable: matched.runnable,
        unmatched: matched.unmatched,
        replaying: true,
        thinks: thinking.is_some(),
    })
}

/// The backend the configuration asks for, after its connection test.
/// Replay answers only for the configured model: a model with no
/// recordings is an error naming the recorded ones, never a silent swap.
fn choose(config: &Config, suite: &Suite) -> Result<Chosen, SetupError> {
    // Recordings are filed under the model's name in the run (its label),
    // the server is asked for the name it knows.
    let model = &config.model;
    let served = config.server_model();
    let store = SnapshotStore::new(&config.snapshot_dir, &suite.stem(), model);
    let replay_or = |why: String, explicit: bool, no_server: Option<&str>| {
        if store.count() > 0 {
            return Ok(Chosen::Replay {
                // The history holds the code of each reply in its
                // question's language, as a live run's does.
                replay: Replay::new(store.clone(), |reply, question| {
                    crate::execute::extract::extract_for(reply, question.code_language()).code
                }),
                explicit,
                why,
            });
        }
        let recorded = recorded_models(&config.snapshot_dir.join(suite.stem()));
        let others = if recorded.is_empty() {
            format!(
                "no model has recorded replies for suite `{}` in {}; record them with a model server: `INSTA_UPDATE=always cargo test --test prompts`",
                suite.stem(),
                config.snapshot_dir.display()
            )
        } else {
            format!(
                "recorded models for suite `{}`: {}; pick one with PROMPTEVAL_MODEL",
                suite.stem(),
                recorded.join(", ")
            )
        };
        let head = match no_server {
            Some(e) => format!("{e}\nand there are no recorded replies of model {model} to replay"),
            None => format!("replay: there are no recorded replies of model {model}"),
        };
        Err(SetupError::Backend(format!("{head} ({others})")))
    };
    let live = |b: Box<dyn Backend>| -> Result<Chosen, SetupError> {
        b.check(served)
            .map_err(|e| SetupError::Backend(e.message))?;
        Ok(Chosen::Live(b))
    };
    if !config.endpoints.is_empty() {
        return live(Box::new(pool(config)?));
    }
    match config.backend {
        BackendKind::Ollama => live(Box::new(Ollama::new(&config.ollama_host))),
        BackendKind::Openai => live(Box::new(OpenAi::new(
            &config.openai_base_url,
            api_key_from_env(),
        ))),
        BackendKind::Replay => replay_or("PROMPTEVAL_BACKEND=replay".into(), true, None),
        BackendKind::Auto => {
            let ollama = Ollama::new(&config.ollama_host);
            match ollama.check(served) {
                Ok(()) => Ok(Chosen::Live(Box::new(ollama))),
                // Ollama is running but cannot serve this run: say so rather
                // than replaying behind the user's back.
                Err(e) if e.server_answered => Err(SetupError::Backend(e.message)),
                Err(e) => replay_or(
                    format!("no Ollama answers at {}", config.ollama_host),
                    false,
                    Some(&e.message),
                ),
            }
        }
    }
}

/// `[[endpoints]]`: one backend per server, per `backend` (openai, or
/// Ollama for `ollama` and `auto`).
fn pool(config: &Config) -> Result<Pool, SetupError> {
    let members = config
        .endpoints
        .iter()
        .map(|e| -> Result<Member, SetupError> {
            let backend = server(config.backend, &e.url).ok_or_else(|| {
                SetupError::Backend(
                    "[[endpoints]] lists model servers, but backend = \"replay\" asks none; remove one of them".into(),
                )
            })?;
            Ok(Member::new(backend, e.slots))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Pool::new(members))
}

/// The server at `url` (a base URL, or an Ollama host) in `kind`'s
/// protocol, Ollama's for `auto`; `None` for replay, which asks no server.
pub(super) fn server(kind: BackendKind, url: &str) -> Option<Box<dyn Backend>> {
    match kind {
        BackendKind::Openai => Some(Box::new(OpenAi::new(
            url.trim_end_matches('/'),
            api_key_from_env(),
        ))),
        BackendKind::Ollama | BackendKind::Auto => Some(Box::new(Ollama::new(
            &crate::config::normalise_ollama_host(url),
        ))),
        BackendKind::Replay => None,
    }
}

/// Model folders with snapshots, by their recorded model name.
fn recorded_models(suite_dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(suite_dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .filter_map(|d| SnapshotStore::at(d).recorded_model())
        .collect()
}

fn announce(b: &Replay, model: &str, why: &str, out: &Output) {
    // The description is "<model> via <server>; <model_info>": the part after
    // the model says where the recording came from.
    let origin = b
        .store()
        .any_description()
        .and_then(|d| d.split_once(" via ").map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| "an earlier live run".into());
    out.emit(Event::Replaying {
        why,
        recorded: b.store().count(),
        model,
        dir: b.store().dir(),
        origin: &origin,
    });
}

/// The response cache, when harness.toml keeps one and its folder can be made.
/// The response cache, unless it is off or its folder cannot be used (then
/// the run goes on without it, and says so).
pub(super) fn open_cache(config: &Config) -> Option<Arc<ResponseCache>> {
    if !config.cache {
        return None;
    }
    let var = |name| std::env::var(name).ok();
    let dir = ResponseCache::default_dir(var("XDG_CACHE_HOME").as_deref(), var("HOME").as_deref())?;
    match ResponseCache::open(&dir) {
        Ok(cache) => Some(Arc::new(cache)),
        Err(e) => {
            tracing::warn!(cache = %dir.display(), "the response cache is off: cannot create its folder: {e}; set XDG_CACHE_HOME to a writable folder, or PROMPTEVAL_CACHE=off");
            None
        }
    }
}
