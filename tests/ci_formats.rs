//! What CI reads: report/junit.xml read back by a real JUnit consumer
//! (Python's junitparser, as CI tools parse it), and the markdown job
//! summary appended to `GITHUB_STEP_SUMMARY`. The model is a scripted
//! stub that solves the spec example's first two questions.
//!
//! junitparser comes from PyPI (`pip install junitparser==5.0.3`); without
//! it the JUnit test is reported ignored with that instruction, and fails
//! under CI=true.

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;
#[path = "support/trials.rs"]
mod trials;

use std::process::{Command, ExitCode};

use libtest_mimic::Arguments;
use serde_json::Value;

use example_model::{example_model, example_scratch};
use prompts_cli::Scratch;
use stub_server::StubServer;

/// Solves Two Sum and greet; the average's wrong answer holds markup the
/// CI formats must escape.
const AVERAGE_MARKUP: &str = "```python\nprint('<none> & 1')\n```";

fn run_example(extra_toml: &str, env: &[(&str, &str)]) -> (Scratch, prompts_cli::Run) {
    let server = StubServer::start(example_model(AVERAGE_MARKUP));
    let s = example_scratch(extra_toml);
    let url = server.url();
    let mut all = vec![("OLLAMA_HOST", url.as_str())];
    all.extend_from_slice(env);
    let run = s.prompts(&[], &all);
    (s, run)
}

/// `python3` with junitparser, or why not.
fn junitparser() -> Result<&'static str, String> {
    let ok = Command::new("python3")
        .args(["-c", "import junitparser"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        Ok("python3")
    } else {
        Err("Python's junitparser is not installed; pip install junitparser==5.0.3".into())
    }
}

/// Every testcase as junitparser reads it: suite, name, classname,
/// result kind and message and text.
const READ: &str = r#"
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
out = {"tests": xml.tests, "failures": xml.failures, "errors": xml.errors, "skipped": xml.skipped, "suites": []}
for suite in xml:
    cases = []
    for case in suite:
        results = [{"kind": type(r).__name__, "type": r.type, "message": r.message, "text": r.text} for r in case.result]
        cases.append({"name": case.name, "classname": case.classname, "time": case.time, "results": results})
    out["suites"].append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "cases": cases})
print(json.dumps(out))
"#;

fn junit_xml_reads_in_a_junit_parser(python: &'static str) {
    let (s, run) = run_example("", &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let path = s.run_dir().join("report/junit.xml");
    let out = Command::new(python)
        .args(["-c", READ])
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(xml["tests"], 9, "{xml}");
    assert_eq!(xml["failures"], 3, "{xml}");
    assert_eq!(xml["errors"], 0);
    let suites = xml["suites"].as_array().unwrap();
    let names: Vec<&str> = suites.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["prompt1", "prompt2", "prompt3"]);
    let cases = suites[0]["cases"].as_array().unwrap();
    assert_eq!(cases[0]["name"], "prompt1::q1_two_sum::r1");
    assert_eq!(cases[0]["classname"], "prompteval.prompt1");
    assert_eq!(cases[0]["results"], serde_json::json!([]));
    let failed = &cases[2]["results"][0];
    assert_eq!(failed["kind"], "Failure");
    assert_eq!(failed["type"], "wrong_answer");
    // Expected vs actual, with the model's markup as text.
    let text = failed["text"].as_str().unwrap();
    assert!(
        text.contains("expected:\n0") && text.contains("actual:\n<none> & 1"),
        "{text}"
    );
}

fn github_step_summary_gets_the_table_and_the_gate() {
    let summary_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(summary_file.path(), "earlier step\n").unwrap();
    let path = summary_file.path().display().to_string();
    let (_s, run) = run_example(
        "[gate]\nmin_accuracy = 70\n",
        &[("GITHUB_STEP_SUMMARY", path.as_str())],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    let md = std::fs::read_to_string(summary_file.path()).unwrap();
    assert!(
        md.starts_with("earlier step\n## prompteval · test_"),
        "appended: {md}"
    );
    assert!(
        md.contains("| prompt1 | 66.7% | [20.8, 93.9] | 2/3 | ❌ < 70.0% |"),
        "{md}"
    );
    assert!(md.contains("**gate: FAILED**"), "{md}");
    assert!(md.contains("below the threshold 70.0%"), "{md}");
    // A person reads it: in the run's language (the spec's Chinese here).
    assert!(
        md.contains("| Prompt | 準確率 | 95% CI | 正確/總數 | gate | 注意 |"),
        "{md}"
    );
    assert!(md.contains("完成 9/9 個案例"), "{md}");
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let parser = junitparser();
    let mut trials = trials::needing_trials![&args, &parser; junit_xml_reads_in_a_junit_parser];
    trials.extend(trials::plain_trials![
        github_step_summary_gets_the_table_and_the_gate
    ]);
    trials::run(&args, trials)
}
