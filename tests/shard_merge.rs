//! `PROMPTEVAL_SHARD=k/n` and `prompteval merge`: the recorded replay of
//! benches-data/python-basics.json (4 prompts, 27 questions, learning
//! history on) run in 3 parts and merged gives the report of one run.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use prompts_cli::Scratch;
use serde_json::Value;

/// The system prompt of the recording (the repository's harness.toml).
fn replay(env: &[(&str, &str)]) -> (Scratch, prompts_cli::Run) {
    // auto with no Ollama: replays what was recorded.
    let s = Scratch::recorded(
        "benches-data/python-basics.json",
        "backend = \"auto\"\n[ollama]\nhost = \"http://127.0.0.1:9\"",
    );
    let run = s.prompts(&[], env);
    (s, run)
}

fn prompteval(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompteval"));
    prompts_cli::without_test_runner_env(&mut cmd);
    cmd.args(args).output().expect("prompteval runs")
}

/// What must not depend on how the run was split.
fn numbers(summary: &Value) -> Value {
    let mut results = summary["prompt_results"].clone();
    for r in results.as_object_mut().unwrap().values_mut() {
        r.as_object_mut().unwrap().remove("avg_execution_time");
    }
    serde_json::json!({
        "results": results,
        "best": summary["best_prompt"],
        "planned": summary["planned_cases"],
        "finished": summary["finished_cases"],
        "not_evaluated": summary["not_evaluated"],
        "complete": summary["complete"],
    })
}

fn verdicts(run_dir: &Path) -> BTreeSet<(String, String)> {
    let mut r = csv::Reader::from_path(run_dir.join("report/cases.csv")).unwrap();
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (
                format!("{}::{}::r{}", &row[0], &row[2], &row[3]),
                row[5].to_string(),
            )
        })
        .collect()
}

#[test]
fn three_parts_merged_report_what_one_run_reports() {
    let (whole, run) = replay(&[]);
    assert!(run.status.is_some(), "{}", run.both());
    let mut parts: Vec<(Scratch, PathBuf)> = Vec::new();
    let mut sizes = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let (s, run) = replay(&[("PROMPTEVAL_SHARD", shard.as_str())]);
        assert!(run.status.is_some(), "{}", run.both());
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(s.run_dir().join("summary.json")).unwrap(),
        )
        .unwrap();
        sizes.push(summary["planned_cases"].as_u64().unwrap());
        let dir = s.run_dir();
        parts.push((s, dir));
    }
    // 4 chains (one per prompt) dealt over 3 parts: 2, 1 and 1 chains (the
    // first holds terse's 8 cases replay cannot answer: planned, not run).
    assert_eq!(sizes, [54, 27, 27]);
    let out = tempfile::tempdir().unwrap();
    let merged = out.path().join("merged");
    let mut args = vec!["merge"];
    let dirs: Vec<String> = parts
        .iter()
        .rev()
        .map(|(_, d)| d.display().to_string())
        .collect();
    args.extend(dirs.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap()]);
    let done = prompteval(&args);
    let text = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(text.contains("merged 3 part(s), 108 case(s)"), "{text}");

    let read = |dir: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
    };
    assert_eq!(numbers(&read(&merged)), numbers(&read(&whole.run_dir())));
    assert_eq!(verdicts(&merged), verdicts(&whole.run_dir()));
    assert!(merged.join("quick_view.html").is_file());
    assert!(merged.join("report/junit.xml").is_file());

    // Two of three parts would be a report over the wrong denominator.
    let partial = prompteval(&[
        "merge",
        &dirs[0],
        &dirs[1],
        "--out",
        out.path().join("p").to_str().unwrap(),
    ]);
    assert_eq!(partial.status.code(), Some(2));
    let err = String::from_utf8_lossy(&partial.stderr);
    assert!(err.contains("part(s) 1/3 of the run are missing"), "{err}");
    let bad = whole.run_dir().display().to_string();
    let unsharded = prompteval(&[
        "merge",
        &bad,
        "--out",
        out.path().join("q").to_str().unwrap(),
    ]);
    assert_eq!(unsharded.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unsharded.stderr).contains("without PROMPTEVAL_SHARD"));
}

#[test]
fn a_merged_run_is_gated_as_one_run_would_be() {
    // Every python-basics prompt is below 90 % in the recording.
    let gate = ("PROMPTEVAL_MIN_ACCURACY", "90");
    let mut dirs = Vec::new();
    let mut scratches = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let (s, run) = replay(&[("PROMPTEVAL_SHARD", shard.as_str()), gate]);
        assert_eq!(run.status, Some(101), "a part's own gate: {}", run.both());
        dirs.push(s.run_dir().display().to_string());
        scratches.push(s);
    }
    let out = tempfile::tempdir().unwrap();
    let merged = out.path().join("merged");
    let done = prompteval(&[
        "merge",
        &dirs[0],
        &dirs[1],
        "--out",
        merged.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&done.stdout);
    assert_eq!(done.status.code(), Some(101), "{text}");
    assert!(
        text.contains("gate: FAILED: 4 of 4 prompt(s) below their accuracy threshold"),
        "{text}"
    );
    assert!(
        text.contains("is below the threshold 90.0%"),
        "each failing prompt is named: {text}"
    );
}
