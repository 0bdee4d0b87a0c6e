//! The report of a multi-model run. Each model gets the whole report of a
//! one-model run in its own folder (`<run_dir>/<model>/`: summary.json,
//! quick_view.html, report/, `<prompt>/question_N.py`), so every view and
//! `prompteval compare RUN/<model a> RUN/<model b>` work on it unchanged.
//! The run folder itself holds what compares the models: summary.json with
//! `models` (each model's results in the one-model shape) and
//! `cross_model`, report/summary.csv with a row per model and prompt, and
//! report/junit.xml with every case.

use std::path::Path;

use super::{Records, Written, summarize, write_files};
use crate::analysis::cross_model::cross_model;
use crate::analysis::kinds::accuracy_by_kind;
use crate::analysis::outcomes::{Outcomes, OutcomesLayout};
use crate::analysis::robustness::robustness;
use crate::case::CaseId;
use crate::record::journal::{Located, Reader};
use crate::report::render::files;
use crate::report::render::html::models_view;
use crate::results::groups::{groups, unknown_prompts};
use crate::results::run_folder::{QUICK_VIEW, SUMMARY, model_dirs, write_json};
use crate::results::{Cases, ModelsSummary, PromptGroup, RunInfo, Summary};

/// Writes every model's report into its folder, then the run's own
/// summary.json and report/summary.csv across the models. Each model's
/// journal records are read twice (tallied, with their outcomes laid out
/// for the figures across prompts; then streamed into the files), and each
/// file is written once.
pub(crate) fn write_models(
    run_dir: &Path,
    info: &RunInfo,
    entries: &[Located],
    templates: &indexmap::IndexMap<String, String>,
) -> std::io::Result<(ModelsSummary, Written)> {
    let dirs = model_dirs(info);
    let records = Records::Journal(Reader::open(run_dir)?);
    let prompts: Vec<String> = info.prompts.iter().map(|(p, _)| p.clone()).collect();
    let mut per_model: indexmap::IndexMap<String, Summary> = indexmap::IndexMap::new();
    let mut first_written: Option<Written> = None;
    let mut model_outcomes: Vec<(String, Outcomes)> = Vec::new();
    for (model, dir) in info.models.iter().zip(&dirs) {
        let model_info = info.of_model(model);
        let groups = model_groups(&model_info, entries, templates);
        // Questions in suite order over every model's records, so the
        // models' outcomes line up.
        let mut layout = OutcomesLayout::new(&prompts, &info.question_ids);
        let mut summary = summarize(&model_info, &groups, &records, |r| layout.add(r))?;
        let outcomes = layout.finish();
        summary.robustness = Some(robustness(&outcomes, &info.pass_at_k));
        if !info.kinds.is_empty() {
            summary.kind_results = Some(accuracy_by_kind(&outcomes, &info.kinds));
        }
        let model_dir = run_dir.join(dir);
        std::fs::create_dir_all(&model_dir)?;
        let written = write_files(&model_dir, &model_info, &groups, &records, &summary)?;
        per_model.insert(model.name.clone(), summary);
        model_outcomes.push((model.name.clone(), outcomes));
        first_written.get_or_insert(written);
    }
    let mut summary = ModelsSummary::across(info, per_model);
    let pairs: Vec<(&str, &Outcomes)> = model_outcomes
        .iter()
        .map(|(m, o)| (m.as_str(), o))
        .collect();
    summary.cross_model = Some(cross_model(&pairs));
    let report_dir = run_dir.join("report");
    std::fs::create_dir_all(&report_dir)?;
    let summary_json = run_dir.join(SUMMARY);
    write_json(&summary_json, &summary)?;
    let summary_csv = report_dir.join("summary.csv");
    files::write_models_csv(&summary_csv, &summary)?;
    let quick_view = run_dir.join(QUICK_VIEW);
    models_view::write(&quick_view, info, &summary, &dirs)?;
    let mut written = first_written.unwrap_or_else(|| Written {
        summary_json: summary_json.clone(),
        quick_view: quick_view.clone(),
        detailed_report: report_dir.join("detailed_report.json"),
        summary_csv: summary_csv.clone(),
        cases_csv: report_dir.join("cases.csv"),
        junit_xml: report_dir.join("junit.xml"),
        partial_order_csv: None,
        themes_csv: None,
        case_files: 0,
    });
    written.summary_json = summary_json;
    written.summary_csv = summary_csv;
    written.quick_view = quick_view;
    Ok((summary, written))
}

/// One model's records grouped by prompt, as a one-model run's report
/// groups them.
fn model_groups<'a>(
    model_info: &'a RunInfo,
    entries: &'a [Located],
    templates: &'a indexmap::IndexMap<String, String>,
) -> Vec<PromptGroup<'a>> {
    let name = model_info.model.as_str();
    let extra = unknown_prompts(
        model_info,
        templates.iter().map(|(p, t)| (p.as_str(), t.as_str())),
    );
    let located: Vec<(&CaseId, (u64, usize))> = entries
        .iter()
        .filter(|e| e.case.model.as_deref() == Some(name))
        .map(|e| (&e.case, (e.offset, e.len)))
        .collect();
    groups(model_info, extra, located, Cases::Journal)
}
