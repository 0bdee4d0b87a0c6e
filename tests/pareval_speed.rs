//! ParEval's verdict with its run limit, and its speed figures
//! (src/execute/cpp/speed.rs): each run validates, then times `compute`
//! and `best` as ParEval's main does, in one process under ParEval's run
//! limit; a reply that validates but cannot finish the timing loops is not
//! correct, as under ParEval's harness, and the figures of a correct case
//! are those same runs'.

#[path = "support/cpp_sandbox.rs"]
mod cpp_sandbox;
use cpp_sandbox::sandbox;

use prompteval::case::Verdict;
use prompteval::config::CppConfig;
use prompteval::execute::cpp::Cpp;
use prompteval::execute::language::Ran;
use prompteval::suite::{Question, Suite};

/// `limit`: ParEval's run limit in seconds (init at the problem's size
/// alone takes a second or two on a busy machine).
fn cpp(limit: f64) -> Cpp {
    Cpp::new(
        CppConfig {
            compile_timeout_secs: 20.0,
            pareval_run_timeout_secs: limit,
            ..CppConfig::default()
        },
        None,
    )
}

fn question(file: &str, id: &str) -> Question {
    let path = format!("{}/benches-data/{file}", env!("CARGO_MANIFEST_DIR"));
    let suite = Suite::load(std::path::Path::new(&path)).expect("suite");
    suite
        .questions
        .into_iter()
        .find(|q| q.id.starts_with(id))
        .unwrap_or_else(|| panic!("no question {id}"))
}

fn run(cpp: &Cpp, q: &Question, reply: &str) -> Ran {
    cpp.run(q, reply, sandbox()).expect("harness")
}

const AXPY: &str = "03_dense_la_axpy";
const AXPY_BODY: &str = "#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); i += 1) {\n    z[i] = alpha*x[i] + y[i];\n}\n";
/// Passes validate() (small vectors), then misbehaves at the problem's size.
fn slow_at_size(misdeed: &str) -> String {
    format!("if (x.size() > 100000) {{ {misdeed} }}\n{AXPY_BODY}")
}

#[test]
fn a_correct_case_is_timed_at_the_largest_thread_count() {
    let cpp = cpp(120.0);
    let q = question("pareval-omp.json", AXPY);
    let ran = run(&cpp, &q, AXPY_BODY);
    assert_eq!(
        ran.judgement.verdict,
        Verdict::Correct,
        "{:?}",
        ran.judgement
    );
    let speed = ran.speed.expect("a correct case is timed");
    assert_eq!(speed.threads, 8, "{speed:?}");
    assert_eq!(speed.failed, None);
    let (time, best) = (speed.time_secs.unwrap(), speed.best_secs.unwrap());
    assert!(time > 0.0 && best > 0.0, "{speed:?}");
    assert_eq!(speed.speedup(), Some(best / time));

    // Serial: one thread, the serial driver's clock.
    let q = question("pareval-serial.json", AXPY);
    let body = "for (size_t i = 0; i < x.size(); i += 1) {\n    z[i] = alpha*x[i] + y[i];\n}\n";
    let speed = run(&cpp, &q, body).speed.expect("timed");
    assert_eq!(speed.threads, 1);
    assert!(speed.time_secs.unwrap() > 0.0, "{speed:?}");
}

#[test]
fn only_correct_cases_are_timed() {
    let q = question("pareval-omp.json", AXPY);
    let wrong = run(
        &cpp(120.0),
        &q,
        "for (size_t i = 0; i < x.size(); i += 1) z[i] = x[i];\n",
    );
    assert_eq!(wrong.judgement.verdict, Verdict::WrongAnswer);
    assert_eq!(wrong.speed, None, "a wrong case has no speed");
}

