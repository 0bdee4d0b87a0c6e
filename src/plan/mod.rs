//! Suite x rounds -> the cases of a run, in trial order.
//!
//! Each (prompt, round) is a chain whose cases must run in question order.
//! Trials are ordered question-major (q1 of every chain, then q2 of every
//! chain, ...): libtest-mimic's workers take trials in vector order, so a
//! case only ever waits for a predecessor that some worker already took,
//! and all chains advance together instead of one chain blocking workers.

pub mod shard;

use crate::case::{CaseId, Name};
use crate::suite::Suite;

/// Every prompt x question x round x sample; `samples` = 1 gives cases
/// without a sample (their names end in `::rN`).
pub fn cases(suite: &Suite, rounds: u32, samples: u32) -> Vec<CaseId> {
    let sampled: Vec<Option<u32>> = match samples {
        0 | 1 => vec![None],
        n => (1..=n).map(Some).collect(),
    };
    let mut out = Vec::with_capacity(
        suite.prompts.len() * suite.questions.len() * rounds as usize * sampled.len(),
    );
    // One shared name per prompt and per question, whatever the rounds.
    let prompts: Vec<Name> = suite
        .prompts
        .iter()
        .map(|p| p.name.as_str().into())
        .collect();
    for q in &suite.questions {
        let question_id: Name = q.id.as_str().into();
        for round in 1..=rounds {
            for &sample in &sampled {
                for prompt in &prompts {
                    out.push(CaseId {
                        model: None,
                        prompt: prompt.clone(),
                        question: q.index,
                        question_id: question_id.clone(),
                        round,
                        sample,
                    });
                }
            }
        }
    }
    out
}

/// The cases of a run of several models: each model's [`cases`] after the
/// previous model's, each case naming its model. Models of one server run
/// one after another, so this is also the order they are asked in.
pub fn cases_of_models(suite: &Suite, rounds: u32, samples: u32, models: &[String]) -> Vec<CaseId> {
    let one = cases(suite, rounds, samples);
    models
        .iter()
        .flat_map(|m| {
            let model: Name = m.as_str().into();
            one.iter().map(move |c| CaseId {
                model: Some(model.clone()),
                ..c.clone()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn question_major_order_with_every_chain() {
        let suite = Suite::parse(
            Path::new("s.json"),
            br#"{"a": "{question}", "b": "{question}", "questions": [
                {"id": "x", "question": "q", "answer": "1"},
                {"id": "y", "question": "q", "answer": "2"}]}"#,
        )
        .unwrap();
        let names: Vec<String> = cases(&suite, 2, 1).iter().map(CaseId::test_name).collect();
        assert_eq!(
            names,
            [
                "a::x::r1", "b::x::r1", "a::x::r2", "b::x::r2", "a::y::r1", "b::y::r1", "a::y::r2",
                "b::y::r2"
            ]
        );
        let sampled: Vec<String> = cases(&suite, 1, 2).iter().map(CaseId::test_name).collect();
        assert_eq!(
            sampled,
            [
                "a::x::r1::s1",
                "b::x::r1::s1",
                "a::x::r1::s2",
                "b::x::r1::s2",
                "a::y::r1::s1",
                "b::y::r1::s1",
                "a::y::r1::s2",
                "b::y::r1::s2"
            ]
        );
        // Each sample is its own chain.
        let chains: std::collections::BTreeSet<_> =
            cases(&suite, 1, 2).iter().map(CaseId::chain).collect();
        assert_eq!(chains.len(), 4);
    }
}
