//! quick_view.html (spec §8.4): the run at a glance, complete without
//! JavaScript: the table, the overview, the questions x prompts matrix, the
//! curves of a variants run, and per prompt a table of its pages of cases
//! by verdict (case_pages.rs), which is what the filters select. Its one
//! script (quick_view.js) adds the filters and sorting.
//!
//! The page is written once, after the case pages, from the summary and
//! the pages' index: its size depends on the prompts, the matrix's first
//! rows and the number of pages, never on the cases' texts.

use std::path::Path;

use serde::Serialize;

use super::case_pages::{CASES_PER_PAGE, PageIndex, PromptPages};
use super::templates::{self, QUICK_VIEW, QUICK_VIEW_SCRIPT};
use crate::language::report as words;
use crate::report::render::Labels;
use crate::report::render::text::{best_names, versus_text};
use crate::results::run_folder::write_atomically;
use crate::results::summary::failure_verdicts;
use crate::results::{RunInfo, Summary};

/// Most cases not evaluated the page lists; run_info.json has them all.
const NOT_EVALUATED_ROWS: usize = 200;

#[derive(Serialize)]
struct Page<'a> {
    /// The labels in the run's language.
    l: &'static Labels,
    /// The race's standing (the terminal's lines under the table), when
    /// the run was a race.
    race: Option<String>,
    /// The budget's spending against the plan and the caps.
    budget: Option<String>,
    /// The page's HTML `lang`.
    lang: &'static str,
    /// The CSP source for the page's script, and the script.
    script_hash: String,
    script: &'static str,
    /// The banner over an interrupted run, in the run's language.
    incomplete: Option<String>,
    /// The heading over the cases not evaluated, in the run's language.
    not_evaluated_heading: String,
    test_id: &'a str,
    timestamp: &'a str,
    total_execution_time: f64,
    suite: &'a str,
    model: &'a str,
    backend: &'a str,
    endpoint: &'a str,
    complete: bool,
    finished_cases: usize,
    planned_cases: usize,
    isolation: Vec<(String, String)>,
    verdict_names: Vec<&'static str>,
    multi_round: bool,
    /// Whether the server reported token figures (the tokens/case column).
    show_tokens: bool,
    /// Completion tokens per second of generation, where the server timed it.
    generation_speed: Option<f64>,
    best: Option<String>,
    /// Whether the best beats the runner-up by more than noise.
    versus: Option<String>,
    /// Selected cases that were not evaluated, with why (the first
    /// NOT_EVALUATED_ROWS; the rest are counted).
    not_evaluated: Vec<NotEvaluatedView<'a>>,
    not_evaluated_more: Option<String>,
    rows: Vec<Row>,
    /// Whether some prompt has pass@k for a k > 1 (the pass@k column).
    show_pass_at_k: bool,
    /// Some prompt's correct C++ cases were timed (ParEval's speedup).
    show_speed: bool,
    /// pass@1 against prompt detail, per prompt (a run of prompt variants).
    curves: Vec<super::svg::PromptCharts<'a>>,
    /// The themes of the descriptions and the ablations, per prompt (a
    /// run whose variants are labeled).
    themes: Vec<super::radar::ThemeCharts<'a>>,
    overview: super::svg::Overview,
    #[serde(flatten)]
    links: Links<'a>,
}

/// What the page links to: the matrix (its first rows here, the rest on
/// pages) and the pages of cases.
#[derive(Serialize)]
struct Links<'a> {
    /// Prompt names, the matrix's columns.
    columns: Vec<&'a str>,
    matrix: Vec<super::matrix::MatrixRow>,
    /// The matrix's other pages, and the sentence that leads to them.
    matrix_pages: Vec<String>,
    matrix_more: String,
    /// Per prompt, its pages of cases by verdict.
    case_pages: &'a [PromptPages],
    case_pages_note: String,
}

#[derive(Serialize)]
struct NotEvaluatedView<'a> {
    name: String,
    reason: &'a str,
    detail: &'a str,
}

#[derive(Serialize)]
struct Row {
    name: String,
    /// Api errors and cases not evaluated: shown beside the accuracy.
    warnings: Vec<String>,
    accuracy: String,
    /// The accuracy as a number, for sorting.
    accuracy_value: Option<f64>,
    /// 95 % Wilson interval.
    interval: String,
    correct_total: String,
    avg_time: String,
    /// Mean prompt+completion tokens per case.
    tokens: String,
    /// pass@k with intervals.
    pass_at_k: String,
    speed: Option<String>,
    verdict_counts: Vec<usize>,
    rounds: Option<String>,
    gate: Option<String>,
    gate_failed: bool,
}

/// Writes quick_view.html (and the matrix's pages) into `run_dir`, from
/// the summary and what the case pages hold.
pub(crate) fn write(
    path: &Path,
    info: &RunInfo,
    summary: &Summary,
    index: &PageIndex,
) -> std::io::Result<()> {
    let run_dir = path.parent().unwrap_or(Path::new("."));
    let matrix = super::matrix::write(run_dir, info, summary, index)?;
    let links = Links {
        columns: summary.prompt_results.keys().map(String::as_str).collect(),
        matrix: matrix.shown,
        matrix_pages: matrix.pages,
        matrix_more: words::matrix_more(info.language, matrix.more),
        case_pages: &index.prompts,
        case_pages_note: words::case_pages_note(info.language, CASES_PER_PAGE),
    };
    let html = templates::render(QUICK_VIEW, page(info, summary, links))?;
    write_atomically(path, html.as_bytes())
}

