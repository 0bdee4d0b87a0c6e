//! The ParEval programs this run has judged, by the program's bytes.
//!
//! ParEval's verdict runs each thread count's process through `validate()`
//! and its timing loops at the problem's size (mod.rs): seconds per
//! process, four processes for OpenMP, and ParEval's whole 120 s for a
//! reply that cannot finish them. Greedy decoding gives byte-identical
//! programs for many variants of one problem (in the committed PO-8
//! recordings, 207 distinct OpenMP programs and 101 serial ones among 344
//! each). A program byte for byte the same as one judged earlier in the
//! run, at the same thread counts and run limit, is that judgement again:
//! its verdict, detail and figures are reused, and its record says so
//! (`execution.reused`), with no seconds of its own.
//!
//! What this gives up: a program whose outcome varies from run to run (a
//! data race that fails now and then) is judged once, so its copies pass
//! or fail together instead of each drawing anew; the expected pass rate
//! is the same, its spread wider. Kept in memory for the run only.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::case::{ExecutionRecord, Speed};

use crate::judge::Judgement;

/// What identifies a judgement: the program, the thread counts it ran at
/// and the run limit.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct JudgedKey(blake3::Hash);

impl JudgedKey {
    pub fn of(program: &[u8], threads: &[u32], limit_secs: f64) -> JudgedKey {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&(program.len() as u64).to_le_bytes());
        hasher.update(program);
        hasher.update(&(threads.len() as u64).to_le_bytes());
        for t in threads {
            hasher.update(&t.to_le_bytes());
        }
        hasher.update(&limit_secs.to_bits().to_le_bytes());
        JudgedKey(hasher.finalize())
    }
}

/// One judgement: the last run's record, the verdict, the figures.
pub type Outcome = (ExecutionRecord, Judgement, Option<Speed>);

#[derive(Default)]
pub struct Judged {
    kept: Mutex<HashMap<JudgedKey, Outcome>>,
}

impl Judged {
    /// The judgement of the same program earlier in the run, marked as
    /// reused and with no seconds of its own.
    pub fn get(&self, key: JudgedKey) -> Option<Outcome> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(&key).map(|(execution, judgement, speed)| {
            (
                ExecutionRecord {
                    duration_secs: 0.0,
                    reused: true,
                    ..execution.clone()
                },
                judgement.clone(),
                speed.clone(),
            )
        })
    }

    pub fn keep(&self, key: JudgedKey, outcome: &Outcome) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.entry(key).or_insert_with(|| outcome.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Verdict;

    #[test]
    fn the_same_program_at_the_same_counts_and_limit_is_the_same_judgement() {
        let judged = Judged::default();
        let key = JudgedKey::of(b"prog", &[1, 2, 4, 8], 120.0);
        assert_ne!(key, JudgedKey::of(b"prog ", &[1, 2, 4, 8], 120.0));
        assert_ne!(key, JudgedKey::of(b"prog", &[1, 2, 4], 120.0));
        assert_ne!(key, JudgedKey::of(b"prog", &[1, 2, 4, 8], 60.0));
        assert!(judged.get(key).is_none());
        let outcome = (
            ExecutionRecord {
                duration_secs: 9.5,
                exit_code: Some(0),
                ..ExecutionRecord::default()
            },
            Judgement {
                verdict: Verdict::Correct,
                actual: String::new(),
                detail: None,
            },
            None,
        );
        judged.keep(key, &outcome);
        let (execution, judgement, _) = judged.get(key).unwrap();
        assert_eq!(judgement.verdict, Verdict::Correct);
        assert!(execution.reused);
        assert_eq!(execution.duration_secs, 0.0, "no seconds of its own");
        assert_eq!(execution.exit_code, Some(0));
    }
}
