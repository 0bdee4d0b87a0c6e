//! Every suite under `benches-data/` replays in full from its committed
//! recordings, as a user runs it from the repository: the repository's
//! harness.toml, `PROMPTEVAL_BACKEND=replay`, `PROMPTEVAL_SUITE=<suite>`.
//! A recording that no longer answers its case's exact request (a changed
//! prompt layout, history or option) fails here, not in a user's offline
//! shard/merge or compare flow. Replayed cases carry the recorded call's
//! tokens and time.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

use std::path::{Path, PathBuf};

use prompts_cli::Scratch;

fn suites() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data");
    let mut suites: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    suites.sort();
    suites
}

/// What is wrong with the replay of `suite`, if anything.
fn replay(suite: &Path) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Scratch::new("");
    let result = s.path().join("result");
    let run = s.prompts(
        &[],
        &[
            ("PROMPTEVAL_CONFIG", root.join("harness.toml").to_str().unwrap()),
            ("PROMPTEVAL_RESULT_DIR", result.to_str().unwrap()),
            ("PROMPTEVAL_SUITE", suite.to_str().unwrap()),
            ("PROMPTEVAL_BACKEND", "replay"),
        ],
    );
    let name = suite.file_name().unwrap().to_string_lossy();
    if !matches!(run.status, Some(0 | 101)) {
        return Err(format!(
            "{name}: exit status {:?}\n{}",
            run.status,
            run.stderr
        ));
    }
    let summary = s.summary();
    let planned = summary["planned_cases"].as_u64().unwrap_or(0);
    if planned == 0
        || summary["finished_cases"] != planned
        || summary["not_evaluated"] != 0
        || summary["complete"] != true
    {
        return Err(format!(
            "{name}: {} of {planned} cases finished, {} not evaluated",
            summary["finished_cases"], summary["not_evaluated"]
        ));
    }
    // Each case shows the recorded call's figures, not the replay's.
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    for line in journal.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let case = &record["name"];
        if record["snapshot"] != "replayed" {
            return Err(format!("{name}: {case} was not replayed: {record}"));
        }
        if record["tokens"]["completion"].as_u64().unwrap_or(0) == 0 {
            return Err(format!("{name}: {case} has no recorded tokens"));
        }
        if record["llm_secs"].as_f64().unwrap_or(0.0) < 0.01 {
            return Err(format!(
                "{name}: {case} shows {} s for the model, not the recorded time",
                record["llm_secs"]
            ));
        }
    }
    Ok(())
}

#[test]
fn every_committed_suite_replays_in_full_with_its_recorded_figures() {
    let suites = suites();
    assert!(suites.len() >= 4, "{suites:?}");
    let failures: Vec<String> = suites.iter().filter_map(|s| replay(s).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
