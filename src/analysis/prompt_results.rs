//! Grouped records -> [`Summary`]: the numbers every other view shows.

use std::collections::BTreeMap;

use crate::case::{ApiFailure, CaseRecord};
use crate::language::Language;

use super::stats::{self, Paired, pass_at_k_over_questions, round_to};
use crate::results::race::eliminated_by_race;
use crate::results::{BestPrompt, PromptResult, RoundStats, RunInfo, Summary};

/// The not-evaluated reason of a prompt that did not fit the context window;
/// `truncated_prompts` counts it.
const PROMPT_CUT: &str = "prompt cut";

/// One prompt's counts, built one record at a time.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    cases: usize,
    evaluated: usize,
    correct: usize,
    exec_secs: f64,
    executed: usize,
    errors: BTreeMap<String, usize>,
    /// Reasons of records that were not evaluated.
    not_evaluated: BTreeMap<String, usize>,
    /// round -> (correct, evaluated)
    rounds: BTreeMap<u32, (usize, usize)>,
    api_failures: BTreeMap<ApiFailure, usize>,
    /// (question id, round, sample index) -> passed, in first-seen order;
    /// evaluated cases only. Paired with another prompt's (McNemar) and
    /// summed per question ([`Tally::outcomes`]).
    cells: indexmap::IndexMap<(String, u32, u32), bool>,
    /// Summed server figures of the cases that reported them.
    tokens: crate::case::Tokens,
    /// Evaluated cases whose reply stopped at the length limit.
    truncated_replies: usize,
    cases_with_tokens: usize,
    /// Completion tokens and seconds of the cases whose server timed them.
    generated: (u64, f64),
    /// Cases whose program defines a class equal to anything (proof.rs),
    /// and their questions' ids, once each, in first-seen order.
    suspect: usize,
    suspect_questions: indexmap::IndexSet<String>,
    /// ParEval's timing figures of the correct cases.
    speed: super::speed::SpeedTally,
}

impl Tally {
    pub fn add(&mut self, r: &CaseRecord) {
        self.cases += 1;
        if let Some(t) = r.tokens {
            self.cases_with_tokens += 1;
            self.tokens.prompt += t.prompt;
            self.tokens.completion += t.completion;
            self.tokens.reasoning += t.reasoning;
            self.tokens.reasoning_estimated |= t.reasoning_estimated;
            if let Some(cached) = t.prompt_cached {
                *self.tokens.prompt_cached.get_or_insert(0) += cached;
            }
            if let Some(secs) = r.generation_secs.filter(|s| *s > 0.0) {
                self.generated.0 += t.completion;
                self.generated.1 += secs;
            }
        }
        if let Some(f) = r.api_failure.filter(|f| !f.not_evaluated()) {
            *self.api_failures.entry(f).or_insert(0) += 1;
        }
        if !r.evaluated() {
            let reason = match r.api_failure {
                Some(ApiFailure::NotRecorded) => "history differs",
                Some(ApiFailure::PromptTooLong) => PROMPT_CUT,
                _ => "harness error",
            };
            *self.not_evaluated.entry(reason.to_string()).or_insert(0) += 1;
            return;
        }
        self.evaluated += 1;
        let tests = r.execution.as_ref().and_then(|e| e.tests.as_ref());
        if tests.is_some_and(|t| !t.suspect.is_empty()) {
            self.suspect += 1;
            self.suspect_questions
                .insert(r.case.question_id.to_string());
        }
        if r.reply_cut() {
            self.truncated_replies += 1;
        }
        self.cells.insert(
            (
                r.case.question_id.to_string(),
                r.case.round,
                r.case.sample_index(),
            ),
            r.passed(),
        );
        let round = self.rounds.entry(r.case.round).or_insert((0, 0));
        round.1 += 1;
        if r.passed() {
            self.correct += 1;
            round.0 += 1;
            self.speed.add(r);
        } else {
            *self
                .errors
                .entry(r.verdict.as_str().to_string())
                .or_insert(0) += 1;
        }
        // Only programs that ran have a time; a case that never ran is not 0 s.
        if r.execution.is_some() {
            self.exec_secs += r.exec_secs;
            self.executed += 1;
        }
    }

