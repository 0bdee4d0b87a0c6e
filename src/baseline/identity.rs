//! Whether a run is the same experiment as its baseline: the same suite,
//! the same settings for each model both have, and the same questions
//! wherever both have a question id. Prompt templates may differ: a
//! changed prompt is what the gate is there to judge.

use std::collections::BTreeMap;

use super::Baseline;
use crate::config::Settings;
use crate::results::RunInfo;

/// What a run must share with its baseline.
pub struct RunIdentity<'a> {
    /// The suite's path or file name.
    pub suite: &'a str,
    pub settings: &'a BTreeMap<String, Settings>,
    pub questions: &'a BTreeMap<String, String>,
}

impl<'a> RunIdentity<'a> {
    pub fn of(info: &'a RunInfo) -> RunIdentity<'a> {
        RunIdentity {
            suite: &info.suite,
            settings: &info.settings,
            questions: &info.question_fingerprints,
        }
    }
}

/// Each way the run differs from the baseline so that its cases cannot be
/// paired; empty when they can.
pub fn differences(baseline: &Baseline, run: &RunIdentity) -> Vec<String> {
    let mut out = Vec::new();
    let suite = crate::results::run_folder::suite_file_name(run.suite);
    if suite != baseline.suite {
        out.push(format!(
            "suite: the baseline's is {}, this run's is {suite}",
            baseline.suite
        ));
    }
    let shared_models: Vec<&String> = run
        .settings
        .keys()
        .filter(|m| baseline.settings.contains_key(*m))
        .collect();
    if shared_models.is_empty() {
        out.push(format!(
            "models: the baseline's are {}, this run's are {}",
            names(baseline.settings.keys()),
            names(run.settings.keys())
        ));
    }
    for model in shared_models {
        let (then, now) = (&baseline.settings[model], &run.settings[model]);
        for key in then
            .keys()
            .chain(now.keys().filter(|k| !then.contains_key(*k)))
        {
            let (a, b) = (then.get(key), now.get(key));
            if a != b {
                out.push(format!(
                    "{model} · {key}: {} in the baseline, {} in this run",
                    a.map_or("unset", String::as_str),
                    b.map_or("unset", String::as_str)
                ));
            }
        }
    }
    let mut shared_questions = 0;
    for (id, fingerprint) in run.questions {
        match baseline.questions.get(id) {
            Some(then) if then == fingerprint => shared_questions += 1,
            Some(_) => out.push(format!(
                "question {id}: changed since the baseline (its text, answer, tests or match)"
            )),
            None => {}
        }
    }
    if shared_questions == 0 && !run.questions.is_empty() && out.is_empty() {
        out.push(format!(
            "questions: none of this run's {} question ids is in the baseline",
            run.questions.len()
        ));
    }
    out
}

fn names<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    keys.map(String::as_str).collect::<Vec<_>>().join(", ")
}
