//! The race's hold on the scheduler (issue #44): which cases may be asked
//! now, and which will never be.
//!
//! In a race the prompts of a model answer the questions in lockstep: a
//! question is opened only once every live prompt's cases of the previous
//! one (all rounds and samples) have ended and the rule
//! ([`crate::race::rule`]) has looked at their outcomes. A prompt the
//! rule eliminates is asked nothing more; when one prompt is left, when the
//! next question would pass `max_cases`, or when the questions run out,
//! the race ends and its remaining cases end as not run, with the reason.
//! Each model races separately. Outcomes of cases finished before (a
//! resumed run) are fed to the rule first, question by question, so a
//! resumed race reaches the decisions an uninterrupted one reached.

use super::rule::{Outcome, Race, Standing, e_text};
use crate::case::CaseId;

/// What ending a case changed.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// Scheduled cases (positions) that may now be asked.
    pub release: Vec<usize>,
    /// Scheduled cases that will never be asked, with the reason.
    pub skip: Vec<(usize, String)>,
}

/// One model's race.
struct ModelRace {
    /// `None` in a one-model run.
    model: Option<String>,
    race: Race,
    prompts: Vec<String>,
    /// Question numbers, ascending: the order the race asks them in.
    questions: Vec<usize>,
    /// Per question, the scheduled cases of each prompt.
    scheduled: Vec<Vec<Vec<usize>>>,
    /// Per question, the outcomes of cases that ended before this run.
    earlier: Vec<Vec<Earlier>>,
    /// The question being asked; `scheduled.len()` once the race is over.
    open: usize,
    /// Scheduled cases of the open question that have not ended.
    outstanding: usize,
    /// Outcomes of the open question so far.
    outcomes: Vec<Outcome>,
    /// Cases asked (or answered before) so far, against `max_cases`.
    asked: usize,
    max_cases: Option<usize>,
    /// The race stopped at `max_cases`, undecided.
    capped: bool,
    /// False with fewer than two prompts (a filter kept one): there is
    /// nothing to compare, so its cases are asked as without a race.
    racing: bool,
}

/// A case that ended before this run: (prompt, unit, whether it passed
/// when judged).
type Earlier = (usize, (u32, u32), Option<bool>);

/// Where a scheduled case sits: (race, prompt, question, unit).
type Place = (usize, usize, usize, (u32, u32));

/// The scheduler's view of every race of the run.
pub struct RaceGate {
    races: Vec<ModelRace>,
    place: Vec<Place>,
    /// Scheduled cases already ended or skipped.
    done: Vec<bool>,
}

fn unit(case: &CaseId) -> (u32, u32) {
    (case.round, case.sample.unwrap_or(0))
}

