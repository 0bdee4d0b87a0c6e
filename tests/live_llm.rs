//! Live end-to-end tests against a real model server (llama.cpp's
//! llama-server with Qwen2.5-Coder-1.5B, started by `scripts/local-llm.sh`),
//! through the OpenAI-compatible backend.
//!
//! They run when PROMPTEVAL_LIVE_BASE_URL is set (CI sets it). Without it
//! they are reported ignored with the reason; under CI=true they are required,
//! so a missing server fails (see support/trials.rs).

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/trials.rs"]
mod trials;

use std::path::Path;
use std::process::{Command, ExitCode};

use libtest_mimic::Arguments;

use prompts_cli::{Scratch, example_suite};

const MODEL: &str = "qwen2.5-coder:1.5b";
const KEY_CANARY: &str = "sk-prompteval-canary-5f1c9e";

/// The repository's configuration for this model (system prompt included),
/// with a timeout for a CPU-bound server that queues concurrent requests.
fn config() -> String {
    format!(
        "suite = \"{}\"\nconcurrency = 1\n[llm]\ntimeout_secs = 180\nsystem_prompt = \"Reply with exactly one complete, runnable Python 3 program in a single python code block and nothing else; print only the requested result.\"\n",
        example_suite().display()
    )
}

fn live_url() -> Result<String, String> {
    match std::env::var("PROMPTEVAL_LIVE_BASE_URL") {
        Ok(url) if !url.is_empty() => Ok(url),
        _ => Err(
            "no live model server: PROMPTEVAL_LIVE_BASE_URL is not set; start one \
                  (scripts/local-llm.sh start 8088) and set \
                  PROMPTEVAL_LIVE_BASE_URL=http://127.0.0.1:8088/v1"
                .into(),
        ),
    }
}

/// Both servers of `scripts/local-llm.sh start`: the 1.5B model's and the
/// 0.5B model's (PROMPTEVAL_LIVE_SMALL_BASE_URL).
fn live_pair() -> Result<(String, String), String> {
    let big = live_url()?;
    match std::env::var("PROMPTEVAL_LIVE_SMALL_BASE_URL") {
        Ok(url) if !url.is_empty() => Ok((big, url)),
        _ => Err(
            "no second live model server: PROMPTEVAL_LIVE_SMALL_BASE_URL is not set; \
             `scripts/local-llm.sh start` serves qwen2.5-coder:0.5b on port 8089: set \
             PROMPTEVAL_LIVE_SMALL_BASE_URL=http://127.0.0.1:8089/v1"
                .into(),
        ),
    }
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let url = live_url();
    let pair = live_pair();
    let mut trials = trials::needing_trials![&args, &url;
        live_run_is_real_consistent_and_reproducible,
        wrong_model_name_is_one_clear_error,
    ];
    trials.extend(trials::needing_trials![&args, &pair;
        two_live_models_side_by_side,
    ]);
    trials::run(&args, trials)
}

fn live_run(s: &Scratch, url: &str, args: &[&str]) -> prompts_cli::Run {
    s.prompts(
        args,
        &[
            ("PROMPTEVAL_BACKEND", "openai"),
            ("PROMPTEVAL_BASE_URL", url),
            ("PROMPTEVAL_MODEL", MODEL),
            ("PROMPTEVAL_API_KEY", KEY_CANARY),
        ],
    )
}

fn journal(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs the extracted program again, outside the harness, with the real
/// interpreter: the verdict must agree with what it really prints.
fn really_prints(code: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("main.py");
    std::fs::write(&file, code).unwrap();
    let out = Command::new("python3")
        .arg("-I")
        .arg(&file)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout)
            .replace("\r\n", "\n")
            .trim()
            .to_string(),
    )
}

