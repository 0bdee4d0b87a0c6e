//! What each description says (PartialOrderEval §5): every variant's
//! description labeled with the paper's taxonomy of themes, p_top labeled
//! sentence by sentence, and the ablations cut from it (`ablate_<theme>`:
//! p_top without one theme's sentences).
//!
//! One description per request, with the paper's labeling prompt (the
//! paper sent a problem's 7 summaries at once): the sampled and masked
//! variants have no word limit to order them by, a reply that cannot be
//! read costs one description rather than seven, a small model's reply
//! stays short, and the response cache answers a text labeled before
//! (identical paragraph samples, a resumed run) by itself.
//!
//! Replies are read strictly (parse.rs). One that is not the JSON asked
//! for, or names a theme outside the taxonomy, is asked once more with
//! what was wrong; then the description is recorded as unlabeled with the
//! reason. A failed call stops the run's start: a server's failure is not
//! the labeler's answer.

pub mod ablate;
pub mod agreement;
pub mod parse;
pub mod taxonomy;

use std::collections::HashSet;

use super::derive;
use super::parts::Parts;
use crate::suite::variant::LabeledSentence;
use crate::suite::{Question, Suite};
use crate::variants::{Strategy, Variant};
use ablate::Ablation;

/// One request to the labeler.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The variant question's id (`HumanEval_0.summary_10w`).
    pub question: &'a str,
    /// `themes` (a description) or `sentences` (p_top's numbered sentences).
    pub what: &'a str,
    pub system: &'a str,
    pub user: &'a str,
    /// The second request: the first reply and why it could not be read.
    pub retry: Option<(&'a str, &'a str)>,
}

/// The model that labels (`[variants.themes]`).
pub trait Labeler {
    /// The reply's text; `Err` when the call itself failed.
    fn ask(&self, ask: &Ask<'_>) -> Result<String, String>;
    /// Who labels, as `labeled_by` records it.
    fn name(&self) -> String;
}

/// A labeling call failed (not a reply that could not be read).
#[derive(Debug, thiserror::Error)]
#[error("question `{question}`: labeling its {what}: {reason}")]
pub struct LabelError {
    pub question: String,
    pub what: String,
    pub reason: String,
}

/// What labeling did.
#[derive(Debug, Default)]
pub struct Labeled {
    /// Requests sent (the cache may have answered some).
    pub asked: usize,
    /// Descriptions (or p_top sentence sets) left unlabeled, with why.
    pub unlabeled: Vec<String>,
    pub warnings: Vec<String>,
}

/// The user message of a description's request.
pub fn description_request(description: &str) -> String {
    format!(
        "This series holds one prompt, the one below. Reply with the JSON list of one entry, as shown, with \"prompt\" left empty (\"\") and without \"word_limit\".\n\n\
         Prompt:\n{description}"
    )
}

/// The system prompt of p_top's sentence-by-sentence request: the
/// paper's taxonomy, asked of each numbered sentence.
pub fn sentences_system() -> String {
    let paper = taxonomy::labeling_system();
    let list = &paper[paper.find("## List of taxonomies").unwrap_or(0)..];
    format!(
        "The following prompt is split into numbered sentences. For each sentence, summarize what information it includes by assigning codes from the list below to the information that is included.\n\
Use the list of taxonomies below to guide your analysis. You should only report the information that is included in the sentence using the second-level taxonomies, and an empty list for a sentence that includes none.\n\
Report your findings in a json file, one entry per sentence, e.g.:\n\
```json\n[\n{{\n\"sentence\": 1,\n\"taxonomies\": [ \"1.1 Task Goal\", ... ]\n}},\n...\n]\n```\n{list}"
    )
}

/// The user message of p_top's sentence request: one numbered line each.
pub fn sentences_request(sentences: &[&str]) -> String {
    let mut out = format!(
        "The prompt has {} sentences. Reply with the JSON list of {} entries, as shown.\n\n",
        sentences.len(),
        sentences.len()
    );
    for (i, s) in sentences.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, s.replace('\n', " ")));
    }
    out
}

/// An ablation planned before p_top's sentences are labeled: named, with
/// no text yet (`removed` absent). [`label`] makes it or drops it.
pub fn is_placeholder(v: &Variant) -> bool {
    v.strategy == Strategy::Ablate && v.removed.is_none()
}

