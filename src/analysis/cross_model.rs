//! Prompts across models (issue #20 part 3): each model's best prompt and
//! whether it beats the runner-up by more than noise, and for each pair of
//! models whether the prompts' ranking transfers (Kendall's tau-b and
//! Spearman's rho with bootstrap intervals) and which prompt pairs flip.
//!
//! Accuracy here is PromptResult's: correct over evaluated attempts, in
//! percent with one decimal. Orders (best prompt, ranks, flips) are judged
//! on that shown value, so a tie a reader sees in the table is a tie here.

use super::outcomes::Outcomes;
use super::stats::{self, Paired, round_to};
use crate::results::{BestPrompt, CrossModel, OrderFlip, PairOnModel, RankTransfer};

/// Rank correlations need three prompts: over two, tau and rho are always
/// +1 or -1 and say nothing about agreement.
const MIN_RANKED_PROMPTS: usize = 3;

/// Every model's best prompt and every pair's rank transfer. `models` are
/// (name, that model's outcomes) in run order.
pub fn cross_model(models: &[(&str, &Outcomes)]) -> CrossModel {
    let best_prompts = models
        .iter()
        .map(|(name, o)| (name.to_string(), best_prompt(o)))
        .collect();
    let mut rank_transfer = Vec::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            rank_transfer.push(ranking_transfer(*a, *b));
        }
    }
    CrossModel {
        best_prompts,
        rank_transfer,
    }
}

/// Percent accuracy with one decimal, as PromptResult shows it.
fn accuracy(passed: usize, evaluated: usize) -> Option<f64> {
    (evaluated > 0).then(|| round_to(passed as f64 * 100.0 / evaluated as f64, 1))
}

/// (passed, evaluated) over every question and slot of `prompt`.
fn prompt_tally(o: &Outcomes, prompt: usize) -> (usize, usize) {
    (0..o.questions.len())
        .map(|q| o.tally(prompt, q))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn prompt_accuracy(o: &Outcomes, prompt: usize) -> Option<f64> {
    let (passed, evaluated) = prompt_tally(o, prompt);
    accuracy(passed, evaluated)
}

/// The highest accuracy, ties named; against the runner-up by exact
/// McNemar (the one rule of `analysis::best_prompt`).
pub fn best_prompt(o: &Outcomes) -> Option<BestPrompt> {
    let at = |name: &str| o.prompts.iter().position(|p| p == name);
    super::best_prompt::best_prompt(
        o.prompts
            .iter()
            .enumerate()
            .map(|(p, name)| (name.as_str(), prompt_accuracy(o, p))),
        |best, runner_up| Some(paired(o, at(best)?, at(runner_up)?)),
    )
}

/// Pairs the attempts of prompts `a` and `b` by question and slot (same
/// question, round and sample) where both were evaluated.
fn paired(o: &Outcomes, a: usize, b: usize) -> Paired {
    Paired::of(
        o.attempts[a]
            .iter()
            .zip(&o.attempts[b])
            .flat_map(|(qa, qb)| qa.iter().zip(qb))
            .filter_map(|(x, y)| Some(((*x)?, (*y)?))),
    )
}

/// One model's per-prompt, per-question (passed, evaluated), for the
/// prompts and questions both models share: `[prompt][question]`.
type Counts = Vec<Vec<(usize, usize)>>;

fn ranking_transfer(a: (&str, &Outcomes), b: (&str, &Outcomes)) -> RankTransfer {
    let (name_a, oa) = a;
    let (name_b, ob) = b;
    // Prompts and questions matched by name, in model a's order.
    let prompts: Vec<(usize, usize)> = oa
        .prompts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, ob.prompts.iter().position(|q| q == p)?)))
        .filter(|&(i, j)| prompt_accuracy(oa, i).is_some() && prompt_accuracy(ob, j).is_some())
        .collect();
    let questions: Vec<(usize, usize)> = oa
        .questions
        .iter()
        .enumerate()
        .filter_map(|(i, q)| Some((i, ob.questions.iter().position(|r| r == q)?)))
        .collect();
    let counts = |o: &Outcomes, side: fn(&(usize, usize)) -> usize| -> Counts {
        prompts
            .iter()
            .map(|p| {
                questions
                    .iter()
                    .map(|q| o.tally(side(p), side(q)))
                    .collect()
            })
            .collect()
    };
    let (ca, cb) = (counts(oa, |x| x.0), counts(ob, |x| x.1));
    let every_question: Vec<usize> = (0..questions.len()).collect();
    let correlation = |f: fn(&[f64], &[f64]) -> Option<f64>, draw: &[usize]| {
        let (x, y) = accuracies_on(&ca, &cb, draw);
        f(&x, &y)
    };
    let point = |f| correlation(f, &every_question).map(|v| round_to(v, 4));
    let interval = |f| {
        stats::bootstrap_statistic(questions.len(), |draw| correlation(f, draw))
            .map(|(lo, hi)| [round_to(lo, 4), round_to(hi, 4)])
    };
    let (flips, flips_within_noise) = flips(oa, ob, &prompts);
    RankTransfer {
        model_a: name_a.to_string(),
        model_b: name_b.to_string(),
        prompts: prompts.len(),
        questions: questions.len(),
        kendall_tau_b: point(kendall_tau_b),
        kendall_tau_b_interval: interval(kendall_tau_b),
        spearman_rho: point(spearman_rho),
        spearman_rho_interval: interval(spearman_rho),
        flips,
        flips_within_noise,
    }
}

