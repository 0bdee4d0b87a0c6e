//! `prompteval plan`: the plan of a run without the run. The same
//! configuration, suite, selection, resumed journal, cache and recordings
//! as `cargo test --test prompts`; each model's server gets its connection
//! test (and, where it has one, its tokenizer is asked), and a model is
//! asked only by the probe: when no call was seen to measure replies and
//! speed by (no journal, recording or cache entry), up to `probes` cases
//! (by default 3, and up to 16 while they take under 3 s in all) spread
//! over the selection are asked once, past the response cache, and said as
//! such.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use super::error::SetupError;
use super::model_sources::{Opened, open_models};
use super::run_plan::{Resume, RunPlan};
use super::source;
use crate::analysis::power::Pairs;
use crate::ask::history::HistoryEntry;
use crate::budget::evidence::{Call, Evidence};
use crate::budget::plan::{self, Inputs, ModelSide, Plan};
use crate::case::{CaseId, ChainId};
use crate::config::Config;
use crate::suite::Suite;
use crate::terminal::output::Output;

/// The probe stops once it has taken this long, whatever is left.
const PROBE_SECS: f64 = 120.0;
/// Without `--probe N`: this many calls, and more while they are quick.
const PROBES: usize = 3;
const QUICK_PROBES: usize = 16;
const QUICK_SECS: f64 = 3.0;

/// The plan of asking `selected` (planned cases libtest's filters keep and
/// a resumed run has not finished).
pub fn preview(
    plan: RunPlan,
    selected: Vec<CaseId>,
    probes: Option<usize>,
    out: &Arc<Output>,
) -> Result<Plan, SetupError> {
    let RunPlan {
        config,
        suite,
        resume,
        unwritten_variants,
        baseline_pairs,
        ..
    } = plan;
    if unwritten_variants.is_some() {
        tracing::warn!(
            "the prompt variants' texts are not written yet (the writer model writes them when \
             the run starts): the plan sizes their prompts by the placeholders, and counts no \
             call of the writer"
        );
    }
    let earlier = resume
        .as_ref()
        .map(|r| r.earlier.clone())
        .unwrap_or_default();
    let cache = source::open_cache(&config);
    let opened = open_models(&config, &suite, selected, &earlier, cache.as_ref(), out)?;
    let mut evidence: Evidence = resume
        .as_ref()
        .map(|r| r.evidence.clone())
        .unwrap_or_default();
    let sides = sides_of(&opened);
    if evidence.is_empty() && probes != Some(0) {
        // The probe's replies are judged as the run judges them: a case's
        // time is its call and its program's run.
        let sandbox = crate::sandbox::Sandbox::new(&config.sandbox, &crate::python::RUNTIME)?;
        let languages =
            crate::execute::language::Languages::prepare(&config.cpp, &suite, &sandbox).ok();
        let judge = |case: &CaseId, reply: &str| -> Option<f64> {
            let languages = languages.as_ref()?;
            let question = &suite.questions[case.question - 1];
            let code = languages.extract(question, reply).code;
            let started = Instant::now();
            languages.run(question, &code, &sandbox).ok()?;
            Some(started.elapsed().as_secs_f64())
        };
        probe(
            &sides,
            &suite,
            &opened.runnable,
            &earlier,
            probes,
            &judge,
            &mut evidence,
        );
    }
    Ok(plan_of(
        &config,
        &suite,
        &opened,
        resume.as_ref(),
        &earlier,
        baseline_pairs,
        evidence,
    ))
}

/// Each model of the run as the plan sees it.
fn sides_of(opened: &Opened) -> Vec<ModelSide<'_>> {
    opened
        .models
        .iter()
        .map(|(config, source)| ModelSide {
            config,
            backend: source.backend.as_ref(),
            replaying: source.replaying,
        })
        .collect()
}

/// The plan of asking `opened`'s cases, as the run's first lines and
/// `prompteval plan` say it: `evidence` is the calls seen (a resumed
/// journal's, the probe's).
pub(super) fn plan_of(
    config: &Config,
    suite: &Suite,
    opened: &Opened,
    resume: Option<&Resume>,
    earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
    baseline_pairs: Option<Pairs>,
    evidence: Evidence,
) -> Plan {
    plan::make(Inputs {
        suite,
        models: sides_of(opened),
        to_ask: &opened.runnable,
        finished_by_prompt: resume.map(|r| &r.finished_by_prompt),
        finished_pairs: resume.map(|r| r.finished_pairs).unwrap_or_default(),
        not_evaluated: opened.unmatched.len(),
        earlier,
        evidence,
        baseline_pairs,
        prices: config.budget.prices(),
        race: config
            .race
            .enabled
            .then_some((config.race.alpha, config.race.max_cases)),
    })
}

