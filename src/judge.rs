//! Execution + question -> [`Verdict`] (spec §5.3): trim, normalise CRLF and
//! compare with the answer as its `match` says (exactly by default), or with
//! `tests` require proof that they ran to their end (sandbox/proof.rs): exit
//! status 0 alone never passes. Failures are classified from how the
//! program ended.

use crate::ask::history::abbreviate;
use crate::case::{ExecutionRecord, Verdict};
use crate::suite::{Match, Question};

/// A program run and judged: what the report shows as the program (the
/// code completed for the question), how it ran and the verdict. Beside
/// [`Judgement`]: every language's runner makes one.
pub struct Ran {
    pub shown: String,
    pub execution: crate::case::ExecutionRecord,
    pub judgement: Judgement,
    /// A correct ParEval case's figures, from the runs that judged it.
    pub speed: Option<crate::case::Speed>,
}

/// The judge's decision with a one-line reason for anything but `correct`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// Normalised stdout: what was compared.
    pub actual: String,
    pub detail: Option<String>,
}

/// Trims both ends and turns CRLF into LF, as the spec's comparison does.
pub fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n").trim().to_string()
}

/// A question's judgement: with `tests`, the program (the code, then the
/// tests) must run the tests to their end, proven, and exit with 0, a failed
/// assertion being a wrong answer; with an `answer`, stdout must also match
/// it as `match` says.
pub fn judge_question(execution: &ExecutionRecord, question: &Question) -> Judgement {
    decide(
        execution,
        &question.answer,
        &question.matcher,
        question.tests.is_some(),
        true,
    )
}

/// A compiled program's judgement by what it printed: as a Python
/// program's, without reading Python's diagnostics on stderr.
pub fn judge_output(execution: &ExecutionRecord, question: &Question) -> Judgement {
    decide(execution, &question.answer, &question.matcher, false, false)
}

fn decide(
    execution: &ExecutionRecord,
    expected: &str,
    matcher: &Match,
    tests: bool,
    python: bool,
) -> Judgement {
    let mut actual = normalise(&execution.stdout);
    let expected = normalise(expected);
    let (verdict, detail) = if execution.timed_out {
        (
            Verdict::Timeout,
            Some(format!(
                "killed after {:.1}s without finishing",
                execution.duration_secs
            )),
        )
    } else if let Some(kind) = python.then(|| syntax_error(&execution.stderr)).flatten() {
        (
            Verdict::SyntaxError,
            Some(last_line(&execution.stderr).unwrap_or(kind).to_string()),
        )
    } else if let Some(signal) = execution.signal {
        (
            Verdict::RuntimeError,
            Some(format!(
                "killed by signal {signal} ({})",
                signal_name(signal)
            )),
        )
    } else if execution.exit_code != Some(0) {
        let last = last_line(&execution.stderr);
        match last.filter(|l| tests && l.starts_with("AssertionError")) {
            Some(error) => {
                let failed = failed_assertion(&execution.stderr).unwrap_or(error);
                actual = format!("failed: {failed}");
                let message = error
                    .strip_prefix("AssertionError:")
                    .map(|m| format!(" ({})", m.trim()))
                    .unwrap_or_default();
                (
                    Verdict::WrongAnswer,
                    Some(format!("a test failed: {failed}{message}")),
                )
            }
            None => {
                let why = last
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("exit status {:?}", execution.exit_code));
                (Verdict::RuntimeError, Some(why))
            }
        }
    } else if let Some(unearned) = tests.then(|| unproven(execution)).flatten() {
        unearned
    } else if tests && expected.is_empty() {
        (Verdict::Correct, None)
    } else {
        match compare(&actual, &expected, matcher) {
            Ok(()) => (Verdict::Correct, None),
            Err(_) if execution.stdout_truncated => (
                Verdict::WrongAnswer,
                Some("output exceeded the limit and was cut off".into()),
            ),
            Err(why) => (Verdict::WrongAnswer, Some(why.to_string())),
        }
    };
    Judgement {
        verdict,
        actual,
        detail,
    }
}

/// Why a tests program that exited with status 0 has not earned a pass:
/// the tests did not run to their end, or the program made them unable to
/// fail. None when the proof holds.
fn unproven(execution: &ExecutionRecord) -> Option<(Verdict, Option<String>)> {
    let Some(run) = &execution.tests else {
        return Some((
            Verdict::WrongAnswer,
            Some("no proof that the tests ran (the run recorded none)".into()),
        ));
    };
    if run.completed {
        if !run.suspect.is_empty() {
            return Some((
                Verdict::WrongAnswer,
                Some(format!(
                    "suspect: the program's class {} compares equal to any object, so the tests' \
                     == cannot fail; not counted as a pass",
                    run.suspect.join(", ")
                )),
            ));
        }
        if run.traced {
            return Some((
                Verdict::WrongAnswer,
                Some(
                    "the program installed a trace function (sys.settrace), which can skip the \
                     tests' lines; not counted as a pass"
                        .into(),
                ),
            ));
        }
        return None;
    }
    let status = execution.exit_code.unwrap_or(0);
    let when = if run.started {
        "before the tests finished"
    } else {
        "before the tests ran"
    };
    let ended = if run.exiting {
        format!("the program exited (sys.exit({status})) {when}")
    } else {
        format!("the process ended (os._exit) {when}")
    };
    Some(match run.raised.as_deref() {
        Some("AssertionError") => {
            let failed = failed_assertion(&execution.stderr)
                .map(|a| format!(": {a}"))
                .unwrap_or_default();
            (
                Verdict::WrongAnswer,
                Some(format!(
                    "a test failed (AssertionError{failed}), then the process exited with status \
                     {status}: {ended}"
                )),
            )
        }
        Some(other) => (
            Verdict::RuntimeError,
            Some(format!(
                "{other} was raised, then the process exited with status {status}: {ended}"
            )),
        ),
        None => (Verdict::WrongAnswer, Some(ended)),
    })
}

