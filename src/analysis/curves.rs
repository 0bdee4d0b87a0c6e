//! PartialOrderEval's curves (paper §4): pass@1 against prompt detail per
//! strategy, with 95 % intervals, the original prompt's score beside them,
//! and the partial-order violations: a more detailed prompt that scored
//! lower than a less detailed one by more than noise.
//!
//! A level's pass@1 is the mean over problems of the problem's share of
//! passed attempts at that level (its 4 samples of paragraph sampling or
//! masking, times rounds and generation samples); its interval is a
//! percentile bootstrap over problems. Overall violations pair problems
//! (the bootstrap interval of the mean per-problem difference is below 0);
//! a problem's own violations use Fisher's exact test on its attempts.

use std::collections::BTreeMap;

use super::stats::{self, SIGNIFICANCE, round_to};
use crate::results::{PartialOrder, Point, ProblemViolation, Unqualified, Violation};
use crate::variants::{Strategy, Variant};

/// (problem, level label) -> [passed, attempts].
type Counts = BTreeMap<(String, String), [usize; 2]>;

/// The curves of one prompt from its evaluated cells `(question id, passed)`;
/// `None` when the run has no variants.
pub fn partial_order<'a>(
    variants: &BTreeMap<String, Variant>,
    cells: impl Iterator<Item = (&'a str, bool)>,
    ks: &[usize],
) -> Option<PartialOrder> {
    if variants.is_empty() {
        return None;
    }
    let unqualified = unqualified(variants);
    let mut counts: Counts = BTreeMap::new();
    // label -> a representative variant (strategy, level, detail).
    let mut levels: BTreeMap<String, &Variant> = BTreeMap::new();
    for (id, passed) in cells {
        let Some(v) = variants.get(id) else { continue };
        // Asked or not (`keep_unqualified`), a problem whose p_top the
        // gates refused has no curve to stand on.
        if unqualified.iter().any(|u| u.problem == v.of) {
            continue;
        }
        let label = v.level_name();
        let c = counts
            .entry((v.of.clone(), label.clone()))
            .or_insert([0, 0]);
        c[0] += usize::from(passed);
        c[1] += 1;
        levels.entry(label).or_insert(v);
    }
    if counts.is_empty() && unqualified.is_empty() {
        return None;
    }
    let point =
        |label: &str, strategy: Strategy| level_point(&counts, &levels, label, strategy, ks);
    let mut curves = BTreeMap::new();
    for strategy in Strategy::CURVES {
        let mut labels: Vec<(&String, &&Variant)> = levels
            .iter()
            .filter(|(_, v)| v.strategy == strategy)
            .collect();
        labels.sort_by(|a, b| a.1.detail().total_cmp(&b.1.detail()));
        if labels.is_empty() {
            continue;
        }
        let mut points: Vec<Point> = Vec::new();
        points.extend(point("p_bot", Strategy::PBot));
        points.extend(labels.iter().filter_map(|(l, _)| point(l, strategy)));
        points.extend(point("p_top", Strategy::PTop));
        curves.insert(strategy.as_str().to_string(), points);
    }
    let problems: std::collections::BTreeSet<&String> = counts.keys().map(|(p, _)| p).collect();
    let (violations, problem_violations) = violations(&curves, &counts);
    let problems_with_violations = problem_violations
        .iter()
        .map(|v| &v.problem)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    Some(PartialOrder {
        original: point("original", Strategy::Original),
        curves,
        violations,
        problem_violations,
        problems_with_violations,
        problems: problems.len(),
        unqualified,
    })
}

/// The problems whose p_top no text of passed the gates, as the report
/// lists them (suite::variants::unqualified decides).
pub fn unqualified(variants: &BTreeMap<String, Variant>) -> Vec<Unqualified> {
    crate::variants::unqualified(variants.values())
        .into_iter()
        .map(|(problem, reason)| Unqualified { problem, reason })
        .collect()
}

/// One level's point: pass@1 as the mean over problems of each problem's
/// share of passed attempts at the level, its bootstrap interval, pass@k.
fn level_point(
    counts: &Counts,
    levels: &BTreeMap<String, &Variant>,
    label: &str,
    strategy: Strategy,
    ks: &[usize],
) -> Option<Point> {
    let v = levels.get(label)?;
    let per_problem: Vec<(usize, usize)> = counts
        .iter()
        .filter(|((_, l), _)| l == label)
        .map(|(_, c)| (c[0], c[1]))
        .collect();
    let rates: Vec<f64> = per_problem
        .iter()
        .map(|&(p, n)| p as f64 / n as f64)
        .collect();
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let outcomes: Vec<(usize, usize)> = per_problem.iter().map(|&(p, n)| (p, n - p)).collect();
    let pass_at_k = stats::pass_at_k_over_questions(&outcomes, ks);
    Some(Point {
        pass_at_k: pass_at_k.values,
        pass_at_k_interval: pass_at_k.intervals,
        label: label.to_string(),
        strategy: strategy.as_str().to_string(),
        level: v.level,
        detail: round_to(v.detail(), 4),
        problems: rates.len(),
        attempts: per_problem.iter().map(|c| c.1).sum(),
        passed: per_problem.iter().map(|c| c.0).sum(),
        pass_at_1: round_to(mean, 4),
        interval: stats::bootstrap_mean(&rates).map(|(lo, hi)| [round_to(lo, 4), round_to(hi, 4)]),
    })
}

