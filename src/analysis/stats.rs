//! The statistics behind every number a user compares: 95 % intervals
//! (Wilson for a proportion of cases, a percentile bootstrap over questions
//! for a mean of per-question figures such as pass@k), the unbiased pass@k
//! estimator of Chen et al. 2021, the exact McNemar test that says whether
//! one prompt beats another on the same cases by more than noise, and
//! Fisher's exact test for two unpaired proportions.

use std::collections::BTreeMap;

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval (95 %) of `successes` out of `n`, as
/// fractions; `None` when `n` is 0. Unlike the normal approximation it stays
/// inside [0, 1] and is not zero-width at 0 % or 100 %.
pub fn wilson(successes: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (x, n) = (successes as f64, n as f64);
    let p = x / n;
    let z2 = Z95 * Z95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// pass@k for one problem with `c` correct of `n` samples: the chance that
/// at least one of `k` samples drawn without replacement is correct,
/// 1 - C(n-c, k) / C(n, k), as the product 1 - prod_{i=n-c+1}^{n} (1 - k/i)
/// (no factorials, so no overflow). `None` when k > n.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let failing_all: f64 = ((n - c + 1)..=n)
        .map(|i| 1.0 - k as f64 / i as f64)
        .product();
    Some(1.0 - failing_all)
}

/// The level below which a difference is called more than noise, in every
/// figure that says so (best prompt, flips, compare, partial order).
pub const SIGNIFICANCE: f64 = 0.05;

/// Two prompts (or two runs) on the cases both evaluated, paired case by
/// case: the one paired test of the crate, exact McNemar over the cases
/// only one side passed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// Cases both sides evaluated.
    pub shared: usize,
    pub only_first: usize,
    pub only_second: usize,
    /// Two-sided, unrounded.
    pub p_value: f64,
}

impl Paired {
    /// From each shared case's (first passed, second passed).
    pub fn of(cases: impl IntoIterator<Item = (bool, bool)>) -> Paired {
        let (mut shared, mut only_first, mut only_second) = (0, 0, 0);
        for pair in cases {
            shared += 1;
            match pair {
                (true, false) => only_first += 1,
                (false, true) => only_second += 1,
                _ => {}
            }
        }
        Paired {
            shared,
            only_first,
            only_second,
            p_value: mcnemar_exact(only_first, only_second),
        }
    }

    /// The two sides differ by more than noise, either way.
    pub fn beyond_noise(&self) -> bool {
        self.p_value < SIGNIFICANCE
    }

    /// The first side passes more of the discordant cases, beyond noise.
    pub fn first_beyond_noise(&self) -> bool {
        self.beyond_noise() && self.only_first > self.only_second
    }

    /// The second side passes more of the discordant cases, beyond noise.
    pub fn second_beyond_noise(&self) -> bool {
        self.beyond_noise() && self.only_second > self.only_first
    }
}

