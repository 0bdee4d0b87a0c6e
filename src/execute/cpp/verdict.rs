//! Verdicts of C++ cases: how the compiler failed, and how a ParEval
//! program ended at one thread count.

use crate::case::{ExecutionRecord, Verdict};
use crate::config::CppConfig;

use super::DriverRecord;
use crate::judge::{Judgement, normalise};

/// A failed compilation: the compiler's diagnostics are the model's
/// `syntax_error` (its first error line as the detail); a compiler that
/// ran out of time or memory (a template or preprocessor bomb) is a
/// `timeout`.
pub fn compile_failure(execution: &ExecutionRecord, config: &CppConfig) -> Judgement {
    let stderr = &execution.stderr;
    let exhausted = stderr.contains("out of memory") || stderr.contains("memory exhausted");
    let (verdict, detail) = if execution.timed_out {
        (
            Verdict::Timeout,
            format!(
                "the compiler ran past [cpp] compile_timeout_secs ({} s) and was killed",
                config.compile_timeout_secs
            ),
        )
    } else if exhausted || execution.signal.is_some() {
        (
            Verdict::Timeout,
            format!(
                "the compiler ran out of resources ({}; [cpp] compile_memory_mb = {})",
                first_error(stderr)
                    .map(str::to_string)
                    .or(execution.signal.map(|s| format!("killed by signal {s}")))
                    .unwrap_or_default(),
                config.compile_memory_mb
            ),
        )
    } else {
        (
            Verdict::SyntaxError,
            first_error(stderr)
                .map(str::to_string)
                .unwrap_or_else(|| format!("the compiler exited with {:?}", execution.exit_code)),
        )
    };
    Judgement {
        verdict,
        actual: String::new(),
        detail: Some(detail),
    }
}

/// The first line of g++'s output that reports an error: `file:line:col:
/// error: ...`, a fatal error, or the linker's `undefined reference`.
pub fn first_error(stderr: &str) -> Option<&str> {
    let lines = || stderr.lines().map(str::trim);
    lines()
        .find(|l| {
            (l.contains(": error:") || l.contains(": fatal error:")) && !l.starts_with("collect2")
        })
        .or_else(|| {
            lines().find(|l| l.contains("undefined reference") || l.contains("multiple definition"))
        })
        .or_else(|| lines().find(|l| l.contains("error")))
}

/// One run of a ParEval program: `validate()`, then ParEval's timing
/// loops, in one process under ParEval's run limit (as its
/// `drivers/run-all.py` runs it).
pub struct ThreadRun<'a> {
    pub threads: u32,
    /// The driver's record: present only when `validate()` returned.
    pub record: Option<DriverRecord>,
    /// The driver's timing record: present only when both timing loops
    /// ended.
    pub timed: bool,
    /// ParEval's run limit, in seconds (`[cpp] pareval_run_timeout_secs`).
    pub limit_secs: f64,
    pub execution: &'a ExecutionRecord,
    pub serial: bool,
}

