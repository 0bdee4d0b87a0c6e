//! Nothing lost: SIGTERM/SIGINT write a report marked incomplete, `kill -9`
//! leaves a journal of every finished case, and PROMPTEVAL_RESUME finishes
//! the run into the same folder with the full report.

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::io::Read;
use std::time::{Duration, Instant};

use example_model::example_scratch;
use prompts_cli::{Scratch, wait_until};
use stub_server::{Behaviour, Request, StubServer};

const CODE: [&str; 3] = [
    "```python\nprint([0, 1])\n```",
    "```python\nprint('Hello, World!')\nprint('Welcome to Python!')\n```",
    "```python\nprint(0)\n```",
];

fn answer(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let current = req.current_question();
    let i = if current.contains("Two Sum") {
        0
    } else if current.contains("greet") {
        1
    } else {
        2
    };
    Behaviour::Reply(CODE[i].into())
}

/// Answers the first question and hangs on the others.
fn first_then_hang(req: &Request) -> Behaviour {
    match answer(req) {
        Behaviour::Reply(r) if r == CODE[0] => Behaviour::Reply(r),
        Behaviour::Reply(_) => Behaviour::Hang,
        other => other,
    }
}

fn scratch() -> Scratch {
    example_scratch("[llm]\ntimeout_secs = 60\nretries = 0\n")
}

/// Three model slots: each keeps one prompt's chain (schedule.rs), so the
/// first question of every prompt is answered before the hangs.
fn three_slots() -> Scratch {
    example_scratch("concurrency = 3\n[llm]\ntimeout_secs = 60\nretries = 0\n")
}

fn summary_of(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn stop_with(signal: &str) {
    let server = StubServer::start(first_then_hang);
    let s = three_slots();
    let mut child = s.spawn_prompts(&["--test-threads", "3"], &[("OLLAMA_HOST", &server.url())]);
    assert!(
        wait_until(60, || s.journal_lines() >= 3
            && server.requests_to("/api/chat").len() >= 4),
        "the first question of each prompt should finish"
    );
    let sent = Instant::now();
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut waited = None;
    while sent.elapsed() < Duration::from_secs(15) {
        if let Some(st) = child.try_wait().unwrap() {
            waited = Some(st);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Some(status) = waited else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the harness did not stop within 15 s of {signal}");
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("PROMPTEVAL_RESUME="), "{stdout}");

    let dir = s.run_dir();
    let summary = summary_of(&dir);
    assert_eq!(summary["complete"], false, "{summary}");
    assert_eq!(summary["finished_cases"], 3, "{summary}");
    let html = std::fs::read_to_string(dir.join("quick_view.html")).unwrap();
    assert!(
        html.contains("INCOMPLETE"),
        "the quick view must say the run is incomplete"
    );

    // Resume with a healthy model: only the six unfinished cases run, and
    // their requests carry the history of the journaled first question.
    server.set_script(answer);
    let before = server.requests_to("/api/chat").len();
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_RESUME", dir.to_str().unwrap()),
        ],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    let resumed: Vec<Request> = server
        .requests_to("/api/chat")
        .into_iter()
        .skip(before)
        .collect();
    assert_eq!(resumed.len(), 6, "only unfinished cases run again");
    assert!(resumed.iter().all(|r| {
        r.last_user_message()
            .unwrap()
            .contains("問題1: 實作Two Sum")
    }));
    assert_eq!(s.run_dirs(), 1, "resume writes into the same folder");
    let summary = summary_of(&dir);
    assert_eq!(summary["complete"], true, "{summary}");
    for p in ["prompt1", "prompt2", "prompt3"] {
        assert_eq!(summary["prompt_results"][p]["accuracy"], 100.0, "{summary}");
    }
}

#[test]
fn sigterm_writes_an_incomplete_report_and_resume_finishes_it() {
    stop_with("-TERM");
}

#[test]
fn sigint_behaves_like_sigterm() {
    stop_with("-INT");
}

#[test]
fn kill_9_keeps_every_finished_case() {
    let server = StubServer::start(first_then_hang);
    let s = three_slots();
    let mut child = s.spawn_prompts(&["--test-threads", "3"], &[("OLLAMA_HOST", &server.url())]);
    assert!(wait_until(60, || s.journal_lines() >= 3));
    child.kill().unwrap();
    child.wait().unwrap();
    let dir = s.run_dir();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a whole record"))
        .collect();
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r["verdict"] == "correct"));
    assert!(!dir.join("summary.json").exists());

    server.set_script(answer);
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_RESUME", dir.to_str().unwrap()),
        ],
    );
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert_eq!(summary_of(&dir)["finished_cases"], 9);
}