/// The exact (binomial) McNemar test: two-sided p-value of seeing `b`
/// cases where only the first prompt passed and `c` where only the second
/// did, if both were equally good. 1 when there is no discordant case.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let m = b + c;
    if m == 0 {
        return 1.0;
    }
    // P(X <= min(b, c)) for X ~ Binomial(m, 1/2), summed in log space so
    // thousands of cases neither underflow nor overflow.
    let mut log_p = m as f64 * 0.5f64.ln();
    let mut tail = 0.0;
    for i in 0..=b.min(c) {
        tail += log_p.exp();
        log_p += ((m - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    (2.0 * tail).min(1.0)
}

/// Resamples of a bootstrap: enough for stable 2.5 % / 97.5 % percentiles.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// Fixed, so the same run always reports the same interval.
const BOOTSTRAP_SEED: u64 = 0x5eed_2021;

/// 95 % percentile-bootstrap interval of the mean of `values` (one value
/// per question, resampled with replacement). `None` with fewer than two
/// values: one question says nothing about the spread.
pub fn bootstrap_mean(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(BOOTSTRAP_SEED);
    let n = values.len();
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| (0..n).map(|_| values[rng.usize(..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    Some((percentile(&means, 0.025), percentile(&means, 0.975)))
}

/// 95 % percentile-bootstrap interval of any `statistic` of `n` items
/// (questions, attempt slots) resampled with replacement: `statistic` gets
/// each resample's item indices and may answer `None` when the resample
/// leaves it undefined; such resamples are left out. `None` with fewer than
/// two items (every resample would be the same one item: a zero-width
/// interval that would read as certainty) or when no resample is defined.
/// Same fixed seed as [`bootstrap_mean`], so reports are reproducible.
pub fn bootstrap_statistic(
    n: usize,
    mut statistic: impl FnMut(&[usize]) -> Option<f64>,
) -> Option<(f64, f64)> {
    if n < 2 {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(BOOTSTRAP_SEED);
    let mut sample = vec![0; n];
    let mut values = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        sample.iter_mut().for_each(|i| *i = rng.usize(..n));
        values.extend(statistic(&sample));
    }
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((percentile(&values, 0.025), percentile(&values, 0.975)))
}

/// The `q` quantile of sorted `values`, linearly interpolated.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

/// Two-sided p-value of Fisher's exact test that `a` of `n_a` and `b` of
/// `n_b` come from the same proportion (sum of the table probabilities no
/// larger than the observed one). 1 when a side is empty.
pub fn fisher_exact(a: usize, n_a: usize, b: usize, n_b: usize) -> f64 {
    if n_a == 0 || n_b == 0 || a > n_a || b > n_b {
        return 1.0;
    }
    let successes = a + b;
    let n = n_a + n_b;
    let ln_choose = |n: usize, k: usize| ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k);
    // P(first group has x successes) under the hypergeometric null.
    let ln_p =
        |x: usize| ln_choose(n_a, x) + ln_choose(n_b, successes - x) - ln_choose(n, successes);
    let observed = ln_p(a);
    let lo = successes.saturating_sub(n_b);
    let hi = successes.min(n_a);
    let total: f64 = (lo..=hi)
        .map(ln_p)
        .filter(|p| *p <= observed + 1e-9)
        .map(f64::exp)
        .sum();
    total.min(1.0)
}

fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

pub(crate) use crate::results::round_to;

/// pass@k for each k and its 95 % interval.
pub(crate) struct PassAtK {
    pub values: BTreeMap<String, f64>,
    pub intervals: BTreeMap<String, [f64; 2]>,
}

/// pass@k averaged over questions, each question's n being its evaluated
/// rounds x samples; a k is reported only when every question has at least
/// k. Its interval is a bootstrap over questions (attempts of one question
/// are not independent, so a pooled binomial interval would be too narrow).
pub(crate) fn pass_at_k_over_questions(outcomes: &[(usize, usize)], ks: &[usize]) -> PassAtK {
    let mut out = PassAtK {
        values: BTreeMap::new(),
        intervals: BTreeMap::new(),
    };
    for &k in ks {
        let per_question: Option<Vec<f64>> = outcomes
            .iter()
            .map(|&(passed, failed)| pass_at_k(passed + failed, passed, k))
            .collect();
        let Some(values) = per_question.filter(|v| !v.is_empty()) else {
            continue;
        };
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        out.values.insert(format!("pass@{k}"), round_to(mean, 4));
        if let Some((lo, hi)) = bootstrap_mean(&values) {
            out.intervals
                .insert(format!("pass@{k}"), [round_to(lo, 4), round_to(hi, 4)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn wilson_equals_the_textbook_formula() {
        // Values from the closed form (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n).
        let (lo, hi) = wilson(2, 3).unwrap();
        assert!(close(lo, 0.207_659_600_802_047_7) && close(hi, 0.938_508_055_279_603_7));
        let (lo, hi) = wilson(19, 27).unwrap();
        assert!(close(lo, 0.515_193_170_358_518_5) && close(hi, 0.841_469_595_302_202_3));
        let (lo, hi) = wilson(0, 10).unwrap();
        assert!(close(lo, 0.0) && close(hi, 0.277_532_799_862_889_2));
        assert_eq!(wilson(0, 0), None);
    }

    #[test]
    fn pass_at_k_equals_the_combinatorial_definition() {
        // 1 - C(7,5)/C(10,5) = 1 - 21/252
        assert!(close(pass_at_k(10, 3, 5).unwrap(), 1.0 - 21.0 / 252.0));
        assert!(close(pass_at_k(10, 3, 1).unwrap(), 0.3));
        assert_eq!(pass_at_k(10, 8, 5), Some(1.0));
        assert_eq!(pass_at_k(10, 0, 5), Some(0.0));
        assert_eq!(pass_at_k(3, 1, 5), None);
        // Large n stays finite and exact enough: C(200-50, 10)/C(200, 10).
        let direct: f64 = (0..10)
            .map(|i| (150.0 - i as f64) / (200.0 - i as f64))
            .product();
        assert!(close(pass_at_k(200, 50, 10).unwrap(), 1.0 - direct));
    }

    #[test]
    fn mcnemar_exact_equals_the_binomial_tail() {
        // 2 * (C(12,0) + C(12,1) + C(12,2)) / 2^12
        assert!(close(mcnemar_exact(10, 2), 2.0 * 79.0 / 4096.0));
        assert!(close(mcnemar_exact(2, 10), 2.0 * 79.0 / 4096.0));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        // Thousands of discordant cases: no underflow to 0 or NaN.
        let p = mcnemar_exact(2600, 2400);
        assert!(p > 0.0 && p < 0.01, "{p}");
    }

    #[test]
    fn fisher_exact_equals_the_textbook_values() {
        // The lady tasting tea: 3 of 4 against 1 of 4, two-sided p = 34/70.
        assert!(close(fisher_exact(3, 4, 1, 4), 34.0 / 70.0));
        // 4 of 4 against 0 of 4: p = 2/70.
        assert!(close(fisher_exact(4, 4, 0, 4), 2.0 / 70.0));
        assert!(close(fisher_exact(2, 4, 2, 4), 1.0));
        assert_eq!(fisher_exact(1, 0, 0, 3), 1.0);
    }

    #[test]
    fn the_bootstrap_brackets_the_mean_and_is_reproducible() {
        let values: Vec<f64> = (0..40).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let (lo, hi) = bootstrap_mean(&values).unwrap();
        assert!(lo < mean && mean < hi, "{lo} {mean} {hi}");
        // About mean ± 1.96 sd/sqrt(n) for a proportion of 40.
        let se = (mean * (1.0 - mean) / 40.0).sqrt();
        assert!((hi - lo - 2.0 * 1.96 * se).abs() < 0.05, "{lo} {hi} {se}");
        assert_eq!(bootstrap_mean(&values), Some((lo, hi)));
        assert_eq!(bootstrap_mean(&[1.0]), None);
        assert_eq!(bootstrap_mean(&[0.5, 0.5, 0.5]), Some((0.5, 0.5)));
    }

    #[test]
    fn the_general_bootstrap_of_a_mean_is_bootstrap_mean() {
        // Same seed and draw order: the mean as a statistic gives the very
        // same interval, so both kinds of interval are one method.
        let values: Vec<f64> = (0..30).map(|i| f64::from(i % 7)).collect();
        let mean_of =
            |draw: &[usize]| Some(draw.iter().map(|&i| values[i]).sum::<f64>() / draw.len() as f64);
        assert_eq!(
            bootstrap_statistic(values.len(), mean_of),
            bootstrap_mean(&values)
        );
        assert_eq!(bootstrap_statistic(1, |_| Some(1.0)), None);
        assert_eq!(bootstrap_statistic(5, |_| None), None);
        // Undefined resamples are skipped, not counted as 0.
        let skip = bootstrap_statistic(5, |d| (d[0] != 0).then_some(1.0));
        assert_eq!(skip, Some((1.0, 1.0)));
    }
}
