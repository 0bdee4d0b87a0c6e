//! `prompteval plan`: the plan of a run without the run. The same
//! configuration, suite, selection, resumed journal, cache and recordings
//! as `cargo test --test prompts`; each model's server gets its connection
//! test (and, where it has one, its tokenizer is asked), and a model is
//! asked only by the probe: when no call was seen to measure replies and
//! speed by (no journal, recording or cache entry), up to `probes` cases
//! spread over the selection are asked once, past the response cache, and
//! said as such.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use super::error::SetupError;
use super::model_sources::open_models;
use super::run_plan::RunPlan;
use super::source;
use crate::budget::evidence::{Call, Evidence};
use crate::budget::plan::{self, Inputs, ModelSide, Plan};
use crate::case::CaseId;
use crate::terminal::output::Output;

/// The probe stops once it has taken this long, whatever is left.
const PROBE_SECS: f64 = 120.0;

/// The plan of asking `selected` (planned cases libtest's filters keep and
/// a resumed run has not finished).
pub fn preview(
    plan: RunPlan,
    selected: Vec<CaseId>,
    probes: usize,
    out: &Arc<Output>,
) -> Result<Plan, SetupError> {
    let RunPlan {
        config,
        suite,
        resume,
        unwritten_variants,
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
    let sides: Vec<ModelSide<'_>> = opened
        .models
        .iter()
        .map(|(config, source)| ModelSide {
            config,
            backend: source.backend.as_ref(),
            replaying: source.replaying,
        })
        .collect();
    if evidence.is_empty() && probes > 0 {
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
    let no_judged = HashMap::new();
    Ok(plan::make(Inputs {
        suite: &suite,
        models: sides,
        to_ask: &opened.runnable,
        finished: resume.as_ref().map_or(&no_judged, |r| &r.judged),
        not_evaluated: opened.unmatched.len(),
        earlier: &earlier,
        evidence,
        baseline_pairs: config
            .gate
            .baseline
            .as_deref()
            .and_then(|path| crate::baseline::Baseline::read(path).ok())
            .map(|b| b.discordance()),
        prices: config.budget.prices(),
        race: config
            .race
            .enabled
            .then_some((config.race.alpha, config.race.max_cases)),
    }))
}

/// Asks up to `n` of the cases to ask, spread evenly over them, each past
/// the response cache, and adds what the server counted to `evidence`.
fn probe(
    sides: &[ModelSide<'_>],
    suite: &crate::suite::Suite,
    to_ask: &[CaseId],
    earlier: &HashMap<crate::case::ChainId, Vec<crate::ask::history::HistoryEntry>>,
    n: usize,
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
    let n = n.min(live.len());
    let started = Instant::now();
    for k in 0..n {
        if started.elapsed().as_secs_f64() > PROBE_SECS {
            tracing::warn!("the probe stopped after {k} call(s): it took over {PROBE_SECS} s");
            break;
        }
        // Spread from the first case to the last: replies differ by question.
        let case = live[match n {
            1 => 0,
            _ => k * (live.len() - 1) / (n - 1),
        }];
        let side = side_of(sides, case).expect("a live case has its model");
        // The prompt as the run will send it: the chain's earlier
        // questions shown, their answers as long as the replies so far.
        let mut entries = earlier.get(&case.chain()).cloned().unwrap_or_default();
        if side.config.history.enabled {
            let answer = evidence
                .mean_reply_chars()
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
                match Call::of(&request.messages, &reply.usage, &reply.content, Some(secs)) {
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

fn side_of<'a, 'b>(sides: &'a [ModelSide<'b>], case: &CaseId) -> Option<&'a ModelSide<'b>> {
    match &case.model {
        Some(m) => sides.iter().find(|s| s.config.model == **m),
        None => sides.first(),
    }
}