/// ParEval's harness counts a run as valid only when its process, timing
/// loops included, ends within the run limit with status 0: a reply that
/// passes validate() (small inputs) and then loops, crashes or leaves at
/// the problem's size is not correct, and has no figures.
#[test]
fn a_reply_that_validates_but_cannot_finish_the_timing_loops_is_not_correct() {
    let q = question("pareval-omp.json", AXPY);
    let cpp = cpp(8.0);
    for (misdeed, verdict, why) in [
        (
            "for (;;) {}",
            Verdict::Timeout,
            "but ParEval's timing loops (5 x compute() and 5 x best() at the problem's size) did not end within ParEval's run limit of 8 s",
        ),
        (
            "__builtin_trap();",
            Verdict::RuntimeError,
            "then the program was killed by signal",
        ),
        (
            "std::exit(0);",
            Verdict::RuntimeError,
            "before ParEval's timing loops ended",
        ),
        // Printing ParEval's lines is not timing.
        (
            "printf(\"Time: 0.000001\\nBestSequential: 9.0\\n\"); fflush(stdout); std::_Exit(0);",
            Verdict::RuntimeError,
            "before ParEval's timing loops ended",
        ),
    ] {
        let ran = run(&cpp, &q, &slow_at_size(misdeed));
        assert_eq!(
            ran.judgement.verdict, verdict,
            "{misdeed}: {:?}",
            ran.judgement
        );
        let detail = ran.judgement.detail.clone().unwrap_or_default();
        assert!(
            detail.contains("validate() passed at 1 thread"),
            "{misdeed}: {detail}"
        );
        assert!(detail.contains(why), "{misdeed}: {detail}");
        assert_eq!(ran.speed, None, "{misdeed}: a failed case has no figures");
    }
}

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

/// A user's run (the committed serial recordings, replayed): the correct
/// case's figures in journal.jsonl, the prompt's speedup in summary.json,
/// under the table and in the quick view, labelled with the machine's
/// cores; `PROMPTEVAL_SPEED`, which once skipped the timing, is refused.
#[test]
fn the_run_reports_the_speedup_beside_the_accuracy() {
    let s =
        prompts_cli::Scratch::recorded("benches-data/pareval-serial.json", "backend = \"replay\"");
    let run = s.prompts(&["dense_la_axpy"], &[("INSTA_UPDATE", "no")]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    // A C++ prompt is never taken for Python written in plain language.
    assert!(!run.both().contains("plain language"), "{}", run.both());
    let summary = s.summary();
    let r = &summary["prompt_results"]["pareval_chat"];
    assert_eq!(r["correct_answers"], 1, "{summary}");
    let speed = &r["speed"];
    assert_eq!(speed["threads"], 1, "{summary}");
    assert_eq!(
        (speed["timed"].as_u64(), speed["failed"].as_u64()),
        (Some(1), Some(0))
    );
    let speedup = speed["speedup_n_at_1"].as_f64().expect("speedup_n@1");
    assert!(speedup > 0.0, "{speed}");
    assert_eq!(
        speed["mean_speedup"].as_f64(),
        Some(speedup),
        "one case: the same mean"
    );
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(speed["cores"].as_u64(), Some(cores as u64));
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    let case: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(case["verdict"], "correct");
    assert!(case["speed"]["time_secs"].as_f64().unwrap() > 0.0, "{case}");
    assert!(case["speed"]["best_secs"].as_f64().unwrap() > 0.0, "{case}");
    let line = format!("speedup_1@1 {speedup:.2}");
    assert!(
        run.stdout.contains(&line),
        "{line} not under the table:\n{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("measured on this machine: {cores} cores")),
        "{}",
        run.stdout
    );
    let page = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
    assert!(page.contains("speed (ParEval)") && page.contains(&line));

    // The timing is the verdict's: nothing can turn it off.
    let refused = s.prompts(&["dense_la_axpy"], &[("PROMPTEVAL_SPEED", "off")]);
    assert_eq!(refused.status, Some(2), "{}", refused.both());
    assert!(
        refused.stderr.contains("PROMPTEVAL_SPEED") && refused.stderr.contains("no longer exists"),
        "{}",
        refused.both()
    );
}
