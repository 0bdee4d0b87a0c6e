//! How a MultiPL-E program's run becomes a verdict: a compile error is a
//! `syntax_error` with its first error line; a run past its time a
//! `timeout`; a signal or a crash a `runtime_error`; a failed test a
//! `wrong_answer`; and `correct` only with exit status 0, MultiPL-E's own
//! condition (Racket: nothing on stderr), and the proof that the tests ran
//! to their end.

use crate::case::{ExecutionRecord, Verdict};
use crate::judge::{Judgement, normalise};

use super::spec::Spec;

/// What became of the build step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Built {
    /// The language has none.
    NotCompiled,
    Compiled,
    /// The record is the compiler's.
    Failed,
}

/// The secret's line was written: the tests ran to their end.
pub fn proven(execution: &ExecutionRecord, secret: &str) -> bool {
    execution.stdout.lines().any(|l| l.trim() == secret)
        || execution.stderr.lines().any(|l| l.trim() == secret)
}

/// stdout without the proof's line (a secret of the case, not output).
pub fn without_secret(stdout: &str, secret: &str) -> String {
    if !stdout.contains(secret) {
        return stdout.to_string();
    }
    let kept: Vec<&str> = stdout.lines().filter(|l| l.trim() != secret).collect();
    let mut out = kept.join("\n");
    if stdout.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The first line that reads as an error, else the first line.
fn first_error_line(text: &str) -> Option<&str> {
    let lines = || text.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| lines().next())
}

fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

fn shorten(line: &str) -> String {
    crate::ask::history::abbreviate(line, 300)
}

pub fn judge(spec: &Spec, execution: &ExecutionRecord, built: Built, secret: &str) -> Judgement {
    let output = format!("{}\n{}", execution.stderr, execution.stdout);
    let actual = normalise(&without_secret(&execution.stdout, secret));
    let found = |markers: &[&str]| markers.iter().any(|m| output.contains(m));
    let judgement = |verdict, detail: String| Judgement {
        verdict,
        actual: actual.clone(),
        detail: Some(detail),
    };
    if built == Built::Failed {
        if execution.timed_out {
            return judgement(
                Verdict::Timeout,
                format!(
                    "{} ran past its time limit ({:.1}s) and was killed",
                    spec.language.info().checker,
                    execution.duration_secs
                ),
            );
        }
        let line = first_error_line(&execution.stderr)
            .or_else(|| first_error_line(&execution.stdout))
            .map(shorten)
            .unwrap_or_else(|| format!("exit status {:?}", execution.exit_code));
        return judgement(
            Verdict::SyntaxError,
            format!("{} rejected it: {line}", spec.language.info().checker),
        );
    }
    if execution.timed_out {
        return judgement(
            Verdict::Timeout,
            format!(
                "killed after {:.1}s without finishing",
                execution.duration_secs
            ),
        );
    }
    if let Some(signal) = execution.signal {
        return judgement(Verdict::RuntimeError, format!("killed by signal {signal}"));
    }
    let status = execution.exit_code.unwrap_or(-1);
    if status != 0 {
        if found(spec.syntax_markers) {
            let line = spec
                .syntax_markers
                .iter()
                .find_map(|m| output.lines().find(|l| l.contains(m)))
                .map(shorten)
                .unwrap_or_default();
            return judgement(Verdict::SyntaxError, line);
        }
        if found(spec.failure_markers) || quiet_failure(spec, execution) {
            let line = expected_line(&output)
                .or_else(|| {
                    spec.failure_markers
                        .iter()
                        .find_map(|m| output.lines().find(|l| l.contains(m)))
                        .map(shorten)
                })
                .unwrap_or_else(|| format!("exit status {status}"));
            return judgement(Verdict::WrongAnswer, format!("a test failed: {line}"));
        }
        let line = last_line(&execution.stderr)
            .or_else(|| located_line(&execution.stdout))
            .map(shorten)
            .unwrap_or_else(|| format!("exit status {status}"));
        return judgement(Verdict::RuntimeError, line);
    }
    if let Some(word) = spec.output_fails.iter().find(|w| output.contains(*w)) {
        let line = output
            .lines()
            .find(|l| l.contains(word))
            .map(shorten)
            .unwrap_or_default();
        return judgement(
            Verdict::WrongAnswer,
            format!(
                "exit status 0, but the output holds {word:?}, which MultiPL-E counts as a failure: {line}"
            ),
        );
    }
    if spec.stderr_fails && !execution.stderr.trim().is_empty() {
        let verdict = if found(spec.failure_markers) {
            Verdict::WrongAnswer
        } else if found(spec.syntax_markers) {
            Verdict::SyntaxError
        } else {
            Verdict::RuntimeError
        };
        let line = first_error_line(&execution.stderr)
            .map(shorten)
            .unwrap_or_default();
        return judgement(
            verdict,
            format!(
                "exit status 0, but it wrote on stderr, which MultiPL-E counts as a failure: {line}"
            ),
        );
    }
    if !proven(execution, secret) {
        return judgement(
            Verdict::WrongAnswer,
            "the program exited with status 0 before its tests ran to their end (an early \
             exit): no proof that they passed; not counted as a pass"
                .to_string(),
        );
    }
    Judgement {
        verdict: Verdict::Correct,
        actual,
        detail: None,
    }
}