/// Why normalised stdout does not match the expected answer; long texts
/// are shown abbreviated.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch<'a> {
    #[error("expected {}, got {}", shown(.expected), shown(.actual))]
    Exact { expected: &'a str, actual: &'a str },
    #[error(
        "expected output matching /{}/, got {}",
        abbreviate(.pattern, 80),
        shown(.actual)
    )]
    Regex { pattern: &'a str, actual: &'a str },
    #[error("the answer's regex is invalid: {0}")]
    InvalidRegex(#[source] regex::Error),
    #[error("the answer {} is not a number", shown(.answer))]
    AnswerNotANumber { answer: &'a str },
    #[error(
        "expected {want} within {tolerance}, got {got} (off by {})",
        (.got - .want).abs()
    )]
    OffBy { want: f64, tolerance: f64, got: f64 },
    #[error("expected a number within {tolerance} of {want}, got {}", shown(.actual))]
    NotANumber {
        want: f64,
        tolerance: f64,
        actual: &'a str,
    },
}

fn shown(s: &str) -> String {
    format!("{:?}", abbreviate(s, 80))
}

/// Whether normalised stdout matches the expected answer; why not if not.
fn compare<'a>(actual: &'a str, expected: &'a str, matcher: &Match) -> Result<(), Mismatch<'a>> {
    match matcher {
        Match::Exact if actual == expected => Ok(()),
        Match::Exact => Err(Mismatch::Exact { expected, actual }),
        // The answer is the pattern (trimmed, like the stdout it searches).
        Match::Regex => match regex::Regex::new(expected) {
            Ok(re) if re.is_match(actual) => Ok(()),
            Ok(_) => Err(Mismatch::Regex {
                pattern: expected,
                actual,
            }),
            Err(e) => Err(Mismatch::InvalidRegex(e)),
        },
        &Match::Numeric { tolerance } => {
            let want: f64 = expected
                .parse()
                .map_err(|_| Mismatch::AnswerNotANumber { answer: expected })?;
            match actual.parse::<f64>() {
                Ok(got) if (got - want).abs() <= tolerance => Ok(()),
                Ok(got) => Err(Mismatch::OffBy {
                    want,
                    tolerance,
                    got,
                }),
                Err(_) => Err(Mismatch::NotANumber {
                    want,
                    tolerance,
                    actual,
                }),
            }
        }
    }
}

/// The source line of the assertion that failed: Python prints it under
/// the traceback's last frame.
fn failed_assertion(stderr: &str) -> Option<&str> {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| l.starts_with("assert"))
}

/// A compile-time error of the program itself: the last stderr line names
/// SyntaxError, IndentationError or TabError and there is no traceback (a
/// traceback means the error was raised at run time, e.g. by `eval`).
fn syntax_error(stderr: &str) -> Option<&'static str> {
    if stderr.contains("Traceback (most recent call last):") {
        return None;
    }
    let last = last_line(stderr)?;
    ["SyntaxError", "IndentationError", "TabError"]
        .into_iter()
        .find(|k| last.starts_with(k))
}

fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => "SIGABRT",
        9 => "SIGKILL: memory or process limit",
        11 => "SIGSEGV",
        24 => "SIGXCPU: CPU time limit",
        25 => "SIGXFSZ: file size limit",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's judgement: stdout equal to `expected` after [`normalise`].
    fn judge(execution: &ExecutionRecord, expected: &str) -> Judgement {
        decide(execution, expected, &Match::Exact, false, true)
    }

    fn exec(stdout: &str, stderr: &str, code: Option<i32>) -> ExecutionRecord {
        ExecutionRecord {
            exit_code: code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..Default::default()
        }
    }

    #[test]
    fn trimmed_crlf_output_matches() {
        let j = judge(
            &exec("  Hello, World!\r\nWelcome to Python!\r\n\n", "", Some(0)),
            "Hello, World!\nWelcome to Python!",
        );
        assert_eq!(j.verdict, Verdict::Correct);
        assert_eq!(j.actual, "Hello, World!\nWelcome to Python!");
    }

    #[test]
    fn different_output_is_wrong_answer_with_both_values() {
        let j = judge(&exec("[1, 0]\n", "", Some(0)), "[0, 1]");
        assert_eq!(j.verdict, Verdict::WrongAnswer);
        assert!(j.detail.unwrap().contains("[0, 1]"));
    }

    #[test]
    fn syntax_errors_without_traceback() {
        let stderr = "  File \"/tmp/x/main.py\", line 2\n    print('a')\n    ^\nIndentationError: expected an indented block after function definition on line 1\n";
        assert_eq!(
            judge(&exec("", stderr, Some(1)), "a").verdict,
            Verdict::SyntaxError
        );
        let tab = "  File \"main.py\", line 3\nTabError: inconsistent use of tabs and spaces in indentation\n";
        assert_eq!(
            judge(&exec("", tab, Some(1)), "a").verdict,
            Verdict::SyntaxError
        );
    }

    #[test]
    fn runtime_raised_syntax_error_is_a_runtime_error() {
        let stderr = "Traceback (most recent call last):\n  File \"main.py\", line 1, in <module>\n    eval('1 +')\nSyntaxError: invalid syntax\n";
        assert_eq!(
            judge(&exec("", stderr, Some(1)), "a").verdict,
            Verdict::RuntimeError
        );
    }

    #[test]
    fn exception_is_runtime_error_even_if_output_matched() {
        let stderr = "Traceback (most recent call last):\nZeroDivisionError: division by zero\n";
        let j = judge(&exec("0\n", stderr, Some(1)), "0");
        assert_eq!(j.verdict, Verdict::RuntimeError);
        assert_eq!(
            j.detail.as_deref(),
            Some("ZeroDivisionError: division by zero")
        );
    }

    #[test]
    fn timeout_and_signals() {
        let mut e = exec("", "", None);
        e.timed_out = true;
        assert_eq!(judge(&e, "x").verdict, Verdict::Timeout);
        let mut e = exec("", "", None);
        e.signal = Some(9);
        assert_eq!(judge(&e, "x").verdict, Verdict::RuntimeError);
    }

    #[test]
    fn a_failed_test_is_a_wrong_answer_showing_the_assertion() {
        let q = Question {
            index: 1,
            id: "q1".into(),
            kind: None,
            question: "def f(): ...".into(),
            answer: String::new(),
            matcher: Match::Exact,
            tests: Some("assert f() == 2".into()),
            entry_point: Some("f".into()),
            reference: None,
            p_top: None,
            variant: None,
            language: None,
            pareval: None,
            multipl_e: None,
        };
        let stderr = "Traceback (most recent call last):\n  File \"main.py\", line 9, in <module>\n    check(f)\n  File \"main.py\", line 6, in check\n    assert candidate([1, 2]) == 3, 'sum'\n           ^^^^^^^^^^^^^^^^^^^^^^\nAssertionError: sum\n";
        let j = judge_question(&exec("", stderr, Some(1)), &q);
        assert_eq!(j.verdict, Verdict::WrongAnswer);
        assert_eq!(j.actual, "failed: assert candidate([1, 2]) == 3, 'sum'");
        assert!(j.detail.unwrap().ends_with("(sum)"));
        // Exit status 0 is no pass without the proof that the tests ran.
        let unproven = judge_question(&exec("", "", Some(0)), &q);
        assert_eq!(unproven.verdict, Verdict::WrongAnswer);
        let mut proven = exec("", "", Some(0));
        proven.tests = Some(crate::case::TestsRun {
            completed: true,
            started: true,
            exiting: true,
            ..Default::default()
        });
        assert_eq!(judge_question(&proven, &q).verdict, Verdict::Correct);
        // Any other exception is the program's runtime error.
        let crash = "Traceback (most recent call last):\nZeroDivisionError: division by zero\n";
        assert_eq!(
            judge_question(&exec("", crash, Some(1)), &q).verdict,
            Verdict::RuntimeError
        );
    }

    #[test]
    fn regex_and_numeric_matches() {
        let q = |answer: &str, matcher: Match| Question {
            index: 1,
            id: "q1".into(),
            kind: None,
            question: "?".into(),
            answer: answer.into(),
            matcher,
            tests: None,
            entry_point: None,
            reference: None,
            p_top: None,
            variant: None,
            language: None,
            pareval: None,
            multipl_e: None,
        };
        let re = q(r"^Hello, \w+!$", Match::Regex);
        assert_eq!(
            judge_question(&exec("Hello, Ada!\n", "", Some(0)), &re).verdict,
            Verdict::Correct
        );
        assert_eq!(
            judge_question(&exec("Bye\n", "", Some(0)), &re).verdict,
            Verdict::WrongAnswer
        );
        let num = q("3.14159", Match::Numeric { tolerance: 1e-3 });
        assert_eq!(
            judge_question(&exec("3.1416\n", "", Some(0)), &num).verdict,
            Verdict::Correct
        );
        let j = judge_question(&exec("3.2\n", "", Some(0)), &num);
        assert_eq!(j.verdict, Verdict::WrongAnswer);
        assert!(j.detail.unwrap().contains("within 0.001"));
        assert_eq!(
            judge_question(&exec("pi\n", "", Some(0)), &num).verdict,
            Verdict::WrongAnswer
        );
    }
}
