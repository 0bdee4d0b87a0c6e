//! How far to trust a labeler: its labels against a set labeled by hand
//! (`benches-data/themes/hand-labeled.json`), per theme and overall, as
//! Cohen's kappa on the yes/no decision "this description holds the
//! theme" (overall: every theme's decisions pooled).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::taxonomy::{THEMES, by_code};
use crate::suite::variant::LabeledSentence;

/// The hand-labeled set.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandLabeled {
    /// Who labeled it, how, and from what.
    pub about: String,
    pub descriptions: Vec<HandDescription>,
    /// p_top sentence labels by problem, as `variant.sentences` holds them.
    #[serde(default)]
    pub sentences: Vec<HandSentences>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandDescription {
    /// The variant question's id (`HumanEval_0.summary_50w`).
    pub id: String,
    /// The expansion it is from.
    pub source: String,
    pub text: String,
    pub themes: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandSentences {
    pub problem: String,
    pub source: String,
    pub sentences: Vec<LabeledSentence>,
}

impl HandLabeled {
    /// Reads and checks the set: every theme a code of the taxonomy.
    pub fn load(path: &Path) -> Result<HandLabeled, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let set: HandLabeled = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}:{}: not a hand-labeled set ({e}); see docs/guide/variants.md",
                path.display(),
                e.line()
            )
        })?;
        let codes = set
            .descriptions
            .iter()
            .map(|d| (d.id.as_str(), &d.themes))
            .chain(set.sentences.iter().flat_map(|s| {
                s.sentences
                    .iter()
                    .map(move |l| (s.problem.as_str(), &l.themes))
            }));
        for (id, themes) in codes {
            if let Some(bad) = themes.iter().find(|c| by_code(c).is_none()) {
                return Err(format!(
                    "{}: `{id}` has theme `{bad}`, which is not a code of the taxonomy (1.1 to 4.4)",
                    path.display()
                ));
            }
        }
        Ok(set)
    }
}

/// Gives each p_top of `suite` whose problem the set labels sentence by
/// sentence those labels (`sentences_by` = `by`), in place of the
/// labeler's; ablations are then cut from them. Their texts must be the
/// p_top's sentences as split now. The problems given, in order.
pub fn apply_sentences(
    suite: &mut crate::suite::Suite,
    set: &HandLabeled,
    by: &str,
) -> Result<Vec<String>, String> {
    use crate::variants::{Strategy, derive, parts::Parts};
    let mut applied = Vec::new();
    for hand in &set.sentences {
        let q = suite
            .questions
            .iter_mut()
            .find(|q| {
                q.variant
                    .as_deref()
                    .is_some_and(|v| v.strategy == Strategy::PTop && v.of == hand.problem)
            })
            .ok_or_else(|| format!("problem `{}` has no p_top in the suite", hand.problem))?;
        let description = Parts::of_question(q).description;
        let split: Vec<&str> = derive::sentences(&description)
            .iter()
            .map(|s| s.text)
            .collect();
        let given: Vec<&str> = hand.sentences.iter().map(|s| s.text.as_str()).collect();
        if split != given {
            return Err(format!(
                "problem `{}`: the set's {} sentences are not its p_top's {} as split now; label `prompteval themes texts` output",
                hand.problem,
                given.len(),
                split.len()
            ));
        }
        let v = q.variant.as_deref_mut().expect("a variant");
        v.sentences = Some(hand.sentences.clone());
        v.sentences_by = Some(by.to_string());
        v.sentences_unlabeled = None;
        applied.push(hand.problem.clone());
    }
    // Ablations cut from other labels are cut again from these.
    suite.questions.retain(|q| {
        !q.variant
            .as_deref()
            .is_some_and(|v| v.strategy == Strategy::Ablate && applied.contains(&v.of))
    });
    for (i, q) in suite.questions.iter_mut().enumerate() {
        q.index = i + 1;
    }
    Ok(applied)
}

