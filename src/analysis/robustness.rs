//! How much one model's outcome on a question depends on the prompt's
//! wording (issue #20 part 4), per question and over questions:
//!
//! - the spread of the prompts' pass rates (max - min);
//! - ReCode's Robust pass@k (Wang et al. 2022, RP_s@k): an attempt slot
//!   counts as correct only when every prompt's attempt in that slot passed;
//! - ProSA's PromptSensiScore (Zhuo et al. 2024): the mean absolute
//!   difference of pass rates over unordered prompt pairs.
//!
//! Every figure is a fraction in [0, 1] with a 95 % percentile-bootstrap
//! interval: per question over its attempt slots, per model over questions.

use std::collections::BTreeMap;

use super::outcomes::{Outcomes, at, tally};
use super::stats::{self, round_to};
use crate::results::{PromptRate, QuestionRobustness, Robustness};

/// The robustness figures of one model, per question and over questions,
/// for the configured pass@k `ks`.
pub fn robustness(outcomes: &Outcomes, ks: &[usize]) -> Robustness {
    let mut questions: Vec<(usize, QuestionRobustness, Figures)> = (0..outcomes.questions.len())
        .map(|q| {
            let (figure, raw) = question_robustness(outcomes, q, ks);
            (q, figure, raw)
        })
        .collect();
    // Spread and sensitivity are defined on the same questions (two rated
    // prompts), so both means cover `spreads.len()` questions.
    let spreads: Vec<f64> = questions.iter().filter_map(|q| q.2.spread).collect();
    let sensitivities: Vec<f64> = questions.iter().filter_map(|q| q.2.sensitivity).collect();
    let robust = robust_over_questions(questions.iter().map(|(_, _, raw)| raw), ks);
    questions.sort_by(|a, b| prompt_dependence(&b.1, &a.1).then(a.0.cmp(&b.0)));
    Robustness {
        prompts: outcomes.prompts.len(),
        compared_questions: spreads.len(),
        mean_spread: mean(&spreads).map(|m| round_to(m, 4)),
        mean_spread_interval: rounded(stats::bootstrap_mean(&spreads)),
        mean_sensitivity: mean(&sensitivities).map(|m| round_to(m, 4)),
        mean_sensitivity_interval: rounded(stats::bootstrap_mean(&sensitivities)),
        robust_questions: robust.questions,
        robust_pass_at_k: robust.values,
        robust_pass_at_k_interval: robust.intervals,
        questions: questions.into_iter().map(|(_, figure, _)| figure).collect(),
    }
}

/// Orders two questions by how much their outcome depends on the prompt
/// (sensitivity, then spread; a missing figure counts as least), as shown.
fn prompt_dependence(a: &QuestionRobustness, b: &QuestionRobustness) -> std::cmp::Ordering {
    let key = |q: &QuestionRobustness| {
        (
            q.sensitivity.unwrap_or(f64::NEG_INFINITY),
            q.spread.unwrap_or(f64::NEG_INFINITY),
        )
    };
    let (a, b) = (key(a), key(b));
    a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1))
}

/// A question's unrounded figures, for the means over questions (rounding
/// first would bias them).
struct Figures {
    spread: Option<f64>,
    sensitivity: Option<f64>,
    robust_attempts: usize,
    /// k -> Robust pass@k, for k <= `robust_attempts`.
    robust: BTreeMap<usize, f64>,
}

