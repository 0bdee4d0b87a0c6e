//! Know before you run (docs/guide/budget.md): `prompteval plan` against
//! what the run then spends, and `[budget]`'s caps, end to end through
//! `cargo test --test prompts` against a scripted server whose token
//! counts, speed and per-question outcomes are known: real runs, real
//! Python, real journals.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::path::Path;
use std::time::Duration;

use prompteval::language::numbers::thousands;
use prompts_cli::{Run, Scratch};
use serde_json::Value;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const QUESTIONS: usize = 12;
/// Seconds the scripted server takes for each answer.
const DELAY: Duration = Duration::from_millis(250);

/// Two prompts over `QUESTIONS` questions ("print the number n").
fn suite() -> String {
    let qs: Vec<Value> = (1..=QUESTIONS)
        .map(|n| {
            serde_json::json!({
                "id": format!("q{n:02}"),
                "question": format!("Print the number {n}."),
                "answer": n.to_string(),
            })
        })
        .collect();
    serde_json::json!({
        "plain": "Solve it in Python: {question}",
        "careful": "Read the task twice, then solve it in Python with one code block: {question}",
        "questions": qs,
    })
    .to_string()
}

/// The scripted model: replies of 2 to 6 comment lines by question (so a
/// plan that measured one question alone would be off), right on odd
/// questions only.
fn model(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let number = regex::Regex::new(r"Print the number (\d+)\.").unwrap();
    let n: usize = number.captures(req.current_question()).expect("a question")[1]
        .parse()
        .unwrap();
    let printed = if n % 2 == 1 { n as i64 } else { -1 };
    let note = "# worked out step by step\n".repeat(7 * n % 5 + 2);
    Behaviour::Queued(DELAY, format!("```python\n{note}\nprint({printed})\n```"))
}

fn scratch(extra: &str) -> Scratch {
    let s = Scratch::new(&format!(
        "suite = \"suite.json\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n{extra}"
    ));
    s.write("suite.json", &suite());
    s
}

/// `prompteval plan --json` in the scratch folder's configuration.
fn plan(s: &Scratch, server: &StubServer, args: &[&str]) -> (Value, Run) {
    let url = server.url();
    let mut cmd = s.command(
        Path::new(env!("CARGO_BIN_EXE_prompteval")),
        &[("OLLAMA_HOST", url.as_str())],
    );
    cmd.args(["plan", "--json"]).args(args);
    let out = cmd.output().expect("prompteval runs");
    let run = Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    let plan = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("plan --json prints JSON ({e}):\n{}", run.both()));
    (plan, run)
}

fn run(s: &Scratch, server: &StubServer, env: &[(&str, &str)]) -> Run {
    let url = server.url();
    let mut all = vec![("OLLAMA_HOST", url.as_str())];
    all.extend_from_slice(env);
    s.prompts(&[], &all)
}

fn within(planned: f64, spent: f64, share: f64) -> bool {
    (planned - spent).abs() <= share * spent
}

