//! The one best-prompt rule, for one run's summary and for each model of a
//! multi-model run: the highest accuracy as shown (percent, one decimal),
//! so the winner agrees with what readers see; prompts sharing it are named
//! in `tied_with`, the first in suite order keeps the spec's `name`; the
//! runner-up (the next by accuracy, suite order among equals) is paired
//! with the best case by case.

use super::stats::{Paired, round_to};
use crate::results::{BestPrompt, VersusRunnerUp};

/// `scored`: (prompt, shown accuracy) in suite order, `None` for a prompt
/// nothing evaluated; `pair(best, runner_up)` pairs their shared cases
/// (`None` when either has no cases to pair).
pub(crate) fn best_prompt<'a>(
    scored: impl IntoIterator<Item = (&'a str, Option<f64>)>,
    pair: impl Fn(&str, &str) -> Option<Paired>,
) -> Option<BestPrompt> {
    let mut scored: Vec<(&str, f64)> = scored
        .into_iter()
        .filter_map(|(name, accuracy)| Some((name, accuracy?)))
        .collect();
    // Stable: equal accuracies keep suite order.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(name, top) = scored.first()?;
    let tied_with = scored[1..]
        .iter()
        .filter(|(_, a)| *a == top)
        .map(|(n, _)| n.to_string())
        .collect();
    let versus_runner_up = scored.get(1).and_then(|&(runner_up, _)| {
        let paired = pair(name, runner_up)?;
        Some(VersusRunnerUp {
            runner_up: runner_up.to_string(),
            shared_cases: paired.shared,
            only_best_passed: paired.only_first,
            only_runner_up_passed: paired.only_second,
            p_value: round_to(paired.p_value, 4),
            beats_by_more_than_noise: paired.first_beyond_noise(),
        })
    });
    Some(BestPrompt {
        name: name.to_string(),
        accuracy: top,
        tied_with,
        versus_runner_up,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(only_first: usize, only_second: usize, both: usize) -> Paired {
        Paired::of(
            std::iter::repeat_n((true, false), only_first)
                .chain(std::iter::repeat_n((false, true), only_second))
                .chain(std::iter::repeat_n((true, true), both)),
        )
    }

    #[test]
    fn ties_keep_suite_order_and_the_runner_up_is_the_next_by_accuracy() {
        let scored = [
            ("a", Some(50.0)),
            ("b", Some(80.0)),
            ("c", None),
            ("d", Some(80.0)),
        ];
        let best = best_prompt(scored, |_, _| Some(pairs(0, 0, 4))).expect("a best");
        assert_eq!(best.name, "b");
        assert_eq!(best.tied_with, ["d"]);
        let versus = best.versus_runner_up.expect("a runner-up");
        assert_eq!(versus.runner_up, "d");
        assert!(!versus.beats_by_more_than_noise);
    }

    #[test]
    fn beyond_noise_needs_the_best_to_win_the_discordant_cases() {
        // p < 0.05 on 10 discordant cases that all favour the best ...
        let best = best_prompt([("a", Some(90.0)), ("b", Some(40.0))], |_, _| {
            Some(pairs(10, 0, 0))
        });
        let versus = best.and_then(|b| b.versus_runner_up).expect("a runner-up");
        assert!(versus.beats_by_more_than_noise);
        assert_eq!(versus.p_value, 0.002);
        // ... and not when they favour the runner-up (a corner the shown
        // accuracy and the pairing can disagree on: a case only the
        // runner-up evaluated counts in its accuracy, never in the pairing).
        let best = best_prompt([("a", Some(90.0)), ("b", Some(40.0))], |_, _| {
            Some(pairs(0, 10, 0))
        });
        let versus = best.and_then(|b| b.versus_runner_up).expect("a runner-up");
        assert!(!versus.beats_by_more_than_noise);
    }

    #[test]
    fn nothing_evaluated_means_no_best() {
        assert_eq!(best_prompt([("a", None)], |_, _| None), None);
    }
}
