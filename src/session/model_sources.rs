//! The models of a run and their servers: each model's source (its live
//! server after the connection test, or its recordings), the models that
//! cannot be asked, and the lanes the scheduler asks them in.
//!
//! In a multi-model run, a model whose server does not answer, or that the
//! server does not have, is said once here, before any case runs; its
//! cases are not evaluated (never failures) and the other models go on.

use std::collections::HashMap;
use std::sync::Arc;

use super::error::SetupError;
use super::source::{self, Source};
use crate::ask::cache::ResponseCache;
use crate::ask::history::HistoryEntry;
use crate::ask::replay::Mismatch;
use crate::case::{CaseId, ChainId};
use crate::config::{Config, server_key};
use crate::schedule;
use crate::suite::Suite;
use crate::terminal::output::Output;

/// What [`open_models`] found.
pub struct Opened {
    /// Per model that can be asked, in the run's order: its configuration
    /// and source.
    pub models: Vec<(Config, Source)>,
    /// The selected cases that will run.
    pub runnable: Vec<CaseId>,
    /// Selected cases that will not be evaluated, with why.
    pub unmatched: Vec<(CaseId, Mismatch)>,
    /// Models that cannot be asked, with why.
    pub unavailable: Vec<(String, String)>,
}

impl Opened {
    /// The manifest's `backend` and `endpoint`: the one model's, or each
    /// model's joined in the run's order.
    pub fn served_by(&self) -> (String, String) {
        let kinds: Vec<String> = self
            .models
            .iter()
            .map(|(_, s)| s.backend.kind().to_string())
            .collect();
        let mut unique = kinds.clone();
        unique.dedup();
        let endpoints: Vec<String> = self
            .models
            .iter()
            .map(|(_, s)| s.backend.endpoint())
            .collect();
        (unique.join(", "), endpoints.join(", "))
    }
}

/// Opens every model's source for its share of `selected`; the cases move
/// to the sources (a 100,000-case run held one more copy of each).
pub fn open_models(
    config: &Config,
    suite: &Suite,
    mut selected: Vec<CaseId>,
    earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
    cache: Option<&Arc<ResponseCache>>,
    out: &Output,
) -> Result<Opened, SetupError> {
    let multi = config.is_multi_model();
    let mut opened = Opened {
        models: Vec::new(),
        runnable: Vec::new(),
        unmatched: Vec::new(),
        unavailable: Vec::new(),
    };
    let any_selected = !selected.is_empty();
    for mut model in config.model_configs() {
        let key = multi.then(|| model.model.clone());
        let mut mine = if multi {
            let (mine, others) = std::mem::take(&mut selected)
                .into_iter()
                .partition(|c| c.model.as_deref() == key.as_deref());
            selected = others;
            mine
        } else {
            std::mem::take(&mut selected)
        };
        // A model the filters left no case of is not contacted at all.
        if multi && mine.is_empty() && any_selected {
            continue;
        }
        let earlier: HashMap<ChainId, Vec<HistoryEntry>> = earlier
            .iter()
            .filter(|(chain, _)| chain.model.as_deref() == key.as_deref())
            .map(|(chain, entries)| (chain.clone(), entries.clone()))
            .collect();
        // The source takes the cases it runs; a failed one leaves them.
        match source::open(&mut model, suite, &mut mine, &earlier, cache, out) {
            Ok(mut source) => {
                warn_of_the_window(&model, suite, &source);
                opened.runnable.append(&mut source.runnable);
                opened.unmatched.extend(source.unmatched.iter().cloned());
                opened.models.push((model, source));
            }
            Err(e) if multi => {
                let why = e.to_string();
                tracing::warn!(
                    "model {}: cannot be asked, so its {} case(s) are not evaluated (not failures); the other models go on:\n{why}",
                    model.model,
                    mine.len()
                );
                let detail = why.lines().next().unwrap_or_default().to_string();
                opened.unmatched.extend(
                    mine.into_iter()
                        .map(|c| (c, Mismatch::unavailable(detail.clone()))),
                );
                opened.unavailable.push((model.model.clone(), why));
            }
            Err(e) => return Err(e),
        }
    }
    if opened.models.is_empty() {
        let why: Vec<String> = opened
            .unavailable
            .iter()
            .map(|(m, why)| format!("{m}: {why}"))
            .collect();
        return Err(SetupError::Backend(format!(
            "none of the run's models can be asked:\n{}",
            why.join("\n")
        )));
    }
    Ok(opened)
}

/// Prompts the server's context window would cut, said before any is sent.
fn warn_of_the_window(config: &Config, suite: &Suite, source: &Source) {
    let server_window = source.backend.window();
    for warning in crate::ask::window::warnings(
        config,
        suite,
        &source.runnable,
        source.backend.kind(),
        &server_window,
    ) {
        tracing::warn!("{warning}");
    }
}

/// The scheduler's lanes: models on one server share a lane (asked one
/// after another, at that server's slots); a replaying model asks no
/// server and has a lane of its own. `cap` is libtest's `--test-threads`.
pub fn lanes(models: &[(Config, Source)], multi: bool, cap: Option<usize>) -> Vec<schedule::Lane> {
    let mut plan: Vec<(String, schedule::Lane)> = Vec::new();
    for (config, source) in models {
        let server = match source.replaying {
            true => format!("replay {}", config.model),
            false => server_key(config),
        };
        let slots = cap.map_or(config.concurrency, |c| c.min(config.concurrency));
        let model = multi.then(|| config.model.clone());
        match plan.iter_mut().find(|(s, _)| *s == server) {
            Some((_, lane)) => {
                lane.models.push(model);
                // The slots are the server's: its models share them.
                lane.slots = lane.slots.max(slots);
            }
            None => plan.push((
                server,
                schedule::Lane {
                    models: vec![model],
                    slots,
                },
            )),
        }
    }
    plan.into_iter().map(|(_, lane)| lane).collect()
}
