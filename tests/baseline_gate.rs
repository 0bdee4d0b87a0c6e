//! `prompteval baseline` and `[gate] baseline`, end to end through
//! `cargo test --test prompts` against a scripted model: a baseline run of
//! two prompts over 40 questions, then a run where one prompt loses 2
//! questions (within noise: exit 0, said), then one where it loses 15
//! (exit 101, naming it, with both accuracies, the discordant counts and
//! p). A baseline from another suite, or with other settings, is refused
//! before a model is asked anything, and so is a merged run's.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use prompts_cli::Scratch;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const QUESTIONS: usize = 40;

/// Two prompts over 40 questions "Print N", each answered N.
fn suite(marker: &str) -> String {
    let questions: Vec<serde_json::Value> = (1..=QUESTIONS)
        .map(|n| serde_json::json!({"question": format!("{marker} print {n}"), "answer": n.to_string()}))
        .collect();
    serde_json::json!({
        "prompt_a": "A: {question}",
        "prompt_b": "B: {question}",
        "questions": questions,
    })
    .to_string()
}

/// Replies right, except for prompt_b on the question numbers in `wrong`.
fn model(wrong: BTreeSet<usize>) -> impl Fn(&Request) -> Behaviour + Send + Sync + 'static {
    move |r: &Request| {
        if r.path != "/api/chat" {
            return Behaviour::Default;
        }
        let asked = r.current_question();
        let n: usize = asked
            .rsplit(' ')
            .next()
            .and_then(|w| w.trim().parse().ok())
            .unwrap_or(0);
        let is_b = r.last_user_message().unwrap_or("").starts_with("B:");
        let printed = if is_b && wrong.contains(&n) { 0 } else { n };
        Behaviour::Reply(format!("```python\nprint({printed})\n```"))
    }
}

fn scratch(suite_text: &str, extra: &str) -> Scratch {
    let s = Scratch::new("");
    let suite = s.write("suite.json", suite_text);
    s.write(
        "harness.toml",
        &format!(
            "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\nresult_dir = \"{}\"\nsnapshot_dir = \"{}\"\n{extra}\n[history]\nenabled = false\n",
            suite.display(),
            s.path().join("result").display(),
            s.path().join("snapshots").display(),
        ),
    );
    s
}

fn prompteval(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompteval"));
    prompts_cli::without_test_runner_env(&mut cmd);
    cmd.args(args).output().expect("prompteval runs")
}

/// Runs the suite against `server`, gated on `baseline` when given.
fn run(s: &Scratch, server: &StubServer, baseline: Option<&Path>) -> prompts_cli::Run {
    let url = server.url();
    let mut env = vec![("OLLAMA_HOST", url.as_str())];
    let file = baseline.map(|b| b.display().to_string());
    if let Some(file) = &file {
        env.push(("PROMPTEVAL_BASELINE", file.as_str()));
    }
    s.prompts(&[], &env)
}

