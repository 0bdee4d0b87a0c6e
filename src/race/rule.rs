//! The race between prompts: a rule that may look after every question
//! and still stops a prompt wrongly in at most `alpha` of runs.
//!
//! Prompts answer the same questions in the same order, so each question
//! (and round, and sample: a *unit*) pairs every two prompts' outcomes. Only
//! the discordant units say which is better: one passed, the other failed.
//! If prompt `j` is in truth no worse than `i`, then on each discordant unit
//! `i` wins with probability at most 1/2, given everything before it. The
//! evidence that `i` beats `j` is the mixture likelihood ratio
//!
//! ```text
//! E(i over j) = ∫ (2θ)^w (2(1-θ))^l dπ(θ),  π uniform on [1/2, 1],
//! ```
//!
//! with `w` the units `i` won and `l` those `j` won. Each θ ≥ 1/2 makes the
//! product a nonnegative supermartingale under that null, and so does their
//! mixture; by Ville's inequality it ever reaches `1/a` with probability at
//! most `a`, however often it is looked at and whenever the race stops. A
//! prompt is eliminated once some live prompt's E over it reaches `m/alpha`,
//! where `m = k(k-1)` counts the ordered pairs of the `k` prompts: by the
//! union bound, any wrong elimination in the whole race has probability at
//! most `alpha`.
//!
//! In closed form (a binomial tail, no integral):
//! `E = 2^(n+1) B(w+1, l+1) I_{1/2}(l+1, w+1)` with `n = w + l`.
//!
//! A question with several units per prompt (rounds, samples) is one step,
//! not several: its units share the question, so they are not independent
//! evidence (under greedy decoding the rounds repeat one reply). With `d`
//! the question's mean difference over the units both prompts were judged
//! on (`d` in [-1, 1]; `λ = 2θ - 1`), the evidence is the mixture over
//! `λ` in [0, 1] of `Π (1 + λ d)`: with one unit per question this is the
//! formula above, and for any number of units it is a nonnegative
//! supermartingale whenever `i`'s chance to pass a question is no higher
//! than `j`'s, given the past. With several units the mixture is over an
//! even grid of `λ` (a discrete uniform prior, [`GRID`] points): still
//! exactly a mixture of supermartingales, so no approximation enters the
//! guarantee.
//!
//! Assumptions: the questions come in an order
//! fixed before the run (not chosen by looking at outcomes); a unit's
//! outcomes are paired only between cases of the same question, round and
//! sample; a case the harness could not judge (`api_error`, not evaluated)
//! pairs with nothing.

use statrs::function::beta::{beta_reg, ln_beta};

pub use crate::results::race::e_text;

/// ln E for `wins` units won and `losses` lost (see the module's formula).
pub fn ln_e_value(wins: u64, losses: u64) -> f64 {
    if wins + losses == 0 {
        return 0.0;
    }
    let (w, l) = (wins as f64, losses as f64);
    let tail = beta_reg(l + 1.0, w + 1.0, 0.5);
    if tail <= 0.0 {
        return f64::NEG_INFINITY;
    }
    (w + l + 1.0) * std::f64::consts::LN_2 + ln_beta(w + 1.0, l + 1.0) + tail.ln()
}

/// E itself (`f64::INFINITY` past f64's range).
pub fn e_value(wins: u64, losses: u64) -> f64 {
    ln_e_value(wins, losses).exp()
}

/// Points of the `λ` grid of a race with several units per question.
pub const GRID: usize = 101;

/// ln of the grid mixture: the mean of `exp(ln_products)`.
fn ln_mean_exp(ln_products: &[f64]) -> f64 {
    let top = ln_products
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    let sum: f64 = ln_products.iter().map(|l| (l - top).exp()).sum();
    top + (sum / ln_products.len() as f64).ln()
}

/// Where a prompt stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Standing {
    /// Still asked.
    Live,
    /// Asked nothing after `after_questions` questions: `by` beat it with
    /// evidence `e_value` (at least the race's bound).
    Eliminated {
        after_questions: usize,
        by: usize,
        e_value: f64,
    },
}

/// One question's outcome for one prompt and unit (round, sample): passed
/// or failed. Units a prompt has no outcome for (not asked, or not judged)
/// are simply absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Outcome {
    pub prompt: usize,
    /// Round and sample, the same numbering for every prompt.
    pub unit: (u32, u32),
    pub passed: bool,
}

