//! report/junit.xml: one `<testcase>` per case, one `<testsuite>` per
//! prompt, for CI test views (GitHub, GitLab, Jenkins). A model's failure
//! is a `<failure>` with expected vs actual; an `api_error` (the server,
//! not the model's program) an `<error>`; a case not evaluated is
//! `<skipped>` with the reason, as libtest reports it ignored.
//! quick-junit writes the XML (escaping, invalid characters removed).

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::analysis::gate::GateReport;
use crate::case::{CaseRecord, Verdict};
use crate::language::Language;

use crate::results::RunInfo;
use crate::results::run_folder::{Staged, write_derived};

/// Characters of expected or actual text kept in a failure: a CI view
/// shows the start; the run folder has all of it.
const SHOWN_CHARS: usize = 4000;

/// Writes junit.xml a case at a time: the counts on `<testsuites>` and
/// `<testsuite>` come first in the file but are known only at the end, so
/// each prompt's cases go to a scratch file and each finished suite to
/// another, and `finish` writes the counts and copies both in. A report
/// of any size holds one case's XML at a time, never every test case.
/// quick-junit still writes every piece (escaping, invalid characters
/// removed): a piece is cut out of a one-case report it serialized.
pub(crate) struct JunitWriter {
    /// Totals only; its suites are in `suites`.
    root: Report,
    suites: BufWriter<File>,
    suite: Option<OpenSuite>,
}

/// The suite being written: its counts (no test cases) and its cases' XML.
struct OpenSuite {
    head: TestSuite,
    cases: BufWriter<File>,
}

impl JunitWriter {
    pub fn new(info: &RunInfo) -> std::io::Result<JunitWriter> {
        let mut root = Report::new(format!("prompteval {}", info.test_id));
        root.set_time(Duration::from_secs_f64(info.total_execution_time.max(0.0)));
        Ok(JunitWriter {
            root,
            suites: BufWriter::new(tempfile::tempfile()?),
            suite: None,
        })
    }

    pub fn start_prompt(&mut self, prompt: &str) -> std::io::Result<()> {
        self.end_prompt()?;
        self.suite = Some(OpenSuite {
            head: TestSuite::new(prompt),
            cases: BufWriter::new(tempfile::tempfile()?),
        });
        Ok(())
    }

    pub fn case(&mut self, r: &CaseRecord) -> std::io::Result<()> {
        self.add(test_case(r))
    }

    /// A case the race never asked (`name`, its test name), `<skipped>`
    /// with why, as libtest lists it ignored.
    pub fn not_run(&mut self, prompt: &str, name: &str, why: &str) -> std::io::Result<()> {
        let mut status = TestCaseStatus::skipped();
        status.set_message(format!("not run: {why}"));
        let mut case = TestCase::new(name.to_string(), status);
        case.set_classname(format!("prompteval.{prompt}"));
        self.add(case)
    }

    fn add(&mut self, case: TestCase) -> std::io::Result<()> {
        let Some(open) = self.suite.as_mut() else {
            return Ok(());
        };
        let mut one = TestSuite::new("");
        one.add_test_case(case);
        open.head.tests += one.tests;
        open.head.failures += one.failures;
        open.head.errors += one.errors;
        open.head.disabled += one.disabled;
        let xml = serialized(one)?;
        writeln!(open.cases, "        {}", suite_part(&xml, "<testcase")?)
    }

    pub fn end_prompt(&mut self) -> std::io::Result<()> {
        let Some(OpenSuite { head, cases }) = self.suite.take() else {
            return Ok(());
        };
        self.root.tests += head.tests;
        self.root.failures += head.failures;
        self.root.errors += head.errors;
        let xml = serialized(head)?;
        writeln!(self.suites, "    {}", suite_part(&xml, "<testsuite ")?)?;
        std::io::copy(&mut rewound(cases)?, &mut self.suites)?;
        writeln!(self.suites, "    </testsuite>")
    }

    /// Writes the file (through a temp file, renamed into place).
    pub fn finish(mut self, path: &Path) -> std::io::Result<()> {
        self.end_prompt()?;
        let xml = self
            .root
            .to_string()
            .map_err(|e| std::io::Error::other(format!("junit.xml: {e}")))?;
        let end = xml
            .rfind("</testsuites>")
            .ok_or_else(|| std::io::Error::other("junit.xml: the report did not serialize"))?;
        let (staged, mut out) = Staged::create(path)?;
        out.write_all(xml[..end].trim_end().as_bytes())?;
        out.write_all(b"\n")?;
        std::io::copy(&mut rewound(self.suites)?, &mut out)?;
        out.write_all(&xml.as_bytes()[end..])?;
        staged.finish_derived(out)
    }
}

/// A case's `<testcase>`: a model's failure a `<failure>` with expected vs
/// actual, an `api_error` an `<error>`, a case not evaluated `<skipped>`.
fn test_case(r: &CaseRecord) -> TestCase {
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
    case
}

/// `suite` alone in a report, as quick-junit writes it.
fn serialized(suite: TestSuite) -> std::io::Result<String> {
    let mut report = Report::new("");
    report.add_test_suite(suite);
    report
        .to_string()
        .map_err(|e| std::io::Error::other(format!("junit.xml: {e}")))
}

/// The part of a one-suite report from `from` up to its `</testsuite>`:
/// a test case's XML, or a suite's start tag (of a suite without cases).
fn suite_part<'x>(xml: &'x str, from: &str) -> std::io::Result<&'x str> {
    xml.find(from)
        .zip(xml.rfind("</testsuite>"))
        .map(|(from, to)| xml[from..to].trim_end())
        .ok_or_else(|| std::io::Error::other(format!("junit.xml: no {from} in {xml}")))
}

/// The scratch file behind `writer`, flushed and read from its start.
fn rewound(writer: BufWriter<File>) -> std::io::Result<File> {
    let mut file = writer.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::fixtures::{info, three_by_three};

    /// The streamed file is byte for byte what quick-junit writes for the
    /// whole report held in memory: the same cases, counts and totals.
    #[test]
    fn streamed_junit_equals_the_whole_report_serialized_at_once() {
        let info = info(1);
        let records = three_by_three();
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("junit.xml");
        let mut writer = JunitWriter::new(&info).expect("scratch files");
        let mut whole = Report::new(format!("prompteval {}", info.test_id));
        whole.set_time(Duration::from_secs_f64(info.total_execution_time.max(0.0)));
        let mut prompts: Vec<&str> = records.iter().map(|r| &*r.case.prompt).collect();
        prompts.dedup();
        for prompt in prompts.iter().copied().chain(["empty"]) {
            writer.start_prompt(prompt).expect("started");
            let mut suite = TestSuite::new(prompt);
            for r in records.iter().filter(|r| &*r.case.prompt == prompt) {
                writer.case(r).expect("case written");
                suite.add_test_case(test_case(r));
            }
            whole.add_test_suite(suite);
        }
        writer.finish(&path).expect("finished");
        let streamed = std::fs::read_to_string(&path).expect("written");
        assert_eq!(streamed, whole.to_string().expect("serialized"));
        assert!(streamed.contains(r#"tests="9""#), "{streamed}");
        assert!(!dir.path().join("junit.xml.tmp").exists());
    }
}