/// With the replay backend, an interrupted-and-resumed run reports exactly
/// what an uninterrupted one does. The interruption is what `kill -9` leaves
/// behind at a case boundary: the run manifest and a prefix of the journal.
#[test]
fn replayed_run_resumed_after_interruption_equals_uninterrupted_run() {
    let server = StubServer::start(|req| match answer(req) {
        // Vary by prompt so the comparison is not trivially uniform.
        Behaviour::Reply(r)
            if req.last_user_message().unwrap_or("").starts_with("請仔細") && r == CODE[2] =>
        {
            Behaviour::Reply("```python\nprint(1/0)\n```".into())
        }
        other => other,
    });
    let s = scratch();
    let record = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(record.status, Some(101), "{}", record.both());

    let replay = [("PROMPTEVAL_BACKEND", "replay")];
    let full = s.prompts(&[], &replay);
    assert_eq!(full.status, Some(101), "{}", full.both());
    let mut dirs: Vec<_> = std::fs::read_dir(s.path().join("result"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let uninterrupted = dirs[1].clone();

    let again = s.prompts(&[], &replay);
    assert_eq!(again.status, Some(101));
    let mut dirs: Vec<_> = std::fs::read_dir(s.path().join("result"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let interrupted = dirs[2].clone();
    let journal = std::fs::read_to_string(interrupted.join("journal.jsonl")).unwrap();
    let kept: Vec<&str> = journal.lines().take(4).collect();
    std::fs::write(
        interrupted.join("journal.jsonl"),
        kept.join("\n") + "\n{\"case\": {\"prom",
    )
    .unwrap();
    for f in ["summary.json", "quick_view.html"] {
        std::fs::remove_file(interrupted.join(f)).unwrap();
    }
    let resumed = s.prompts(
        &[],
        &[
            replay[0],
            ("PROMPTEVAL_RESUME", interrupted.to_str().unwrap()),
        ],
    );
    assert_eq!(resumed.status, Some(101), "{}", resumed.both());

    let (a_results, a_cases) = comparable(&uninterrupted);
    let (b_results, b_cases) = comparable(&interrupted);
    assert_eq!(a_results, b_results);
    assert_eq!(a_cases.len(), 9);
    assert_eq!(a_cases, b_cases);
}

/// A run where the server failed on some cases is completed with
/// `PROMPTEVAL_RETRY=errors`: only those cases, and the later cases of
/// their chains (their history shows the retried outcome), are asked
/// again, and the report ends equal to a clean run's.
#[test]
fn retry_errors_asks_only_for_the_failed_cases_and_ends_like_a_clean_run() {
    let server = StubServer::start(answer);
    let s = scratch();
    let clean = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(clean.status, Some(0), "{}", clean.both());
    let clean_dir = s.run_dir();

    // The greet question (q2 of 3) meets a server error under every prompt.
    server.set_script(|req: &Request| match answer(req) {
        Behaviour::Reply(r) if r == CODE[1] => {
            Behaviour::Status(500, "{\"error\":\"overloaded\"}".into())
        }
        other => other,
    });
    let failing = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(failing.status, Some(101), "{}", failing.both());
    let dir = s.run_dir();
    assert_ne!(dir, clean_dir);
    assert_eq!(
        summary_of(&dir)["prompt_results"]["prompt1"]["error_breakdown"]["api_error"],
        1
    );

    server.set_script(answer);
    let before = server.requests_to("/api/chat").len();
    let retry = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_RESUME", dir.to_str().unwrap()),
            ("PROMPTEVAL_RETRY", "errors"),
        ],
    );
    assert_eq!(retry.status, Some(0), "{}", retry.both());
    assert!(
        retry
            .stdout
            .contains("重新詢問 3 個以 api_error 結束或未評測的案例")
            && retry.stdout.contains("以及其鏈中之後的 3 個案例"),
        "{}",
        retry.stdout
    );
    let asked: Vec<Request> = server
        .requests_to("/api/chat")
        .into_iter()
        .skip(before)
        .collect();
    // q2 and q3 of each prompt; q1's outcome stands.
    assert_eq!(asked.len(), 6, "{}", retry.stdout);
    assert!(
        asked
            .iter()
            .all(|r| !r.current_question().contains("Two Sum"))
    );
    assert_eq!(
        s.run_dirs(),
        2,
        "the retry writes into the failed run's folder"
    );
    assert_eq!(comparable(&dir), comparable(&clean_dir));
    // The journal keeps the earlier outcomes: 9 first records, 6 retried.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 15);
    assert!(journal.matches("\"api_error\"").count() >= 3);

    // A second retry finds nothing to ask.
    let again = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_RESUME", dir.to_str().unwrap()),
            ("PROMPTEVAL_RETRY", "errors"),
        ],
    );
    assert!(
        again
            .stdout
            .contains("重新詢問 0 個以 api_error 結束或未評測的案例"),
        "{}",
        again.both()
    );
    assert_eq!(server.requests_to("/api/chat").len(), before + 6);
}