#[test]
fn the_plan_says_what_the_run_then_spends() {
    let server = StubServer::start(model);
    let s = scratch("");
    let (plan, said) = plan(&s, &server, &[]);
    assert_eq!(said.status, Some(0), "{}", said.both());
    // The probe is the plan's only asking, and it says so: three calls,
    // and up to sixteen while they are quick (a quarter of a second each).
    let probes = server.requests_to("/api/chat").len();
    assert!(
        (3..=16).contains(&probes),
        "{probes} probes: {}",
        said.both()
    );
    assert_eq!(plan["cases"], 2 * QUESTIONS);
    assert_eq!(plan["calls"], 2 * QUESTIONS);
    assert!(
        plan["assumptions"]["reply_tokens_from"]
            .as_str()
            .unwrap()
            .contains("probe"),
        "{plan:#}"
    );
    assert!(plan["cost"].is_null(), "no prices, no money: {plan:#}");

    let ran = run(&s, &server, &[]);
    assert_eq!(
        ran.status,
        Some(101),
        "even questions fail:\n{}",
        ran.both()
    );
    let summary = s.summary();
    let spent = &summary["budget"]["spent"];
    let calls = server.requests_to("/api/chat").len() - probes;
    assert_eq!(spent["calls"], calls, "{spent:#}");
    assert_eq!(calls, 2 * QUESTIONS);
    // The tokens the server counted, summed from the journal's records.
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    let counted: u64 = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| {
            r["tokens"]["prompt"].as_u64().unwrap() + r["tokens"]["completion"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(spent["tokens"], counted, "{spent:#}");
    let planned_tokens =
        plan["tokens"]["prompt"].as_f64().unwrap() + plan["tokens"]["reply"].as_f64().unwrap();
    assert!(
        within(planned_tokens, counted as f64, 0.10),
        "planned {planned_tokens} tokens, spent {counted}:\n{plan:#}"
    );
    let planned_secs = plan["wall_secs"].as_f64().unwrap();
    let spent_secs = spent["wall_secs"].as_f64().unwrap();
    assert!(
        within(planned_secs, spent_secs, 0.10),
        "planned {planned_secs} s, spent {spent_secs} s:\n{plan:#}\n{spent:#}"
    );
    // The run's own first lines carry the plan, its last lines the comparison.
    assert!(
        ran.both().contains("plan: 24 case(s), 24 model call(s)"),
        "{}",
        ran.both()
    );
    assert!(ran.both().contains("budget: planned "), "{}", ran.both());
}

#[test]
fn the_detectable_difference_is_what_a_simulation_of_the_report_test_finds() {
    // 12 questions x 2 prompts: the plan's smallest detectable difference
    // at 30 % discordance, checked against the exact McNemar test run on
    // simulated pairs: at that difference the test rejects about 80 % of
    // the time, and at 60 % of it clearly less.
    let server = StubServer::start(model);
    let s = scratch("rounds = 10\n[history]\nenabled = false\n");
    let (plan, said) = plan(&s, &server, &["--probe", "0"]);
    assert_eq!(said.status, Some(0), "{}", said.both());
    assert_eq!(
        server.requests_to("/api/chat").len(),
        0,
        "--probe 0 asks nothing"
    );
    assert_eq!(plan["assumptions"]["paired_cases"], 120);
    let d = plan["detectable_difference"].as_f64().unwrap();
    let discordance = plan["assumptions"]["discordance"].as_f64().unwrap();
    let power = |delta: f64| simulated_power(120, discordance, delta, 4000);
    let at_d = power(d);
    assert!((0.76..=0.86).contains(&at_d), "power {at_d} at d = {d}");
    assert!(
        power(0.6 * d) < 0.6,
        "a smaller difference is missed more often"
    );
    assert!(
        plan["tokens"]["reply"].is_null(),
        "nothing measured replies: {plan:#}"
    );
    // A race's plan: the grid as an upper bound and the share its gate is
    // expected to ask.
    let url = server.url();
    let mut cmd = s.command(
        Path::new(env!("CARGO_BIN_EXE_prompteval")),
        &[("OLLAMA_HOST", url.as_str()), ("PROMPTEVAL_RACE", "on")],
    );
    let out = cmd
        .args(["plan", "--json", "--probe", "0"])
        .output()
        .unwrap();
    let raced: Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = raced["assumptions"]["race"].as_str().unwrap_or_default();
    assert!(
        said.contains("upper bound") && said.contains("expected to ask"),
        "{raced:#}"
    );
}

/// How often the exact two-sided McNemar test at 0.05 rejects, over `runs`
/// simulated sets of `n` pairs whose prompts differ by `delta` with
/// `discordance` of pairs discordant.
fn simulated_power(n: usize, discordance: f64, delta: f64, runs: usize) -> f64 {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (p_b, p_c) = ((discordance + delta) / 2.0, (discordance - delta) / 2.0);
    let mut rejected = 0;
    for _ in 0..runs {
        let (mut b, mut c) = (0u64, 0u64);
        for _ in 0..n {
            let u = uniform();
            if u < p_b {
                b += 1;
            } else if u < p_b + p_c {
                c += 1;
            }
        }
        if mcnemar_exact_p(b, c) < 0.05 {
            rejected += 1;
        }
    }
    rejected as f64 / runs as f64
}

/// Two-sided exact binomial p-value of b against c (p = 1/2).
fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let mut log_choose = 0.0f64;
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            log_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (log_choose - n as f64 * 2f64.ln()).exp();
    }
    (2.0 * tail).min(1.0)
}