/// The suite with the ablations of `ablate` after each p_top: made from
/// labeled sentences where p_top has them (asking nothing), else
/// placeholders, so the cases are named before any model is asked.
/// Ablations the suite already holds are kept.
pub fn plan_ablations(suite: &mut Suite, ablate: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut existing: HashSet<String> = suite.questions.iter().map(|q| q.id.clone()).collect();
    let mut out = Vec::with_capacity(suite.questions.len());
    let questions = std::mem::take(&mut suite.questions);
    let mut pending: Vec<Question> = Vec::new();
    for q in questions {
        let top = q
            .variant
            .as_deref()
            .filter(|v| v.strategy == Strategy::PTop)
            .cloned();
        // Ablations follow their p_top: flush this family's before the next.
        if q.variant
            .as_deref()
            .is_none_or(|v| v.strategy != Strategy::Ablate)
        {
            out.append(&mut pending);
        }
        out.push(q.clone());
        let Some(top) = top else { continue };
        for theme in ablate {
            let id = format!("{}.ablate_{theme}", top.of);
            // Once per theme, however often `ablate` names it.
            if !existing.insert(id) {
                continue;
            }
            match ablation(&q, &top, theme, &mut warnings) {
                Some(made) => pending.push(made),
                None if top.sentences.is_none() && top.sentences_unlabeled.is_none() => {
                    let mut v = Variant::new(&top.of, Strategy::Ablate);
                    v.theme = Some(theme.clone());
                    pending.push(with_variant(&q, v, q.question.clone()));
                }
                None => {}
            }
        }
    }
    out.append(&mut pending);
    suite.questions = out;
    renumber(suite);
    warnings
}

/// Labels every variant that has no labels yet (the description, and
/// p_top's sentences), then makes or drops the planned ablations and
/// labels those made.
pub fn label(
    suite: &mut Suite,
    ablate: &[String],
    labeler: &dyn Labeler,
) -> Result<Labeled, LabelError> {
    let mut done = Labeled::default();
    for q in suite.questions.iter_mut() {
        if q.variant.as_deref().is_none_or(is_placeholder) {
            continue;
        }
        label_description(q, labeler, &mut done)?;
        label_sentences(q, labeler, &mut done)?;
    }
    // The placeholders become ablations (or nothing), now that p_top's
    // sentences are known.
    suite
        .questions
        .retain(|q| !q.variant.as_deref().is_some_and(is_placeholder));
    done.warnings.extend(plan_ablations(suite, ablate));
    for q in suite.questions.iter_mut() {
        if q.variant
            .as_deref()
            .is_some_and(|v| v.strategy == Strategy::Ablate)
        {
            label_description(q, labeler, &mut done)?;
        }
    }
    Ok(done)
}

/// One text's themes as the labeler gives them: `Ok(Err(why))` when its
/// replies could not be read twice; `Err` when a call failed. `asked`
/// counts the requests.
pub fn label_text(
    labeler: &dyn Labeler,
    id: &str,
    text: &str,
    asked: &mut usize,
) -> Result<Result<Vec<String>, String>, LabelError> {
    ask_twice(
        labeler,
        id,
        "themes",
        &taxonomy::labeling_system(),
        &description_request(text),
        parse::description,
        asked,
    )
}

/// Numbered sentences' themes as the labeler gives them (as [`label_text`]).
pub fn label_sentence_texts(
    labeler: &dyn Labeler,
    id: &str,
    sentences: &[&str],
    asked: &mut usize,
) -> Result<Result<Vec<Vec<String>>, String>, LabelError> {
    let count = sentences.len();
    ask_twice(
        labeler,
        id,
        "sentences",
        &sentences_system(),
        &sentences_request(sentences),
        |reply| parse::sentences(reply, count),
        asked,
    )
}

/// The description's themes, unless it has them (or was found unlabelable).
fn label_description(
    q: &mut Question,
    labeler: &dyn Labeler,
    done: &mut Labeled,
) -> Result<(), LabelError> {
    let v = q.variant.as_deref().expect("a variant question");
    if v.themes.is_some() || v.unlabeled.is_some() {
        return Ok(());
    }
    let description = Parts::of_question(q).description;
    // p_bot has no description: it holds no theme, and nothing is asked.
    let outcome = if description.trim().is_empty() {
        Ok(Vec::new())
    } else {
        label_text(labeler, &q.id, &description, &mut done.asked)?
    };
    let v = q.variant.as_deref_mut().expect("a variant question");
    match outcome {
        Ok(codes) => {
            v.themes = Some(codes);
            v.labeled_by = Some(labeler.name());
        }
        Err(why) => {
            done.unlabeled.push(format!("`{}`: {why}", q.id));
            v.unlabeled = Some(why);
        }
    }
    Ok(())
}