impl RaceGate {
    /// The races of `scheduled` (the cases this run will ask, in plan
    /// order) at level `alpha`, with the outcomes of the cases that ended
    /// before (`earlier`: case and whether its reply passed, `None` when it
    /// was not judged). `order` is the suite's prompts: each race numbers
    /// its prompts in that order whatever was asked first, so a race
    /// rebuilt from the journal names the same prompt where two beat a
    /// third equally. Returns the gate and its first step.
    pub fn new(
        scheduled: &[CaseId],
        earlier: &[(CaseId, Option<bool>)],
        order: &[String],
        alpha: f64,
        max_cases: Option<usize>,
    ) -> (RaceGate, Step) {
        let mut models: Vec<Option<String>> = Vec::new();
        let all = scheduled.iter().chain(earlier.iter().map(|(c, _)| c));
        for c in all.clone() {
            let m = c.model.as_deref().map(str::to_string);
            if !models.contains(&m) {
                models.push(m);
            }
        }
        let mut races = Vec::new();
        for model in &models {
            let mine = |c: &&CaseId| c.model.as_deref() == model.as_deref();
            let mut prompts: Vec<String> = Vec::new();
            let mut questions: Vec<usize> = Vec::new();
            for c in all.clone().filter(mine) {
                if !prompts.iter().any(|p| *p == *c.prompt) {
                    prompts.push(c.prompt.to_string());
                }
                questions.push(c.question);
            }
            questions.sort_unstable();
            questions.dedup();
            // Suite order; a prompt the suite does not name goes last.
            prompts.sort_by_key(|p| order.iter().position(|o| o == p).unwrap_or(usize::MAX));
            let mut earlier_at = vec![Vec::new(); questions.len()];
            for (c, judged) in earlier.iter().filter(|(c, _)| mine(&c)) {
                let p = prompts.iter().position(|p| *p == *c.prompt).unwrap();
                let q = questions.binary_search(&c.question).unwrap();
                earlier_at[q].push((p, unit(c), *judged));
            }
            // Rounds x samples: a question's units are one step of the rule.
            let mut units: Vec<(u32, u32)> = all.clone().filter(mine).map(unit).collect();
            units.sort_unstable();
            units.dedup();
            races.push(ModelRace {
                model: model.clone(),
                race: Race::with_units(prompts.len(), alpha, units.len()),
                scheduled: vec![vec![Vec::new(); prompts.len()]; questions.len()],
                earlier: earlier_at,
                prompts,
                questions,
                open: 0,
                outstanding: 0,
                outcomes: Vec::new(),
                asked: 0,
                max_cases,
                capped: false,
                racing: true,
            });
        }
        let mut place = Vec::with_capacity(scheduled.len());
        for (i, c) in scheduled.iter().enumerate() {
            let r = models
                .iter()
                .position(|m| m.as_deref() == c.model.as_deref())
                .unwrap();
            let race = &mut races[r];
            let p = race.prompts.iter().position(|p| *p == *c.prompt).unwrap();
            let q = race.questions.binary_search(&c.question).unwrap();
            race.scheduled[q][p].push(i);
            place.push((r, p, q, unit(c)));
        }
        let mut gate = RaceGate {
            races,
            place,
            done: vec![false; scheduled.len()],
        };
        let mut step = Step::default();
        for r in 0..gate.races.len() {
            let race = &mut gate.races[r];
            race.racing = race.prompts.len() >= 2;
            if race.racing {
                gate.open_from(r, 0, &mut step);
            } else {
                race.open = race.scheduled.len();
                let all = race.scheduled.iter().flatten().flatten().copied();
                step.release.extend(all);
            }
        }
        (gate, step)
    }

    /// Whether the scheduled case `i` may be asked now.
    pub fn released(&self, i: usize) -> bool {
        let (r, p, q, _) = self.place[i];
        let race = &self.races[r];
        !self.done[i] && (!race.racing || (q == race.open && race.race.is_live(p)))
    }

    /// The scheduled case `i` ended; `judged` is whether its reply passed
    /// (`None`: not judged, or never asked). Returns what that changed.
    pub fn ended(&mut self, i: usize, judged: Option<bool>) -> Step {
        let mut step = Step::default();
        if std::mem::replace(&mut self.done[i], true) {
            return step;
        }
        let (r, p, q, unit) = self.place[i];
        let race = &mut self.races[r];
        if q != race.open || !race.race.is_live(p) {
            return step;
        }
        if let Some(passed) = judged {
            race.outcomes.push(Outcome {
                prompt: p,
                unit,
                passed,
            });
        }
        race.outstanding -= 1;
        if race.outstanding == 0 {
            self.close_question(r, &mut step);
        }
        step
    }

    /// The rule looks at the open question; the eliminated prompts' cases
    /// are skipped and the next question opened.
    fn close_question(&mut self, r: usize, step: &mut Step) {
        let race = &mut self.races[r];
        let outcomes = std::mem::take(&mut race.outcomes);
        let gone = race.race.observe(&outcomes);
        let after = race.open + 1;
        self.skip_eliminated(r, gone, after, step);
        self.open_from(r, after, step);
    }

    /// The cases of the prompts `gone` from question `from` on.
    fn skip_eliminated(&mut self, r: usize, gone: Vec<usize>, from: usize, step: &mut Step) {
        for p in gone {
            let reason = self.eliminated_reason(r, p);
            let later: Vec<usize> = self.races[r].scheduled[from..]
                .iter()
                .flat_map(|q| q[p].iter().copied())
                .collect();
            self.skip(later, &reason, step);
        }
    }

