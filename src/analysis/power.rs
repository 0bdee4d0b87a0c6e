//! What a run can tell apart, before it runs: the power of the report's
//! one paired test (exact McNemar, `stats::mcnemar_exact` at
//! `stats::SIGNIFICANCE`) to separate two prompts over `n` shared
//! questions, and from it the smallest accuracy difference a run of that
//! size detects, or the questions a difference needs.
//!
//! The model of two prompts on one question: with chance `discordance` they
//! disagree (one passes, the other fails), and the accuracy difference
//! `delta` is the first's wins minus the second's among all questions, so
//! a discordant question goes to the first with chance
//! `(discordance + delta) / (2 discordance)`. The power is exact: the sum
//! over the discordant count `d ~ Binomial(n, discordance)` of the chance
//! that the split of those `d` falls where `mcnemar_exact` says "beyond
//! noise".

use super::stats::SIGNIFICANCE;
#[cfg(test)]
use super::stats::mcnemar_exact;

/// The discordance rate assumed when no recording says it: two prompts of
/// the same model disagree on 3 questions in 10. With it, 27 questions
/// separate two prompts at about 29 points, and 10 points need about 250
/// questions (both at 80 % power).
pub const DEFAULT_DISCORDANCE: f64 = 0.3;

/// How often two prompts' verdicts on the same case differ, counted as
/// verdicts arrive: per case (its key leaves the prompt out), how many
/// prompts passed and failed it; every two prompts on a case are a pair,
/// and a pair is discordant when one passed and the other failed.
#[derive(Debug, Default)]
pub struct PairTally<K: Ord> {
    cases: std::collections::BTreeMap<K, (usize, usize)>,
}

/// Discordant pairs and pairs, as a [`PairTally`] counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pairs {
    pub discordant: usize,
    pub pairs: usize,
}

impl<K: Ord> PairTally<K> {
    pub fn add(&mut self, case: K, passed: bool) {
        let (p, f) = self.cases.entry(case).or_default();
        match passed {
            true => *p += 1,
            false => *f += 1,
        }
    }

    pub fn pairs(&self) -> Pairs {
        self.cases
            .values()
            .fold(Pairs::default(), |acc, &(p, f)| Pairs {
                discordant: acc.discordant + p * f,
                pairs: acc.pairs + (p + f) * (p + f).saturating_sub(1) / 2,
            })
    }
}

/// The power the plan asks for.
pub const TARGET_POWER: f64 = 0.8;

/// The chance that the exact McNemar test over `n` questions calls two
/// prompts different (p < [`SIGNIFICANCE`]) when they differ by `delta`
/// in accuracy and disagree on a share `discordance` of the questions.
/// `delta` is clamped to `[0, discordance]`: prompts cannot differ by more
/// than they disagree.
pub fn mcnemar_power(n: usize, discordance: f64, delta: f64) -> f64 {
    let discordance = discordance.clamp(0.0, 1.0);
    if n == 0 || discordance == 0.0 {
        return 0.0;
    }
    let delta = delta.clamp(0.0, discordance);
    let first = (discordance + delta) / (2.0 * discordance);
    let mut power = 0.0;
    for d in 1..=n {
        let weight = binomial_pmf(n, d, discordance);
        if weight < 1e-15 {
            continue;
        }
        // The split b : d - b is rejected when min(b, d - b) <= c, the
        // largest such c by the report's own test (none when even 0 : d is
        // within noise).
        let Some(c) = critical(d) else {
            continue;
        };
        let reject: f64 = (0..=c)
            .map(|b| binomial_pmf(d, b, first) + binomial_pmf(d, d - b, first))
            .sum();
        power += weight * reject.min(1.0);
    }
    power.min(1.0)
}

/// The largest `c` with `mcnemar_exact(c, d - c)` below the significance
/// level, if any: one pass over the tail, summed as `mcnemar_exact` sums
/// it (so the boundary is the report's own), instead of one test per `c`.
fn critical(d: usize) -> Option<usize> {
    let mut log_p = d as f64 * 0.5f64.ln();
    let mut tail = 0.0;
    let mut found = None;
    for c in 0..=d / 2 {
        tail += log_p.exp();
        if (2.0 * tail).min(1.0) >= SIGNIFICANCE || 2 * c >= d {
            break;
        }
        found = Some(c);
        log_p += ((d - c) as f64).ln() - ((c + 1) as f64).ln();
    }
    found
}

/// P(X = k) for X ~ Binomial(n, p), in log space (thousands of questions).
fn binomial_pmf(n: usize, k: usize, p: f64) -> f64 {
    if p <= 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if p >= 1.0 {
        return if k == n { 1.0 } else { 0.0 };
    }
    let ln_choose = ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k);
    (ln_choose + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
}

