//! ParEval's speed figures of a prompt's correct C++ cases (each case's
//! `speed`, execute/cpp/speed.rs), summed up as ParEval's metrics do:
//! the mean of T_best / T over the timed cases, and speedup_n@1, the mean
//! over problems of each problem's mean T_best / T over its timed attempts
//! (ParEval's analysis/metrics.py with k = 1: valid runs only, problems
//! without one left out), at n = the timing runs' thread count.

use crate::case::CaseRecord;
use crate::results::SpeedSummary;

use super::stats::round_to;

#[derive(Debug, Default)]
pub(crate) struct SpeedTally {
    /// question id -> the speedups of its timed attempts, in first-seen order.
    per_question: indexmap::IndexMap<String, Vec<f64>>,
    time_secs: f64,
    best_secs: f64,
    threads: Option<u32>,
    /// Correct cases whose timing run left no figures.
    failed: usize,
}

impl SpeedTally {
    /// Counts a correct case's figures; other cases have none.
    pub fn add(&mut self, r: &CaseRecord) {
        let Some(speed) = r.speed.as_ref().filter(|_| r.passed()) else {
            return;
        };
        self.threads = Some(self.threads.map_or(speed.threads, |t| t.max(speed.threads)));
        match (speed.speedup(), speed.time_secs, speed.best_secs) {
            (Some(speedup), Some(time), Some(best)) => {
                self.time_secs += time;
                self.best_secs += best;
                self.per_question
                    .entry(r.case.question_id.to_string())
                    .or_default()
                    .push(speedup);
            }
            _ => self.failed += 1,
        }
    }

    /// The prompt's figures; None when none of its cases was timed or
    /// tried to be.
    pub fn summary(&self) -> Option<SpeedSummary> {
        let threads = self.threads?;
        let speedups: Vec<f64> = self.per_question.values().flatten().copied().collect();
        let timed = speedups.len();
        let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
        let per_problem: Vec<f64> = self.per_question.values().map(|v| mean(v)).collect();
        Some(SpeedSummary {
            threads,
            timed,
            failed: self.failed,
            mean_speedup: (timed > 0).then(|| round_to(mean(&speedups), 3)),
            speedup_n_at_1: (timed > 0).then(|| round_to(mean(&per_problem), 3)),
            mean_time_secs: (timed > 0).then(|| round_to(self.time_secs / timed as f64, 6)),
            mean_best_secs: (timed > 0).then(|| round_to(self.best_secs / timed as f64, 6)),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Speed, Verdict};
    use crate::results::fixtures::record;

    fn timed(q: usize, round: u32, time: f64, best: f64) -> CaseRecord {
        let mut r = record("p", q, round, Verdict::Correct);
        r.speed = Some(Speed {
            threads: 8,
            time_secs: Some(time),
            best_secs: Some(best),
            failed: None,
        });
        r
    }

    #[test]
    fn speedup_n_at_1_averages_each_problem_first() {
        let mut t = SpeedTally::default();
        // Problem 1: speedups 4 and 2 (mean 3); problem 2: speedup 1.
        t.add(&timed(1, 1, 0.5, 2.0));
        t.add(&timed(1, 2, 1.0, 2.0));
        t.add(&timed(2, 1, 3.0, 3.0));
        // A wrong case's figures (there are none in a real run) never count.
        let mut wrong = timed(2, 2, 0.001, 9.0);
        wrong.verdict = Verdict::WrongAnswer;
        t.add(&wrong);
        let mut failed = timed(3, 1, 1.0, 1.0);
        failed.speed.as_mut().unwrap().time_secs = None;
        failed.speed.as_mut().unwrap().failed = Some("the timing run passed its limit".into());
        t.add(&failed);
        let s = t.summary().unwrap();
        assert_eq!((s.threads, s.timed, s.failed), (8, 3, 1));
        assert_eq!(s.mean_speedup, Some(2.333));
        assert_eq!(s.speedup_n_at_1, Some(2.0));
        assert_eq!(s.mean_time_secs, Some(1.5));
        assert!(s.cores >= 1);
    }

    #[test]
    fn no_timed_case_is_no_figure() {
        let mut t = SpeedTally::default();
        t.add(&record("p", 1, 1, Verdict::Correct));
        assert_eq!(t.summary(), None);
    }
}