/// Agreement on one theme, or over all of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// `null` when chance agreement is 1 (both always say the same thing):
    /// kappa is then undefined, not perfect.
    pub kappa: Option<f64>,
    /// Share of decisions where both agree.
    pub observed: f64,
    /// Decisions compared, and how many each said "holds it".
    pub decisions: usize,
    pub by_hand: usize,
    pub by_labeler: usize,
}

/// Per theme and overall, from pairs (hand, labeler) of theme sets; items
/// the labeler left unlabeled are not compared (counted apart).
pub fn agreement(pairs: &[(&[String], &[String])]) -> (BTreeMap<String, Agreement>, Agreement) {
    let mut per_theme = BTreeMap::new();
    let mut all = Vec::new();
    for t in THEMES {
        let decisions: Vec<(bool, bool)> = pairs
            .iter()
            .map(|(hand, model)| {
                (
                    hand.iter().any(|c| c == t.code),
                    model.iter().any(|c| c == t.code),
                )
            })
            .collect();
        per_theme.insert(t.code.to_string(), kappa(&decisions));
        all.extend(decisions);
    }
    (per_theme, kappa(&all))
}

/// Cohen's kappa of paired yes/no decisions.
pub fn kappa(decisions: &[(bool, bool)]) -> Agreement {
    let n = decisions.len();
    let by_hand = decisions.iter().filter(|d| d.0).count();
    let by_labeler = decisions.iter().filter(|d| d.1).count();
    let agree = decisions.iter().filter(|d| d.0 == d.1).count();
    if n == 0 {
        return Agreement {
            kappa: None,
            observed: 0.0,
            decisions: 0,
            by_hand,
            by_labeler,
        };
    }
    let nf = n as f64;
    let observed = agree as f64 / nf;
    let (h, m) = (by_hand as f64 / nf, by_labeler as f64 / nf);
    let chance = h * m + (1.0 - h) * (1.0 - m);
    Agreement {
        kappa: (chance < 1.0 - 1e-12).then(|| (observed - chance) / (1.0 - chance)),
        observed,
        decisions: n,
        by_hand,
        by_labeler,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_is_agreement_beyond_chance() {
        // Textbook: 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no of 50:
        // po 0.7, pe 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa 0.4.
        let mut d = vec![(true, true); 20];
        d.extend(vec![(true, false); 5]);
        d.extend(vec![(false, true); 10]);
        d.extend(vec![(false, false); 15]);
        let a = kappa(&d);
        assert!((a.kappa.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(
            (a.observed, a.decisions, a.by_hand, a.by_labeler),
            (0.7, 50, 25, 30)
        );
        // A labeler that says yes to everything: chance explains all of it.
        let always: Vec<(bool, bool)> = (0..10).map(|i| (i < 7, true)).collect();
        assert_eq!(kappa(&always).kappa, Some(0.0));
        // Both always yes: undefined, never 1.
        assert_eq!(kappa(&[(true, true); 4]).kappa, None);
    }

    #[test]
    fn agreement_is_per_theme_and_pooled() {
        let hand = [
            vec!["1.1".to_string()],
            vec!["1.1".to_string(), "2.3".to_string()],
        ];
        let model = [vec!["1.1".to_string()], vec!["1.1".to_string()]];
        let pairs: Vec<(&[String], &[String])> = hand
            .iter()
            .zip(&model)
            .map(|(h, m)| (h.as_slice(), m.as_slice()))
            .collect();
        let (per, all) = agreement(&pairs);
        assert_eq!(per["1.1"].kappa, None, "both always say yes");
        assert_eq!(per["2.3"].kappa, Some(0.0));
        assert_eq!(per["2.3"].by_hand, 1);
        assert_eq!(all.decisions, 40);
        assert_eq!(all.observed, 39.0 / 40.0);
    }
}

/// A labeler's agreement with the hand-labeled set.
#[derive(Debug, Clone, Serialize)]
pub struct AgreementReport {
    pub labeler: String,
    /// Whole descriptions (the task of the shares).
    pub descriptions: TaskAgreement,
    /// p_top's sentences (the task of the ablations); absent without any.
    pub sentences: Option<TaskAgreement>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskAgreement {
    pub overall: Agreement,
    pub per_theme: BTreeMap<String, Agreement>,
    /// Requests whose replies gave no labels (asked twice), with why:
    /// their items are not compared.
    pub unlabeled: Vec<String>,
    /// Items (descriptions, sentences) in the set, and those compared.
    pub items: usize,
    pub labeled: usize,
}

/// Asks `labeler` every description and sentence set of `set` and
/// compares its labels with the hand's.
pub fn measure(
    set: &HandLabeled,
    labeler: &dyn super::Labeler,
    name: &str,
) -> Result<AgreementReport, super::LabelError> {
    // Counted by the labeling calls; the report does not need it.
    let mut asked = 0;
    let mut given = Vec::new();
    let mut unlabeled = Vec::new();
    for d in &set.descriptions {
        match super::label_text(labeler, &d.id, &d.text, &mut asked)? {
            Ok(themes) => given.push((d.themes.clone(), themes)),
            Err(why) => unlabeled.push(format!("{}: {why}", d.id)),
        }
    }
    let descriptions = task(&given, unlabeled, set.descriptions.len());
    let sentences = if set.sentences.is_empty() {
        None
    } else {
        let mut given = Vec::new();
        let mut unlabeled = Vec::new();
        let mut items = 0;
        for s in &set.sentences {
            let texts: Vec<&str> = s.sentences.iter().map(|l| l.text.as_str()).collect();
            items += texts.len();
            match super::label_sentence_texts(
                labeler,
                &format!("{}.p_top", s.problem),
                &texts,
                &mut asked,
            )? {
                Ok(labels) => given.extend(
                    s.sentences
                        .iter()
                        .zip(labels)
                        .map(|(hand, model)| (hand.themes.clone(), model)),
                ),
                Err(why) => unlabeled.push(format!("{}: {why}", s.problem)),
            }
        }
        Some(task(&given, unlabeled, items))
    };
    Ok(AgreementReport {
        labeler: name.to_string(),
        descriptions,
        sentences,
    })
}

fn task(
    given: &[(Vec<String>, Vec<String>)],
    unlabeled: Vec<String>,
    items: usize,
) -> TaskAgreement {
    let pairs: Vec<(&[String], &[String])> = given
        .iter()
        .map(|(h, m)| (h.as_slice(), m.as_slice()))
        .collect();
    let (per_theme, overall) = agreement(&pairs);
    TaskAgreement {
        overall,
        per_theme,
        unlabeled,
        items,
        labeled: given.len(),
    }
}

impl AgreementReport {
    /// What `prompteval themes agree` prints.
    pub fn text(&self) -> String {
        let mut out = format!("labeler {} against the hand-labeled set\n", self.labeler);
        let tasks = [
            ("descriptions", Some(&self.descriptions)),
            ("p_top sentences", self.sentences.as_ref()),
        ];
        for (what, task) in tasks {
            let Some(t) = task else { continue };
            let k = |a: &Agreement| {
                a.kappa
                    .map_or("undefined".to_string(), |k| format!("{k:.2}"))
            };
            out.push_str(&format!(
                "{what}: {} labeled of {}; Cohen's kappa over all theme decisions {} (agreement {:.2})\n",
                t.labeled,
                t.items,
                k(&t.overall),
                t.overall.observed
            ));
            for (code, a) in &t.per_theme {
                if a.by_hand == 0 && a.by_labeler == 0 {
                    continue;
                }
                out.push_str(&format!(
                    "  {:<45} kappa {:>9}  hand {:>3}  labeler {:>3}  of {}\n",
                    super::taxonomy::label(code),
                    k(a),
                    a.by_hand,
                    a.by_labeler,
                    a.decisions
                ));
            }
            for u in &t.unlabeled {
                out.push_str(&format!("  unlabeled: {u}\n"));
            }
        }
        out
    }
}
