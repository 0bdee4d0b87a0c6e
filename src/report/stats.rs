//! The statistics behind every number a user compares: 95 % intervals
//! (Wilson), the unbiased pass@k estimator of Chen et al. 2021, and the
//! exact McNemar test that says whether one prompt beats another on the
//! same cases by more than noise.

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
}
