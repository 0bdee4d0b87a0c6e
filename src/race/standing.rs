//! What a race decided, rebuilt from the run's planned cases and the
//! verdicts its journal holds.
//!
//! The rule is a function of the outcomes, question by question, so the
//! gate that the scheduler held can be built again after the run from the
//! journal alone: an interrupted, resumed, killed or replayed race reports
//! exactly what the live one decided, and nothing is kept only in memory.
//! Its first step says which planned cases the race will never ask (not
//! run, with the reason) and which it would still ask (the run stopped
//! inside the race).

use std::collections::{HashMap, HashSet};

use super::gate::RaceGate;
use super::rule::{Race, Standing};
use crate::case::{CaseId, Verdict};
use crate::config::RaceConfig;
use crate::results::race::{RaceEnd, RacePrompt, RaceResult, RaceStatus};
use crate::results::round_to;

/// The races of a run as its journal leaves them.
pub struct Rebuilt {
    /// Each model's race (`None`: the run's one model); a model whose
    /// filters kept fewer than two prompts has none.
    pub races: Vec<(Option<String>, RaceResult)>,
    /// Planned cases the race decided not to ask, with the reason.
    pub not_run: HashMap<CaseId, String>,
}

/// The races of `planned` (the run's cases, in plan order) given the
/// `finished` cases' verdicts and the cases that could not be evaluated;
/// `prompts` in suite order orders each race's prompts.
pub fn rebuild(
    planned: &[CaseId],
    unevaluated: &[CaseId],
    finished: &HashMap<CaseId, Verdict>,
    prompts: &[String],
    settings: &RaceConfig,
) -> Rebuilt {
    let unevaluated_set: HashSet<&CaseId> = unevaluated.iter().collect();
    let open: Vec<CaseId> = planned
        .iter()
        .filter(|c| !finished.contains_key(*c) && !unevaluated_set.contains(c))
        .cloned()
        .collect();
    let earlier: Vec<(CaseId, Option<bool>)> = finished
        .iter()
        .map(|(c, v)| (c.clone(), v.judged()))
        .chain(unevaluated.iter().map(|c| (c.clone(), None)))
        .collect();
    let (gate, step) = RaceGate::new(&open, &earlier, prompts, settings.alpha, settings.max_cases);
    let still: HashSet<&CaseId> = step.release.iter().map(|&i| &open[i]).collect();
    let not_run: HashMap<CaseId, String> = step
        .skip
        .into_iter()
        .map(|(i, why)| (open[i].clone(), why))
        .collect();
    let mut races = Vec::new();
    for (model, names, race, capped) in gate.races() {
        if names.len() < 2 {
            continue;
        }
        let mine = |c: &CaseId| c.model.as_deref() == model;
        let unfinished = still.iter().any(|c| mine(c));
        let ended = if race.decided() {
            RaceEnd::Decided
        } else if unfinished {
            RaceEnd::Unfinished
        } else if capped {
            RaceEnd::MaxCases
        } else {
            RaceEnd::QuestionsRanOut
        };
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by_key(|&p| prompts.iter().position(|n| *n == names[p]));
        let tally = Tally::of(finished, planned, model);
        let prompts = order
            .into_iter()
            .map(|p| {
                let name = names[p].clone();
                let standing = prompt_standing(race, names, p, ended, tally.of_prompt(&name));
                (name, standing)
            })
            .collect();
        let mut not_run_names: Vec<(usize, String)> = planned
            .iter()
            .enumerate()
            .filter(|(_, c)| mine(c) && not_run.contains_key(*c))
            .map(|(i, c)| (i, c.test_name()))
            .collect();
        not_run_names.sort_unstable();
        races.push((
            model.map(str::to_string),
            RaceResult {
                alpha: settings.alpha,
                bound: race.bound(),
                max_cases: settings.max_cases,
                ended,
                questions: race.questions(),
                calls: tally.calls,
                grid_calls: planned.iter().filter(|c| mine(c)).count(),
                prompts,
                not_run: not_run_names.into_iter().map(|(_, n)| n).collect(),
            },
        ));
    }
    Rebuilt { races, not_run }
}

/// One prompt's cases.
#[derive(Clone, Copy, Default)]
struct Counts {
    planned: usize,
    asked: usize,
    judged: usize,
    passed: usize,
}

/// One model's finished cases, counted per prompt.
struct Tally {
    /// Cases asked (finished, whatever their verdict).
    calls: usize,
    /// Prompt -> its counts.
    per_prompt: HashMap<String, Counts>,
}

impl Tally {
    fn of(finished: &HashMap<CaseId, Verdict>, planned: &[CaseId], model: Option<&str>) -> Tally {
        let mut tally = Tally {
            calls: 0,
            per_prompt: HashMap::new(),
        };
        for c in planned.iter().filter(|c| c.model.as_deref() == model) {
            let counts = tally.per_prompt.entry(c.prompt.to_string()).or_default();
            counts.planned += 1;
            let Some(verdict) = finished.get(c) else {
                continue;
            };
            tally.calls += 1;
            counts.asked += 1;
            if let Some(passed) = verdict.judged() {
                counts.judged += 1;
                counts.passed += usize::from(passed);
            }
        }
        tally
    }

    fn of_prompt(&self, prompt: &str) -> Counts {
        self.per_prompt.get(prompt).copied().unwrap_or_default()
    }
}

fn prompt_standing(
    race: &Race,
    names: &[String],
    p: usize,
    ended: RaceEnd,
    counts: Counts,
) -> RacePrompt {
    let Counts {
        planned,
        asked,
        judged,
        passed,
    } = counts;
    let (status, after, by, e) = match race.standing(p) {
        Standing::Eliminated {
            after_questions,
            by,
            e_value,
        } => (
            RaceStatus::Eliminated,
            Some(*after_questions),
            Some(names[*by].clone()),
            Some(*e_value),
        ),
        Standing::Live => {
            let status = match ended {
                RaceEnd::Decided => RaceStatus::Winner,
                RaceEnd::Unfinished => RaceStatus::Running,
                RaceEnd::QuestionsRanOut | RaceEnd::MaxCases => RaceStatus::Tied,
            };
            // The strongest evidence against it so far, beside the bound.
            let against = race
                .live()
                .filter(|&j| j != p)
                .filter(|&j| race.wins(j, p) + race.wins(p, j) > 0)
                .map(|j| race.e(j, p))
                .fold(None, |best: Option<f64>, e| {
                    Some(best.map_or(e, |b| b.max(e)))
                });
            (status, None, None, against)
        }
    };
    // Percent with one decimal, as summary.json's accuracies.
    let accuracy = crate::analysis::prompt_results::percent(passed, judged).unwrap_or(0.0);
    RacePrompt {
        status,
        eliminated_after: after,
        eliminated_by: by,
        e_value: e.map(|e| round_to(e, 1)),
        judged,
        passed,
        accuracy,
        interval: crate::analysis::stats::wilson(passed, judged)
            .map(|(lo, hi)| (round_to(100.0 * lo, 1), round_to(100.0 * hi, 1))),
        partial: asked < planned,
    }
}