fn page<'a>(info: &'a RunInfo, summary: &'a Summary, links: Links<'a>) -> Page<'a> {
    Page {
        script_hash: templates::script_source(QUICK_VIEW_SCRIPT),
        script: QUICK_VIEW_SCRIPT,
        l: Labels::of(info.language),
        race: Some(crate::report::render::race::race_lines(summary)).filter(|r| !r.is_empty()),
        budget: summary
            .budget
            .as_ref()
            .map(crate::report::render::budget::budget_lines)
            .filter(|l| !l.is_empty()),
        lang: info.language.html_lang(),
        incomplete: (!info.complete).then(|| {
            words::incomplete_banner(
                info.language,
                summary.finished_cases,
                info.planned_cases,
                summary.budget.as_ref().is_some_and(|b| b.stopped_the_run()),
            )
        }),
        not_evaluated_heading: words::not_evaluated_heading(
            info.language,
            info.not_evaluated.len(),
        ),
        test_id: &info.test_id,
        timestamp: &info.timestamp,
        total_execution_time: summary.total_execution_time,
        suite: &info.suite,
        model: &info.model,
        backend: &info.backend,
        endpoint: &info.endpoint,
        complete: info.complete,
        finished_cases: summary.finished_cases,
        planned_cases: info.planned_cases,
        isolation: isolation_pairs(&info.isolation),
        verdict_names: failure_verdicts(summary.prompt_results.values())
            .into_iter()
            .map(|v| v.as_str())
            .collect(),
        multi_round: summary.prompt_results.values().any(|r| r.rounds.is_some()),
        show_tokens: summary
            .prompt_results
            .values()
            .any(|r| r.cases_with_tokens > 0),
        generation_speed: summary.generation_speed,
        best: summary
            .best_prompt
            .as_ref()
            .map(|b| best_names(b, Labels::of(info.language))),
        versus: summary
            .best_prompt
            .as_ref()
            .and_then(|b| b.versus_runner_up.as_ref())
            .map(|v| versus_text(v, info.language)),
        not_evaluated: info
            .not_evaluated
            .iter()
            .take(NOT_EVALUATED_ROWS)
            .map(|u| NotEvaluatedView {
                name: u.case.test_name(),
                reason: &u.reason,
                detail: &u.detail,
            })
            .collect(),
        not_evaluated_more: (info.not_evaluated.len() > NOT_EVALUATED_ROWS).then(|| {
            words::not_evaluated_more(info.language, info.not_evaluated.len() - NOT_EVALUATED_ROWS)
        }),
        rows: rows(summary, info.language),
        show_speed: summary.prompt_results.values().any(|r| r.speed.is_some()),
        show_pass_at_k: summary
            .prompt_results
            .values()
            .any(|r| r.has_pass_at_k_beyond_1()),
        curves: summary
            .partial_order
            .iter()
            .map(|(name, order)| super::svg::charts(name, order))
            .collect(),
        themes: summary
            .themes
            .iter()
            .map(|(name, t)| super::radar::charts(name, t))
            .collect(),
        overview: super::svg::overview(summary),
        links,
    }
}

fn rows(summary: &Summary, lang: crate::language::Language) -> Vec<Row> {
    let verdicts = failure_verdicts(summary.prompt_results.values());
    summary
        .prompt_results
        .iter()
        .map(|(name, r)| Row {
            name: name.clone(),
            warnings: r.warnings_in(lang),
            accuracy: r.accuracy_text(),
            accuracy_value: r.accuracy,
            interval: r.interval_text(),
            correct_total: format!("{}/{}", r.correct_answers, r.total_questions),
            avg_time: r.avg_time_text(),
            tokens: r.tokens_text(),
            pass_at_k: r.pass_at_k_text(),
            speed: r.speed.as_ref().map(|s| match s.by_type_text() {
                Some(by_type) => format!("{}; {by_type}", s.text()),
                None => s.text(),
            }),
            verdict_counts: verdicts
                .iter()
                .map(|v| r.error_breakdown.get(v.as_str()).copied().unwrap_or(0))
                .collect(),
            rounds: r.rounds.as_ref().map(|s| {
                format!(
                    "{} rounds: mean {:.1}%, min {:.1}%, max {:.1}%, sd {:.1}",
                    s.count, s.mean, s.min, s.max, s.stddev
                )
            }),
            gate: r.threshold.map(|t| {
                let verdict = if r.gate_passed == Some(true) {
                    "pass"
                } else {
                    "FAIL"
                };
                format!("{verdict} (≥ {t:.1}%)")
            }),
            gate_failed: r.gate_passed == Some(false),
        })
        .collect()
}

/// `Isolation` is recorded as JSON; the page lists it as key/value pairs.
fn isolation_pairs(isolation: &serde_json::Value) -> Vec<(String, String)> {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) if items.is_empty() => "none".to_string(),
        other => other.to_string(),
    };
    match isolation {
        serde_json::Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
        serde_json::Value::Null => Vec::new(),
        other => vec![("isolation".to_string(), text(other))],
    }
}
