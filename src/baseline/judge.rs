//! A run against its baseline, prompt by prompt: the cases both evaluated
//! are paired (same model, prompt, question, round and sample) and tested
//! by exact McNemar; the cases only one side evaluated are counted and
//! said, never paired.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::identity::RunIdentity;
use super::{Baseline, BaselineError, differences, verdicts};
use crate::analysis::gate::{self, BaselineCheck, BaselineReport, GateReport};
use crate::analysis::stats::Paired;
use crate::case::Verdict;
use crate::results::{RunInfo, RunSummary};

/// Model -> case name -> verdict.
type Verdicts = BTreeMap<String, BTreeMap<String, Verdict>>;

/// The gate of a run folder whose report was written: its thresholds and,
/// when the run was configured with one, its baseline. A baseline that
/// cannot be read or is from another experiment is an error, never a pass.
pub fn gate_run(
    run_dir: &Path,
    summary: &RunSummary,
    info: &RunInfo,
) -> Result<Option<GateReport>, BaselineError> {
    let baseline = match &info.gate.baseline {
        None => None,
        Some(path) => {
            let baseline = Baseline::read(path)?;
            let differences = differences(&baseline, &RunIdentity::of(info));
            if !differences.is_empty() {
                return Err(BaselineError::Differs {
                    path: path.clone(),
                    differences,
                });
            }
            let now = verdicts(run_dir, info)?;
            let file = path.display().to_string();
            Some(judge(
                &baseline,
                &file,
                &now,
                &selected_prompts(summary, info),
                info.gate.alpha,
            ))
        }
    };
    Ok(gate::evaluate(summary, info, baseline))
}

/// Model -> the prompts this run selected cases of (evaluated or not).
fn selected_prompts(summary: &RunSummary, info: &RunInfo) -> BTreeMap<String, BTreeSet<String>> {
    let ran = |s: &crate::results::Summary| {
        s.prompt_results
            .iter()
            .filter(|(_, r)| r.total_questions + r.not_evaluated > 0)
            .map(|(name, _)| name.clone())
            .collect::<BTreeSet<_>>()
    };
    match summary {
        RunSummary::OneModel(s) => BTreeMap::from([(info.model.clone(), ran(s))]),
        RunSummary::Models(m) => m
            .models
            .iter()
            .map(|(name, s)| (name.clone(), ran(s)))
            .collect(),
    }
}

/// The prompt of a case name (`prompt::question::rN`).
fn prompt_of(case: &str) -> &str {
    case.split("::").next().unwrap_or(case)
}

/// Every prompt of every model against the baseline. `selected` says which
/// prompts the run selected cases of: one selected but with no case
/// evaluated on both sides fails (it cannot be compared); one not selected
/// at all is said and not gated.
pub fn judge(
    baseline: &Baseline,
    file: &str,
    now: &Verdicts,
    selected: &BTreeMap<String, BTreeSet<String>>,
    alpha: f64,
) -> BaselineReport {
    let several = baseline.cases.len().max(selected.len()) > 1;
    let mut report = BaselineReport {
        file: file.to_string(),
        alpha,
        checks: Vec::new(),
        prompts_not_run: Vec::new(),
        prompts_without_baseline: Vec::new(),
    };
    let empty = BTreeMap::new();
    let models: BTreeSet<&String> = baseline.cases.keys().chain(selected.keys()).collect();
    for model in models {
        let then = baseline.cases.get(model).unwrap_or(&empty);
        let current = now.get(model).unwrap_or(&empty);
        let chosen = selected.get(model);
        let name = |prompt: &str| gate::subject(several.then_some(model.as_str()), prompt);
        let prompts: BTreeSet<&str> = then
            .keys()
            .map(|c| prompt_of(c))
            .chain(chosen.into_iter().flatten().map(String::as_str))
            .collect();
        for prompt in prompts {
            let in_baseline = then.keys().any(|c| prompt_of(c) == prompt);
            if !chosen.is_some_and(|c| c.contains(prompt)) {
                report.prompts_not_run.push(name(prompt));
            } else if !in_baseline {
                report.prompts_without_baseline.push(name(prompt));
            } else {
                report
                    .checks
                    .push(check(name(prompt), prompt, then, current));
            }
        }
    }
    report
}

/// One prompt's cases, paired where both sides evaluated them.
fn check(
    name: String,
    prompt: &str,
    then: &BTreeMap<String, Verdict>,
    now: &BTreeMap<String, Verdict>,
) -> BaselineCheck {
    let of_prompt = |m: &'_ BTreeMap<String, Verdict>| {
        m.iter()
            .filter(|(c, _)| prompt_of(c) == prompt)
            .map(|(c, v)| (c.clone(), *v == Verdict::Correct))
            .collect::<BTreeMap<String, bool>>()
    };
    let (then, now) = (of_prompt(then), of_prompt(now));
    let pairs: Vec<(bool, bool)> = then
        .iter()
        .filter_map(|(case, before)| now.get(case).map(|after| (*before, *after)))
        .collect();
    let paired = Paired::of(pairs.iter().copied());
    BaselineCheck {
        prompt: name,
        paired,
        baseline_passed: pairs.iter().filter(|p| p.0).count(),
        run_passed: pairs.iter().filter(|p| p.1).count(),
        only_in_baseline: then.len() - paired.shared,
        only_in_run: now.len() - paired.shared,
    }
}
