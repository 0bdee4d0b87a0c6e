//! The report of a multi-model run. Each model gets the whole report of a
//! one-model run in its own folder (`<run_dir>/<model>/`: summary.json,
//! quick_view.html, report/, `<prompt>/question_N.py`), so every view and
//! `prompteval compare RUN/<model a> RUN/<model b>` work on it unchanged.
//! The run folder itself holds what compares the models: summary.json with
//! `models` (each model's results in the one-model shape) and
//! `cross_model`, report/summary.csv with a row per model and prompt, and
//! report/junit.xml with every case.

use std::path::Path;

use super::{Records, Written, write};
use crate::analysis::cross_model::cross_model;
use crate::analysis::kinds::accuracy_by_kind;
use crate::analysis::outcomes::Outcomes;
use crate::analysis::robustness::robustness;
use crate::case::CaseId;
use crate::record::journal::{Located, Reader};
use crate::report::render::files;
use crate::report::render::html::models_view;
use crate::results::groups::{groups, unknown_prompts};
use crate::results::run_folder::{model_dirs, write_json};
use crate::results::{Cases, RunInfo, Summary};

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
        let (mut summary, written) =
            write(&model_dir, &model_info, &groups, &Records::Journal(reader))?;
        let outcome = outcomes(run_dir, info, &mine)?;
        summary.robustness = Some(robustness(&outcome, &info.pass_at_k));
        if !info.kinds.is_empty() {
            summary.kind_results = Some(accuracy_by_kind(&outcome, &info.kinds));
        }
        // The model's own summary.json carries them too.
        write_json(&model_dir.join("summary.json"), &summary)?;
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
    write_json(&summary_json, &summary)?;
    let summary_csv = report_dir.join("summary.csv");
    files::write_models_csv(&summary_csv, &summary)?;
    let quick_view = run_dir.join("quick_view.html");
    models_view::write(&quick_view, info, &summary, &dirs)?;
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