/// What the failed check expected and got, where the test library says so
/// (luaunit's `expected: ...` and `actual: ...` lines, Test::Unit's
/// `<x> expected but was <y>`), on one line.
fn expected_line(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .position(|l| l.to_ascii_lowercase().contains("expected"))?;
    let actual =
        |l: &&&str| l.to_ascii_lowercase().starts_with("actual") || l.starts_with("but was");
    let mut text = lines[at].to_string();
    if let Some(next) = lines.get(at + 1).filter(actual) {
        text = format!("{text}; {next}");
    } else if let Some(before) = at.checked_sub(1).and_then(|b| lines.get(b)).filter(actual) {
        // rackunit writes `actual:` first.
        text = format!("{text}; {before}");
    }
    Some(shorten(&collapse_spaces(&text)))
}

fn collapse_spaces(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `file:line: message` line of a test library's report on
/// stdout (luaunit reports an error in the tested function there).
fn located_line(stdout: &str) -> Option<&str> {
    stdout.lines().map(str::trim).find(|l| {
        l.split_once(':')
            .and_then(|(_, rest)| rest.split_once(':'))
            .is_some_and(|(line, _)| !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Tests that fail without a word (Perl's `exit 1`, Bash's `[[ ]]` under
/// `set -e`): status 1 and nothing on stderr.
fn quiet_failure(spec: &Spec, execution: &ExecutionRecord) -> bool {
    spec.failure_markers.is_empty()
        && execution.exit_code == Some(1)
        && execution.stderr.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_says_what_it_expected_and_got() {
        let rackunit = "--------------------\nFAILURE\nname:       check-within\nlocation:   prog.rkt:22:4\nactual:     12\nexpected:   14\n--------------------\n";
        assert_eq!(
            expected_line(rackunit).as_deref(),
            Some("expected: 14; actual: 12")
        );
        let luaunit = "F\nFailed tests:\n-------------\n1) test_humaneval\nprog.lua:15: expected: {\"Hi\"}\nactual: {\"Hi,\"}\n";
        assert_eq!(
            expected_line(luaunit).as_deref(),
            Some("prog.lua:15: expected: {\"Hi\"}; actual: {\"Hi,\"}")
        );
        assert_eq!(
            located_line(
                "E\nTests with errors:\n1) test_humaneval\nprog.lua:25: attempt to call a nil value\n"
            ),
            Some("prog.lua:25: attempt to call a nil value")
        );
    }

    #[test]
    fn the_secret_line_is_proof_and_is_taken_out_of_stdout() {
        let execution = ExecutionRecord {
            exit_code: Some(0),
            stdout: "ok!ok!\nsecret-1\n".into(),
            ..ExecutionRecord::default()
        };
        assert!(proven(&execution, "secret-1"));
        assert!(!proven(&execution, "secret-2"));
        assert_eq!(without_secret(&execution.stdout, "secret-1"), "ok!ok!\n");
    }
}
