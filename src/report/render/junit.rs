//! report/junit.xml: one `<testcase>` per case, one `<testsuite>` per
//! prompt, for CI test views (GitHub, GitLab, Jenkins). A model's failure
//! is a `<failure>` with expected vs actual; an `api_error` (the server,
//! not the model's program) an `<error>`; a case not evaluated is
//! `<skipped>` with the reason, as libtest reports it ignored.
//! quick-junit writes the XML (escaping, invalid characters removed).

use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::case::{CaseRecord, Verdict};

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

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}… (cut; the run folder has all of it)", &text[..at]),
        None => text.to_string(),
    }
}
