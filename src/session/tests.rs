//! The session driven as the harness drives it, its events kept by a
//! [`Recording`] sink instead of printed: what a user would read, in order.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{RunPlan, Session};
use crate::ask::replay::tests::{MODEL, record};
use crate::ask::snapshot::SnapshotStore;
use crate::schedule::TrialOutcome;
use crate::terminal::output::{Output, Recording};

/// A folder with a suite of three questions, a harness.toml replaying
/// `m:1`, and recordings of every case passing.
fn recorded_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = serde_json::json!({
        "p": "Solve: {question}",
        "questions": [
            {"id": "a", "question": "print one", "answer": "1"},
            {"id": "b", "question": "print two", "answer": "2"},
            {"id": "c", "question": "print three", "answer": "3"},
        ]
    });
    std::fs::write(dir.path().join("s.json"), suite.to_string()).unwrap();
    std::fs::write(
        dir.path().join("harness.toml"),
        format!(
            "suite = \"s.json\"\nmodel = \"{MODEL}\"\nbackend = \"replay\"\nsnapshot_dir = \"snaps\"\nresult_dir = \"result\"\ncache = false\n"
        ),
    )
    .unwrap();
    let plan = RunPlan::load(&[("X", "")], dir.path()).unwrap();
    let store = SnapshotStore::new(&plan.config.snapshot_dir, &plan.suite.stem(), MODEL);
    record(&store, &plan.suite, &plan.config);
    dir
}

/// Runs every planned case and finishes; the events and the exit status.
fn run<const N: usize>(dir: &std::path::Path, env: [(&str, &str); N]) -> (Vec<String>, ExitCode) {
    let plan = RunPlan::load(&env, dir).unwrap();
    let recording = Arc::new(Recording::default());
    let out = Arc::new(Output::new(vec![Box::new(recording.clone())]));
    let selected = plan.planned.clone();
    let interrupted = Arc::new(AtomicBool::new(false));
    let session = Session::start(plan, selected.clone(), Some(2), interrupted, &out).unwrap();
    let positions = session.positions();
    for case in &selected {
        let at = positions[case];
        assert_eq!(session.wait(at), Some(TrialOutcome::Passed), "{case:?}");
    }
    drop(positions);
    let code = session.finish(ExitCode::SUCCESS, &out).unwrap();
    (recording.events(), code)
}

fn kind(event: &str) -> &str {
    event.split([' ', '(', '{']).next().unwrap()
}

#[test]
fn a_replayed_run_says_each_step_in_order_and_reports_its_table() {
    let dir = recorded_folder();
    let (events, code) = run(dir.path(), [("PROMPTEVAL_PROGRESS", "off")]);
    assert_eq!(code, ExitCode::SUCCESS);
    let kinds: Vec<&str> = events.iter().map(|e| kind(e)).collect();
    let order = [
        "Starting",
        "Replaying",
        "RunFolder",
        "Testing",
        "Reporting",
        "Table",
        "Saved",
        "TotalTime",
        "StepSummary",
    ];
    let mut at = 0;
    for wanted in order {
        let found = kinds[at..].iter().position(|k| *k == wanted);
        assert!(
            found.is_some(),
            "{wanted} after {:?}: {kinds:?}",
            &kinds[..at]
        );
        at += found.unwrap() + 1;
    }
    let table = events.iter().find(|e| kind(e) == "Table").unwrap();
    assert!(table.contains("100.0%") && table.contains("3/3"), "{table}");
    // No gate configured: no gate line, and the progress was asked off.
    assert!(
        !kinds.contains(&"Gate") && !kinds.contains(&"Progress"),
        "{kinds:?}"
    );
}

#[test]
fn progress_lines_and_the_gate_go_through_the_same_stream() {
    let dir = recorded_folder();
    let (events, code) = run(
        dir.path(),
        [
            ("PROMPTEVAL_PROGRESS", "0"),
            ("PROMPTEVAL_MIN_ACCURACY", "50"),
        ],
    );
    assert_eq!(code, ExitCode::SUCCESS);
    let progress: Vec<&String> = events.iter().filter(|e| kind(e) == "Progress").collect();
    assert!(!progress.is_empty(), "{events:#?}");
    assert!(progress.last().unwrap().contains("3/3"), "{progress:?}");
    let gate: Vec<&String> = events.iter().filter(|e| kind(e) == "Gate").collect();
    assert!(
        gate.last()
            .unwrap()
            .contains("gate: passed (1 prompt(s) checked) · 通過 (檢查了 1 個 prompt)"),
        "{gate:?}"
    );
}
