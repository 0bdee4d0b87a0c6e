//! `prompteval compare RUN_A RUN_B` on two real run folders of the spec
//! example: a scripted model that solves 2 of 3 questions, then one that
//! solves all 3 for prompt1 and none for prompt3.

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::path::{Path, PathBuf};
use std::process::Command;

use example_model::{AVERAGE, GREET, TWO_SUM};
use prompts_cli::{Scratch, example_suite};
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const WRONG: &str = "```python\nprint('?')\n```";

/// Which of the three questions the model solves under `prompt`.
fn model(solves: fn(&str, usize) -> bool) -> impl Fn(&Request) -> Behaviour {
    move |req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let asked = req.last_user_message().unwrap_or("");
        let q = req.current_question();
        let (n, right) = if q.contains("Two Sum") {
            (1, TWO_SUM)
        } else if q.contains("greet") {
            (2, GREET)
        } else {
            (3, AVERAGE)
        };
        // The spec example's templates differ in their first words.
        let prompt = if asked.starts_with("請仔細分析") {
            "prompt2"
        } else if asked.starts_with("作為演算法專家") {
            "prompt3"
        } else {
            "prompt1"
        };
        Behaviour::Reply(if solves(prompt, n) { right } else { WRONG }.into())
    }
}

fn run(solves: fn(&str, usize) -> bool) -> (Scratch, PathBuf) {
    let server = StubServer::start(model(solves));
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n",
        example_suite().display()
    ));
    let url = server.url();
    let out = s.prompts(&[], &[("OLLAMA_HOST", url.as_str())]);
    assert!(out.status.is_some(), "{}", out.both());
    let dir = s.run_dir();
    (s, dir)
}

fn compare(a: &Path, b: &Path, extra: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompteval"));
    prompts_cli::without_test_runner_env(&mut cmd);
    cmd.arg("compare")
        .arg(a)
        .arg(b)
        .args(extra)
        .output()
        .expect("prompteval runs")
}

#[test]
fn two_run_folders_compare_by_prompt_and_case() {
    let (_a, run_a) = run(|_, n| n < 3);
    let (_b, run_b) = run(|p, n| match p {
        "prompt1" => true,
        "prompt3" => false,
        _ => n < 3,
    });
    let page = run_b.join("compare.html");
    let out = compare(&run_a, &run_b, &["--html", page.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(
            "prompt1: A 66.7% [20.8, 93.9] (2/3) → B 100.0% [43.9, 100.0] (3/3)  Δ +33.3 points"
        ),
        "{text}"
    );
    assert!(text.contains("not distinguishable from noise (exact McNemar p = 1; 1 passed only in B, 0 only in A, of 3 shared)"), "{text}");
    assert!(text.contains("prompt3: A 66.7%"), "{text}");
    assert!(text.contains("Δ -66.7 points"), "{text}");
    assert!(text.contains("3 case(s) flipped"), "{text}");
    assert!(
        text.contains("prompt1::q3_bug_calculate_average::r1: wrong_answer → correct"),
        "{text}"
    );
    assert!(
        text.contains("prompt3::q1_two_sum::r1: correct → wrong_answer"),
        "{text}"
    );
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("data-prompt=\"prompt1\""));
    assert!(html.contains("3 flipped case(s)"));
    assert!(!html.contains("<script"));

    // A folder that is not a run is an error naming the file.
    let out = compare(&run_a, Path::new("/nonexistent/run"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/run/summary.json"), "{err}");
}