#[test]
fn retry_without_resume_or_with_an_unknown_value_is_a_clear_error() {
    let s = scratch();
    let run = s.prompts(&[], &[("PROMPTEVAL_RETRY", "errors")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(run.stderr.contains("PROMPTEVAL_RESUME="), "{}", run.both());
    let run = s.prompts(&[], &[("PROMPTEVAL_RETRY", "all")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("the only value is `errors`"),
        "{}",
        run.both()
    );
}

/// When an attempt of [`kill_9_at_random_moments_with_a_torn_line_then_resume_equals_uninterrupted`]
/// kills the run.
#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// This many milliseconds after the start: anywhere, on any machine.
    Millis(u64),
    /// Once the new run's journal holds this many lines: timed by the run's
    /// own progress, so the journal has a line to tear however fast or
    /// loaded the machine is.
    JournalLines(usize),
}

/// The seed of the random kills: `PROMPTEVAL_TEST_SEED` when given (to
/// replay a failure), else drawn; printed either way.
fn test_seed() -> u64 {
    let seed = match std::env::var("PROMPTEVAL_TEST_SEED") {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("PROMPTEVAL_TEST_SEED={v:?} is not a u64")),
        Err(_) => fastrand::u64(..),
    };
    eprintln!("seed {seed} (replay it with PROMPTEVAL_TEST_SEED={seed})");
    seed
}

/// `kill -9` at random moments of a run and at moments timed by its
/// journal, a torn last journal line (the record being written when the
/// kill came), then resume, again and again: the end is what an
/// uninterrupted run reports, every journal line is a whole record, and no
/// finished case ran twice.
#[test]
fn kill_9_at_random_moments_with_a_torn_line_then_resume_equals_uninterrupted() {
    let server = StubServer::start(answer);
    let s = scratch();
    let record = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("INSTA_UPDATE", "always")],
    );
    assert_eq!(record.status, Some(0), "{}", record.both());
    let replay = [("PROMPTEVAL_BACKEND", "replay")];
    let started = Instant::now();
    let full = s.prompts(&[], &replay);
    assert_eq!(full.status, Some(0), "{}", full.both());
    // Random kill moments within the run as long as it takes on this
    // machine now (a loaded machine starts slower): from 15 % to 90 % of it.
    let took = started.elapsed().as_millis() as u64;
    let window = (took * 15 / 100).max(100)..(took * 90 / 100).max(200);
    let uninterrupted = s.run_dir();
    let baseline = comparable(&uninterrupted);

    let seed = test_seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    // Random moments, and moments after 1 and after 5 of the 9 cases, which
    // leave a journal to tear on any machine.
    let mut kills: Vec<KillAt> = (0..4)
        .map(|_| KillAt::Millis(rng.u64(window.clone())))
        .collect();
    kills.extend([KillAt::JournalLines(1), KillAt::JournalLines(5)]);
    let mut tore_by_progress = 0;
    for (attempt, kill) in kills.into_iter().enumerate() {
        let before = s.run_dirs();
        let lines_before = s.journal_lines();
        let mut child = s.spawn_prompts(&[], &replay);
        match kill {
            KillAt::Millis(ms) => std::thread::sleep(Duration::from_millis(ms)),
            KillAt::JournalLines(n) => assert!(
                wait_until(120, || s.journal_lines() >= lines_before + n
                    || child.try_wait().ok().flatten().is_some()),
                "attempt {attempt}: the run wrote no {n} journal lines in 120 s"
            ),
        }
        let _ = child.kill();
        child.wait().unwrap();
        if s.run_dirs() == before {
            assert!(
                matches!(kill, KillAt::Millis(_)),
                "attempt {attempt} ({kill:?}) left no run folder"
            );
            continue; // killed before the run folder existed
        }
        let dir = s.run_dir();
        let journal = dir.join("journal.jsonl");
        let mut bytes = std::fs::read(&journal).unwrap_or_default();
        let start = bytes[..bytes.len().saturating_sub(1)]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let torn = bytes.len() > start + 2;
        if torn {
            bytes.truncate(rng.usize(start + 1..bytes.len() - 1));
            std::fs::write(&journal, &bytes).unwrap();
        }
        if let KillAt::JournalLines(_) = kill {
            // The run may have ended before the kill on a fast machine: its
            // journal has lines all the same.
            assert!(torn, "attempt {attempt} ({kill:?}) left no line to tear");
            tore_by_progress += 1;
        }
        let _ = std::fs::remove_file(dir.join("summary.json"));
        if !dir.join("run.json").exists() {
            // Killed between creating the folder and writing its plan: the
            // resume refuses, saying why, and nothing finished there.
            let refused = s.prompts(
                &[],
                &[replay[0], ("PROMPTEVAL_RESUME", dir.to_str().unwrap())],
            );
            assert_eq!(refused.status, Some(2), "{}", refused.both());
            assert!(
                refused.stderr.contains("stopped before it wrote its plan"),
                "{}",
                refused.both()
            );
            assert!(std::fs::read(&journal).unwrap_or_default().is_empty());
            continue;
        }
        let resumed = s.prompts(
            &[],
            &[replay[0], ("PROMPTEVAL_RESUME", dir.to_str().unwrap())],
        );
        let context = format!(
            "seed {seed} (PROMPTEVAL_TEST_SEED={seed}), attempt {attempt} ({kill:?}): {}",
            resumed.both()
        );
        assert_eq!(resumed.status, Some(0), "{context}");
        assert_eq!(
            resumed
                .stdout
                .contains("已截去中斷的寫入留下的不完整最後一行"),
            torn,
            "{context}"
        );
        let text = std::fs::read_to_string(&journal).unwrap();
        let mut names: Vec<String> = text
            .lines()
            .map(|l| {
                let r: serde_json::Value =
                    serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?} ({context})"));
                r["case"].to_string()
            })
            .collect();
        names.sort();
        let cases = names.len();
        names.dedup();
        assert_eq!((cases, names.len()), (9, 9), "each case once: {context}");
        assert_eq!(comparable(&dir), baseline, "{context}");
    }
    assert_eq!(tore_by_progress, 2, "seed {seed}");
}

