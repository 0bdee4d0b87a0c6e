use std::collections::{BTreeMap, BTreeSet};

use super::identity::RunIdentity;
use super::*;
use crate::case::Verdict::{Correct, WrongAnswer};

const MODEL: &str = "qwen2.5-coder:1.5b";

fn settings(num_ctx: &str) -> BTreeMap<String, Settings> {
    BTreeMap::from([(
        MODEL.to_string(),
        Settings::from([("llm.num_ctx".to_string(), num_ctx.to_string())]),
    )])
}

fn questions() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("q1".to_string(), "aaaa".to_string()),
        ("q2".to_string(), "bbbb".to_string()),
    ])
}

fn baseline() -> Baseline {
    Baseline {
        prompteval_baseline: FORMAT,
        run: "test_20261125_055138".into(),
        suite: "example.json".into(),
        settings: settings("4096"),
        questions: questions(),
        cases: BTreeMap::from([(
            MODEL.to_string(),
            BTreeMap::from([
                ("prompt1::q1::r1".to_string(), Correct),
                ("prompt1::q2::r1".to_string(), Correct),
                ("prompt2::q1::r1".to_string(), WrongAnswer),
            ]),
        )]),
    }
}

#[test]
fn the_file_has_one_line_per_case_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.toml");
    baseline().write(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# prompteval baseline"), "{text}");
    assert!(
        text.contains("\"prompt1::q1::r1\" = \"correct\"\n"),
        "{text}"
    );
    assert!(
        text.contains("\"prompt2::q1::r1\" = \"wrong_answer\"\n"),
        "{text}"
    );
    assert!(text.contains("suite = \"example.json\"\n"), "{text}");
    assert_eq!(Baseline::read(&path).unwrap(), baseline());
}

#[test]
fn a_broken_file_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.toml");
    baseline().write(&path).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"wrong_answer\"", "\"wrong\"");
    std::fs::write(&path, &text).unwrap();
    let line = text.lines().position(|l| l.contains("\"wrong\"")).unwrap() + 1;
    let e = Baseline::read(&path).unwrap_err().to_string();
    assert!(e.contains("baseline.toml: line "), "{e}");
    assert!(e.contains(&format!("line {line}:")), "{e}");
    let missing = Baseline::read(&dir.path().join("none.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("prompteval baseline RUN --out"),
        "{missing}"
    );
}

#[test]
fn another_suite_other_settings_or_changed_questions_are_differences() {
    let b = baseline();
    let (s, q) = (settings("4096"), questions());
    let same = RunIdentity {
        suite: "/elsewhere/example.json",
        settings: &s,
        questions: &q,
    };
    assert!(differences(&b, &same).is_empty());
    let other = RunIdentity {
        suite: "other.json",
        ..same
    };
    assert_eq!(
        differences(&b, &other),
        ["suite: the baseline's is example.json, this run's is other.json"]
    );
    let wider = settings("8192");
    let d = differences(
        &b,
        &RunIdentity {
            settings: &wider,
            ..same
        },
    );
    assert_eq!(
        d,
        [format!(
            "{MODEL} · llm.num_ctx: 4096 in the baseline, 8192 in this run"
        )]
    );
    let mut edited = questions();
    edited.insert("q2".into(), "cccc".into());
    let d = differences(
        &b,
        &RunIdentity {
            questions: &edited,
            ..same
        },
    );
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].starts_with("question q2: changed"), "{d:?}");
}

#[test]
fn shared_cases_are_paired_and_the_rest_counted() {
    let now = BTreeMap::from([(
        MODEL.to_string(),
        BTreeMap::from([
            ("prompt1::q1::r1".to_string(), WrongAnswer),
            ("prompt1::q3::r1".to_string(), Correct),
            ("prompt3::q1::r1".to_string(), Correct),
        ]),
    )]);
    let selected = BTreeMap::from([(
        MODEL.to_string(),
        BTreeSet::from(["prompt1".to_string(), "prompt3".to_string()]),
    )]);
    let r = judge(&baseline(), "b.toml", &now, &selected, 0.05);
    assert_eq!(r.checks.len(), 1);
    let c = &r.checks[0];
    assert_eq!(c.prompt, "prompt1");
    assert_eq!(c.paired.shared, 1);
    assert_eq!((c.paired.only_first, c.paired.only_second), (1, 0));
    assert_eq!((c.only_in_baseline, c.only_in_run), (1, 1));
    assert_eq!(r.prompts_not_run, ["prompt2"]);
    assert_eq!(r.prompts_without_baseline, ["prompt3"]);
    assert!(r.passed(), "one lost case is noise");
}

#[test]
fn the_discordance_pairs_prompts_on_the_same_case() {
    // q1::r1 under prompt1 (correct) and prompt2 (wrong): one pair, and
    // it differs; q2 has one prompt only.
    let pairs = baseline().discordance();
    assert_eq!((pairs.discordant, pairs.pairs), (1, 1));
}
