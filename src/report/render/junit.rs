//! report/junit.xml: one `<testcase>` per case, one `<testsuite>` per
//! prompt, for CI test views (GitHub, GitLab, Jenkins). A model's failure
//! is a `<failure>` with expected vs actual; an `api_error` (the server,
//! not the model's program) an `<error>`; a case not evaluated is
//! `<skipped>` with the reason, as libtest reports it ignored.
//! quick-junit writes the XML (escaping, invalid characters removed).

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::analysis::gate::GateReport;
use crate::case::{CaseRecord, Verdict};
use crate::language::Language;

use crate::results::RunInfo;
use crate::results::run_folder::write_derived;

/// Characters of expected or actual text kept in a failure: a CI view
/// shows the start; the run folder has all of it.
const SHOWN_CHARS: usize = 4000;

pub(crate) struct JunitWriter {
    report: Report,
    suite: Option<TestSuite>,
}

impl JunitWriter {
    pub fn new(info: &RunInfo) -> JunitWriter {
        let mut report = Report::new(format!("prompteval {}", info.test_id));
        report.set_time(Duration::from_secs_f64(info.total_execution_time.max(0.0)));
        JunitWriter {
            report,
            suite: None,
        }
    }

    pub fn start_prompt(&mut self, prompt: &str) {
        self.suite = Some(TestSuite::new(prompt));
    }

    pub fn case(&mut self, r: &CaseRecord) {
        let status = match r.verdict {
            Verdict::Correct => TestCaseStatus::success(),
            Verdict::NotEvaluated => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(format!(
                    "not evaluated: {}",
                    r.detail
                        .as_deref()
                        .unwrap_or("the harness could not judge this case")
                ));
                s
            }
            Verdict::ApiError => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_type("api_error");
                s.set_message(
                    r.detail
                        .clone()
                        .unwrap_or_else(|| "the model call failed".into()),
                );
                s
            }
            failed => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_type(failed.as_str());
                s.set_message(match &r.detail {
                    Some(d) => format!("{}: {}", failed.as_str(), first_line(d)),
                    None => failed.as_str().to_string(),
                });
                s.set_description(format!(
                    "expected:\n{}\n\nactual:\n{}",
                    shown(&r.expected),
                    shown(&r.actual)
                ));
                s
            }
        };
        let mut case = TestCase::new(r.name.clone(), status);
        case.set_classname(format!("prompteval.{}", r.case.prompt));
        case.set_time(Duration::from_secs_f64((r.llm_secs + r.exec_secs).max(0.0)));
        if let Some(suite) = self.suite.as_mut() {
            suite.add_test_case(case);
        }
    }

    pub fn end_prompt(&mut self) {
        if let Some(suite) = self.suite.take() {
            self.report.add_test_suite(suite);
        }
    }

    pub fn finish(mut self, path: &Path) -> std::io::Result<()> {
        self.end_prompt();
        let xml = self
            .report
            .to_string()
            .map_err(|e| std::io::Error::other(format!("junit.xml: {e}")))?;
        write_derived(path, xml.as_bytes())
    }
}

/// Adds the gate to a written junit.xml as a `gate` test suite, one test
/// case per check (a threshold, a lower bound, a prompt against the
/// baseline), a failed check a `<failure>` with its line: the CI view then
/// shows why the job failed beside the cases. The gate is decided after
/// the report is written, so the suite goes in before `</testsuites>`,
/// and the run's totals count it.
pub fn add_gate(path: &Path, gate: &GateReport, lang: Language) -> std::io::Result<()> {
    let mut suite = TestSuite::new("gate");
    for entry in gate.entries(lang) {
        let status = if entry.passed {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("gate");
            s.set_message(first_line(&entry.text).to_string());
            s.set_description(entry.text.clone());
            s
        };
        let mut case = TestCase::new(entry.name, status);
        case.set_classname("prompteval.gate");
        if entry.passed {
            case.set_system_out(entry.text);
        }
        suite.add_test_case(case);
    }
    let (tests, failures) = (suite.tests, suite.failures);
    let mut one = Report::new("gate");
    one.add_test_suite(suite);
    let xml = one
        .to_string()
        .map_err(|e| std::io::Error::other(format!("junit.xml: {e}")))?;
    let part = xml
        .find("<testsuite ")
        .zip(xml.rfind("</testsuite>"))
        .map(|(from, to)| &xml[from..to + "</testsuite>".len()])
        .unwrap_or_default();
    let written = std::fs::read_to_string(path)?;
    let Some(end) = written.rfind("</testsuites>") else {
        return Err(std::io::Error::other(format!(
            "{}: not a junit report (no </testsuites>)",
            path.display()
        )));
    };
    let head = add_to_count(&written[..end], "tests", tests);
    let head = add_to_count(&head, "failures", failures);
    let text = format!("{head}    {part}\n{}", &written[end..]);
    write_derived(path, text.as_bytes())
}

/// `name="N"` on the `<testsuites>` element, plus `more`.
fn add_to_count(xml: &str, name: &str, more: usize) -> String {
    let pattern = regex::Regex::new(&format!(r#"(<testsuites\b[^>]*\s{name}=")(\d+)""#))
        .expect("a fixed pattern");
    pattern
        .replace(xml, |c: &regex::Captures| {
            let n: usize = c[2].parse().unwrap_or(0);
            format!("{}{}\"", &c[1], n + more)
        })
        .into_owned()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}… (cut; the run folder has all of it)", &text[..at]),
        None => text.to_string(),
    }
}