/// Why the run does not pass; None when `validate()` returned true, the
/// timing loops ended and the program exited with status 0 within the run
/// limit: what ParEval's harness counts as a valid run.
pub fn thread_verdict(run: &ThreadRun) -> Option<Judgement> {
    let e = run.execution;
    let at = if run.serial {
        String::new()
    } else {
        format!(
            " at {} thread{}",
            run.threads,
            if run.threads == 1 { "" } else { "s" }
        )
    };
    let printed_pass = e.stdout.contains("Validation: PASS");
    let claim = if printed_pass && run.record.is_none() {
        " (it printed \"Validation: PASS\" itself: not counted)"
    } else {
        ""
    };
    let last_err = e.stderr.lines().map(str::trim).rfind(|l| !l.is_empty());
    let limit = run.limit_secs;
    let passed = run
        .record
        .is_some_and(|r| r.valid && r.threads == run.threads);
    let (verdict, detail) = if e.timed_out && passed {
        (
            Verdict::Timeout,
            format!(
                "validate() passed{at}, but ParEval's timing loops (5 x compute() and 5 x best() \
                 at the problem's size) did not end within ParEval's run limit of {limit} s \
                 ([cpp] pareval_run_timeout_secs); killed. ParEval's harness counts such a run \
                 as not valid: too slow at the problem's size"
            ),
        )
    } else if e.timed_out && run.record.is_none() {
        (
            Verdict::Timeout,
            format!(
                "validate() did not return within ParEval's run limit of {limit} s{at} (a \
                 deadlock, an endless loop, or far too slow); killed"
            ),
        )
    } else {
        match (run.record, e.signal, e.exit_code) {
            (Some(r), None, Some(0)) if r.valid && r.threads == run.threads && run.timed => {
                return None;
            }
            (Some(r), None, Some(0)) if r.valid && r.threads == run.threads => (
                Verdict::RuntimeError,
                format!(
                    "validate() passed{at}, then the program exited with status 0 before \
                     ParEval's timing loops ended (an exit in compute() or best()): not a run \
                     ParEval's harness counts"
                ),
            ),
            (Some(r), _, _) if !r.valid => (
                Verdict::WrongAnswer,
                format!("validate() returned false{at}: the output differs from the reference"),
            ),
            (Some(r), _, _) if r.threads != run.threads => (
                Verdict::WrongAnswer,
                format!(
                    "the driver's record names {} threads, not {}",
                    r.threads, run.threads
                ),
            ),
            (Some(_), Some(signal), _) => (
                Verdict::RuntimeError,
                format!("validate() passed{at}, then the program was killed by signal {signal}"),
            ),
            (Some(_), None, code) => (
                Verdict::RuntimeError,
                format!("validate() passed{at}, then the program exited with status {code:?}"),
            ),
            (None, Some(signal), _) => (
                Verdict::RuntimeError,
                format!(
                    "killed by signal {signal} ({}){at} before validate() returned{}{claim}",
                    signal_name(signal),
                    last_err.map(|l| format!(": {l}")).unwrap_or_default()
                ),
            ),
            (None, None, Some(0)) => (
                Verdict::WrongAnswer,
                format!(
                    "the program exited with status 0{at} before validate() returned (exit, \
                     _exit, quick_exit or a handler of the candidate's){claim}"
                ),
            ),
            (None, None, code) => (
                Verdict::RuntimeError,
                format!(
                    "the program exited with status {}{at} before validate() returned{}{claim}",
                    code.map_or("?".to_string(), |c| c.to_string()),
                    last_err.map(|l| format!(": {l}")).unwrap_or_default()
                ),
            ),
        }
    };
    Some(Judgement {
        verdict,
        actual: normalise(&e.stdout),
        detail: Some(detail),
    })
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => "SIGABRT",
        8 => "SIGFPE",
        9 => "SIGKILL: memory, CPU or process limit",
        11 => "SIGSEGV",
        24 => "SIGXCPU: CPU time limit",
        25 => "SIGXFSZ: file size limit",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_line_is_the_detail() {
        let stderr = "In file included from cpu.cc:20:\nquestion_3.cpp: In function 'void axpy()':\nquestion_3.cpp:12:5: error: 'foo' was not declared in this scope\nquestion_3.cpp:13:1: error: expected ';'\n";
        assert_eq!(
            first_error(stderr),
            Some("question_3.cpp:12:5: error: 'foo' was not declared in this scope")
        );
        let link = "/usr/bin/ld: /tmp/cc.o: in function `main':\ncpu.cc:(.text+0x1): undefined reference to `axpy'\ncollect2: error: ld returned 1 exit status\n";
        assert!(first_error(link).unwrap().contains("undefined reference"));
    }

    fn exec(code: Option<i32>, signal: Option<i32>, stdout: &str) -> ExecutionRecord {
        ExecutionRecord {
            exit_code: code,
            signal,
            stdout: stdout.into(),
            ..Default::default()
        }
    }

    fn run(record: Option<DriverRecord>, e: &ExecutionRecord) -> Option<Judgement> {
        thread_verdict(&ThreadRun {
            threads: 4,
            record,
            timed: record.is_some_and(|r| r.valid) && !e.timed_out,
            limit_secs: 120.0,
            execution: e,
            serial: false,
        })
    }

    #[test]
    fn only_the_drivers_record_passes() {
        let ok = Some(DriverRecord {
            valid: true,
            threads: 4,
        });
        assert_eq!(run(ok, &exec(Some(0), None, "Validation: PASS")), None);
        let claimed = run(None, &exec(Some(0), None, "Validation: PASS\n")).unwrap();
        assert_eq!(claimed.verdict, Verdict::WrongAnswer);
        assert!(claimed.detail.unwrap().contains("printed"));
        let failed = run(
            Some(DriverRecord {
                valid: false,
                threads: 4,
            }),
            &exec(Some(0), None, ""),
        );
        assert!(failed.unwrap().detail.unwrap().contains("at 4 threads"));
        let crashed = run(ok, &exec(None, Some(11), "")).unwrap();
        assert_eq!(crashed.verdict, Verdict::RuntimeError);
        let mut hung = exec(None, Some(9), "");
        hung.timed_out = true;
        assert_eq!(run(None, &hung).unwrap().verdict, Verdict::Timeout);
    }

    /// ParEval's verdict includes its run limit: a reply that validates
    /// but cannot finish the timing loops in time is not correct, and one
    /// that leaves them early is not either.
    #[test]
    fn validation_alone_is_not_a_pass() {
        let ok = Some(DriverRecord {
            valid: true,
            threads: 4,
        });
        let mut slow = exec(None, Some(9), "Validation: PASS\n");
        slow.timed_out = true;
        let judged = run(ok, &slow).unwrap();
        assert_eq!(judged.verdict, Verdict::Timeout);
        let detail = judged.detail.unwrap();
        assert!(
            detail.contains("validate() passed at 4 threads, but ParEval's timing loops"),
            "{detail}"
        );
        assert!(detail.contains("pareval_run_timeout_secs"), "{detail}");
        let left = thread_verdict(&ThreadRun {
            threads: 4,
            record: ok,
            timed: false,
            limit_secs: 120.0,
            execution: &exec(Some(0), None, "Validation: PASS\n"),
            serial: false,
        })
        .unwrap();
        assert_eq!(left.verdict, Verdict::RuntimeError);
        assert!(
            left.detail
                .unwrap()
                .contains("before ParEval's timing loops ended")
        );
    }
}