    /// Opens the first question from `q` on that has cases to ask, feeding
    /// the rule the questions that ended before this run; ends the race
    /// when it is decided, out of questions, or at `max_cases`.
    fn open_from(&mut self, r: usize, mut q: usize, step: &mut Step) {
        loop {
            let race = &mut self.races[r];
            if q >= race.scheduled.len() {
                race.open = race.scheduled.len();
                return;
            }
            if race.race.decided() {
                let reason = self.decided_reason(r);
                self.stop(r, q, reason, step);
                return;
            }
            let race = &mut self.races[r];
            let live: Vec<usize> = race.race.live().collect();
            let cases: Vec<usize> = live
                .iter()
                .flat_map(|&p| race.scheduled[q][p].iter().copied())
                .collect();
            // The live prompts' cases of this question that ended before.
            let answered: Vec<Earlier> = race.earlier[q]
                .iter()
                .copied()
                .filter(|(p, ..)| race.race.is_live(*p))
                .collect();
            let before: Vec<Outcome> = answered
                .iter()
                .filter_map(|&(prompt, unit, judged)| {
                    judged.map(|passed| Outcome {
                        prompt,
                        unit,
                        passed,
                    })
                })
                .collect();
            let answered = answered.len();
            if let Some(max) = race.max_cases
                && race.asked + cases.len() + answered > max
            {
                let reason = format!(
                    "not run: the race{} stopped at max_cases = {max} ({} cases asked, the next question has {})",
                    race.label(),
                    race.asked,
                    cases.len() + answered
                );
                race.capped = true;
                self.stop(r, q, reason, step);
                return;
            }
            race.asked += cases.len() + answered;
            race.open = q;
            if cases.is_empty() {
                // Every live prompt answered it before this run.
                let gone = race.race.observe(&before);
                self.skip_eliminated(r, gone, q + 1, step);
                q += 1;
                continue;
            }
            race.outcomes = before;
            race.outstanding = cases.len();
            step.release.extend(cases);
            return;
        }
    }

    /// Ends race `r` before question `q`: every case from there on is
    /// skipped with `reason`.
    fn stop(&mut self, r: usize, q: usize, reason: String, step: &mut Step) {
        let race = &mut self.races[r];
        race.open = race.scheduled.len();
        let rest: Vec<usize> = race.scheduled[q..]
            .iter()
            .flat_map(|qs| qs.iter().flatten().copied())
            .collect();
        self.skip(rest, &reason, step);
    }

    fn skip(&mut self, cases: Vec<usize>, reason: &str, step: &mut Step) {
        for i in cases {
            if !std::mem::replace(&mut self.done[i], true) {
                step.skip.push((i, reason.to_string()));
            }
        }
    }

    fn eliminated_reason(&self, r: usize, p: usize) -> String {
        let race = &self.races[r];
        match race.race.standing(p) {
            Standing::Eliminated {
                after_questions,
                by,
                e_value,
            } => format!(
                "not run: the race{} had decided: {} was eliminated after {after_questions} question(s) by {} (E = {} ≥ {})",
                race.label(),
                race.prompts[p],
                race.prompts[*by],
                e_text(*e_value),
                e_text(race.race.bound())
            ),
            Standing::Live => format!("not run: the race{} had decided", race.label()),
        }
    }

    fn decided_reason(&self, r: usize) -> String {
        let race = &self.races[r];
        let winner = race
            .race
            .live()
            .next()
            .map(|p| race.prompts[p].as_str())
            .unwrap_or("none");
        format!(
            "not run: the race{} had decided: {winner} is the one prompt left after {} question(s)",
            race.label(),
            race.race.questions()
        )
    }

    /// Each model's race, for the report: (model, prompts, the rule's
    /// state, whether it stopped at `max_cases`).
    pub fn races(&self) -> impl Iterator<Item = (Option<&str>, &[String], &Race, bool)> {
        self.races
            .iter()
            .map(|r| (r.model.as_deref(), r.prompts.as_slice(), &r.race, r.capped))
    }
}

