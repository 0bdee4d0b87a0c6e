//! What share of the grid's calls a race is expected to make: the race's
//! own gate (`crate::race::gate`) run on the planned cases, with outcomes
//! drawn for a stated field of prompts, many times.

use std::collections::VecDeque;

use crate::case::CaseId;
use crate::race::gate::RaceGate;

/// The field the share is simulated for: one prompt this many points of
/// accuracy ahead of the others, who are level at [`LEVEL`].
pub const LEAD: f64 = 0.20;
pub const LEVEL: f64 = 0.40;

/// The mean share of `cases` a race asks when the first prompt of `order`
/// leads the others by [`LEAD`], each case's outcome drawn independently;
/// `None` with fewer than two prompts or no case.
pub fn expected_share(
    cases: &[CaseId],
    order: &[String],
    alpha: f64,
    max_cases: Option<usize>,
) -> Option<f64> {
    if order.len() < 2 || cases.is_empty() {
        return None;
    }
    // Fewer runs for a large grid: the mean settles fast, and the plan
    // must not take longer than a second or so.
    let runs = (2_000_000 / cases.len()).clamp(10, 200);
    let mut draw = Xorshift(0x9E37_79B9_7F4A_7C15);
    let mut asked_total = 0usize;
    for _ in 0..runs {
        let (mut gate, first) = RaceGate::new(cases, &[], order, alpha, max_cases);
        let mut ready: VecDeque<usize> = first.release.into();
        let mut asked = 0usize;
        while let Some(i) = ready.pop_front() {
            asked += 1;
            let p = match order.first() == Some(&cases[i].prompt.to_string()) {
                true => LEVEL + LEAD,
                false => LEVEL,
            };
            let step = gate.ended(i, Some(draw.next() < p));
            ready.extend(step.release);
        }
        asked_total += asked;
    }
    Some(asked_total as f64 / (runs * cases.len()) as f64)
}

/// A small, seeded generator: the plan says the same each time.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(prompts: &[&str], questions: usize) -> Vec<CaseId> {
        let mut out = Vec::new();
        for q in 1..=questions {
            for p in prompts {
                out.push(CaseId {
                    model: None,
                    prompt: (*p).into(),
                    question: q,
                    question_id: format!("q{q}").into(),
                    round: 1,
                    sample: None,
                });
            }
        }
        out
    }

    #[test]
    fn a_lead_over_many_questions_saves_calls_and_a_short_race_saves_none() {
        let order: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let long = expected_share(&grid(&["a", "b", "c", "d"], 300), &order, 0.05, None).unwrap();
        assert!(long < 0.7, "300 questions with a 20-point lead: {long}");
        let short = expected_share(&grid(&["a", "b", "c", "d"], 10), &order, 0.05, None).unwrap();
        assert!(
            short > 0.99,
            "10 questions cannot separate anything: {short}"
        );
        assert_eq!(
            expected_share(&grid(&["a"], 10), &order[..1], 0.05, None),
            None
        );
    }
}
