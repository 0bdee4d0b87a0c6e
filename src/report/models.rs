//! The report of a multi-model run. Each model gets the whole report of a
//! one-model run in its own folder (`<run_dir>/<model>/`: summary.json,
//! quick_view.html, report/, `<prompt>/question_N.py`), so every view and
//! `prompteval compare RUN/<model a> RUN/<model b>` work on it unchanged.
//! The run folder itself holds what compares the models: summary.json with
//! `models` (each model's results in the one-model shape) and
//! `cross_model`, report/summary.csv with a row per model and prompt, and
//! report/junit.xml with every case.

use std::path::Path;

use super::cross_model::cross_model;
use super::kinds::accuracy_by_kind;
use super::robustness::{Outcomes, robustness};
use super::summary::{ModelRun, RunInfo, Summary};
use super::{Cases, Written, files, groups, unknown_prompts, write};
use crate::case::CaseId;
use crate::record::journal::{Located, Reader};

impl RunInfo {
    /// One model's share of a multi-model run, as a one-model run's info.
    pub fn of_model(&self, model: &ModelRun) -> RunInfo {
        let mut info = self.clone();
        info.model = model.name.clone();
        info.backend = model.backend.clone();
        info.endpoint = model.endpoint.clone();
        info.thresholds = model.thresholds.clone();
        info.planned_cases = model.planned_cases;
        info.not_evaluated
            .retain(|u| u.case.model.as_deref() == Some(model.name.as_str()));
        info.models = Vec::new();
        info
    }
}

/// Each model's folder name: its name made a safe path component (as
/// `<prompt>/` folders are), never `report`, distinct from the others.
pub(crate) fn model_dirs(info: &RunInfo) -> Vec<String> {
    let mut used: Vec<String> = Vec::new();
    for m in &info.models {
        let dir = files::prompt_dir_name(&m.name, &used);
        used.push(dir);
    }
    used
}

/// The models of a multi-model run folder and their folders, from its
/// run_info.json; `None` for a one-model run (or no run folder).
pub fn models_of(run_dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let text = std::fs::read_to_string(run_dir.join("run_info.json")).ok()?;
    let info: RunInfo = serde_json::from_str(&text).ok()?;
    let names = info.models.iter().map(|m| m.name.clone()).collect();
    Some((names, model_dirs(&info)))
}

/// The folder of `model` in a multi-model run folder.
pub fn model_folder(
    run_dir: &Path,
    model: &str,
) -> Result<std::path::PathBuf, super::compare::RunFolderError> {
    let (models, dirs) = models_of(run_dir).unwrap_or_default();
    match models.iter().position(|m| m == model) {
        Some(i) => Ok(run_dir.join(&dirs[i])),
        None => Err(super::compare::RunFolderError::NoSuchModel {
            path: run_dir.to_path_buf(),
            model: model.to_string(),
            models,
        }),
    }
}

/// Writes every model's report into its folder, then the run's own
/// summary.json and report/summary.csv across the models.
pub(crate) fn write_models(
    run_dir: &Path,
    info: &RunInfo,
    entries: &[Located],
    templates: &indexmap::IndexMap<String, String>,
) -> std::io::Result<(Summary, Written)> {
    let dirs = model_dirs(info);
    let mut per_model: indexmap::IndexMap<String, Summary> = indexmap::IndexMap::new();
    let mut first_written: Option<Written> = None;
    let mut model_outcomes: Vec<(String, Outcomes)> = Vec::new();
    for (model, dir) in info.models.iter().zip(&dirs) {
        let mine: Vec<&Located> = entries
            .iter()
            .filter(|e| e.case.model.as_deref() == Some(model.name.as_str()))
            .collect();
        let model_info = info.of_model(model);
        let extra = unknown_prompts(
            &model_info,
            templates.iter().map(|(p, t)| (p.as_str(), t.as_str())),
        );
        let located: Vec<(&CaseId, (u64, usize))> =
            mine.iter().map(|e| (&e.case, (e.offset, e.len))).collect();
        let groups = groups(&model_info, extra, located, Cases::Journal);
        let model_dir = run_dir.join(dir);
        std::fs::create_dir_all(&model_dir)?;
        let reader = Reader::open(run_dir)?;
        let (mut summary, written) = write(
            &model_dir,
            &model_info,
            &groups,
            &super::Records::Journal(reader),
        )?;
        let outcome = outcomes(run_dir, info, &mine)?;
        summary.robustness = Some(robustness(&outcome, &info.pass_at_k));
        if !info.kinds.is_empty() {
            summary.kind_results = Some(accuracy_by_kind(&outcome, &info.kinds));
        }
        // The model's own summary.json carries them too.
        files::write_json(&model_dir.join("summary.json"), &summary)?;
        per_model.insert(model.name.clone(), summary);
        model_outcomes.push((model.name.clone(), outcome));
        first_written.get_or_insert(written);
    }
    let mut summary = across(info, per_model);
    let pairs: Vec<(&str, &Outcomes)> = model_outcomes
        .iter()
        .map(|(m, o)| (m.as_str(), o))
        .collect();
    summary.cross_model = Some(cross_model(&pairs));
    let report_dir = run_dir.join("report");
    std::fs::create_dir_all(&report_dir)?;
    let summary_json = run_dir.join("summary.json");
    files::write_json(&summary_json, &summary)?;
    let summary_csv = report_dir.join("summary.csv");
    files::write_models_csv(&summary_csv, &summary)?;
    let quick_view = run_dir.join("quick_view.html");
    super::models_view::write(&quick_view, info, &summary, &dirs)?;
    let mut written = first_written.unwrap_or_else(|| Written {
        summary_json: summary_json.clone(),
        quick_view: run_dir.join("quick_view.html"),
        detailed_report: report_dir.join("detailed_report.json"),
        summary_csv: summary_csv.clone(),
        cases_csv: report_dir.join("cases.csv"),
        junit_xml: report_dir.join("junit.xml"),
        partial_order_csv: None,
        case_files: Vec::new(),
    });
    written.summary_json = summary_json;
    written.summary_csv = summary_csv;
    written.quick_view = quick_view;
    Ok((summary, written))
}