/// What must not differ between an interrupted-and-resumed run and an
/// uninterrupted one: results without timings, and every case.
fn comparable(dir: &std::path::Path) -> (serde_json::Value, Vec<String>) {
    let mut v = summary_of(dir)["prompt_results"].clone();
    for (_, r) in v.as_object_mut().unwrap() {
        r.as_object_mut().unwrap().remove("avg_execution_time");
    }
    let detailed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("report/detailed_report.json")).unwrap(),
    )
    .unwrap();
    let mut cases: Vec<String> = Vec::new();
    collect_cases(&detailed, &mut cases);
    cases.sort();
    (v, cases)
}

/// Every case record in the detailed report, reduced to what must not differ
/// between runs (not timings or timestamps).
fn collect_cases(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(o) if o.contains_key("verdict") && o.contains_key("case") => {
            out.push(format!(
                "{}|{}|{}|{}|{}",
                o["name"], o["verdict"], o["prompt"], o["reply"], o["actual"]
            ));
        }
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_cases(x, out)),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_cases(x, out)),
        _ => {}
    }
}

/// A run killed between creating its folder and writing run.json left a
/// folder with nothing in it: resuming it says so and what to do, instead
/// of "No such file or directory".
#[test]
fn resuming_a_folder_killed_before_its_plan_says_why_and_what_to_do() {
    let s = scratch();
    let dir = s.path().join("result/test_20261127_120000");
    std::fs::create_dir_all(&dir).unwrap();
    let run = s.prompts(&[], &[("PROMPTEVAL_RESUME", dir.to_str().unwrap())]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr
            .contains("the folder has no run.json: that run was stopped before it wrote its plan, so no case of it finished; start the run again without PROMPTEVAL_RESUME"),
        "{}",
        run.both()
    );
}