#[test]
fn a_token_cap_stops_the_run_short_of_it_and_a_resume_finishes() {
    let server = StubServer::start(model);
    let s = scratch("");
    // About half of what the whole run takes.
    let (plan, _) = plan(&s, &server, &[]);
    let whole =
        plan["tokens"]["prompt"].as_u64().unwrap() + plan["tokens"]["reply"].as_u64().unwrap();
    let cap = (whole / 2).to_string();
    let step_summary = s.path().join("step_summary.md");
    let stopped = run(
        &s,
        &server,
        &[
            ("PROMPTEVAL_BUDGET_TOKENS", &cap),
            ("GITHUB_STEP_SUMMARY", step_summary.to_str().unwrap()),
        ],
    );
    let summary = s.summary();
    let budget = &summary["budget"];
    let spent = budget["spent"]["tokens"].as_u64().unwrap();
    let cap: u64 = cap.parse().unwrap();
    assert!(spent <= cap, "spent {spent} of a {cap} cap:\n{budget:#}");
    assert!(
        spent > cap / 2,
        "it ran until the cap was near: {spent} of {cap}"
    );
    assert_eq!(budget["caps"]["tokens"], cap);
    let not_run = budget["not_run"].as_u64().unwrap();
    assert!(not_run > 0, "{budget:#}");
    assert_eq!(
        not_run + budget["spent"]["calls"].as_u64().unwrap(),
        2 * QUESTIONS as u64
    );
    // libtest says why, never ok or FAILED.
    let lines: Vec<&str> = stopped
        .stdout
        .lines()
        .filter(|l| {
            l.starts_with("test ")
                && l.contains("not run: the next call would cross [budget] max_tokens")
        })
        .collect();
    assert_eq!(lines.len() as u64, not_run, "{}", stopped.stdout);
    assert!(
        lines.iter().all(|l| l.contains("... ignored")),
        "{lines:#?}"
    );
    // junit.xml lists each as skipped with the reason.
    let junit = std::fs::read_to_string(s.run_dir().join("report/junit.xml")).unwrap();
    assert_eq!(
        junit
            .matches("<skipped message=\"not run: the next call would cross [budget] max_tokens")
            .count() as u64,
        not_run,
        "{junit}"
    );
    // The terminal, the quick view and the job summary all say it.
    let quick_view = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
    let markdown = std::fs::read_to_string(&step_summary).unwrap();
    for shown in [stopped.both(), quick_view, markdown] {
        assert!(shown.contains("budget STOPPED the run"), "{shown}");
        assert!(
            shown.contains(&format!("max_tokens = {}", thousands(cap))),
            "{shown}"
        );
    }
    // A resume with no cap asks only what was not run, and finishes.
    let dir = s.run_dir();
    let asked_before = server.requests_to("/api/chat").len();
    let resumed = run(&s, &server, &[("PROMPTEVAL_RESUME", dir.to_str().unwrap())]);
    assert_eq!(
        (server.requests_to("/api/chat").len() - asked_before) as u64,
        not_run,
        "{}",
        resumed.both()
    );
    let summary = s.summary();
    assert_eq!(summary["complete"], true, "{}", resumed.both());
    assert_eq!(summary["budget"]["not_run"], 0);
    // The run's spending counts both sessions' calls.
    assert_eq!(summary["budget"]["spent"]["calls"], 2 * QUESTIONS);
}

#[test]
fn a_wall_time_cap_starts_no_call_that_would_end_past_it() {
    let server = StubServer::start(model);
    let s = scratch("[history]\nenabled = false\n");
    let ran = run(&s, &server, &[("PROMPTEVAL_BUDGET_WALL_SECS", "2")]);
    let summary = s.summary();
    let budget = &summary["budget"];
    let wall = budget["spent"]["wall_secs"].as_f64().unwrap();
    let calls = budget["spent"]["calls"].as_u64().unwrap();
    // Each call takes a quarter of a second: about eight fit in two.
    assert!((4..=8).contains(&calls), "{calls} calls:\n{}", ran.both());
    assert!(wall <= 2.0 + 0.1, "{wall} s of a 2 s cap:\n{budget:#}");
    assert_eq!(
        budget["not_run"].as_u64().unwrap() + calls,
        2 * QUESTIONS as u64
    );
    assert!(
        budget["stopped"]
            .as_str()
            .unwrap()
            .contains("max_wall_secs = 2"),
        "{budget:#}"
    );
    assert_eq!(server.requests_to("/api/chat").len() as u64, calls);
}

#[test]
fn bad_budgets_are_refused_naming_the_key() {
    let server = StubServer::start(model);
    for (toml, key) in [
        ("[budget]\nmax_tokens = 0\n", "max_tokens"),
        ("[budget]\nmax_wall_secs = -5\n", "max_wall_secs"),
        ("[budget]\nmax_cost = 1.0\n", "max_cost"),
        ("[budget]\nprice_in = 0.15\nprice_out = 0.6\n", "price_in"),
        ("[budget]\nprice_in = 0.15\nmax_tokens = 100\n", "price_in"),
        ("[budget]\nmax_token = 100\n", "max_token"),
    ] {
        let s = scratch(toml);
        let ran = run(&s, &server, &[]);
        assert_eq!(ran.status, Some(2), "{toml}:\n{}", ran.both());
        assert!(ran.stderr.contains(key), "{toml}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("harness.toml"),
            "{toml}: {}",
            ran.stderr
        );
    }
    let s = scratch("");
    let ran = run(&s, &server, &[("PROMPTEVAL_BUDGET_TOKENS", "-3")]);
    assert_eq!(ran.status, Some(2), "{}", ran.both());
    assert!(
        ran.stderr.contains("PROMPTEVAL_BUDGET_TOKENS"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        server.requests_to("/api/chat").len(),
        0,
        "nothing was asked"
    );
    // A plan prices without a cap.
    let s = scratch("[budget]\nprice_in = 1.0\nprice_out = 2.0\n");
    let (plan, said) = plan(&s, &server, &["--probe", "1"]);
    assert_eq!(said.status, Some(0), "{}", said.both());
    assert!(plan["cost"].as_f64().unwrap() > 0.0, "{plan:#}");
}