fn ln_factorial(n: usize) -> f64 {
    statrs::function::gamma::ln_gamma(n as f64 + 1.0)
}

/// The smallest accuracy difference (a fraction) that `n` shared questions
/// detect with [`TARGET_POWER`], for prompts that disagree on a share
/// `discordance` of them; None when no difference they could have (at most
/// `discordance`) is detected that often.
pub fn detectable_difference(n: usize, discordance: f64) -> Option<f64> {
    if mcnemar_power(n, discordance, discordance) < TARGET_POWER {
        return None;
    }
    // Power grows with the difference: bisect to a tenth of a point.
    let (mut low, mut high) = (0.0, discordance);
    while high - low > 0.001 {
        let mid = (low + high) / 2.0;
        if mcnemar_power(n, discordance, mid) >= TARGET_POWER {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// About how many shared questions detect an accuracy difference `delta`
/// with [`TARGET_POWER`]: the smallest `n` found by doubling, then
/// bisecting (the exact test's power is not quite monotone in `n`, so this
/// is a planning figure, not a guarantee). None beyond 100,000 questions.
pub fn questions_for(delta: f64, discordance: f64) -> Option<usize> {
    let reaches = |n: usize| mcnemar_power(n, discordance, delta) >= TARGET_POWER;
    let mut high = 8;
    while !reaches(high) {
        high *= 2;
        if high > 100_000 {
            return None;
        }
    }
    let mut low = high / 2;
    while high - low > 1 {
        let mid = (low + high) / 2;
        if reaches(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_every_two_prompts_on_one_case() {
        let mut t = PairTally::default();
        // Three prompts on q1 (pass, pass, fail): 3 pairs, 2 discordant;
        // one prompt on q2: no pair.
        for (case, passed) in [("q1", true), ("q1", true), ("q1", false), ("q2", true)] {
            t.add(case, passed);
        }
        assert_eq!(
            t.pairs(),
            Pairs {
                discordant: 2,
                pairs: 3
            }
        );
    }

    /// The power, estimated by drawing runs of two prompts and applying
    /// the report's test to each: the exact sum must agree.
    fn simulated_power(n: usize, discordance: f64, delta: f64, runs: usize) -> f64 {
        let mut rng = fastrand::Rng::with_seed(7);
        let first = (discordance + delta) / 2.0;
        let second = (discordance - delta) / 2.0;
        let mut rejected = 0;
        for _ in 0..runs {
            let (mut b, mut c) = (0, 0);
            for _ in 0..n {
                let u = rng.f64();
                if u < first {
                    b += 1;
                } else if u < first + second {
                    c += 1;
                }
            }
            if mcnemar_exact(b, c) < SIGNIFICANCE {
                rejected += 1;
            }
        }
        rejected as f64 / runs as f64
    }

    #[test]
    fn the_exact_power_agrees_with_a_simulation_of_the_reports_test() {
        for (n, discordance, delta) in [(27, 0.3, 0.29), (100, 0.3, 0.1), (250, 0.3, 0.1)] {
            let exact = mcnemar_power(n, discordance, delta);
            let simulated = simulated_power(n, discordance, delta, 20_000);
            assert!(
                (exact - simulated).abs() < 0.015,
                "n {n}: exact {exact:.3}, simulated {simulated:.3}"
            );
        }
    }

    #[test]
    fn twenty_seven_questions_separate_thirty_points_and_ten_need_about_250() {
        let d = detectable_difference(27, DEFAULT_DISCORDANCE).unwrap();
        assert!((0.27..0.31).contains(&d), "{d}");
        let n = questions_for(0.10, DEFAULT_DISCORDANCE).unwrap();
        assert!((230..=270).contains(&n), "{n}");
        // Ten questions cannot reach 80 % power for any difference they
        // could show at this discordance.
        assert_eq!(detectable_difference(10, DEFAULT_DISCORDANCE), None);
    }

    #[test]
    fn the_rejection_region_is_the_reports_own_test() {
        for d in 1..300 {
            let by_test = (0..=d / 2)
                .take_while(|&c| 2 * c < d && mcnemar_exact(c, d - c) < SIGNIFICANCE)
                .last();
            assert_eq!(critical(d), by_test, "d = {d}");
        }
    }

    #[test]
    fn no_difference_is_rejected_at_most_at_the_significance_level() {
        for n in [20, 100, 400] {
            let size = mcnemar_power(n, 0.4, 0.0);
            assert!(size <= SIGNIFICANCE, "n {n}: {size}");
        }
    }
}