    /// Each evaluated attempt: (question id, passed).
    fn passed_cells(&self) -> impl Iterator<Item = (&str, bool)> {
        self.cells
            .iter()
            .map(|((id, _, _), &passed)| (id.as_str(), passed))
    }

    /// question id -> (attempts passed, attempts failed) over its rounds
    /// and samples, in first-seen order.
    fn outcomes(&self) -> indexmap::IndexMap<&str, (usize, usize)> {
        let mut per_question = indexmap::IndexMap::new();
        for ((id, _, _), &passed) in &self.cells {
            let seen = per_question.entry(id.as_str()).or_insert((0, 0));
            if passed {
                seen.0 += 1;
            } else {
                seen.1 += 1;
            }
        }
        per_question
    }
}

/// One model's summary from its prompts' tallies, `names[i]` the prompt of
/// `tallies[i]`, in report order.
pub(crate) fn summarize(info: &RunInfo, names: &[&str], tallies: &[Tally]) -> Summary {
    let prompt_results: indexmap::IndexMap<String, PromptResult> = names
        .iter()
        .zip(tallies)
        .map(|(name, t)| (name.to_string(), prompt_result(info, t, name)))
        .collect();
    let finished_cases = tallies.iter().map(|t| t.cases).sum();
    let not_evaluated = prompt_results.values().map(|r| r.not_evaluated).sum();
    let mut api_failures: BTreeMap<String, usize> = [
        ApiFailure::ApiError,
        ApiFailure::Timeout,
        ApiFailure::ConnectionFailed,
    ]
    .iter()
    .map(|f| (f.as_str().to_string(), 0))
    .collect();
    for (f, n) in tallies.iter().flat_map(|t| &t.api_failures) {
        *api_failures.entry(f.as_str().to_string()).or_insert(0) += n;
    }
    let (completion, secs) = tallies.iter().fold((0u64, 0.0f64), |(c, s), t| {
        (c + t.generated.0, s + t.generated.1)
    });
    // The variants' figures per prompt: the curves, and the themes when
    // the variants are labeled.
    let mut partial_order = indexmap::IndexMap::new();
    let mut themes = indexmap::IndexMap::new();
    for (name, t) in names.iter().zip(tallies) {
        if let Some(po) =
            super::curves::partial_order(&info.variants, t.passed_cells(), &info.pass_at_k)
        {
            partial_order.insert(name.to_string(), po);
        }
        if let Some(r) = super::themes::theme_results(&info.variants, t.passed_cells()) {
            themes.insert(name.to_string(), r);
        }
    }
    let per_prompt: Vec<indexmap::IndexMap<&str, (usize, usize)>> =
        tallies.iter().map(Tally::outcomes).collect();
    let mut questions: indexmap::IndexSet<&str> = indexmap::IndexSet::new();
    for outcomes in &per_prompt {
        questions.extend(outcomes.keys().copied());
    }
    let matrix = questions
        .into_iter()
        .map(|q| {
            let cells = per_prompt
                .iter()
                .map(|o| o.get(q).map(|&(passed, failed)| (passed, passed + failed)))
                .collect();
            (q.to_string(), cells)
        })
        .collect();
    Summary {
        matrix,
        partial_order,
        themes,
        generation_speed: (secs > 0.0).then(|| round_to(completion as f64 / secs, 1)),
        prompt_count: prompt_results.len(),
        best_prompt: best_prompt(&prompt_results, names, tallies, info.race.as_ref()),
        prompt_results,
        finished_cases,
        not_evaluated,
        api_failures,
        ..Summary::of_run(info)
    }
}

/// Percent with one decimal, the unit of summary.json and of thresholds;
/// `None` for an empty denominator (0 of 0 is no accuracy, not 0 %).
pub(crate) fn percent(correct: usize, total: usize) -> Option<f64> {
    (total > 0).then(|| round_to(correct as f64 * 100.0 / total as f64, 1))
}

