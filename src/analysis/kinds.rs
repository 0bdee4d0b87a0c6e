//! Accuracy per question `kind` (issue #20 part 3): the suite's optional
//! free-text category of a question (e.g. `algorithm`, `indentation`,
//! `bugfix`), per prompt. Called once per model.

use std::collections::BTreeMap;

use super::outcomes::Outcomes;
use super::stats::{self, round_to};
use crate::results::KindAccuracy;
use crate::suite::Question;
use indexmap::IndexMap;

/// Where questions without a kind (or with a blank one) are counted.
pub const NO_KIND: &str = "(none)";

/// Question id -> kind, for the questions that have a non-blank one (the
/// shape of `RunInfo::kinds`).
pub fn kinds_of(questions: &[Question]) -> BTreeMap<String, String> {
    questions
        .iter()
        .filter_map(|q| {
            let kind = q.kind.as_deref()?.trim();
            (!kind.is_empty()).then(|| (q.id.clone(), kind.to_string()))
        })
        .collect()
}

/// Prompt (suite order) -> kind (in the order the suite first uses it,
/// [`NO_KIND`] where a question has none) -> accuracy. `kinds` maps a
/// question id to its kind, as [`kinds_of`] builds it (`RunInfo::kinds`).
pub fn accuracy_by_kind(
    outcomes: &Outcomes,
    kinds: &BTreeMap<String, String>,
) -> IndexMap<String, IndexMap<String, KindAccuracy>> {
    let kind_of = |q: usize| {
        kinds
            .get(&outcomes.questions[q])
            .map(|k| k.trim())
            .filter(|k| !k.is_empty())
            .unwrap_or(NO_KIND)
    };
    let mut groups: IndexMap<&str, Vec<usize>> = IndexMap::new();
    for q in 0..outcomes.questions.len() {
        groups.entry(kind_of(q)).or_default().push(q);
    }
    outcomes
        .prompts
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let per_kind = groups
                .iter()
                .map(|(kind, questions)| (kind.to_string(), kind_accuracy(outcomes, p, questions)))
                .collect();
            (name.clone(), per_kind)
        })
        .collect()
}

fn kind_accuracy(outcomes: &Outcomes, prompt: usize, questions: &[usize]) -> KindAccuracy {
    let (correct, evaluated) = questions
        .iter()
        .map(|&q| outcomes.tally(prompt, q))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    KindAccuracy {
        questions: questions.len(),
        accuracy: (evaluated > 0).then(|| round_to(correct as f64 * 100.0 / evaluated as f64, 1)),
        accuracy_interval: stats::wilson(correct, evaluated)
            .map(|(lo, hi)| [round_to(lo * 100.0, 1), round_to(hi * 100.0, 1)]),
        correct_answers: correct,
        total_questions: evaluated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::robustness::tests::outcomes;

    fn kinds(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(q, k)| (q.to_string(), k.to_string()))
            .collect()
    }

    #[test]
    fn accuracy_is_correct_over_evaluated_cases_of_each_kind() {
        // q1, q3 algorithm; q2 fix_bug; q4 no kind. Two slots each.
        let o = outcomes(
            &["A", "B"],
            &["q1", "q2", "q3", "q4"],
            &[&["11", "10", "0x", "xx"], &["00", "11", "11", "01"]],
        );
        // q4's blank kind counts as none.
        let k = kinds(&[
            ("q1", "algorithm"),
            ("q2", "fix_bug"),
            ("q3", "algorithm"),
            ("q4", " "),
        ]);
        let by = accuracy_by_kind(&o, &k);
        let order: Vec<&String> = by["A"].keys().collect();
        assert_eq!(order, ["algorithm", "fix_bug", NO_KIND]);
        // A algorithm: q1 2/2 + q3 0/1 (its x not counted) = 2/3 = 66.7 %.
        let a = &by["A"]["algorithm"];
        assert_eq!(
            (a.questions, a.correct_answers, a.total_questions),
            (2, 2, 3)
        );
        assert_eq!(a.accuracy, Some(66.7));
        // Wilson(2, 3) = [0.2077, 0.9385] (stats' test), in percent.
        assert_eq!(a.accuracy_interval, Some([20.8, 93.9]));
        assert_eq!(by["A"]["fix_bug"].accuracy, Some(50.0));
        // A never evaluated q4: no accuracy, no interval (not 0 %).
        let none = &by["A"][NO_KIND];
        assert_eq!(
            (none.accuracy, none.accuracy_interval, none.total_questions),
            (None, None, 0)
        );
        // B algorithm: q1 0/2 + q3 2/2 = 2/4 = 50 %; no kind: 1/2.
        assert_eq!(by["B"]["algorithm"].accuracy, Some(50.0));
        assert_eq!(by["B"][NO_KIND].accuracy, Some(50.0));
    }

    #[test]
    fn kinds_of_keeps_non_blank_kinds() {
        let suite = crate::suite::Suite::parse(
            std::path::Path::new("suite.json"),
            br#"{"p1": "A {question}", "questions": [
                {"id": "a", "question": "a", "answer": "1", "kind": "fix_bug"},
                {"id": "b", "question": "b", "answer": "2", "kind": "  "},
                {"id": "c", "question": "c", "answer": "3"}]}"#,
        )
        .unwrap()
        .questions;
        let k = kinds_of(&suite);
        assert_eq!(k.len(), 1);
        assert_eq!(k.get(&suite[0].id).map(String::as_str), Some("fix_bug"));
    }
}