/// Asks up to `n` of the cases to ask, spread evenly over them, each past
/// the response cache, and adds what the server counted to `evidence`.
fn probe(
    sides: &[ModelSide<'_>],
    suite: &Suite,
    to_ask: &[CaseId],
    earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
    n: Option<usize>,
    judge: &dyn Fn(&CaseId, &str) -> Option<f64>,
    evidence: &mut Evidence,
) {
    let live: Vec<&CaseId> = to_ask
        .iter()
        .filter(|c| side_of(sides, c).is_some_and(|s| !s.replaying))
        .collect();
    if live.is_empty() {
        return;
    }
    let at = probe_order(&live, QUICK_PROBES.max(n.unwrap_or(0)));
    let started = Instant::now();
    for k in 0..at.len() {
        let secs = started.elapsed().as_secs_f64();
        let enough = match n {
            Some(n) => k >= n,
            None => k >= QUICK_PROBES || (k >= PROBES && secs > QUICK_SECS),
        };
        if enough {
            break;
        }
        if secs > PROBE_SECS {
            tracing::warn!("the probe stopped after {k} call(s): it took over {PROBE_SECS} s");
            break;
        }
        let case = live[at[k]];
        let side = side_of(sides, case).expect("a live case has its model");
        // The prompt as the run will send it: the chain's earlier
        // questions shown, their answers as long as the replies so far.
        let mut entries = earlier.get(&case.chain()).cloned().unwrap_or_default();
        if side.config.history.enabled {
            let answer = evidence
                .mean_answer_chars()
                .map_or(400, |c| c.round() as usize);
            entries.extend(
                to_ask
                    .iter()
                    .filter(|c| c.chain() == case.chain() && c.question < case.question)
                    .map(|c| plan::entry_to_come(suite, c, answer)),
            );
        }
        let request = plan::request_of(side, suite, case, &entries);
        let asked = Instant::now();
        match side.backend.probe(case, &request) {
            Ok(reply) => {
                let secs = asked.elapsed().as_secs_f64();
                let language = suite.questions[case.question - 1].code_language();
                match Call::of(
                    &request.messages,
                    &reply.usage,
                    &reply.content,
                    Some(secs),
                    language,
                ) {
                    Some(call) => evidence.add(
                        "probe",
                        Call {
                            exec_secs: judge(case, &reply.content),
                            ..call
                        },
                    ),
                    None => tracing::warn!(
                        "the probe's reply came without the server's token counts: the plan \
                         cannot measure replies by it"
                    ),
                }
            }
            Err(e) => tracing::warn!("the probe of {} failed: {e}", case.test_name()),
        }
    }
}

/// Up to `most` places in `live` to probe, in the order to ask them:
/// replies differ by question, so each probe asks another question, the
/// first three spanning the selection (its first, last and middle
/// question) and the next ones filling the gaps, each under the prompt
/// after the last one's.
fn probe_order(live: &[&CaseId], most: usize) -> Vec<usize> {
    let mut questions: Vec<usize> = live.iter().map(|c| c.question).collect();
    questions.sort_unstable();
    questions.dedup();
    let mut order: Vec<usize> = Vec::new();
    let last = questions.len() - 1;
    let mut candidates = vec![0, last];
    let mut parts = 1usize;
    while order.len() < questions.len() {
        for q in candidates.drain(..) {
            if !order.contains(&q) {
                order.push(q);
            }
        }
        parts *= 2;
        candidates = (0..parts)
            .filter(|k| k % 2 == 1)
            .map(|k| k * last / parts)
            .collect();
        if parts > 2 * questions.len() {
            candidates.extend(0..questions.len());
        }
    }
    let mut at = Vec::new();
    for (k, q) in order.iter().enumerate() {
        let of_question: Vec<usize> = (0..live.len())
            .filter(|&i| live[i].question == questions[*q])
            .collect();
        at.push(of_question[k % of_question.len()]);
        if at.len() == most {
            break;
        }
    }
    at
}

fn side_of<'a, 'b>(sides: &'a [ModelSide<'b>], case: &CaseId) -> Option<&'a ModelSide<'b>> {
    match &case.model {
        Some(m) => sides.iter().find(|s| s.config.model == **m),
        None => sides.first(),
    }
}

#[cfg(test)]
mod tests {
    use super::probe_order;
    use crate::case::CaseId;

    fn case(prompt: &str, question: usize) -> CaseId {
        CaseId {
            model: None,
            prompt: prompt.into(),
            question,
            question_id: format!("q{question}").into(),
            round: 1,
            sample: None,
        }
    }

    #[test]
    fn probes_ask_other_questions_first_and_span_the_selection() {
        // Question-major, two prompts: a1 b1 a2 b2 ... a9 b9.
        let cases: Vec<CaseId> = (1..=9).flat_map(|q| [case("a", q), case("b", q)]).collect();
        let live: Vec<&CaseId> = cases.iter().collect();
        let at = probe_order(&live, 16);
        let asked: Vec<(String, usize)> = at
            .iter()
            .map(|&i| (live[i].prompt.to_string(), live[i].question))
            .collect();
        // First, last and middle question, then the gaps; prompts alternate.
        assert_eq!(
            &asked[..3],
            &[("a".into(), 1), ("b".into(), 9), ("a".into(), 5)]
        );
        let mut questions: Vec<usize> = asked.iter().map(|(_, q)| *q).collect();
        questions.sort_unstable();
        assert_eq!(questions, (1..=9).collect::<Vec<_>>(), "each question once");
        assert_eq!(probe_order(&live, 2).len(), 2);
    }
}