fn all_files_text(dir: &Path) -> String {
    let mut text = String::new();
    for entry in walk(dir) {
        text.push_str(&String::from_utf8_lossy(&std::fs::read(entry).unwrap()));
    }
    text
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn live_run_is_real_consistent_and_reproducible(url: String) {
    let s = Scratch::new(&config());
    let first = live_run(&s, &url, &[]);
    assert!(
        matches!(first.status, Some(0) | Some(101)),
        "{}",
        first.both()
    );
    let dir = s.run_dir();
    let records = journal(&dir);
    assert_eq!(records.len(), 9, "{}", first.both());
    for r in &records {
        let name = r["name"].as_str().unwrap();
        assert!(r["api_failure"].is_null(), "{name}: {r}");
        let reply = r["reply"].as_str().unwrap_or("");
        assert!(!reply.trim().is_empty(), "{name} got no reply");
        assert_eq!(r["backend"], "openai");
        let (ok, stdout) = really_prints(r["code"].as_str().unwrap());
        let verdict = r["verdict"].as_str().unwrap();
        let expected = r["expected"].as_str().unwrap().trim();
        if verdict == "correct" {
            assert!(
                ok && stdout == expected,
                "{name}: judged correct but prints {stdout:?}"
            );
        } else if verdict == "wrong_answer" {
            assert!(
                ok && stdout != expected,
                "{name}: judged wrong but prints {stdout:?} (ok={ok})"
            );
        } else {
            assert!(!ok, "{name}: judged {verdict} but the program succeeded");
        }
    }
    for f in [
        "summary.json",
        "quick_view.html",
        "report/detailed_report.json",
        "report/summary.csv",
        "prompt1/question_1.py",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let text = all_files_text(&dir) + &first.both();
    assert!(
        !text.contains(KEY_CANARY),
        "the API key leaked into the run folder or the logs"
    );

    // The same cases again: byte-identical replies (temperature 0, fixed
    // seed, one slot). One prompt's cases (every question once) are enough
    // to show it, and each live case is about 10 s of CI's CPU.
    let second = live_run(&s, &url, &["prompt1::"]);
    assert!(
        matches!(second.status, Some(0) | Some(101)),
        "{}",
        second.both()
    );
    let mut dirs: Vec<_> = std::fs::read_dir(s.path().join("result"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let again = journal(&dirs[1]);
    assert_eq!(again.len(), 3, "{}", second.both());
    let replies = |rs: &[serde_json::Value]| {
        let mut v: Vec<(String, String)> = rs
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["reply"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let first_of_prompt1: Vec<serde_json::Value> = records
        .iter()
        .filter(|r| r["name"].as_str().unwrap().starts_with("prompt1::"))
        .cloned()
        .collect();
    assert_eq!(
        replies(&first_of_prompt1),
        replies(&again),
        "two runs of the same cases gave different replies"
    );
    assert!(!second.both().contains(KEY_CANARY));
}

fn wrong_model_name_is_one_clear_error(url: String) {
    let s = Scratch::new(&config());
    let run = s.prompts(
        &[],
        &[
            ("PROMPTEVAL_BACKEND", "openai"),
            ("PROMPTEVAL_BASE_URL", &url),
            ("PROMPTEVAL_MODEL", "no-such-model:7b"),
        ],
    );
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(run.stderr.contains("no-such-model:7b"), "{}", run.stderr);
    assert!(
        run.stderr.contains(MODEL),
        "the message should list the served model: {}",
        run.stderr
    );
    assert!(!run.stdout.contains("test prompt"), "{}", run.stdout);
}

/// Two real models on two real servers in one run: every case of each is
/// answered by its own server, the report compares them, and the run
/// replays offline from what it recorded.
fn two_live_models_side_by_side((big, small): (String, String)) {
    const SMALL: &str = "qwen2.5-coder:0.5b";
    let toml = format!(
        "{}\n[[models]]\nname = \"{MODEL}\"\nbackend = \"openai\"\nurl = \"{big}\"\n[[models]]\nname = \"{SMALL}\"\nbackend = \"openai\"\nurl = \"{small}\"\n",
        config()
    );
    let s = Scratch::new(&toml);
    let live = s.prompts(
        &[],
        &[
            ("PROMPTEVAL_API_KEY", KEY_CANARY),
            ("INSTA_UPDATE", "always"),
        ],
    );
    assert!(
        matches!(live.status, Some(0) | Some(101)),
        "{}",
        live.both()
    );
    let dir = s.run_dir();
    let records = journal(&dir);
    assert_eq!(records.len(), 18, "{}", live.both());
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let model = r["case"]["model"].as_str().unwrap();
        assert!(name.starts_with(&format!("{model}::")), "{name}");
        assert_eq!(r["model"], model, "{name}");
        assert!(r["api_failure"].is_null(), "{name}: {r}");
        assert!(
            !r["reply"].as_str().unwrap_or("").trim().is_empty(),
            "{name}"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let models = summary["models"].as_object().expect("summary.json models");
    assert_eq!(models.keys().collect::<Vec<_>>(), [MODEL, SMALL]);
    for (model, results) in models {
        let total: u64 = results["prompt_results"]
            .as_object()
            .unwrap()
            .values()
            .map(|r| r["total_questions"].as_u64().unwrap())
            .sum();
        assert_eq!(total, 9, "{model}: {results}");
        assert!(
            results["endpoint"]
                .as_str()
                .unwrap()
                .contains(if model == MODEL { &big } else { &small })
        );
    }
    for f in [
        "quick_view.html",
        "report/summary.csv",
        "qwen2.5-coder_1.5b/summary.json",
        "qwen2.5-coder_0.5b/quick_view.html",
        "qwen2.5-coder_0.5b/prompt1/question_1.py",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    assert!(!(all_files_text(&dir) + &live.both()).contains(KEY_CANARY));

    // Offline: the recordings answer every case, with the same verdicts.
    let replay = s.prompts(&[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(replay.status, live.status, "{}", replay.both());
    let mut dirs: Vec<_> = std::fs::read_dir(s.path().join("result"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let verdicts = |rs: &[serde_json::Value]| {
        let mut v: Vec<(String, String)> = rs
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["verdict"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(verdicts(&records), verdicts(&journal(&dirs[1])));
}