/// Every ordered pair of one curve's points (less detailed first).
fn violations(
    curves: &BTreeMap<String, Vec<Point>>,
    counts: &Counts,
) -> (Vec<Violation>, Vec<ProblemViolation>) {
    let mut overall = Vec::new();
    let mut per_problem = Vec::new();
    let problems: std::collections::BTreeSet<&String> = counts.keys().map(|(p, _)| p).collect();
    for (strategy, points) in curves {
        for (i, less) in points.iter().enumerate() {
            for more in &points[i + 1..] {
                // Points of different detail only (p_bot/p_top appear once).
                if more.detail <= less.detail {
                    continue;
                }
                let mut differences = Vec::new();
                for &problem in &problems {
                    let (Some(a), Some(b)) = (
                        counts.get(&(problem.clone(), less.label.clone())),
                        counts.get(&(problem.clone(), more.label.clone())),
                    ) else {
                        continue;
                    };
                    differences.push(b[0] as f64 / b[1] as f64 - a[0] as f64 / a[1] as f64);
                    let (ra, rb) = (a[0] as f64 / a[1] as f64, b[0] as f64 / b[1] as f64);
                    if rb < ra {
                        let p = stats::fisher_exact(a[0], a[1], b[0], b[1]);
                        if p < SIGNIFICANCE {
                            per_problem.push(ProblemViolation {
                                problem: problem.clone(),
                                strategy: strategy.clone(),
                                less_detailed: less.label.clone(),
                                more_detailed: more.label.clone(),
                                less: *a,
                                more: *b,
                                p_value: round_to(p, 4),
                            });
                        }
                    }
                }
                if more.pass_at_1 < less.pass_at_1
                    && let Some((lo, hi)) = stats::bootstrap_mean(&differences)
                    && hi < 0.0
                {
                    overall.push(Violation {
                        strategy: strategy.clone(),
                        less_detailed: less.label.clone(),
                        more_detailed: more.label.clone(),
                        less_pass_at_1: less.pass_at_1,
                        more_pass_at_1: more.pass_at_1,
                        difference_interval: [round_to(lo, 4), round_to(hi, 4)],
                    });
                }
            }
        }
    }
    (overall, per_problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::Strategy::*;

    fn variant(of: &str, strategy: Strategy, level: Option<f64>, sample: Option<u32>) -> Variant {
        serde_json::from_value(serde_json::json!({
            "of": of, "strategy": strategy, "level": level, "sample": sample
        }))
        .unwrap()
    }

    /// Problems a..t: p_bot fails, paragraph 0.2 passes 1 of 4, 0.8 all,
    /// p_top all; masking 0.8 (least detailed) passes all, 0.2 none: a
    /// violation everywhere. Original passes on half the problems.
    fn run() -> (BTreeMap<String, Variant>, Vec<(String, bool)>) {
        let mut variants = BTreeMap::new();
        let mut cells = Vec::new();
        for p in (b'a'..=b't').map(|c| (c as char).to_string()) {
            let mut add = |name: String, v: Variant, passed: bool| {
                let id = format!("{p}.{name}");
                variants.insert(id.clone(), v);
                cells.push((id, passed));
            };
            add("p_bot".into(), variant(&p, PBot, None, None), false);
            add("p_top".into(), variant(&p, PTop, None, None), true);
            add(
                "original".into(),
                variant(&p, Original, None, None),
                p.as_str() < "k",
            );
            for i in 1..=4 {
                add(
                    format!("paragraph_0.2-{i}"),
                    variant(&p, Paragraph, Some(0.2), Some(i)),
                    i == 1,
                );
                add(
                    format!("paragraph_0.8-{i}"),
                    variant(&p, Paragraph, Some(0.8), Some(i)),
                    true,
                );
                add(
                    format!("masking_0.8-{i}"),
                    variant(&p, Masking, Some(0.8), Some(i)),
                    true,
                );
                add(
                    format!("masking_0.2-{i}"),
                    variant(&p, Masking, Some(0.2), Some(i)),
                    false,
                );
            }
        }
        (variants, cells)
    }

    /// The curves of [`run`], with pass@1 and pass@4.
    fn order() -> PartialOrder {
        let (variants, cells) = run();
        partial_order(
            &variants,
            cells.iter().map(|(i, p)| (i.as_str(), *p)),
            &[1, 4],
        )
        .unwrap()
    }

    #[test]
    fn points_are_the_mean_over_problems_in_detail_order() {
        let po = order();
        let paragraph: Vec<(&str, f64)> = po.curves["paragraph"]
            .iter()
            .map(|p| (p.label.as_str(), p.pass_at_1))
            .collect();
        assert_eq!(
            paragraph,
            [
                ("p_bot", 0.0),
                ("paragraph_0.2", 0.25),
                ("paragraph_0.8", 1.0),
                ("p_top", 1.0)
            ]
        );
        let masking: Vec<&str> = po.curves["masking"]
            .iter()
            .map(|p| p.label.as_str())
            .collect();
        assert_eq!(masking, ["p_bot", "masking_0.8", "masking_0.2", "p_top"]);
        let p02 = &po.curves["paragraph"][1];
        assert_eq!((p02.problems, p02.attempts, p02.passed), (20, 80, 20));
        // Every problem has 1 of 4: no spread between problems.
        assert_eq!(p02.interval, Some([0.25, 0.25]));
        // pass@4 of 1 correct in 4: 1; pass@1 as the point.
        assert_eq!(p02.pass_at_k.get("pass@1"), Some(&0.25));
        assert_eq!(p02.pass_at_k.get("pass@4"), Some(&1.0));
        // p_bot has 1 attempt per problem: no pass@4 there.
        assert_eq!(po.curves["paragraph"][0].pass_at_k.get("pass@4"), None);
        let original = po.original.unwrap();
        assert_eq!(original.pass_at_1, 0.5);
        let [lo, hi] = original.interval.unwrap();
        assert!(lo < 0.5 && 0.5 < hi);
        assert!(!po.curves.contains_key("summary"), "no summary was run");
    }

    /// A problem whose p_top no text passed the gates is left out of every
    /// point and of the violations, asked or not, and named with why.
    #[test]
    fn an_unqualified_problem_is_left_out_and_named() {
        let (mut variants, cells) = run();
        let top = variants.get_mut("a.p_top").unwrap();
        top.accepted = Some(false);
        top.tries = Some(vec![
            crate::variants::PTopTry::leak_checked(Some(
                "it holds a fenced code block (line 3)".into(),
            )),
            crate::variants::PTopTry {
                refused: Some("4 of 5 replies to it passed".into()),
                passed: Some(4),
                samples: Some(5),
            },
        ]);
        let po =
            partial_order(&variants, cells.iter().map(|(i, p)| (i.as_str(), *p)), &[1]).unwrap();
        assert_eq!(po.problems, 19);
        assert!(po.curves["paragraph"].iter().all(|p| p.problems == 19));
        assert_eq!(po.original.as_ref().unwrap().problems, 19);
        assert!(po.problem_violations.iter().all(|v| v.problem != "a"));
        assert_eq!(po.unqualified.len(), 1);
        assert_eq!(po.unqualified[0].problem, "a");
        assert_eq!(
            po.unqualified[0].reason,
            "none of its 2 p_top texts passed; the last: 4 of 5 replies to it passed"
        );
        assert!(po.unqualified_text().unwrap().starts_with(
            "the curves run over 19 problems; left out, no p_top of theirs passed the gates: a ("
        ));
        assert_eq!(order().unqualified_text(), None);
    }

    #[test]
    fn a_more_detailed_level_that_scores_lower_beyond_noise_is_a_violation() {
        let po = order();
        let pairs: Vec<(&str, &str)> = po
            .violations
            .iter()
            .map(|v| (v.less_detailed.as_str(), v.more_detailed.as_str()))
            .collect();
        assert_eq!(pairs, [("masking_0.8", "masking_0.2")]);
        assert_eq!(po.violations[0].difference_interval, [-1.0, -1.0]);
        // Per problem: 4/4 against 0/4, Fisher p = 2/70.
        assert_eq!(po.problem_violations.len(), 20);
        assert_eq!(po.problem_violations[0].p_value, round_to(2.0 / 70.0, 4));
        assert_eq!((po.problems_with_violations, po.problems), (20, 20));
        // paragraph_0.2 (1/4) below... nothing: detail only rises there.
        assert!(po.violations.iter().all(|v| v.strategy == "masking"));
    }

    #[test]
    fn a_run_without_variants_has_no_curves() {
        assert_eq!(
            partial_order(&BTreeMap::new(), std::iter::empty(), &[1]),
            None
        );
    }
}
