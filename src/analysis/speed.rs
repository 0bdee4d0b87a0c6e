//! ParEval's speed figures of a prompt's correct C++ cases (each case's
//! `speed`, from the runs that judged it), summed up exactly as ParEval's
//! `analysis/metrics.py` does with k = 1: valid runs only; per problem (a
//! variant counts for the problem it was cut from) one baseline, the least
//! `BestSequential` among its valid attempts, times the mean of 1/T over
//! them; speedup_n@1 the mean over problems, and, as ParEval reports it,
//! the mean per problem type. The mean of each attempt's own T_best / T is
//! kept beside it, named as such.

use std::collections::BTreeMap;

use crate::case::CaseRecord;
use crate::results::SpeedSummary;

use super::stats::round_to;

/// ParEval's floor for a time too short to read (`max(runtime, 1e-8)`).
const FLOOR_SECS: f64 = 1e-8;

#[derive(Debug, Default)]
pub(crate) struct SpeedTally {
    /// problem -> its type and the (T, T_best) of its timed attempts, in
    /// first-seen order.
    per_problem: indexmap::IndexMap<String, (String, Vec<(f64, f64)>)>,
    threads: Option<u32>,
    /// Correct cases whose timing run left no figures (journals written
    /// before the timing was part of the verdict).
    failed: usize,
}

impl SpeedTally {
    /// Counts a correct case's figures; other cases have none.
    pub fn add(&mut self, r: &CaseRecord) {
        let Some(speed) = r.speed.as_ref().filter(|_| r.passed()) else {
            return;
        };
        self.threads = Some(self.threads.map_or(speed.threads, |t| t.max(speed.threads)));
        match (speed.time_secs, speed.best_secs) {
            (Some(time), Some(best)) => {
                // Older journals name no problem: the question is its own.
                let problem = speed
                    .problem
                    .clone()
                    .unwrap_or_else(|| r.case.question_id.to_string());
                let kind = speed.problem_type.clone().unwrap_or_default();
                self.per_problem
                    .entry(problem)
                    .or_insert_with(|| (kind, Vec::new()))
                    .1
                    .push((time, best));
            }
            _ => self.failed += 1,
        }
    }

    /// The prompt's figures; None when none of its cases was timed or
    /// tried to be.
    pub fn summary(&self) -> Option<SpeedSummary> {
        let threads = self.threads?;
        let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
        let attempts: Vec<(f64, f64)> = self
            .per_problem
            .values()
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        let timed = attempts.len();
        let own: Vec<f64> = attempts
            .iter()
            .map(|(t, best)| best / t.max(FLOOR_SECS))
            .collect();
        // ParEval: one baseline per problem, the least T_best of its valid
        // attempts, times the mean of 1/T.
        let per_problem: Vec<(&str, f64)> = self
            .per_problem
            .values()
            .map(|(kind, v)| {
                let baseline = v.iter().map(|(_, b)| *b).fold(f64::INFINITY, f64::min);
                let inverse: Vec<f64> = v.iter().map(|(t, _)| 1.0 / t.max(FLOOR_SECS)).collect();
                (kind.as_str(), baseline * mean(&inverse))
            })
            .collect();
        let mut by_type: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (kind, value) in &per_problem {
            if !kind.is_empty() {
                by_type.entry(kind).or_default().push(*value);
            }
        }
        let values: Vec<f64> = per_problem.iter().map(|(_, v)| *v).collect();
        let sum = |f: fn(&(f64, f64)) -> f64| attempts.iter().map(f).sum::<f64>();
        Some(SpeedSummary {
            threads,
            timed,
            problems: per_problem.len(),
            failed: self.failed,
            mean_speedup: (timed > 0).then(|| round_to(mean(&own), 3)),
            speedup_n_at_1: (timed > 0).then(|| round_to(mean(&values), 3)),
            speedup_n_at_1_by_type: by_type
                .into_iter()
                .map(|(k, v)| (k.to_string(), round_to(mean(&v), 3)))
                .collect(),
            mean_time_secs: (timed > 0).then(|| round_to(sum(|a| a.0) / timed as f64, 6)),
            mean_best_secs: (timed > 0).then(|| round_to(sum(|a| a.1) / timed as f64, 6)),
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
            problem: None,
            problem_type: None,
            time_secs: Some(time),
            best_secs: Some(best),
            failed: None,
        });
        r
    }

    /// `timed`, as a case of ParEval's `problem` of type `kind`.
    fn of(problem: &str, kind: &str, q: usize, time: f64, best: f64) -> CaseRecord {
        let mut r = timed(q, 1, time, best);
        let speed = r.speed.as_mut().unwrap();
        speed.problem = Some(problem.into());
        speed.problem_type = Some(kind.into());
        r
    }

    /// The worked example of the issue: samples as (T, T_best), problem A
    /// (1, 2) and (2, 4), problem B (1, 1). ParEval: A = 2 x (1/1 + 1/2) / 2
    /// = 1.5, B = 1, mean 1.25 (the mean of each attempt's own ratio would
    /// give A = 2 and 1.5).
    #[test]
    fn speedup_n_at_1_is_parevals_formula() {
        let mut t = SpeedTally::default();
        t.add(&of("A", "dense_la", 1, 1.0, 2.0));
        t.add(&of("A", "dense_la", 2, 2.0, 4.0));
        t.add(&of("B", "scan", 3, 1.0, 1.0));
        let s = t.summary().unwrap();
        assert_eq!(s.speedup_n_at_1, Some(1.25));
        assert_eq!((s.timed, s.problems), (3, 2));
        assert_eq!(s.mean_speedup, Some(1.667), "each attempt's own T_best / T");
        assert_eq!(
            s.speedup_n_at_1_by_type,
            BTreeMap::from([("dense_la".to_string(), 1.5), ("scan".to_string(), 1.0)])
        );
    }

    /// Variants (different question ids) of one problem share its baseline.
    #[test]
    fn a_variant_counts_for_its_problem() {
        let mut t = SpeedTally::default();
        t.add(&of("03_dense_la_axpy", "dense_la", 1, 1.0, 2.0));
        t.add(&of("03_dense_la_axpy", "dense_la", 2, 2.0, 4.0));
        let s = t.summary().unwrap();
        assert_eq!(s.problems, 1);
        assert_eq!(s.speedup_n_at_1, Some(1.5));
    }

    #[test]
    fn only_correct_cases_count_and_old_journals_still_add_up() {
        let mut t = SpeedTally::default();
        // Problem 1: (0.5, 2) and (1, 2): 2 x (2 + 1) / 2 = 3; problem 2: 1.
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
        assert!(s.speedup_n_at_1_by_type.is_empty());
        assert!(s.cores >= 1);
    }

    #[test]
    fn no_timed_case_is_no_figure() {
        let mut t = SpeedTally::default();
        t.add(&record("p", 1, 1, Verdict::Correct));
        assert_eq!(t.summary(), None);
    }
}