/// Both models' accuracies of the prompts evaluated by both on the
/// questions `draw` (a resample may repeat a question).
fn accuracies_on(ca: &Counts, cb: &Counts, draw: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let on = |cells: &Vec<(usize, usize)>| {
        let (passed, evaluated) = draw
            .iter()
            .map(|&q| cells[q])
            .fold((0, 0), |s, c| (s.0 + c.0, s.1 + c.1));
        accuracy(passed, evaluated)
    };
    ca.iter()
        .zip(cb)
        .filter_map(|(pa, pb)| Some((on(pa)?, on(pb)?)))
        .unzip()
}

/// Kendall's tau-b: (concordant - discordant) / sqrt((n0 - tx)(n0 - ty)),
/// n0 = n(n-1)/2 pairs, tx and ty the pairs tied in x and in y.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < MIN_RANKED_PROMPTS || y.len() != n {
        return None;
    }
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].total_cmp(&x[j]);
            let dy = y[i].total_cmp(&y[j]);
            use std::cmp::Ordering::Equal;
            match (dx, dy) {
                (Equal, Equal) => {
                    tied_x += 1;
                    tied_y += 1;
                }
                (Equal, _) => tied_x += 1,
                (_, Equal) => tied_y += 1,
                _ if dx == dy => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let pairs = (n * (n - 1) / 2) as i64;
    let denominator = (((pairs - tied_x) * (pairs - tied_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// Spearman's rho: Pearson's r of the ranks, tied values at their mean rank.
pub fn spearman_rho(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() < MIN_RANKED_PROMPTS || y.len() != x.len() {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

/// 1-based ranks, ties sharing the mean of the ranks they span.
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        // Positions start..=end hold equal values: ranks start+1 ..= end+1.
        let mean_rank = (start + end) as f64 / 2.0 + 1.0;
        for &i in &order[start..=end] {
            out[i] = mean_rank;
        }
        start = end + 1;
    }
    out
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    let denominator = (sxx * syy).sqrt();
    (denominator > 0.0).then(|| sxy / denominator)
}

/// Prompt pairs ordered oppositely by the two models: those beyond noise
/// in both (listed), and how many are not.
fn flips(oa: &Outcomes, ob: &Outcomes, prompts: &[(usize, usize)]) -> (Vec<OrderFlip>, usize) {
    let (mut listed, mut within_noise) = (Vec::new(), 0);
    for (i, &(pa, pb)) in prompts.iter().enumerate() {
        for &(qa, qb) in &prompts[i + 1..] {
            let (Some(a_p), Some(a_q), Some(b_p), Some(b_q)) = (
                prompt_accuracy(oa, pa),
                prompt_accuracy(oa, qa),
                prompt_accuracy(ob, pb),
                prompt_accuracy(ob, qb),
            ) else {
                continue;
            };
            // A tie in either model is no flip: one model has no order.
            let (order_a, order_b) = (a_p.total_cmp(&a_q), b_p.total_cmp(&b_q));
            if order_a.is_eq() || order_b.is_eq() || order_a == order_b {
                continue;
            }
            // `first` is the prompt model a ranks higher.
            let ((fa, fb), (sa, sb)) = if order_a.is_gt() {
                ((pa, pb), (qa, qb))
            } else {
                ((qa, qb), (pa, pb))
            };
            let on_a = paired(oa, fa, sa);
            let on_b = paired(ob, fb, sb);
            if !(on_a.first_beyond_noise() && on_b.second_beyond_noise()) {
                within_noise += 1;
                continue;
            }
            let (a_first, a_second) = if order_a.is_gt() {
                (a_p, a_q)
            } else {
                (a_q, a_p)
            };
            let (b_first, b_second) = if order_a.is_gt() {
                (b_p, b_q)
            } else {
                (b_q, b_p)
            };
            listed.push(OrderFlip {
                first: oa.prompts[fa].clone(),
                second: oa.prompts[sa].clone(),
                on_a: pair_on_model((a_first, a_second), &on_a),
                on_b: pair_on_model((b_first, b_second), &on_b),
            });
        }
    }
    (listed, within_noise)
}

fn pair_on_model(accuracies: (f64, f64), pair: &Paired) -> PairOnModel {
    PairOnModel {
        first_accuracy: accuracies.0,
        second_accuracy: accuracies.1,
        shared_cases: pair.shared,
        only_first_passed: pair.only_first,
        only_second_passed: pair.only_second,
        p_value: round_to(pair.p_value, 4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::robustness::tests::outcomes;

    const ABC: [&str; 3] = ["A", "B", "C"];
    const Q3: [&str; 3] = ["q1", "q2", "q3"];

    #[test]
    fn the_best_prompt_beats_its_runner_up_beyond_noise() {
        // A 12/12, B 2/12, C 0/12. A vs B on the 12 paired cases: 10 only
        // A passed, 0 only B: p = 2 * C(10,0) / 2^10 = 2/1024 < 0.05.
        let o = outcomes(
            &ABC,
            &Q3,
            &[
                &["1111", "1111", "1111"],
                &["1100", "0000", "0000"],
                &["0000", "0000", "0000"],
            ],
        );
        let best = best_prompt(&o).unwrap();
        assert_eq!((best.name.as_str(), best.accuracy), ("A", 100.0));
        assert!(best.tied_with.is_empty());
        let v = best.versus_runner_up.unwrap();
        assert_eq!(v.runner_up, "B");
        assert_eq!(
            (v.shared_cases, v.only_best_passed, v.only_runner_up_passed),
            (12, 10, 0)
        );
        assert_eq!(v.p_value, round_to(2.0 / 1024.0, 4));
        assert!(v.beats_by_more_than_noise);
    }

    #[test]
    fn a_small_lead_is_within_noise() {
        // A 6/12 = 50.0 %, B 4/12 = 33.3 %. Discordant: q1 slot 3 and q2
        // slot 1 and q3 slot 2 only A, q1 slot 4 only B: 3 vs 1,
        // p = 2 * (C(4,0) + C(4,1)) / 2^4 = 10/16.
        let o = outcomes(
            &["A", "B"],
            &Q3,
            &[&["1110", "1000", "1100"], &["1101", "0000", "1000"]],
        );
        let best = best_prompt(&o).unwrap();
        assert_eq!((best.name.as_str(), best.accuracy), ("A", 50.0));
        let v = best.versus_runner_up.unwrap();
        assert_eq!((v.only_best_passed, v.only_runner_up_passed), (3, 1));
        assert_eq!(v.p_value, 0.625);
        assert!(!v.beats_by_more_than_noise);
    }

    #[test]
    fn tied_best_prompts_are_named_and_not_beaten() {
        // A and B both 2/4 on different slots; C never evaluated.
        let o = outcomes(&ABC, &["q1"], &[&["1100"], &["0011"], &["xxxx"]]);
        let best = best_prompt(&o).unwrap();
        assert_eq!(
            (best.name.as_str(), best.tied_with.as_slice()),
            ("A", &["B".to_string()][..])
        );
        let v = best.versus_runner_up.unwrap();
        // 2 vs 2 discordant: p = 1.
        assert_eq!((v.runner_up.as_str(), v.p_value), ("B", 1.0));
        assert!(!v.beats_by_more_than_noise);
        let none = outcomes(&["A"], &["q1"], &[&["xx"]]);
        assert_eq!(best_prompt(&none), None);
    }

    #[test]
    fn kendall_tau_b_counts_ties_in_its_denominator() {
        // No ties: pairs C C C D C C -> (5 - 1) / 6.
        let tau = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((tau - 4.0 / 6.0).abs() < 1e-12);
        // x ties (1,2), y ties (2,3): C = 4, D = 0, n0 = 6, tx = ty = 1:
        // 4 / sqrt(5 * 5) = 0.8 (tau-a would say 4/6).
        let tau = kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]).unwrap();
        assert!((tau - 0.8).abs() < 1e-12, "{tau}");
        // A pair tied in both counts in tx and ty: 2 / sqrt(2 * 2) = 1.
        let tau = kendall_tau_b(&[1.0, 1.0, 2.0], &[5.0, 5.0, 6.0]).unwrap();
        assert!((tau - 1.0).abs() < 1e-12);
        assert_eq!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn spearman_rho_uses_mean_ranks_for_ties() {
        // Ranks [1.5, 1.5, 3, 4] and [1, 2.5, 2.5, 4], both of mean 2.5:
        // sxy = 1.5 + 0 + 0 + 2.25, sxx = syy = 4.5 -> 3.75 / 4.5
        // (the no-ties formula 1 - 6 * 1.5 / 60 would say 0.85).
        let rho = spearman_rho(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]).unwrap();
        assert!((rho - 3.75 / 4.5).abs() < 1e-12, "{rho}");
        let rho = spearman_rho(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap();
        assert!((rho + 1.0).abs() < 1e-12);
        assert_eq!(spearman_rho(&[1.0, 2.0], &[2.0, 1.0]), None);
    }

    /// Four prompts, two questions of four slots. X orders them
    /// P1 100 > P3 62.5 > P4 50 > P2 0, Y exactly the reverse.
    fn reversed() -> (Outcomes, Outcomes) {
        let prompts = ["P1", "P2", "P3", "P4"];
        let x = outcomes(
            &prompts,
            &["q1", "q2"],
            &[
                &["1111", "1111"],
                &["0000", "0000"],
                &["1111", "1000"],
                &["1111", "0000"],
            ],
        );
        let y = outcomes(
            &prompts,
            &["q1", "q2"],
            &[
                &["0000", "0000"],
                &["1111", "1111"],
                &["1111", "0000"],
                &["1111", "1000"],
            ],
        );
        (x, y)
    }

    #[test]
    fn a_reversed_ranking_has_tau_minus_one_and_a_bootstrap_over_questions() {
        let (x, y) = reversed();
        let t = ranking_transfer(("x", &x), ("y", &y));
        assert_eq!((t.prompts, t.questions), (4, 2));
        assert_eq!((t.kendall_tau_b, t.spearman_rho), (Some(-1.0), Some(-1.0)));
        // Resamples of the two questions: {q1, q2} (half of them) gives -1;
        // {q1, q1}: x = [100, 0, 100, 100], y = [0, 100, 100, 100]: D = 1,
        // tx = ty = 3 -> -1 / 3 (rho also -1/3); {q2, q2}: x = [100, 0, 25, 0],
        // y = [0, 100, 0, 25]: D = 4, tx = ty = 1 -> -4/5 (rho -8/9).
        // Percentiles 2.5 and 97.5: -1 and -1/3.
        let third = round_to(-1.0 / 3.0, 4);
        assert_eq!(t.kendall_tau_b_interval, Some([-1.0, third]));
        assert_eq!(t.spearman_rho_interval, Some([-1.0, third]));
    }

    #[test]
    fn only_flips_beyond_noise_in_both_models_are_listed() {
        let (x, y) = reversed();
        let t = ranking_transfer(("x", &x), ("y", &y));
        // All 6 pairs flip. P1 vs P2: 8 vs 0 discordant in each model,
        // p = 2 / 2^8 = 0.0078. The other five have at most 5 discordant
        // cases one way (p >= 2 / 2^5 = 0.0625): within noise.
        assert_eq!(t.flips_within_noise, 5);
        assert_eq!(t.flips.len(), 1);
        let f = &t.flips[0];
        assert_eq!((f.first.as_str(), f.second.as_str()), ("P1", "P2"));
        let on_a = PairOnModel {
            first_accuracy: 100.0,
            second_accuracy: 0.0,
            shared_cases: 8,
            only_first_passed: 8,
            only_second_passed: 0,
            p_value: round_to(2.0 / 256.0, 4),
        };
        assert_eq!(f.on_a, on_a);
        let on_b = PairOnModel {
            first_accuracy: 0.0,
            second_accuracy: 100.0,
            only_first_passed: 0,
            only_second_passed: 8,
            ..on_a
        };
        assert_eq!(f.on_b, on_b);
    }

    #[test]
    fn a_flip_beyond_noise_in_one_model_only_is_within_noise() {
        // x: A 8/8, B 0/8 (p = 0.0078); y: B 4/8 > A 3/8, 1 discordant (p = 1).
        let x = outcomes(&["A", "B"], &["q"], &[&["11111111"], &["00000000"]]);
        let y = outcomes(&["A", "B"], &["q"], &[&["11100000"], &["11110000"]]);
        let t = ranking_transfer(("x", &x), ("y", &y));
        assert!(t.flips.is_empty());
        assert_eq!(t.flips_within_noise, 1);
        // Two prompts: no rank correlation.
        assert_eq!((t.kendall_tau_b, t.spearman_rho), (None, None));
        assert_eq!(t.kendall_tau_b_interval, None);
    }

    #[test]
    fn ties_are_no_flip_and_prompts_one_model_never_evaluated_are_left_out() {
        let (x, _) = reversed();
        // y: P1 100, P2 0, P3 4/8 = 50, P4 4/8 = 50 (a tie); P5 only in x.
        let mut x = x;
        x.prompts.push("P5".into());
        x.attempts
            .push(vec![vec![Some(true); 4], vec![Some(true); 4]]);
        let y = outcomes(
            &["P1", "P2", "P3", "P4", "P5"],
            &["q1", "q2"],
            &[
                &["1111", "1111"],
                &["0000", "0000"],
                &["1111", "0000"],
                &["1110", "1000"],
                &["xxxx", "xxxx"],
            ],
        );
        let t = ranking_transfer(("x", &x), ("y", &y));
        assert_eq!(t.prompts, 4);
        // x = [100, 0, 62.5, 50], y = [100, 0, 50, 50]: 5 concordant pairs,
        // (P3, P4) tied in y: tau-b = 5 / sqrt(6 * 5).
        assert_eq!(t.kendall_tau_b, Some(round_to(5.0 / 30f64.sqrt(), 4)));
        // Ranks [4, 1, 3, 2] and [4, 1, 2.5, 2.5]: 4.5 / sqrt(5 * 4.5).
        assert_eq!(t.spearman_rho, Some(round_to(4.5 / 22.5f64.sqrt(), 4)));
        assert!(t.flips.is_empty());
        assert_eq!(t.flips_within_noise, 0);
    }

    #[test]
    fn cross_model_covers_every_model_and_pair_in_order() {
        let (x, y) = reversed();
        let c = cross_model(&[("x", &x), ("y", &y), ("z", &x)]);
        let names: Vec<&String> = c.best_prompts.keys().collect();
        assert_eq!(names, ["x", "y", "z"]);
        assert_eq!(c.best_prompts["y"].as_ref().unwrap().name, "P2");
        let pairs: Vec<(&str, &str)> = c
            .rank_transfer
            .iter()
            .map(|t| (t.model_a.as_str(), t.model_b.as_str()))
            .collect();
        assert_eq!(pairs, [("x", "y"), ("x", "z"), ("y", "z")]);
        // x against itself: the same ranking.
        assert_eq!(c.rank_transfer[1].kendall_tau_b, Some(1.0));
        let json = serde_json::to_value(&c).unwrap();
        assert!(json["rank_transfer"][0]["kendall_tau_b_interval"].is_array());
        assert_eq!(
            json["rank_transfer"][0]["flips"][0]["on_a"]["only_first_passed"],
            8
        );
        let back: CrossModel = serde_json::from_value(json).unwrap();
        assert_eq!(back, c);
    }
}