/// p_top's sentences and their themes, unless known.
fn label_sentences(
    q: &mut Question,
    labeler: &dyn Labeler,
    done: &mut Labeled,
) -> Result<(), LabelError> {
    let v = q.variant.as_deref().expect("a variant question");
    if v.strategy != Strategy::PTop || v.sentences.is_some() || v.sentences_unlabeled.is_some() {
        return Ok(());
    }
    let description = Parts::of_question(q).description;
    let split: Vec<&str> = derive::sentences(&description)
        .iter()
        .map(|s| s.text)
        .collect();
    if split.is_empty() {
        // Nothing to label, and nothing to take out.
        q.variant
            .as_deref_mut()
            .expect("a variant question")
            .sentences = Some(Vec::new());
        return Ok(());
    }
    let outcome = label_sentence_texts(labeler, &q.id, &split, &mut done.asked)?;
    let v = q.variant.as_deref_mut().expect("a variant question");
    match outcome {
        Ok(themes) => {
            v.sentences_by = Some(labeler.name());
            v.sentences = Some(
                split
                    .iter()
                    .zip(themes)
                    .map(|(text, themes)| LabeledSentence {
                        text: text.to_string(),
                        themes,
                    })
                    .collect(),
            )
        }
        Err(why) => {
            done.unlabeled
                .push(format!("`{}` (its sentences): {why}", q.id));
            v.sentences_unlabeled = Some(why);
        }
    }
    Ok(())
}

/// Asks, and once more with what was wrong; the parsed reply, or why the
/// second could not be read either.
fn ask_twice<T>(
    labeler: &dyn Labeler,
    question: &str,
    what: &str,
    system: &str,
    user: &str,
    read: impl Fn(&str) -> Result<T, String>,
    asked: &mut usize,
) -> Result<Result<T, String>, LabelError> {
    let call = |retry: Option<(&str, &str)>| {
        labeler
            .ask(&Ask {
                question,
                what,
                system,
                user,
                retry,
            })
            .map_err(|reason| LabelError {
                question: question.to_string(),
                what: what.to_string(),
                reason,
            })
    };
    *asked += 1;
    let first = call(None)?;
    let why = match read(&first) {
        Ok(v) => return Ok(Ok(v)),
        Err(why) => why,
    };
    *asked += 1;
    let second = call(Some((&first, &why)))?;
    Ok(read(&second)
        .map_err(|again| format!("asked twice: the first reply: {why}; the second: {again}")))
}

/// The ablation of `theme` from a p_top question whose sentences are
/// labeled; `None` when there is none (said in `warnings` when removing
/// the theme would leave nothing).
fn ablation(
    top_q: &Question,
    top: &Variant,
    theme: &str,
    warnings: &mut Vec<String>,
) -> Option<Question> {
    let labeled = top.sentences.as_deref()?;
    let parts = Parts::of_question(top_q);
    let split = derive::sentences(&parts.description);
    if split.len() != labeled.len() || split.iter().zip(labeled).any(|(s, l)| s.text != l.text) {
        warnings.push(format!(
            "problem `{}`: p_top's labeled sentences are not its text's (it was edited); no ablation is made from them",
            top.of
        ));
        return None;
    }
    match ablate::ablate(&split, labeled, theme) {
        Ablation::Absent => None,
        Ablation::Empty { removed } => {
            warnings.push(format!(
                "problem `{}`: every one of p_top's {} sentences carries theme {}: removing it would leave nothing, so there is no ablate_{theme}",
                top.of,
                removed.len(),
                taxonomy::label(theme)
            ));
            None
        }
        Ablation::Text { removed, text } => {
            let mut v = Variant::new(&top.of, Strategy::Ablate);
            v.theme = Some(theme.to_string());
            v.units = Some(split.len());
            v.removed = Some(removed);
            Some(with_variant(top_q, v, parts.render(Some(&text))))
        }
    }
}

/// p_top's question as another variant of its problem.
fn with_variant(top_q: &Question, variant: Variant, question: String) -> Question {
    let mut q = top_q.clone();
    q.id = format!("{}.{}", variant.of, variant.name());
    q.question = question;
    q.variant = Some(Box::new(variant));
    q
}

/// Questions are numbered in order from 1 (`question_N.py`).
fn renumber(suite: &mut Suite) {
    for (i, q) in suite.questions.iter_mut().enumerate() {
        q.index = i + 1;
    }
}

#[cfg(test)]
mod tests;
