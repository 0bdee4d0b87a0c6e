//! ParEval's runtime figures: in each run (`time` as the driver's second
//! argument) the driver, after `validate()`, times `compute` and `best` as
//! ParEval's main does and proves, with the case's secret, that both loops
//! ended (driver.cc). That they ended within ParEval's run limit is part
//! of the verdict (verdict.rs), as in ParEval's harness.

use crate::sandbox::SandboxError;

use super::ProofFile;

/// Where the driver writes the timing record in the proof file.
pub const TIMING_AT: u64 = 128;
const TIMING: usize = 56;

/// The two means from the driver's timing record, when it holds the
/// case's secret.
pub fn timing_record(proof: &ProofFile) -> Result<Option<(f64, f64)>, SandboxError> {
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