fn question_robustness(
    outcomes: &Outcomes,
    question: usize,
    ks: &[usize],
) -> (QuestionRobustness, Figures) {
    let cells = outcomes.question_cells(question);
    // Every cell should have `slots()` attempts; the longest is used so a
    // ragged hand-built input loses nothing (a missing attempt is `None`).
    let slots = cells.iter().map(|c| c.len()).max().unwrap_or(0);
    let rates = pass_rates(&cells, 0..slots);
    let rate = |p: usize| {
        let (passed, evaluated) = tally(cells[p], 0..slots);
        PromptRate {
            prompt: outcomes.prompts[p].clone(),
            pass_rate: round_to(passed as f64 / evaluated as f64, 4),
            passed,
            evaluated,
        }
    };
    let (lowest, highest) = match extremes(&rates) {
        Some((lo, hi)) => (Some(rate(lo)), Some(rate(hi))),
        None => (None, None),
    };
    // Spread and sensitivity resample the slots some prompt evaluated;
    // Robust pass@k only those every prompt evaluated (its n).
    let live: Vec<usize> = (0..slots)
        .filter(|&s| cells.iter().any(|c| at(c, s).is_some()))
        .collect();
    let full: Vec<usize> = (0..slots)
        .filter(|&s| cells.iter().all(|c| at(c, s).is_some()))
        .collect();
    let over_live = |f: fn(&[Option<f64>]) -> Option<f64>| {
        stats::bootstrap_statistic(live.len(), |draw| {
            f(&pass_rates(&cells, draw.iter().map(|&i| live[i])))
        })
    };
    let raw = Figures {
        spread: spread(&rates),
        sensitivity: sensitivity(&rates),
        robust_attempts: full.len(),
        robust: ks
            .iter()
            .filter_map(|&k| Some((k, robust_pass_at_k(&cells, full.iter().copied(), k)?)))
            .collect(),
    };
    let mut robust_interval = BTreeMap::new();
    for &k in raw.robust.keys() {
        let interval = stats::bootstrap_statistic(full.len(), |draw| {
            robust_pass_at_k(&cells, draw.iter().map(|&i| full[i]), k)
        });
        if let Some(interval) = rounded(interval) {
            robust_interval.insert(format!("pass@{k}"), interval);
        }
    }
    let figure = QuestionRobustness {
        question: outcomes.questions[question].clone(),
        prompts_evaluated: rates.iter().flatten().count(),
        lowest,
        highest,
        spread: raw.spread.map(|v| round_to(v, 4)),
        spread_interval: rounded(over_live(spread)),
        sensitivity: raw.sensitivity.map(|v| round_to(v, 4)),
        sensitivity_interval: rounded(over_live(sensitivity)),
        robust_attempts: raw.robust_attempts,
        robust_pass_at_k: raw
            .robust
            .iter()
            .map(|(k, v)| (format!("pass@{k}"), round_to(*v, 4)))
            .collect(),
        robust_pass_at_k_interval: robust_interval,
    };
    (figure, raw)
}

/// Each prompt's pass rate over the slots `draw`; `None` for a prompt with
/// no evaluated attempt among them.
fn pass_rates(
    cells: &[&[Option<bool>]],
    draw: impl Iterator<Item = usize> + Clone,
) -> Vec<Option<f64>> {
    cells
        .iter()
        .map(|cell| {
            let (passed, evaluated) = tally(cell, draw.clone());
            (evaluated > 0).then(|| passed as f64 / evaluated as f64)
        })
        .collect()
}

/// Indices of the lowest and highest rate (first on ties).
fn extremes(rates: &[Option<f64>]) -> Option<(usize, usize)> {
    let rated = || {
        rates
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, (*r)?)))
    };
    // Replaced only by a strictly lower (higher) rate: ties keep the first.
    let lo = rated().fold(None, |best: Option<(usize, f64)>, (i, r)| match best {
        Some((_, b)) if b <= r => best,
        _ => Some((i, r)),
    })?;
    let hi = rated().fold(None, |best: Option<(usize, f64)>, (i, r)| match best {
        Some((_, b)) if b >= r => best,
        _ => Some((i, r)),
    })?;
    Some((lo.0, hi.0))
}

/// max - min of the rates; `None` with fewer than two rated prompts.
fn spread(rates: &[Option<f64>]) -> Option<f64> {
    let rated: Vec<f64> = rates.iter().flatten().copied().collect();
    if rated.len() < 2 {
        return None;
    }
    let max = rated.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = rated.iter().copied().fold(f64::INFINITY, f64::min);
    Some(max - min)
}

/// ProSA's PromptSensiScore of one question: mean |Y_i - Y_j| over i < j.
fn sensitivity(rates: &[Option<f64>]) -> Option<f64> {
    let rated: Vec<f64> = rates.iter().flatten().copied().collect();
    if rated.len() < 2 {
        return None;
    }
    let mut total = 0.0;
    let mut pairs = 0usize;
    for (i, a) in rated.iter().enumerate() {
        for b in &rated[i + 1..] {
            total += (a - b).abs();
            pairs += 1;
        }
    }
    Some(total / pairs as f64)
}

