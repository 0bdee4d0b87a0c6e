//! ParEval's runtime figures of a correct case (reported, never judged):
//! one more run of the built program at the largest configured thread
//! count, with `time` as the driver's second argument, in which the driver
//! times `compute` and `best` as ParEval's main does and proves, with the
//! case's secret, that both loops ended (driver.cc).

use std::ffi::OsString;
use std::time::Duration;

use crate::case::{ExecutionRecord, Speed};
use crate::sandbox::{LaunchLimits, Sandbox, SandboxError};

use super::{ProofFile, run_program};

/// Where the driver writes the timing record in the proof file.
pub const TIMING_AT: u64 = 128;
const TIMING: usize = 56;

/// Times `program` at `threads`; the figures, or why there are none.
pub fn measure(
    program: &[u8],
    threads: u32,
    timeout: Duration,
    sandbox: &Sandbox,
) -> Result<Speed, SandboxError> {
    let proof = ProofFile::new()?;
    let args = [OsString::from(threads.to_string()), OsString::from("time")];
    // CPU time counts every thread: as much as the wall time on each core.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let limits = LaunchLimits {
        timeout: Some(timeout),
        memory_mb: None,
        cpu_secs: Some(timeout.as_secs().saturating_add(1).saturating_mul(cores)),
    };
    let execution = run_program(sandbox, program, &args, Some(&proof.file), limits)?;
    let timed = timing_record(&proof)?;
    Ok(match timed {
        Some((time, best)) => Speed {
            threads,
            time_secs: Some(time),
            best_secs: Some(best),
            failed: None,
        },
        None => Speed {
            threads,
            time_secs: None,
            best_secs: None,
            failed: Some(why_not(&execution, &proof, timeout)?),
        },
    })
}

/// The two means from the driver's timing record, when it holds the
/// case's secret.
fn timing_record(proof: &ProofFile) -> Result<Option<(f64, f64)>, SandboxError> {
    let Some(record) = proof.read_record::<TIMING>(TIMING_AT, b"PET1")? else {
        return Ok(None);
    };
    let f = |at: usize| f64::from_ne_bytes(record[at..at + 8].try_into().expect("8 bytes"));
    let (time, best) = (f(40), f(48));
    Ok(
        (time.is_finite() && best.is_finite() && time >= 0.0 && best >= 0.0)
            .then_some((time, best)),
    )
}

/// Why a timing run left no figures, in the words of the report.
fn why_not(
    execution: &ExecutionRecord,
    proof: &ProofFile,
    timeout: Duration,
) -> Result<String, SandboxError> {
    if execution.timed_out {
        return Ok(format!(
            "the timing run passed its {} s limit ([cpp] speed_timeout_secs)",
            timeout.as_secs_f64()
        ));
    }
    if let Some(record) = proof.record()?
        && !record.valid
    {
        return Ok("validate() returned false in the timing run".into());
    }
    Ok(match (execution.signal, execution.exit_code) {
        (Some(signal), _) => format!("the timing run was killed by signal {signal}"),
        (None, Some(code)) => format!("the timing run exited with status {code} before its end"),
        (None, None) => "the timing run left no figures".into(),
    })
}
