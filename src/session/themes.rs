//! A step of the run's start when `[variants.themes]` is on: the labeler
//! model labels every variant the suite holds without labels, p_top's
//! sentences, and the ablations cut from them ([`label`]); the cases
//! planned before are then matched to the labeled suite ([`settle`]): an
//! ablation that p_top gave no sentence for is not asked, with why.

use std::collections::HashMap;

use super::error::SetupError;
use super::variants::{ablate, cached_server, server_of};
use crate::ask::theme_labeler::LlmLabeler;
use crate::case::CaseId;
use crate::config::Config;
use crate::suite::Suite;
use crate::variants::themes::{self, taxonomy};
use crate::variants::{Strategy, Variant};

/// Seconds one label may take by default, as a writer's text.
const LABELER_TIMEOUT_SECS: f64 = 120.0;

/// The suite with every variant labeled and its ablations made; the suite
/// as it is when the themes are off.
pub fn label(config: &Config, mut suite: Suite) -> Result<Suite, SetupError> {
    let settings = &config.variants.themes;
    if !settings.enabled {
        return Ok(suite);
    }
    let ablate = ablate(config)?;
    let labeler = labeler(config);
    let done = themes::label(&mut suite, &ablate, &labeler).map_err(|e| {
        SetupError::Backend(format!(
            "{}: {e}; configure [variants.themes] (backend, url, model) or turn the themes off (PROMPTEVAL_THEMES=off)",
            suite.path.display()
        ))
    })?;
    for w in &done.warnings {
        tracing::warn!("{w}");
    }
    for u in &done.unlabeled {
        tracing::warn!("unlabeled (asked twice, never guessed): {u}");
    }
    let unlabeled = suite
        .questions
        .iter()
        .filter(|q| q.variant.as_deref().is_some_and(|v| v.unlabeled.is_some()))
        .count();
    let ablations = suite
        .questions
        .iter()
        .filter(|q| {
            q.variant
                .as_deref()
                .is_some_and(|v| v.strategy == Strategy::Ablate)
        })
        .count();
    tracing::info!(
        "themes: the labeler model {} was asked {} time(s) (the rest were labeled before); {unlabeled} description(s) are unlabeled; {} ablation variant(s) of {}",
        labeler.model(),
        done.asked,
        ablations,
        ablate
            .iter()
            .map(|c| taxonomy::label(c))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(suite)
}

/// The planned cases matched to the labeled suite: each case whose
/// question is there, numbered as there (old -> new where that moved),
/// and the planned ablations that were not made, each with why.
pub struct Settled {
    pub selected: Vec<CaseId>,
    pub renumbered: HashMap<CaseId, CaseId>,
    pub not_made: HashMap<CaseId, String>,
}

pub fn settle(selected: Vec<CaseId>, suite: &Suite) -> Settled {
    let index: HashMap<&str, usize> = suite
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.index))
        .collect();
    let tops: HashMap<&str, &Variant> = suite
        .questions
        .iter()
        .filter_map(|q| q.variant.as_deref())
        .filter(|v| v.strategy == Strategy::PTop)
        .map(|v| (v.of.as_str(), v))
        .collect();
    let mut settled = Settled {
        selected: Vec::with_capacity(selected.len()),
        renumbered: HashMap::new(),
        not_made: HashMap::new(),
    };
    for case in selected {
        match index.get(&*case.question_id) {
            Some(&at) if at == case.question => settled.selected.push(case),
            Some(&at) => {
                let mut moved = case.clone();
                moved.question = at;
                settled.renumbered.insert(case, moved.clone());
                settled.selected.push(moved);
            }
            None => {
                let why = why_not_made(&case.question_id, &tops);
                settled.not_made.insert(case, why);
            }
        }
    }
    settled
}

/// Why `question_id` (`HumanEval_3.ablate_2.3`) has no variant.
fn why_not_made(question_id: &str, tops: &HashMap<&str, &Variant>) -> String {
    let Some((problem, theme)) = question_id.rsplit_once(".ablate_") else {
        return format!("not run: the labeled suite has no question `{question_id}`");
    };
    let label = taxonomy::label(theme);
    let Some(top) = tops.get(problem) else {
        return format!("not run: problem {problem} has no p_top to ablate");
    };
    if let Some(why) = &top.sentences_unlabeled {
        return format!("not run: the sentences of {problem}'s p_top are unlabeled ({why})");
    }
    let sentences = top.sentences.as_deref().unwrap_or_default();
    let carrying = sentences
        .iter()
        .filter(|s| s.themes.iter().any(|t| t == theme))
        .count();
    match carrying {
        0 => format!("not run: no sentence of {problem}'s p_top carries theme {label}"),
        n if n == sentences.len() => format!(
            "not run: every sentence of {problem}'s p_top carries theme {label}: removing them would leave nothing"
        ),
        _ => format!("not run: {problem}'s p_top has no ablation of theme {label}"),
    }
}

/// The labeler per `[variants.themes]`: its own keys, else the writer's,
/// else the run's server and model, behind the response cache.
pub fn labeler(config: &Config) -> LlmLabeler {
    let t = &config.variants.themes;
    let w = &config.variants.writer;
    let (kind, url, model) = server_of(
        config,
        t.backend.or(w.backend),
        t.url.as_deref().or(w.url.as_deref()),
        t.model.as_deref().or(w.model.as_deref()),
    );
    let options = crate::config::LlmConfig {
        timeout_secs: t
            .timeout_secs
            .or(w.timeout_secs)
            .unwrap_or(LABELER_TIMEOUT_SECS)
            .max(config.llm.timeout_secs),
        ..config.llm.clone()
    };
    let for_connect = (config.clone(), model.clone());
    LlmLabeler::new(
        &model,
        options,
        Box::new(move || {
            let (config, model) = &for_connect;
            cached_server(config, kind, &url, model)
                .map_err(|e| {
                    format!(
                        "the labeler model is not reachable: {}",
                        e.message
                    )
                })?
                .ok_or_else(|| {
                    format!(
                        "[variants.themes] backend = {kind:?} cannot label; use \"ollama\" or \"openai\""
                    )
                })
        }),
    )
}