/// The race's state: discordant counts of every ordered pair, who is live.
#[derive(Debug, Clone)]
pub struct Race {
    alpha: f64,
    /// `wins[i][j]`: units `i` passed and `j` failed, both judged.
    wins: Vec<Vec<u64>>,
    /// With several units per question: `grid[i][j][k]` is
    /// `ln Π (1 + λ_k d)` of `i` over `j` so far, `λ_k = k / (GRID - 1)`.
    /// Empty with one unit per question (the closed form is used).
    grid: Vec<Vec<Vec<f64>>>,
    /// `ln_e[i][j]`: ln E(i over j), kept from the last time `wins`
    /// changed (a question moves few pairs' counts).
    ln_e: Vec<Vec<f64>>,
    standing: Vec<Standing>,
    /// Questions looked at so far.
    questions: usize,
}

impl Race {
    /// A race between `prompts` prompts at level `alpha`, one unit
    /// (round and sample) per prompt and question.
    pub fn new(prompts: usize, alpha: f64) -> Race {
        Race::with_units(prompts, alpha, 1)
    }

    /// A race whose questions each have `units` units per prompt (rounds
    /// x samples): with more than one, a question's units are one step.
    pub fn with_units(prompts: usize, alpha: f64, units: usize) -> Race {
        let grid = match units {
            0 | 1 => Vec::new(),
            _ => vec![vec![vec![0.0; GRID]; prompts]; prompts],
        };
        Race {
            alpha,
            grid,
            wins: vec![vec![0; prompts]; prompts],
            ln_e: vec![vec![0.0; prompts]; prompts],
            standing: vec![Standing::Live; prompts],
            questions: 0,
        }
    }

    /// The bound an E must reach: the number of ordered pairs over alpha.
    pub fn bound(&self) -> f64 {
        let k = self.standing.len() as f64;
        (k * (k - 1.0)).max(1.0) / self.alpha
    }

    pub fn standing(&self, prompt: usize) -> &Standing {
        &self.standing[prompt]
    }