/// ReCode's Robust pass@k over the slots `draw`, each of which every prompt
/// evaluated: the worst case over prompts passes a slot only when every
/// prompt passed it, then the unbiased pass@k with c = those slots.
/// `None` when k exceeds the slots.
fn robust_pass_at_k(
    cells: &[&[Option<bool>]],
    draw: impl Iterator<Item = usize>,
    k: usize,
) -> Option<f64> {
    let (mut n, mut all_passed) = (0, 0);
    for s in draw {
        n += 1;
        if cells.iter().all(|c| at(c, s) == Some(true)) {
            all_passed += 1;
        }
    }
    stats::pass_at_k(n, all_passed, k)
}

struct RobustMeans {
    questions: usize,
    values: BTreeMap<String, f64>,
    intervals: BTreeMap<String, [f64; 2]>,
}

/// Robust pass@k averaged over the questions with a fully evaluated slot;
/// a k only when all of them have k slots, so every k averages the same
/// questions (as `pass_at_k_over_questions` does for pass@k).
fn robust_over_questions<'a>(
    questions: impl Iterator<Item = &'a Figures>,
    ks: &[usize],
) -> RobustMeans {
    let counted: Vec<&Figures> = questions.filter(|f| f.robust_attempts > 0).collect();
    let mut out = RobustMeans {
        questions: counted.len(),
        values: BTreeMap::new(),
        intervals: BTreeMap::new(),
    };
    for &k in ks {
        let values: Option<Vec<f64>> = counted.iter().map(|f| f.robust.get(&k).copied()).collect();
        let Some(values) = values.filter(|v| !v.is_empty()) else {
            continue;
        };
        let key = format!("pass@{k}");
        if let Some(m) = mean(&values) {
            out.values.insert(key.clone(), round_to(m, 4));
        }
        if let Some(interval) = rounded(stats::bootstrap_mean(&values)) {
            out.intervals.insert(key, interval);
        }
    }
    out
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn rounded(interval: Option<(f64, f64)>) -> Option<[f64; 2]> {
    interval.map(|(lo, hi)| [round_to(lo, 4), round_to(hi, 4)])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::case::{CaseRecord, Verdict};

    /// Outcomes from one string per prompt and question: `1` passed, `0`
    /// failed, `x` not evaluated; `rows[prompt][question]`.
    pub(crate) fn outcomes(prompts: &[&str], questions: &[&str], rows: &[&[&str]]) -> Outcomes {
        let attempts = rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| {
                        cell.chars()
                            .map(|c| match c {
                                '1' => Some(true),
                                '0' => Some(false),
                                _ => None,
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        Outcomes {
            prompts: prompts.iter().map(|p| p.to_string()).collect(),
            questions: questions.iter().map(|q| q.to_string()).collect(),
            attempts,
        }
    }

    /// Three prompts, five questions, four slots:
    /// - q1: A passes all, B half, C none (rates 1, .5, 0);
    /// - q2: only C fails, in slot 2 (rates 1, 1, .75);
    /// - q3: C never evaluated it; A and B miss different slots;
    /// - q4: B's slot 1 not evaluated (a misaligned slot);
    /// - q5: never evaluated.
    fn sample() -> Outcomes {
        outcomes(
            &["A", "B", "C"],
            &["q1", "q2", "q3", "q4", "q5"],
            &[
                &["1111", "1111", "11x1", "1101", "xxxx"],
                &["1100", "1111", "1x11", "1x11", "xxxx"],
                &["0000", "1101", "xxxx", "1111", "xxxx"],
            ],
        )
    }

    fn by_id<'a>(r: &'a Robustness, id: &str) -> &'a QuestionRobustness {
        r.questions.iter().find(|q| q.question == id).unwrap()
    }

    #[test]
    fn spread_is_max_minus_min_of_the_evaluated_prompts() {
        let r = robustness(&sample(), &[1]);
        // q1: 1 - 0, lowest C (0/4), highest A (4/4).
        let q1 = by_id(&r, "q1");
        assert_eq!(q1.spread, Some(1.0));
        let (lo, hi) = (q1.lowest.as_ref().unwrap(), q1.highest.as_ref().unwrap());
        assert_eq!((lo.prompt.as_str(), lo.passed, lo.evaluated), ("C", 0, 4));
        assert_eq!((hi.prompt.as_str(), hi.pass_rate), ("A", 1.0));
        // q2: 1 - 3/4; A and B tie at 1, the first (A) is named.
        let q2 = by_id(&r, "q2");
        assert_eq!(q2.spread, Some(0.25));
        assert_eq!(q2.highest.as_ref().unwrap().prompt, "A");
        assert_eq!(q2.lowest.as_ref().unwrap().pass_rate, 0.75);
        // q3: C left out, A 3/3 and B 3/3: spread 0 (counting C as 0 would say 1).
        let q3 = by_id(&r, "q3");
        assert_eq!((q3.prompts_evaluated, q3.spread), (2, Some(0.0)));
        // q4: A 3/4, B 3/3 (its x is not a failure), C 4/4: 1 - .75.
        assert_eq!(by_id(&r, "q4").spread, Some(0.25));
        // q5: no prompt evaluated it.
        let q5 = by_id(&r, "q5");
        assert_eq!(
            (q5.spread, q5.lowest.as_ref(), q5.prompts_evaluated),
            (None, None, 0)
        );
    }

    #[test]
    fn sensitivity_is_the_mean_pairwise_difference() {
        let r = robustness(&sample(), &[1]);
        // q1: (|1-.5| + |1-0| + |.5-0|) / 3 = 2/3.
        assert_eq!(by_id(&r, "q1").sensitivity, Some(round_to(2.0 / 3.0, 4)));
        // q2: (|1-1| + |1-.75| + |1-.75|) / 3 = 1/6.
        assert_eq!(by_id(&r, "q2").sensitivity, Some(round_to(1.0 / 6.0, 4)));
        // q3: one pair (A, B): |1-1| = 0.
        assert_eq!(by_id(&r, "q3").sensitivity, Some(0.0));
        assert_eq!(by_id(&r, "q5").sensitivity, None);
        // The max-min would be 1 for q1, not 2/3.
        assert_ne!(by_id(&r, "q1").sensitivity, by_id(&r, "q1").spread);
    }

    #[test]
    fn robust_pass_at_k_counts_a_slot_only_when_every_prompt_passed_it() {
        let r = robustness(&sample(), &[1, 2, 4]);
        // q1: C fails every slot: c = 0 of n = 4.
        let q1 = by_id(&r, "q1");
        assert_eq!(q1.robust_attempts, 4);
        assert_eq!(q1.robust_pass_at_k.get("pass@1"), Some(&0.0));
        // q2: slots 1, 2, 4 pass under all: c = 3, n = 4.
        // RP@1 = 3/4; RP@2 = 1 - C(1,2)/C(4,2) = 1; RP@4 = 1.
        let q2 = by_id(&r, "q2");
        assert_eq!(q2.robust_pass_at_k.get("pass@1"), Some(&0.75));
        assert_eq!(q2.robust_pass_at_k.get("pass@2"), Some(&1.0));
        assert_eq!(q2.robust_pass_at_k.get("pass@4"), Some(&1.0));
        // q3: C evaluated no slot, so no slot is evaluated under every prompt.
        let q3 = by_id(&r, "q3");
        assert_eq!(q3.robust_attempts, 0);
        assert!(q3.robust_pass_at_k.is_empty());
        // q4: slot 2 (B not evaluated) is left out: n = 3 (slots 1, 3, 4),
        // c = 2 (slot 3 fails under A). RP@1 = 2/3 (counting slot 2 as a
        // failure would give 2/4, as a pass 3/4). RP@2 = 1 - C(1,2)/C(3,2) = 1.
        // No pass@4: only 3 slots.
        let q4 = by_id(&r, "q4");
        assert_eq!(q4.robust_attempts, 3);
        assert_eq!(
            q4.robust_pass_at_k.get("pass@1"),
            Some(&round_to(2.0 / 3.0, 4))
        );
        assert_eq!(q4.robust_pass_at_k.get("pass@2"), Some(&1.0));
        assert_eq!(q4.robust_pass_at_k.get("pass@4"), None);
    }

    #[test]
    fn robust_pass_at_k_with_c_below_n_minus_k_uses_the_combinatorial_form() {
        // One question, two prompts, six slots; all pass in slots 1, 2 only:
        // c = 2, n = 6. RP@3 = 1 - C(4,3)/C(6,3) = 1 - 4/20 = 0.8.
        let o = outcomes(&["A", "B"], &["q"], &[&["111111"], &["110000"]]);
        let r = robustness(&o, &[3]);
        assert_eq!(r.questions[0].robust_pass_at_k.get("pass@3"), Some(&0.8));
    }

    #[test]
    fn model_level_figures_are_means_over_questions() {
        let r = robustness(&sample(), &[1, 2, 4]);
        assert_eq!(r.prompts, 3);
        // Spread and sensitivity over q1..q4 (q5 has neither).
        assert_eq!(r.compared_questions, 4);
        // (1 + .25 + 0 + .25) / 4 = .375
        assert_eq!(r.mean_spread, Some(0.375));
        // (2/3 + 1/6 + 0 + 1/6) / 4 = .25
        assert_eq!(r.mean_sensitivity, Some(0.25));
        let spreads = [1.0, 0.25, 0.0, 0.25];
        let (lo, hi) = stats::bootstrap_mean(&spreads).unwrap();
        assert_eq!(
            r.mean_spread_interval,
            Some([round_to(lo, 4), round_to(hi, 4)])
        );
        // Robust pass@k over q1, q2, q4 (q3 and q5 have no full slot):
        // RP@1 = (0 + .75 + 2/3) / 3, RP@2 = (0 + 1 + 1) / 3; no pass@4
        // because q4 has 3 slots.
        assert_eq!(r.robust_questions, 3);
        assert_eq!(
            r.robust_pass_at_k.get("pass@1"),
            Some(&round_to((0.75 + 2.0 / 3.0) / 3.0, 4))
        );
        assert_eq!(
            r.robust_pass_at_k.get("pass@2"),
            Some(&round_to(2.0 / 3.0, 4))
        );
        assert_eq!(r.robust_pass_at_k.get("pass@4"), None);
        let (lo, hi) = stats::bootstrap_mean(&[0.0, 0.75, 2.0 / 3.0]).unwrap();
        assert_eq!(
            r.robust_pass_at_k_interval.get("pass@1"),
            Some(&[round_to(lo, 4), round_to(hi, 4)])
        );
    }

    #[test]
    fn questions_that_depend_most_on_the_prompt_come_first() {
        let r = robustness(&sample(), &[1]);
        let order: Vec<&str> = r.questions.iter().map(|q| q.question.as_str()).collect();
        // Sensitivity q1 2/3, q2 = q4 1/6 (equal spread too: suite order),
        // q3 0, q5 none (last).
        assert_eq!(order, ["q1", "q2", "q4", "q3", "q5"]);
    }

    #[test]
    fn sensitivity_outranks_spread() {
        // qy: 1, 0, 0, 0: sensitivity (1 + 1 + 1 + 0 + 0 + 0) / 6 = .5, spread 1.
        // qx: .75, 0 (C, D never): sensitivity .75, spread .75 -> first.
        let o = outcomes(
            &["A", "B", "C", "D"],
            &["qy", "qx"],
            &[
                &["1111", "1110"],
                &["0000", "0000"],
                &["0000", "xxxx"],
                &["0000", "xxxx"],
            ],
        );
        let r = robustness(&o, &[1]);
        let figures: Vec<(&str, Option<f64>, Option<f64>)> = r
            .questions
            .iter()
            .map(|q| (q.question.as_str(), q.sensitivity, q.spread))
            .collect();
        assert_eq!(
            figures,
            [("qx", Some(0.75), Some(0.75)), ("qy", Some(0.5), Some(1.0))]
        );
    }

    #[test]
    fn equal_sensitivity_is_ordered_by_spread() {
        // With three prompts sensitivity is 2/3 of the spread, so equal
        // sensitivity with unequal spread needs a question two prompts rated:
        // qa: A .5, B 0 (C never): sensitivity .5, spread .5;
        // qb: .75, .75, 0: (0 + .75 + .75) / 3 = .5, spread .75 -> first.
        let o = outcomes(
            &["A", "B", "C"],
            &["qa", "qb"],
            &[&["1100", "1110"], &["0000", "1110"], &["xxxx", "0000"]],
        );
        let r = robustness(&o, &[1]);
        assert_eq!(r.questions[0].sensitivity, r.questions[1].sensitivity);
        let order: Vec<&str> = r.questions.iter().map(|q| q.question.as_str()).collect();
        assert_eq!(order, ["qb", "qa"]);
    }

    #[test]
    fn per_question_intervals_resample_the_slots() {
        let r = robustness(&sample(), &[1]);
        let q1 = by_id(&r, "q1");
        // A always 1 and C always 0 in any resample of q1's slots: the
        // spread is 1 and the sensitivity (|1-B| + 1 + |B-0|) / 3 = 2/3 in
        // every resample, whatever B draws.
        assert_eq!(q1.spread_interval, Some([1.0, 1.0]));
        let third = round_to(2.0 / 3.0, 4);
        assert_eq!(q1.sensitivity_interval, Some([third, third]));
        // q2's RP@1 is the share of all-pass slots (3 of 4) in a resample.
        let [lo, hi] = *by_id(&r, "q2")
            .robust_pass_at_k_interval
            .get("pass@1")
            .unwrap();
        assert!(lo < 0.75 && hi == 1.0, "{lo} {hi}");
        // Deterministic: the same data gives the same intervals.
        assert_eq!(robustness(&sample(), &[1]), r);
    }

    #[test]
    fn a_single_attempt_slot_has_no_per_question_interval() {
        // Rates 1 and 0 from one slot each: spread 1, sensitivity 1, RP@1 0.
        let o = outcomes(&["A", "B"], &["q1", "q2"], &[&["1", "1"], &["0", "1"]]);
        let r = robustness(&o, &[1]);
        let q1 = by_id(&r, "q1");
        assert_eq!((q1.spread, q1.sensitivity), (Some(1.0), Some(1.0)));
        assert_eq!((q1.spread_interval, q1.sensitivity_interval), (None, None));
        assert_eq!(q1.robust_pass_at_k.get("pass@1"), Some(&0.0));
        assert!(q1.robust_pass_at_k_interval.is_empty());
        // Two questions still give a model-level interval.
        assert!(r.mean_spread_interval.is_some());
    }

    #[test]
    fn one_prompt_has_no_spread_but_a_robust_pass_at_k() {
        let o = outcomes(&["A"], &["q1"], &[&["1100"]]);
        let r = robustness(&o, &[1]);
        assert_eq!(
            (r.questions[0].spread, r.questions[0].sensitivity),
            (None, None)
        );
        assert_eq!((r.mean_spread, r.compared_questions), (None, 0));
        assert_eq!(r.robust_pass_at_k.get("pass@1"), Some(&0.5));
    }

    fn record(prompt: &str, q: usize, round: u32, sample: Option<u32>, v: Verdict) -> CaseRecord {
        let mut r = crate::case::fixtures::record(q);
        r.case.prompt = prompt.into();
        r.case.round = round;
        r.case.sample = sample;
        r.verdict = v;
        r
    }

    #[test]
    fn from_records_aligns_slots_round_major_then_sample() {
        use Verdict::*;
        let records = [
            record("A", 1, 2, Some(1), Correct),
            record("A", 1, 1, Some(2), WrongAnswer),
            record("A", 1, 1, None, Correct), // sample None is sample 1
            record("B", 2, 2, Some(2), NotEvaluated),
            record("B", 2, 1, Some(2), ApiError), // evaluated: a failure
            record("Z", 1, 1, None, Correct),     // not a listed prompt
            record("A", 2, 1, None, WrongAnswer),
            record("A", 2, 1, None, Correct), // the later record wins
        ];
        let prompts = ["A".to_string(), "B".to_string()];
        let questions = ["q1".to_string(), "q2".to_string()];
        let o = Outcomes::from_records(&prompts, &questions, &records);
        // Slots: (1,1), (1,2), (2,1), (2,2).
        assert_eq!(o.slots(), 4);
        assert_eq!(
            o.attempts[0][0],
            [Some(true), Some(false), Some(true), None]
        );
        assert_eq!(o.attempts[0][1], [Some(true), None, None, None]);
        assert_eq!(o.attempts[1][0], [None; 4]);
        assert_eq!(o.attempts[1][1], [None, Some(false), None, None]);
        assert_eq!(o.tally(0, 0), (2, 3));
    }

    #[test]
    fn serialises_with_snake_case_names() {
        let json = serde_json::to_value(robustness(&sample(), &[1])).unwrap();
        for key in [
            "prompts",
            "questions",
            "compared_questions",
            "mean_spread",
            "mean_spread_interval",
            "mean_sensitivity",
            "mean_sensitivity_interval",
            "robust_questions",
            "robust_pass_at_k",
            "robust_pass_at_k_interval",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        let q = &json["questions"][0];
        assert_eq!(q["question"], "q1");
        assert_eq!(q["lowest"]["prompt"], "C");
        let back: Robustness = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(serde_json::to_value(back).unwrap(), json);
    }
}