impl ModelRace {
    /// " of <model>" in a line, nothing in a one-model run.
    fn label(&self) -> String {
        self.model
            .as_deref()
            .map(|m| format!(" of {m}"))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::ask::history::HistoryEntry;
    use std::collections::HashMap;

    use crate::schedule::{Finished, Lane, Scheduler, TrialOutcome, Work};

    /// `prompts` x `questions` x `rounds`, question-major (plan order).
    fn grid(prompts: &[&str], questions: usize, rounds: u32) -> Vec<CaseId> {
        let mut out = Vec::new();
        for q in 1..=questions {
            for p in prompts {
                for round in 1..=rounds {
                    out.push(CaseId {
                        model: None,
                        prompt: (*p).into(),
                        question: q,
                        question_id: format!("q{q}").into(),
                        round,
                        sample: None,
                    });
                }
            }
        }
        out
    }

    /// The prompts of `cases` in first-seen order (the suite's, here).
    fn order(cases: &[CaseId]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in cases {
            if !out.iter().any(|p| *p == *c.prompt) {
                out.push(c.prompt.to_string());
            }
        }
        out
    }

    /// good passes everything, bad nothing, odd passes odd questions.
    fn passes(case: &CaseId) -> bool {
        match &*case.prompt {
            "good" => true,
            "bad" => false,
            _ => case.question % 2 == 1,
        }
    }

    /// Ends every released case in turn until nothing is released; returns
    /// the cases ended (in order) and those skipped with their reasons.
    fn drive(
        gate: &mut RaceGate,
        first: Step,
        cases: &[CaseId],
    ) -> (Vec<usize>, Vec<(usize, String)>) {
        let mut open: Vec<usize> = first.release;
        let mut skipped = first.skip;
        let mut ended = Vec::new();
        while let Some(i) = open.pop() {
            assert!(gate.released(i), "{}", cases[i].test_name());
            ended.push(i);
            let step = gate.ended(i, Some(passes(&cases[i])));
            open.extend(step.release);
            skipped.extend(step.skip);
        }
        (ended, skipped)
    }

    #[test]
    fn a_losing_prompt_is_asked_nothing_after_its_elimination() {
        let cases = grid(&["good", "odd", "bad"], 40, 1);
        let (mut gate, first) = RaceGate::new(&cases, &[], &order(&cases), 0.05, None);
        // Only question 1 is open.
        assert_eq!(first.release.len(), 3);
        assert!(first.release.iter().all(|&i| cases[i].question == 1));
        let (ended, skipped) = drive(&mut gate, first, &cases);
        // bad loses every question to good: (2^(n+1) - 1)/(n+1) reaches
        // 6/0.05 = 120 at n = 10.
        let bad_asked = ended
            .iter()
            .filter(|&&i| *cases[i].prompt == *"bad")
            .count();
        assert_eq!(bad_asked, 10);
        let reason = &skipped
            .iter()
            .find(|(i, _)| *cases[*i].prompt == *"bad")
            .unwrap()
            .1;
        assert!(
            reason.starts_with(
                "not run: the race had decided: bad was eliminated after 10 question(s) by good (E = 186 ≥ 120)"
            ),
            "{reason}"
        );
        // Every case is accounted for once: asked, or skipped.
        let mut all: Vec<usize> = ended
            .iter()
            .copied()
            .chain(skipped.iter().map(|s| s.0))
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..cases.len()).collect::<Vec<_>>());
        let (_, prompts, race, _) = gate.races().next().unwrap();
        assert_eq!(prompts, ["good", "odd", "bad"]);
        assert!(!race.is_live(2));
    }

    #[test]
    fn the_race_ends_when_one_prompt_is_left_and_says_who() {
        let cases = grid(&["good", "bad"], 30, 2);
        let (mut gate, first) = RaceGate::new(&cases, &[], &order(&cases), 0.05, None);
        let (ended, skipped) = drive(&mut gate, first, &cases);
        // Two rounds repeating one outcome are one question's evidence:
        // 2 / 0.05 = 40 needs 8 questions won ((2^9 - 1)/9 = 56.8).
        assert_eq!(ended.len(), 8 * 2 * 2);
        assert_eq!(skipped.len(), cases.len() - 32);
        assert!(skipped.iter().any(|(_, r)| r
            == "not run: the race had decided: good is the one prompt left after 8 question(s)"));
    }

    #[test]
    fn max_cases_stops_the_race_before_a_question_that_would_pass_it() {
        let cases = grid(&["odd", "odd2"], 20, 1);
        let (mut gate, first) = RaceGate::new(&cases, &[], &order(&cases), 0.05, Some(7));
        let (ended, skipped) = drive(&mut gate, first, &cases);
        assert_eq!(ended.len(), 6, "three whole questions");
        assert!(
            skipped[0]
                .1
                .contains("stopped at max_cases = 7 (6 cases asked, the next question has 2)")
        );
    }

    #[test]
    fn a_resumed_race_reaches_the_same_decisions_as_an_uninterrupted_one() {
        let cases = grid(&["good", "odd", "bad"], 40, 1);
        let (mut whole, first) = RaceGate::new(&cases, &[], &order(&cases), 0.05, None);
        let (_, skipped_whole) = drive(&mut whole, first, &cases);
        // Interrupted after 6 questions: those are the earlier outcomes.
        let (done, rest): (Vec<CaseId>, Vec<CaseId>) =
            cases.iter().cloned().partition(|c| c.question <= 6);
        let earlier: Vec<(CaseId, Option<bool>)> =
            done.iter().map(|c| (c.clone(), Some(passes(c)))).collect();
        let (mut resumed, first) = RaceGate::new(&rest, &earlier, &order(&cases), 0.05, None);
        assert!(first.release.iter().all(|&i| rest[i].question == 7));
        let (_, skipped) = drive(&mut resumed, first, &rest);
        let names = |cs: &[CaseId], s: &[(usize, String)]| {
            let mut v: Vec<(String, String)> = s
                .iter()
                .map(|(i, r)| (cs[*i].test_name(), r.clone()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&rest, &skipped), names(&cases, &skipped_whole));
    }

    #[test]
    fn unjudged_cases_pair_with_nothing() {
        let cases = grid(&["good", "bad"], 40, 1);
        let (mut gate, first) = RaceGate::new(&cases, &[], &order(&cases), 0.05, None);
        let mut open = first.release;
        let mut asked = 0;
        while let Some(i) = open.pop() {
            asked += 1;
            // Every reply of bad is a server error: no evidence either way.
            let judged = (*cases[i].prompt == *"good").then_some(true);
            open.extend(gate.ended(i, judged).release);
        }
        assert_eq!(asked, cases.len(), "nobody eliminated");
    }

    /// Asks in order and records what was asked; good passes, bad fails.
    struct Racer {
        asked: Mutex<Vec<CaseId>>,
    }

    impl Work for Arc<Racer> {
        type Asked = ();
        fn ask(&self, case: &CaseId, _: &[HistoryEntry], _: usize) {
            self.asked.lock().unwrap().push(case.clone());
        }
        fn execute(&self, case: &CaseId, _: ()) -> Finished {
            let passed = passes(case);
            Finished {
                outcome: if passed {
                    TrialOutcome::Passed
                } else {
                    TrialOutcome::Failed("wrong_answer".into())
                },
                entry: None,
                judged: Some(passed),
            }
        }
    }

    #[test]
    fn the_scheduler_asks_in_lockstep_and_ends_skipped_cases_as_not_run() {
        for history in [None, Some(10)] {
            let cases = grid(&["good", "odd", "bad"], 30, 2);
            let racer = Arc::new(Racer {
                asked: Mutex::new(Vec::new()),
            });
            let gate = RaceGate::new(&cases, &[], &order(&cases), 0.05, None);
            let s = Scheduler::start_lanes(
                racer.clone(),
                cases.clone(),
                history,
                HashMap::new(),
                vec![Lane {
                    models: vec![None],
                    slots: 3,
                }],
                2,
                Arc::new(AtomicBool::new(false)),
                Some(gate),
            );
            let outcomes: Vec<TrialOutcome> =
                (0..cases.len()).map(|i| s.wait(i).unwrap()).collect();
            let asked = racer.asked.lock().unwrap().clone();
            // Lockstep: questions are asked in order, never ahead.
            assert!(asked.windows(2).all(|w| w[0].question <= w[1].question));
            // bad: out after 10 questions won by good (E = 186 ≥ 120),
            // each asked in both rounds.
            let bad: Vec<&CaseId> = asked.iter().filter(|c| *c.prompt == *"bad").collect();
            assert_eq!(bad.len(), 20, "{history:?}");
            for (c, o) in cases.iter().zip(&outcomes) {
                let was_asked = asked.contains(c);
                match o {
                    TrialOutcome::Ignored(reason) => {
                        assert!(!was_asked, "{}", c.test_name());
                        assert!(
                            reason.starts_with("not run: the race had decided"),
                            "{reason}"
                        );
                    }
                    _ => assert!(was_asked, "{}", c.test_name()),
                }
            }
        }
    }
}
