use std::cell::RefCell;
use std::path::Path;

use super::*;
use crate::variants::{Gates, Writer, expand};

/// Labels by keywords, as a person would: `input` is 1.3, `returns` 1.4,
/// `empty` 2.3, `step` 3.4, anything else 1.1; `BAD` answers outside the
/// taxonomy, and `WORSE` not in JSON, every time.
struct Keywords {
    asked: RefCell<Vec<String>>,
}

fn themes_of(text: &str) -> Vec<&'static str> {
    let t = text.to_lowercase();
    let mut out = Vec::new();
    for (word, code) in [
        ("input", "1.3"),
        ("returns", "1.4"),
        ("empty", "2.3"),
        ("step", "3.4"),
    ] {
        if t.contains(word) {
            out.push(code);
        }
    }
    if out.is_empty() {
        out.push("1.1");
    }
    out
}

impl Labeler for Keywords {
    fn name(&self) -> String {
        "keywords".into()
    }
    fn ask(&self, ask: &Ask<'_>) -> Result<String, String> {
        self.asked.borrow_mut().push(format!(
            "{}/{}{}",
            ask.question,
            ask.what,
            if ask.retry.is_some() { "/retry" } else { "" }
        ));
        if ask.user.contains("BAD") {
            return Ok(r#"[{"taxonomies": ["1.1 Task Goal", "9.9 Vibes"]}]"#.into());
        }
        if ask.user.contains("WORSE") {
            return Ok("It is about sorting.".into());
        }
        if ask.what == "sentences" {
            let entries: Vec<String> = ask
                .user
                .lines()
                .filter_map(|l| {
                    l.split_once(". ")
                        .filter(|(n, _)| n.parse::<usize>().is_ok())
                })
                .map(|(n, s)| format!(r#"{{"sentence": {n}, "taxonomies": {:?}}}"#, themes_of(s)))
                .collect();
            return Ok(format!("[{}]", entries.join(", ")));
        }
        let text = ask.user.split("Prompt:\n").nth(1).unwrap();
        Ok(format!(
            r#"```json
[{{"prompt": "...", "taxonomies": {:?}}}]
```"#,
            themes_of(text)
        ))
    }
}

struct Summaries;
impl Writer for Summaries {
    type Error = std::convert::Infallible;
    fn p_top(&self, _: &Question, _: &Parts, _: u32) -> Result<String, Self::Error> {
        unreachable!("the suite gives p_top")
    }
    fn summary(&self, q: &Question, _: &str, words: u32) -> Result<String, Self::Error> {
        Ok(match (q.id.as_str(), words) {
            ("b", 10) => "BAD summary".into(),
            ("b", 25) => "WORSE summary".into(),
            (_, w) if w >= 100 => "It returns the sum of the input.".into(),
            _ => "Sum it.".into(),
        })
    }
}

fn suite() -> Suite {
    let s = Suite::parse(
        Path::new("s.json"),
        br#"{"t": "{question}", "questions": [
          {"id": "a", "question": "def a(x):\n    \"\"\"Sum.\"\"\"\n", "entry_point": "a", "tests": "assert a([1]) == 1",
           "p_top": "Sum the list. The input is a list of ints.\n\nAn empty list gives 0. Step through and add."},
          {"id": "b", "question": "def b(x):\n    \"\"\"Sum.\"\"\"\n", "entry_point": "b", "tests": "assert b([1]) == 1",
           "p_top": "The input is a list. Every sentence names the input."}]}"#,
    )
    .unwrap();
    expand(&s, 1, Gates::leak_only(1), &Summaries)
        .unwrap()
        .suite
}

fn ablate() -> Vec<String> {
    ["1.3", "2.3", "3.4", "4.1"].map(String::from).to_vec()
}

fn find<'a>(suite: &'a Suite, id: &str) -> &'a Question {
    suite
        .questions
        .iter()
        .find(|q| q.id == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

#[test]
fn every_description_is_labeled_and_the_ablations_lose_exactly_their_themes_sentences() {
    let mut s = suite();
    let planned = plan_ablations(&mut s, &ablate());
    assert!(planned.is_empty());
    // Named before anything is asked: 4 placeholders per problem after p_top.
    let names: Vec<&str> = s.questions.iter().map(|q| q.id.as_str()).collect();
    let at = names.iter().position(|n| *n == "a.p_top").unwrap();
    assert_eq!(
        &names[at + 1..at + 5],
        [
            "a.ablate_1.3",
            "a.ablate_2.3",
            "a.ablate_3.4",
            "a.ablate_4.1"
        ]
    );
    let labeler = Keywords {
        asked: RefCell::new(Vec::new()),
    };
    let done = label(&mut s, &ablate(), &labeler).unwrap();
    let a_top = find(&s, "a.p_top").variant.as_deref().unwrap();
    assert_eq!(a_top.themes.as_deref().unwrap(), ["1.3", "2.3", "3.4"]);
    let sentences: Vec<(&str, &[String])> = a_top
        .sentences
        .as_deref()
        .unwrap()
        .iter()
        .map(|s| (s.text.as_str(), s.themes.as_slice()))
        .collect();
    assert_eq!(sentences.len(), 4);
    assert_eq!(
        sentences[1],
        ("The input is a list of ints.", &["1.3".to_string()][..])
    );
    // a: 1.3, 2.3 and 3.4 each removed; no sentence of 4.1, so no variant.
    let ab = find(&s, "a.ablate_2.3");
    let v = ab.variant.as_deref().unwrap();
    assert_eq!(
        (v.strategy, v.theme.as_deref(), v.removed.as_deref()),
        (Strategy::Ablate, Some("2.3"), Some(&[2][..]))
    );
    assert!(
        ab.question
            .contains("Sum the list. The input is a list of ints.\n\n    Step through and add."),
        "{}",
        ab.question
    );
    assert!(!ab.question.contains("empty"));
    assert!(s.questions.iter().all(|q| q.id != "a.ablate_4.1"));
    // b: every sentence names the input, so no ablate_1.3, and it is said.
    assert!(s.questions.iter().all(|q| !q.id.starts_with("b.ablate")));
    assert!(
        done.warnings
            .iter()
            .any(|w| w.contains("`b`") && w.contains("leave nothing")),
        "{:?}",
        done.warnings
    );
    // Placeholders are gone and the questions are numbered again.
    assert!(
        s.questions
            .iter()
            .all(|q| !q.variant.as_deref().is_some_and(is_placeholder))
    );
    assert!(
        s.questions
            .iter()
            .enumerate()
            .all(|(i, q)| q.index == i + 1)
    );
    // Every variant is labeled (p_bot with nothing, asking nothing), but
    // b's 10-word summary (outside the taxonomy) and 25-word (no JSON).
    for q in &s.questions {
        let v = q.variant.as_deref().unwrap();
        match q.id.as_str() {
            "b.summary_10w" => assert!(
                v.unlabeled
                    .as_deref()
                    .unwrap()
                    .contains("`9.9 Vibes` is not a theme"),
                "{v:?}"
            ),
            "b.summary_25w" => {
                assert!(v.unlabeled.as_deref().unwrap().contains("no JSON"), "{v:?}")
            }
            _ => assert!(v.themes.is_some(), "{}", q.id),
        }
    }
    assert_eq!(
        find(&s, "a.p_bot")
            .variant
            .as_deref()
            .unwrap()
            .themes
            .as_deref(),
        Some(&[][..])
    );
    let asked = labeler.asked.borrow();
    assert!(!asked.iter().any(|a| a.starts_with("a.p_bot")));
    assert!(asked.contains(&"b.summary_10w/themes/retry".to_string()));
    assert_eq!(done.unlabeled.len(), 2);
    // Labeled again, nothing is asked: the labels are kept.
    let before = asked.len();
    drop(asked);
    let again = label(&mut s, &ablate(), &labeler).unwrap();
    assert_eq!((again.asked, labeler.asked.borrow().len()), (0, before));
}

#[test]
fn a_stored_labeled_expansion_plans_its_ablations_without_asking() {
    let mut s = suite();
    plan_ablations(&mut s, &ablate());
    let labeler = Keywords {
        asked: RefCell::new(Vec::new()),
    };
    label(&mut s, &ablate(), &labeler).unwrap();
    let labeled_ids: Vec<String> = s.questions.iter().map(|q| q.id.clone()).collect();
    // Without its ablations, as a stored expansion asked with another list.
    s.questions.retain(|q| !q.id.contains("ablate"));
    let warnings = plan_ablations(&mut s, &ablate());
    assert!(warnings.iter().any(|w| w.contains("leave nothing")));
    let ids: Vec<String> = s.questions.iter().map(|q| q.id.clone()).collect();
    assert_eq!(ids, labeled_ids);
    assert!(
        !s.questions
            .iter()
            .any(|q| q.variant.as_deref().is_some_and(is_placeholder))
    );
}

#[test]
fn a_failed_call_stops_labeling_with_the_question_named() {
    struct Down;
    impl Labeler for Down {
        fn name(&self) -> String {
            "down".into()
        }
        fn ask(&self, _: &Ask<'_>) -> Result<String, String> {
            Err("connection refused".into())
        }
    }
    let mut s = suite();
    let e = label(&mut s, &ablate(), &Down).unwrap_err();
    assert_eq!(
        e.to_string(),
        "question `a.original`: labeling its themes: connection refused"
    );
}

#[test]
fn hand_sentence_labels_replace_the_labelers_and_the_ablations_are_cut_again() {
    use super::agreement::{HandLabeled, HandSentences, apply_sentences};
    let mut s = suite();
    plan_ablations(&mut s, &ablate());
    let labeler = Keywords {
        asked: RefCell::new(Vec::new()),
    };
    label(&mut s, &ablate(), &labeler).unwrap();
    assert!(s.questions.iter().any(|q| q.id == "a.ablate_2.3"));
    let texts: Vec<String> = find(&s, "a.p_top")
        .variant
        .as_deref()
        .unwrap()
        .sentences
        .as_ref()
        .unwrap()
        .iter()
        .map(|l| l.text.clone())
        .collect();
    // By hand: only the last sentence is a step, and nothing is an edge case.
    let hand: Vec<LabeledSentence> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| LabeledSentence {
            text: t.clone(),
            themes: if i == 3 {
                vec!["3.4".into()]
            } else {
                vec!["1.1".into()]
            },
        })
        .collect();
    let set = HandLabeled {
        about: "test".into(),
        descriptions: Vec::new(),
        sentences: vec![HandSentences {
            problem: "a".into(),
            source: "s.json".into(),
            sentences: hand,
        }],
    };
    assert_eq!(apply_sentences(&mut s, &set, "hand").unwrap(), ["a"]);
    assert!(!s.questions.iter().any(|q| q.id.starts_with("a.ablate")));
    let top = find(&s, "a.p_top").variant.as_deref().unwrap();
    assert_eq!(top.sentences_by.as_deref(), Some("hand"));
    // Cut again from the hand's labels: only 3.4 has a sentence now.
    plan_ablations(&mut s, &ablate());
    let ids: Vec<&str> = s
        .questions
        .iter()
        .filter(|q| q.id.starts_with("a.ablate"))
        .map(|q| q.id.as_str())
        .collect();
    assert_eq!(ids, ["a.ablate_3.4"]);
    let step = find(&s, "a.ablate_3.4");
    assert!(!step.question.contains("Step through"), "{}", step.question);
    assert!(
        s.questions
            .iter()
            .enumerate()
            .all(|(i, q)| q.index == i + 1)
    );
    // A set whose sentences are not p_top's as split is refused.
    let mut wrong = set.clone();
    wrong.sentences[0].sentences.pop();
    let e = apply_sentences(&mut s, &wrong, "hand").unwrap_err();
    assert!(e.contains("not its p_top's 4 as split now"), "{e}");
}