fn prompt_result(info: &RunInfo, t: &Tally, name: &str) -> PromptResult {
    let accuracy = percent(t.correct, t.evaluated);
    let avg_execution_time = (t.executed > 0).then(|| round_to(t.exec_secs / t.executed as f64, 2));
    let mut not_evaluated_reasons = t.not_evaluated.clone();
    for u in info
        .not_evaluated
        .iter()
        .filter(|u| &*u.case.prompt == name)
    {
        *not_evaluated_reasons.entry(u.reason.clone()).or_insert(0) += 1;
    }
    let not_evaluated = not_evaluated_reasons.values().sum();
    let threshold = info.thresholds.get(name).copied();
    let outcomes = t.outcomes();
    let pass_at_k = pass_at_k_over_questions(
        &outcomes.values().copied().collect::<Vec<_>>(),
        &info.pass_at_k,
    );
    let unstable_questions: Vec<String> = outcomes
        .iter()
        .filter(|(_, (passed, failed))| *passed > 0 && *failed > 0)
        .map(|(id, _)| id.to_string())
        .collect();
    let mut result = PromptResult {
        accuracy_interval: stats::wilson(t.correct, t.evaluated)
            .map(|(lo, hi)| [round_to(lo * 100.0, 1), round_to(hi * 100.0, 1)]),
        pass_at_k: pass_at_k.values,
        pass_at_k_interval: pass_at_k.intervals,
        warnings: Vec::new(),
        unstable_questions,
        tokens: t.tokens,
        truncated_replies: t.truncated_replies,
        suspect_cases: t.suspect,
        suspect_questions: t.suspect_questions.iter().cloned().collect(),
        truncated_prompts: t.not_evaluated.get(PROMPT_CUT).copied().unwrap_or(0),
        cases_with_tokens: t.cases_with_tokens,
        accuracy,
        correct_answers: t.correct,
        total_questions: t.evaluated,
        avg_execution_time,
        error_breakdown: t.errors.clone(),
        not_evaluated,
        not_evaluated_reasons,
        rounds: round_stats(&t.rounds),
        threshold,
        // A prompt the race eliminated answered only part of the questions:
        // its threshold is not checked (docs/guide/race.md).
        gate_passed: threshold
            .filter(|_| !eliminated_by_race(info.race.as_ref(), name))
            .map(|t| super::gate::meets(accuracy, t)),
        speed: t.speed.summary(),
    };
    // summary.json keeps the English sentences; views word them again in
    // the run's language from the same counts.
    result.warnings = result.warnings_in(Language::En);
    result
}

/// Per-round accuracy spread; `None` for a single round, where a spread of
/// one value would only look like stability that was never measured.
fn round_stats(per_round: &BTreeMap<u32, (usize, usize)>) -> Option<RoundStats> {
    if per_round.len() < 2 {
        return None;
    }
    // Unrounded values: rounding each round first would bias mean and stddev.
    let accuracies: Vec<f64> = per_round
        .values()
        .map(|&(correct, total)| correct as f64 * 100.0 / total as f64)
        .collect();
    let n = accuracies.len() as f64;
    let mean = accuracies.iter().sum::<f64>() / n;
    let variance = accuracies.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / n;
    let min = accuracies.iter().copied().fold(f64::INFINITY, f64::min);
    let max = accuracies.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(RoundStats {
        count: accuracies.len(),
        mean: round_to(mean, 1),
        min: round_to(min, 1),
        max: round_to(max, 1),
        stddev: round_to(variance.sqrt(), 1),
    })
}