/// One model's outcomes per prompt, question and attempt, read from its
/// journal records. Questions are in suite order (by their number), over
/// every model's records so the models' outcomes line up.
fn outcomes(run_dir: &Path, info: &RunInfo, mine: &[&Located]) -> std::io::Result<Outcomes> {
    let reader = Reader::open(run_dir)?;
    let mut records = Vec::with_capacity(mine.len());
    for e in mine {
        records.push(reader.record_at(e.offset, e.len)?);
    }
    let prompts: Vec<String> = info.prompts.iter().map(|(p, _)| p.clone()).collect();
    Ok(Outcomes::from_records(
        &prompts,
        &info.question_ids,
        records.iter(),
    ))
}

/// The run's summary across its models: the run's facts, totals over the
/// models, and each model's results under `models`.
fn across(info: &RunInfo, models: indexmap::IndexMap<String, Summary>) -> Summary {
    let sum = |f: fn(&Summary) -> usize| models.values().map(f).sum::<usize>();
    let mut api_failures: std::collections::BTreeMap<String, usize> = Default::default();
    for s in models.values() {
        for (k, v) in &s.api_failures {
            *api_failures.entry(k.clone()).or_default() += v;
        }
    }
    Summary {
        finished_cases: sum(|s| s.finished_cases),
        not_evaluated: sum(|s| s.not_evaluated),
        api_failures,
        models,
        ..Summary::of_run(info)
    }
}

/// The cross-model lines of the table: rank correlation between each pair
/// of models with its interval, the prompt pairs whose order flips beyond
/// noise, and each model's most prompt-dependent questions.
pub(crate) fn transfer_lines(summary: &Summary) -> String {
    let mut out = String::new();
    if let Some(cross) = &summary.cross_model {
        // Two prompts at least, or there is no order to transfer.
        for t in cross.rank_transfer.iter().filter(|t| t.prompts > 1) {
            out.push_str(&format!(
                "ranking {} vs {}: Kendall tau-b {} (95% CI {}), Spearman rho {} over {} prompts\n",
                t.model_a,
                t.model_b,
                figure(t.kendall_tau_b),
                interval(t.kendall_tau_b_interval),
                figure(t.spearman_rho),
                t.prompts
            ));
            for f in &t.flips {
                out.push_str(&format!(
                    "  ⚠ order flips beyond noise: {} > {} on {} ({:.1}% vs {:.1}%, p = {}), {} > {} on {} ({:.1}% vs {:.1}%, p = {})\n",
                    f.first, f.second, t.model_a, f.on_a.first_accuracy, f.on_a.second_accuracy, f.on_a.p_value,
                    f.second, f.first, t.model_b, f.on_b.second_accuracy, f.on_b.first_accuracy, f.on_b.p_value
                ));
            }
            if t.flips.is_empty() {
                out.push_str(&format!(
                    "  no prompt pair flips order beyond noise ({} flip(s) within noise)\n",
                    t.flips_within_noise
                ));
            }
        }
    }
    for (model, results) in &summary.models {
        let Some(r) = results.robustness.as_ref().filter(|r| r.prompts > 1) else {
            continue;
        };
        let most: Vec<String> = r
            .questions
            .iter()
            .filter(|q| q.sensitivity.is_some_and(|s| s > 0.0))
            .take(3)
            .map(|q| format!("{} {}", q.question, figure(q.sensitivity)))
            .collect();
        out.push_str(&format!(
            "robustness {model}: mean spread {} {}, PromptSensiScore {} {}, robust pass@1 {}{}\n",
            figure(r.mean_spread),
            interval(r.mean_spread_interval),
            figure(r.mean_sensitivity),
            interval(r.mean_sensitivity_interval),
            figure(r.robust_pass_at_k.get("pass@1").copied()),
            match most.is_empty() {
                true => String::new(),
                false => format!("; most prompt-dependent: {}", most.join(", ")),
            }
        ));
    }
    out
}

pub(crate) fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

pub(crate) fn interval(value: Option<[f64; 2]>) -> String {
    value.map_or_else(|| "[-]".into(), |[lo, hi]| format!("[{lo:.2}, {hi:.2}]"))
}