    pub fn is_live(&self, prompt: usize) -> bool {
        self.standing[prompt] == Standing::Live
    }

    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.standing.len()).filter(|&p| self.is_live(p))
    }

    /// One prompt left: nothing more to decide.
    pub fn decided(&self) -> bool {
        self.live().count() <= 1
    }

    pub fn questions(&self) -> usize {
        self.questions
    }

    /// Units `i` passed and `j` failed.
    pub fn wins(&self, i: usize, j: usize) -> u64 {
        self.wins[i][j]
    }

    /// The evidence that `i` is better than `j` so far.
    pub fn e(&self, i: usize, j: usize) -> f64 {
        self.ln_e[i][j].exp()
    }

    /// Takes one question's outcomes (every live prompt's, every unit) and
    /// returns the prompts it eliminated. Outcomes of prompts no longer
    /// live are ignored: they were asked nothing.
    pub fn observe(&mut self, outcomes: &[Outcome]) -> Vec<usize> {
        self.questions += 1;
        let mut sorted: Vec<Outcome> = outcomes
            .iter()
            .copied()
            .filter(|o| self.is_live(o.prompt))
            .collect();
        sorted.sort();
        // Pair by unit.
        let mut units: std::collections::BTreeMap<(u32, u32), Vec<(usize, bool)>> =
            Default::default();
        for o in &sorted {
            units.entry(o.unit).or_default().push((o.prompt, o.passed));
        }
        let k = self.standing.len();
        // Per ordered pair: units both judged, and the sum of i's pass
        // minus j's over them.
        let mut paired = vec![vec![(0u32, 0i32); k]; k];
        let mut moved = Vec::new();
        for judged in units.values() {
            for &(i, pi) in judged {
                for &(j, pj) in judged {
                    if i == j {
                        continue;
                    }
                    paired[i][j].0 += 1;
                    paired[i][j].1 += i32::from(pi) - i32::from(pj);
                    if pi && !pj {
                        self.wins[i][j] += 1;
                        moved.push((i.min(j), i.max(j)));
                    }
                }
            }
        }
        moved.sort_unstable();
        moved.dedup();
        if self.grid.is_empty() {
            for (i, j) in moved {
                self.ln_e[i][j] = ln_e_value(self.wins[i][j], self.wins[j][i]);
                self.ln_e[j][i] = ln_e_value(self.wins[j][i], self.wins[i][j]);
            }
        } else {
            for (i, j) in moved {
                let (n, diff) = paired[i][j];
                let d = f64::from(diff) / f64::from(n);
                for (step, (over, under)) in [(d, (i, j)), (-d, (j, i))] {
                    let products = &mut self.grid[over][under];
                    for (g, ln) in products.iter_mut().enumerate() {
                        let lambda = g as f64 / (GRID - 1) as f64;
                        *ln += (1.0 + lambda * step).ln();
                    }
                    self.ln_e[over][under] = ln_mean_exp(&self.grid[over][under]);
                }
            }
        }
        self.decide()
    }

    /// Eliminates every live prompt some live prompt beats beyond the
    /// bound, naming the strongest such evidence.
    fn decide(&mut self) -> Vec<usize> {
        let bound = self.bound().ln();
        let live: Vec<usize> = self.live().collect();
        let mut beaten: Vec<(usize, usize, f64)> = Vec::new();
        for &j in &live {
            let strongest = live
                .iter()
                .filter(|&&i| i != j)
                .map(|&i| (i, self.ln_e[i][j]))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((i, ln_e)) = strongest
                && ln_e >= bound
            {
                beaten.push((j, i, ln_e));
            }
        }
        // Every live prompt beaten at once would take a cycle of
        // evidence (i over j over k over i), each beyond the bound: far
        // below alpha under any truth. Nobody is eliminated then; the
        // next questions decide.
        if beaten.len() == live.len() {
            return Vec::new();
        }
        for &(j, by, ln_e) in &beaten {
            self.standing[j] = Standing::Eliminated {
                after_questions: self.questions,
                by,
                e_value: ln_e.exp(),
            };
        }
        beaten.into_iter().map(|(j, ..)| j).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integral done by hand: ∫_{1/2}^{1} Π dθ / (1/2).
    fn by_quadrature(w: u64, l: u64) -> f64 {
        let steps = 200_000;
        let h = 0.5 / steps as f64;
        (0..steps)
            .map(|s| {
                let t = 0.5 + (s as f64 + 0.5) * h;
                (2.0 * t).powi(w as i32) * (2.0 * (1.0 - t)).powi(l as i32)
            })
            .sum::<f64>()
            * h
            / 0.5
    }

    #[test]
    fn the_closed_form_is_the_mixture_integral() {
        assert_eq!(e_value(0, 0), 1.0);
        assert!((e_value(1, 0) - 1.5).abs() < 1e-12);
        for (w, l) in [(3, 1), (10, 2), (2, 10), (25, 5), (40, 38), (0, 7)] {
            let want = by_quadrature(w, l);
            let got = e_value(w, l);
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-12),
                "w {w} l {l}: {got} against {want}"
            );
        }
    }

    #[test]
    fn evidence_grows_with_wins_and_shrinks_with_losses() {
        assert!(e_value(10, 0) > e_value(9, 0));
        assert!(e_value(10, 1) < e_value(10, 0));
        // A tie is never evidence.
        assert!(e_value(20, 20) < 1.0);
        // 1,000 to 0 is beyond f64 as E, not as ln E.
        assert!(ln_e_value(1000, 0) > 600.0);
    }

    fn question(passed: &[bool]) -> Vec<Outcome> {
        passed
            .iter()
            .enumerate()
            .map(|(prompt, &passed)| Outcome {
                prompt,
                unit: (1, 0),
                passed,
            })
            .collect()
    }

    #[test]
    fn a_prompt_that_keeps_losing_is_eliminated_by_its_winner_and_asked_nothing_more() {
        let mut race = Race::new(3, 0.05);
        assert_eq!(race.bound(), 120.0);
        let mut gone_at = None;
        for q in 1..=40 {
            // Prompt 0 passes, 2 fails; 1 passes every other question.
            let out = race.observe(&question(&[true, q % 2 == 0, false]));
            if out.contains(&2) {
                gone_at = Some(q);
                break;
            }
        }
        let q = gone_at.expect("eliminated within 40 questions");
        // E(0 over 2) after n straight wins: (2^(n+1) - 1) / (n+1).
        let first = (1..=40u64)
            .find(|&n| ((2f64.powi(n as i32 + 1) - 1.0) / (n + 1) as f64) >= 120.0)
            .unwrap();
        assert_eq!(q as u64, first);
        match race.standing(2) {
            Standing::Eliminated {
                after_questions,
                by,
                e_value,
            } => {
                assert_eq!((*after_questions, *by), (q, 0));
                assert!(*e_value >= 120.0);
            }
            other => panic!("{other:?}"),
        }
        // Its later outcomes are ignored.
        let before = race.wins(0, 2);
        race.observe(&question(&[true, true, false]));
        assert_eq!(race.wins(0, 2), before);
        assert!(race.is_live(0) && race.is_live(1));
    }

    #[test]
    fn only_units_both_prompts_were_judged_on_pair() {
        let mut race = Race::new(2, 0.05);
        race.observe(&[
            Outcome {
                prompt: 0,
                unit: (1, 0),
                passed: true,
            },
            // Round 2 of prompt 1 was not judged (api_error): no pair.
            Outcome {
                prompt: 0,
                unit: (2, 0),
                passed: true,
            },
            Outcome {
                prompt: 1,
                unit: (1, 0),
                passed: false,
            },
        ]);
        assert_eq!((race.wins(0, 1), race.wins(1, 0)), (1, 0));
    }

    /// One question at `rounds` rounds: each prompt's outcome the same in
    /// every round (greedy decoding).
    fn repeated(passed: &[bool], rounds: u32) -> Vec<Outcome> {
        (1..=rounds)
            .flat_map(|round| {
                passed
                    .iter()
                    .enumerate()
                    .map(move |(prompt, &passed)| Outcome {
                        prompt,
                        unit: (round, 0),
                        passed,
                    })
            })
            .collect()
    }

    #[test]
    fn repeated_rounds_are_one_question_of_evidence_not_three() {
        // A bound no evidence here reaches: nobody is eliminated.
        let mut one = Race::new(2, 1e-4);
        let mut three = Race::with_units(2, 1e-4, 3);
        for q in 0..12 {
            let out = [true, q % 4 == 0];
            one.observe(&question(&out));
            three.observe(&repeated(&out, 3));
        }
        // 9 questions won, none lost: the grid's mixture is the closed
        // form's (the same prior, on a grid) whatever the rounds.
        let (closed, grid) = (one.e(0, 1), three.e(0, 1));
        assert!(
            (grid / closed - 1.0).abs() < 0.02,
            "{grid} against {closed}"
        );
        // Counting each round as a unit would have claimed far more.
        assert!(e_value(27, 0) > 1000.0 * grid);
        assert_eq!(three.wins(0, 1), 27);
    }

    /// Outcomes from (prompt, round, passed).
    fn units(rows: &[(usize, u32, bool)]) -> Vec<Outcome> {
        rows.iter()
            .map(|&(prompt, round, passed)| Outcome {
                prompt,
                unit: (round, 0),
                passed,
            })
            .collect()
    }

    #[test]
    fn rounds_that_disagree_weigh_a_question_by_its_mean() {
        let mut race = Race::with_units(2, 0.05, 2);
        // Prompt 0 wins round 1, loses round 2: no evidence either way.
        race.observe(&units(&[
            (0, 1, true),
            (1, 1, false),
            (0, 2, false),
            (1, 2, true),
        ]));
        assert_eq!((race.e(0, 1), race.e(1, 0)), (1.0, 1.0));
        // Half the rounds won, the rest tied: half a question's evidence.
        race.observe(&units(&[
            (0, 1, true),
            (1, 1, false),
            (0, 2, true),
            (1, 2, true),
        ]));
        // The mean of 1 + λ/2 over λ in [0, 1] is 1.25.
        assert!((race.e(0, 1) - 1.25).abs() < 1e-9, "{}", race.e(0, 1));
    }

    #[test]
    fn identical_prompts_are_never_separated() {
        let mut race = Race::new(4, 0.05);
        for q in 0..500 {
            race.observe(&question(&[q % 3 == 0; 4]));
        }
        assert_eq!(race.live().count(), 4);
    }
}