/// The best prompt by the one rule ([`super::best_prompt`]), its runner-up
/// paired on the cases both evaluated (same question, round and sample).
/// In a race, among the prompts it did not eliminate: an eliminated one's
/// accuracy is over the early questions only.
fn best_prompt(
    results: &indexmap::IndexMap<String, PromptResult>,
    names: &[&str],
    tallies: &[Tally],
    race: Option<&crate::results::race::RaceResult>,
) -> Option<BestPrompt> {
    let tally = |n: &str| names.iter().position(|g| *g == n).map(|i| &tallies[i]);
    super::best_prompt::best_prompt(
        results
            .iter()
            .filter(|(name, _)| !eliminated_by_race(race, name))
            .map(|(name, r)| (name.as_str(), r.accuracy)),
        |best, runner_up| {
            let (best, other) = (tally(best)?, tally(runner_up)?);
            Some(Paired::of(best.cells.iter().filter_map(
                |(cell, &passed)| Some((passed, *other.cells.get(cell)?)),
            )))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Verdict::*;
    use crate::results::fixtures::{info, record, three_by_three};

    #[test]
    fn pass_at_k_uses_each_questions_rounds_and_the_configured_ks() {
        let mut info = info(3);
        info.pass_at_k = vec![1, 2, 5];
        let records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 1, 2, WrongAnswer),
            record("prompt1", 1, 3, WrongAnswer),
            record("prompt1", 2, 1, Correct),
            record("prompt1", 2, 2, Correct),
            record("prompt1", 2, 3, Correct),
        ];
        let summary = summary_of(&info, &records);
        let p = &summary.prompt_results["prompt1"].pass_at_k;
        // Question 1: 1 of 3 (pass@1 1/3, pass@2 1 - C(2,2)/C(3,2) = 2/3);
        // question 2: 3 of 3. No question has 5 rounds: no pass@5.
        assert_eq!(p.get("pass@1"), Some(&round_to((1.0 / 3.0 + 1.0) / 2.0, 4)));
        assert_eq!(p.get("pass@2"), Some(&round_to((2.0 / 3.0 + 1.0) / 2.0, 4)));
        assert_eq!(p.get("pass@5"), None);
        let interval = summary.prompt_results["prompt1"].accuracy_interval.unwrap();
        // Wilson 4 of 6: [30.0, 90.3].
        assert_eq!(interval, [30.0, 90.3]);
    }

    /// The summary the report writes: its groups, each tallied.
    fn summary_of(info: &RunInfo, records: &[CaseRecord]) -> Summary {
        let groups = crate::results::groups::group_records(info, records);
        let tallies: Vec<Tally> = groups
            .iter()
            .map(|g| {
                let mut tally = Tally::default();
                if let crate::results::Cases::Memory(cases) = &g.cases {
                    cases.iter().for_each(|r| tally.add(r));
                }
                tally
            })
            .collect();
        let names: Vec<&str> = groups.iter().map(|g| g.name).collect();
        summarize(info, &names, &tallies)
    }

    #[test]
    fn accuracy_is_percent_with_one_decimal_and_best_prompt_wins() {
        let summary = summary_of(&info(1), &three_by_three());
        let p1 = &summary.prompt_results["prompt1"];
        assert_eq!(p1.accuracy, Some(66.7));
        assert_eq!((p1.correct_answers, p1.total_questions), (2, 3));
        assert_eq!(p1.avg_execution_time, Some(0.03));
        assert_eq!(
            p1.error_breakdown,
            BTreeMap::from([("wrong_answer".to_string(), 1)])
        );
        let p3 = &summary.prompt_results["prompt3"];
        assert_eq!(p3.accuracy, Some(33.3));
        assert_eq!(
            p3.error_breakdown,
            BTreeMap::from([
                ("api_error".to_string(), 1),
                ("syntax_error".to_string(), 1)
            ])
        );
        let best = summary.best_prompt.clone().unwrap();
        assert_eq!((best.name.as_str(), best.accuracy), ("prompt2", 100.0));
        assert!(best.tied_with.is_empty());
        // 3 cases against 3: far too few to call the difference more than noise.
        let versus = best.versus_runner_up.unwrap();
        assert!(!versus.beats_by_more_than_noise, "{versus:?}");
        assert!(versus.p_value > 0.05);
        assert_eq!(summary.prompt_count, 3);
        assert_eq!(summary.finished_cases, 9);
        assert_eq!(summary.api_failures["timeout"], 1);
        assert_eq!(summary.api_failures["connection_failed"], 0);
    }

    #[test]
    fn a_question_that_passes_in_one_round_and_fails_in_another_is_unstable() {
        let records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 1, 2, WrongAnswer),
            record("prompt1", 2, 1, Correct),
            record("prompt1", 2, 2, Correct),
            // Two kinds of failure are not instability; not evaluated is no outcome.
            record("prompt1", 3, 1, SyntaxError),
            record("prompt1", 3, 2, RuntimeError),
            record("prompt2", 1, 1, Correct),
            record("prompt2", 1, 2, NotEvaluated),
        ];
        let summary = summary_of(&info(2), &records);
        let p1 = &summary.prompt_results["prompt1"];
        let q1 = records[0].case.question_id.to_string();
        assert_eq!(p1.unstable_questions, std::slice::from_ref(&q1));
        assert!(
            p1.flags(Language::En).contains("1 unstable"),
            "{}",
            p1.flags(Language::En)
        );
        assert!(
            p1.warnings.iter().any(|w| w.contains(&q1)),
            "{:?}",
            p1.warnings
        );
        assert!(
            summary.prompt_results["prompt2"]
                .unstable_questions
                .is_empty()
        );
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(
            json["prompt_results"]["prompt1"]["unstable_questions"][0],
            q1.as_str()
        );
        assert_eq!(
            json["prompt_results"]["prompt2"]["unstable_questions"],
            serde_json::json!([])
        );
    }

    #[test]
    fn tokens_are_summed_and_cut_replies_counted_per_prompt() {
        let mut records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 2, 1, WrongAnswer),
            record("prompt1", 3, 1, Correct),
        ];
        for (r, (p, c, secs)) in
            records
                .iter_mut()
                .zip([(100, 20, 0.5), (200, 1024, 2.0), (50, 0, 0.0)])
        {
            r.tokens = Some(crate::case::Tokens {
                prompt: p,
                completion: c,
                ..Default::default()
            });
            r.generation_secs = Some(secs);
        }
        records[1].finish_reason = Some("length".into());
        records[2].tokens = None;
        let summary = summary_of(&info(1), &records);
        let p1 = &summary.prompt_results["prompt1"];
        assert_eq!((p1.tokens.prompt, p1.tokens.completion), (300, 1044));
        assert_eq!(p1.truncated_replies, 1);
        assert_eq!(p1.tokens_text(), "150+522");
        assert!(
            p1.flags(Language::En).contains("1 cut replies"),
            "{}",
            p1.flags(Language::En)
        );
        assert!(p1.warnings.iter().any(|w| w.contains("llm.num_predict")));
        // 1044 completion tokens in 2.5 s of generation.
        assert_eq!(summary.generation_speed, Some(417.6));
    }

    #[test]
    fn a_cut_prompt_is_counted_and_kept_out_of_the_accuracy() {
        let mut records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 2, 1, NotEvaluated),
        ];
        records[1].api_failure = Some(ApiFailure::PromptTooLong);
        let summary = summary_of(&info(1), &records);
        let p1 = &summary.prompt_results["prompt1"];
        assert_eq!(p1.truncated_prompts, 1);
        assert_eq!((p1.accuracy, p1.total_questions), (Some(100.0), 1));
        assert_eq!(p1.not_evaluated_reasons["prompt cut"], 1);
        assert!(
            p1.flags(Language::En).contains("1 cut prompts"),
            "{}",
            p1.flags(Language::En)
        );
        assert!(p1.warnings.iter().any(|w| w.contains("llm.num_ctx")));
        assert_eq!(summary.api_failures.get("prompt_too_long"), None);
    }

    #[test]
    fn a_tie_goes_to_the_earliest_prompt_in_suite_order() {
        let mut info = info(1);
        info.prompts.reverse();
        let records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 2, 1, WrongAnswer),
            record("prompt3", 1, 1, Correct),
            record("prompt3", 2, 1, Timeout),
        ];
        let summary = summary_of(&info, &records);
        let names: Vec<&str> = summary.prompt_results.keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["prompt3", "prompt1"]);
        let best = summary.best_prompt.expect("a best prompt");
        assert_eq!(best.name, "prompt3");
        assert_eq!(best.tied_with, ["prompt1"], "a tie is named as a tie");
    }

    #[test]
    fn cases_not_evaluated_are_in_no_denominator_and_are_flagged() {
        let mut info = info(1);
        // prompt3 had no recording at all: every case is in run info only.
        for q in 1..=3 {
            info.not_evaluated.push(crate::case::Unevaluated {
                case: record("prompt3", q, 1, Correct).case,
                reason: "template changed".into(),
                detail: "recorded with another template".into(),
            });
        }
        let records = vec![
            record("prompt1", 1, 1, Correct),
            record("prompt1", 2, 1, NotEvaluated),
            record("prompt1", 3, 1, WrongAnswer),
            record("prompt2", 1, 1, Correct),
            record("prompt2", 2, 1, ApiError),
        ];
        let summary = summary_of(&info, &records);
        let p1 = &summary.prompt_results["prompt1"];
        assert_eq!((p1.correct_answers, p1.total_questions), (1, 2));
        assert_eq!(p1.accuracy, Some(50.0));
        assert_eq!(p1.not_evaluated, 1);
        assert_eq!(
            p1.not_evaluated_reasons,
            BTreeMap::from([("history differs".to_string(), 1)])
        );
        assert!(!p1.error_breakdown.contains_key("not_evaluated"));
        // An api error stays a failure (spec), but is flagged.
        let p2 = &summary.prompt_results["prompt2"];
        assert_eq!(p2.accuracy, Some(50.0));
        assert!(p2.warnings[0].contains("1 api_error"), "{:?}", p2.warnings);
        assert_eq!(p2.flags(Language::En), "⚠ 1 api_error");
        // No evaluated case: no accuracy, not 0 %, and never the best.
        let p3 = &summary.prompt_results["prompt3"];
        assert_eq!(p3.accuracy, None);
        assert_eq!(p3.total_questions, 0);
        assert_eq!(p3.not_evaluated, 3);
        assert_eq!(p3.avg_execution_time, None);
        assert_eq!(p3.accuracy_text(), "-");
        assert!(p3.warnings[0].contains("3 not evaluated (template changed 3)"));
        assert_eq!(summary.not_evaluated, 4);
        let best = summary.best_prompt.clone().expect("a best prompt");
        assert_eq!((best.name.as_str(), best.accuracy), ("prompt1", 50.0));
        assert_eq!(best.tied_with, ["prompt2"]);
        let json = serde_json::to_value(&summary).expect("summary serialises");
        assert!(json["prompt_results"]["prompt3"]["accuracy"].is_null());
        assert_eq!(summary.api_failures["timeout"], 1);
    }

    #[test]
    fn prompts_without_records_are_omitted_and_no_cases_means_no_best() {
        let summary = summary_of(&info(1), &[]);
        assert!(summary.prompt_results.is_empty());
        assert_eq!(summary.prompt_count, 0);
        assert_eq!(summary.best_prompt, None);
        let json = serde_json::to_value(&summary).expect("summary serialises");
        assert!(json["best_prompt"].is_null());
    }

    #[test]
    fn two_rounds_give_population_stats_of_per_round_accuracy() {
        let info = info(2);
        let mut records = Vec::new();
        for (round, verdicts) in [(1, [Correct, Correct, WrongAnswer]), (2, [Correct; 3])] {
            for (q, verdict) in verdicts.into_iter().enumerate() {
                records.push(record("prompt1", q + 1, round, verdict));
            }
        }
        let summary = summary_of(&info, &records);
        let p1 = &summary.prompt_results["prompt1"];
        assert_eq!(p1.accuracy, Some(83.3));
        assert_eq!(
            p1.rounds,
            Some(RoundStats {
                count: 2,
                mean: 83.3,
                min: 66.7,
                max: 100.0,
                stddev: 16.7,
            })
        );
    }

    #[test]
    fn thresholds_add_gate_results_on_the_rounded_accuracy() {
        let mut info = info(1);
        info.thresholds.insert("prompt1".into(), 66.7);
        info.thresholds.insert("prompt3".into(), 50.0);
        let summary = summary_of(&info, &three_by_three());
        assert_eq!(summary.prompt_results["prompt1"].gate_passed, Some(true));
        assert_eq!(summary.prompt_results["prompt3"].gate_passed, Some(false));
        assert_eq!(summary.prompt_results["prompt2"].threshold, None);
        let json = serde_json::to_value(&summary).expect("summary serialises");
        assert!(
            json["prompt_results"]["prompt2"]
                .get("gate_passed")
                .is_none()
        );
        assert_eq!(json["prompt_results"]["prompt3"]["threshold"], 50.0);
    }

    #[test]
    fn a_repeated_case_counts_once() {
        let mut records = three_by_three();
        let mut retry = record("prompt1", 3, 1, Correct);
        retry.finished_at = "later".into();
        records.push(retry);
        let summary = summary_of(&info(1), &records);
        assert_eq!(summary.prompt_results["prompt1"].correct_answers, 3);
        assert_eq!(summary.prompt_results["prompt1"].total_questions, 3);
    }
}