fn make_baseline(s: &Scratch) -> PathBuf {
    let out = s.path().join("baseline.toml");
    let made = prompteval(&[
        "baseline",
        &s.run_dir().display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    assert!(made.status.success(), "{made:?}");
    out
}

#[test]
fn a_loss_within_noise_passes_and_a_loss_beyond_it_fails_naming_the_prompt() {
    // The baseline: prompt_b already misses 3 questions.
    let server = StubServer::start(model(BTreeSet::from([38, 39, 40])));
    let s = scratch(&suite("q"), "");
    let first = run(&s, &server, None);
    assert_eq!(first.status, Some(101), "3 cases failed: {}", first.both());
    let baseline = make_baseline(&s);
    let text = std::fs::read_to_string(&baseline).unwrap();
    let case_lines = text.lines().filter(|l| l.contains("::r1\" = ")).count();
    assert_eq!(case_lines, 2 * QUESTIONS, "one line per case: {text}");
    assert!(
        text.contains("\"prompt_b::q40_q_print::r1\" = \"wrong_answer\"\n"),
        "{text}"
    );
    assert!(text.contains("suite = \"suite.json\""), "{text}");

    // Two more questions lost: 2 discordant cases, p = 0.5. Single cases
    // failed, yet the gate passes and says so.
    server.set_script(model(BTreeSet::from([1, 2, 38, 39, 40])));
    let noise = run(&s, &server, Some(&baseline));
    assert_eq!(noise.status, Some(0), "{}", noise.both());
    assert!(
        noise.stdout.contains("gate: prompt_b within noise of the baseline: baseline 92.5% → now 87.5% over 40 shared cases: 2 passed only in the baseline, 0 only now (exact McNemar p = 0.5000 >= alpha 0.05)"),
        "{}",
        noise.stdout
    );
    assert!(noise.stdout.contains("gate: passed ("), "{}", noise.stdout);

    // Fifteen lost: far beyond noise.
    server.set_script(model((1..=15).chain(38..=40).collect()));
    let lost = run(&s, &server, Some(&baseline));
    assert_eq!(lost.status, Some(101), "{}", lost.both());
    assert!(
        lost.stdout.contains("gate: prompt_b FAILED: lost to the baseline beyond noise: baseline 92.5% → now 55.0% over 40 shared cases: 15 passed only in the baseline, 0 only now (exact McNemar p = 6.1e-5 < alpha 0.05)"),
        "{}",
        lost.stdout
    );
    assert!(
        lost.stdout
            .contains("gate: prompt_a within noise of the baseline"),
        "{}",
        lost.stdout
    );
    assert!(
        lost.stdout
            .contains("gate: FAILED: 1 of 2 prompt(s) lost to the baseline beyond noise"),
        "{}",
        lost.stdout
    );
}

#[test]
fn a_baseline_of_another_suite_or_other_settings_is_refused_before_asking() {
    let server = StubServer::start(model(BTreeSet::new()));
    let s = scratch(&suite("q"), "");
    let first = run(&s, &server, None);
    assert_eq!(first.status, Some(0), "{}", first.both());
    let baseline = make_baseline(&s);

    // Another suite: other questions under the same prompts.
    let other = scratch(&suite("other"), "");
    let asked = server.requests_to("/api/chat").len();
    let refused = run(&other, &server, Some(&baseline));
    assert_eq!(refused.status, Some(2), "{}", refused.both());
    assert!(
        refused.stderr.contains("baseline.toml"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("the baseline is from another experiment"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("none of this run's 40 question ids is in the baseline"),
        "what differs is named: {}",
        refused.stderr
    );
    assert_eq!(
        server.requests_to("/api/chat").len(),
        asked,
        "refused before the model was asked"
    );

    // The same suite with a wider context window.
    let wider = scratch(&suite("q"), "[llm]\nnum_ctx = 8192");
    let refused = run(&wider, &server, Some(&baseline));
    assert_eq!(refused.status, Some(2), "{}", refused.both());
    assert!(
        refused.stderr.contains(&format!(
            "{STUB_MODEL} · llm.num_ctx: 4096 in the baseline, 8192 in this run"
        )),
        "{}",
        refused.stderr
    );
}

#[test]
fn thresholds_and_the_baseline_gate_together_and_in_the_job_summary() {
    let server = StubServer::start(model(BTreeSet::new()));
    let s = scratch(&suite("q"), "");
    let first = run(&s, &server, None);
    assert_eq!(first.status, Some(0), "{}", first.both());
    let baseline = make_baseline(&s);
    // From harness.toml this time, with a threshold beside it that
    // prompt_b misses while its loss to the baseline is within noise.
    let gated = scratch(
        &suite("q"),
        &format!(
            "[gate]\nbaseline = \"{}\"\nmin_accuracy = 96\nalpha = 0.01\n",
            baseline.display()
        ),
    );
    server.set_script(model(BTreeSet::from([7, 8])));
    let summary_file = gated.path().join("step_summary.md");
    let url = server.url();
    let run = gated.prompts(
        &[],
        &[
            ("OLLAMA_HOST", url.as_str()),
            ("GITHUB_STEP_SUMMARY", &summary_file.display().to_string()),
        ],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout
            .contains("gate: prompt_b FAILED: accuracy 95.0% is below the threshold 96.0%"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("gate: prompt_b within noise of the baseline")
    );
    assert!(run.stdout.contains("alpha 0.01"), "{}", run.stdout);
    let md = std::fs::read_to_string(&summary_file).unwrap();
    assert!(md.contains("**gate: FAILED**"), "{md}");
    assert!(md.contains("within noise of the baseline"), "{md}");
    // junit.xml: a `gate` suite beside the cases, counted in the totals.
    let junit = std::fs::read_to_string(gated.run_dir().join("report/junit.xml")).unwrap();
    assert!(
        junit.contains("<testsuite name=\"gate\" tests=\"4\""),
        "{junit}"
    );
    assert!(
        junit.contains("<testsuites name=\"prompteval test_")
            && junit.contains("tests=\"84\" failures=\"3\""),
        "80 cases (2 failed) and 4 checks (1 failed): {junit}"
    );
    let threshold = junit
        .find("name=\"threshold · prompt_b\"")
        .expect("the threshold check");
    assert!(
        junit[threshold..]
            .trim_start_matches(|c| c != '<')
            .starts_with("<failure"),
        "{junit}"
    );
    assert!(junit.contains("name=\"baseline · prompt_b\""), "{junit}");
}

#[test]
fn a_sharded_run_is_gated_on_the_baseline_after_merge() {
    let server = StubServer::start(model(BTreeSet::new()));
    let s = scratch(&suite("q"), "");
    let first = run(&s, &server, None);
    assert_eq!(first.status, Some(0), "{}", first.both());
    let baseline = make_baseline(&s);
    server.set_script(model((1..=15).collect()));
    let url = server.url();
    let file = baseline.display().to_string();
    let parts: Vec<Scratch> = ["1/2", "2/2"]
        .into_iter()
        .map(|shard| {
            let part = scratch(&suite("q"), "");
            let run = part.prompts(
                &[],
                &[
                    ("OLLAMA_HOST", url.as_str()),
                    ("PROMPTEVAL_SHARD", shard),
                    ("PROMPTEVAL_BASELINE", file.as_str()),
                ],
            );
            assert!(
                run.stdout.contains("gate: "),
                "each part is gated on its own cases: {}",
                run.both()
            );
            part
        })
        .collect();
    let out = s.path().join("merged");
    let merged = prompteval(&[
        "merge",
        &parts[0].run_dir().display().to_string(),
        &parts[1].run_dir().display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    let text = String::from_utf8_lossy(&merged.stdout);
    assert_eq!(
        merged.status.code(),
        Some(101),
        "{text}{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert!(
        text.contains("gate: prompt_b FAILED: lost to the baseline beyond noise: baseline 100.0% → now 62.5% over 40 shared cases: 15 passed only in the baseline, 0 only now"),
        "{text}"
    );
    assert!(
        text.contains("gate: prompt_a within noise of the baseline"),
        "{text}"
    );
}

#[test]
fn the_lower_bound_threshold_fails_what_a_point_threshold_would_pass() {
    let server = StubServer::start(model(BTreeSet::new()));
    // 40 of 40: accuracy 100 %, 95 % Wilson lower bound 91.2 %.
    let s = scratch(&suite("q"), "[gate]\nmin_accuracy_lower_bound = 95\n");
    let run = run(&s, &server, None);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert!(
        run.stdout.contains(
            "gate: prompt_a FAILED: accuracy 100.0%, 95% lower bound 91.2% is below 95.0%"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "gate: FAILED: 2 of 2 prompt(s) whose 95% lower bound is below the threshold"
        ),
        "{}",
        run.stdout
    );
}
