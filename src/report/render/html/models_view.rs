//! The run folder's quick_view.html in a multi-model run: the models side
//! by side (prompt x model accuracy with intervals, each model's best
//! prompt against its runner-up, whether the ranking transfers, accuracy
//! by question kind, robustness across prompts, and the variant curves
//! with a line per model), linking to each model's own quick view.
//!
//! Like quick_view.html, every text goes through minijinja's HTML
//! escaping, and the page runs no script at all (its CSP allows none).

use std::path::Path;

use serde::Serialize;

use super::templates::MODELS_VIEW;
use crate::language::report as words;
use crate::report::render::Labels;
use crate::report::render::text::{best_names, versus_text, with_interval};
use crate::results::run_folder::write_derived;
use crate::results::{ModelsSummary, RunInfo, Summary};

/// One colour per model's line, in the run's order (then repeated).
const COLOURS: [&str; 6] = [
    "#0969da", "#bc4c00", "#1a7f37", "#8250df", "#cf222e", "#57606a",
];

#[derive(Serialize, Default)]
pub(crate) struct Page<'a> {
    pub l: Option<&'static Labels>,
    pub lang: &'a str,
    pub test_id: &'a str,
    pub timestamp: &'a str,
    pub suite: &'a str,
    pub rounds: u32,
    pub samples: u32,
    pub complete: bool,
    pub finished_cases: usize,
    pub planned_cases: usize,
    pub not_evaluated: usize,
    /// The banners over an interrupted run and over cases not evaluated,
    /// in the run's language.
    pub incomplete: Option<String>,
    pub not_evaluated_banner: Option<String>,
    pub models: Vec<ModelLine>,
    pub grid: Vec<GridRow>,
    pub transfer: Vec<TransferLine>,
    pub kind_names: Vec<String>,
    pub kinds: Vec<KindRow>,
    pub robustness: Vec<RobustnessView>,
    pub curves: Vec<CurveChart>,
}

#[derive(Serialize)]
pub(crate) struct ModelLine {
    pub name: String,
    pub dir: String,
    pub backend: String,
    pub endpoint: String,
    pub unavailable: Option<String>,
    pub finished: usize,
    pub planned: usize,
    pub speed: String,
    pub best: String,
}

#[derive(Serialize)]
pub(crate) struct GridRow {
    pub prompt: String,
    pub cells: Vec<GridCell>,
}

#[derive(Serialize, Default)]
pub(crate) struct GridCell {
    pub shown: bool,
    pub accuracy: String,
    pub interval: String,
    pub counts: String,
    pub not_evaluated: usize,
    pub best: bool,
    pub gate_failed: bool,
    pub threshold: String,
}

#[derive(Serialize)]
pub(crate) struct TransferLine {
    pub a: String,
    pub b: String,
    pub tau: String,
    pub rho: String,
    pub flips: Vec<String>,
    pub noise_flips: usize,
}

#[derive(Serialize)]
pub(crate) struct KindRow {
    pub model: String,
    pub prompt: String,
    pub cells: Vec<String>,
}

#[derive(Serialize)]
pub(crate) struct RobustnessView {
    pub model: String,
    pub spread: String,
    pub robust: String,
    pub sensitivity: String,
    pub questions: Vec<QuestionView>,
}

#[derive(Serialize)]
pub(crate) struct QuestionView {
    pub id: String,
    pub spread: String,
    pub extremes: String,
    pub robust: String,
    pub sensitivity: String,
}

#[derive(Serialize)]
pub(crate) struct CurveChart {
    pub strategy: String,
    pub width: f64,
    pub height: f64,
    pub right: f64,
    pub bottom: f64,
    pub ticks: Vec<(f64, String)>,
    pub lines: Vec<CurveLine>,
}

#[derive(Serialize)]
pub(crate) struct CurveLine {
    pub model: String,
    pub colour: &'static str,
    /// SVG polyline points, numbers only.
    pub points: String,
}

/// Writes the page to `path`.
pub(crate) fn write(
    path: &Path,
    info: &RunInfo,
    summary: &ModelsSummary,
    dirs: &[String],
) -> std::io::Result<()> {
    let html = super::templates::render(MODELS_VIEW, page(info, summary, dirs))?;
    write_derived(path, html.as_bytes())
}

fn page<'a>(info: &'a RunInfo, summary: &'a ModelsSummary, dirs: &[String]) -> Page<'a> {
    let mut page = Page {
        l: Some(Labels::of(info.language)),
        lang: info.language.html_lang(),
        test_id: &info.test_id,
        timestamp: &info.timestamp,
        suite: &info.suite,
        rounds: info.rounds,
        samples: info.samples,
        complete: summary.run.complete,
        finished_cases: summary.run.finished_cases,
        planned_cases: summary.run.planned_cases,
        not_evaluated: summary.run.not_evaluated,
        incomplete: (!summary.run.complete).then(|| {
            words::incomplete_banner(
                info.language,
                summary.run.finished_cases,
                summary.run.planned_cases,
                summary
                    .run
                    .budget
                    .as_ref()
                    .is_some_and(|b| b.stopped_the_run()),
            )
        }),
        not_evaluated_banner: (summary.run.not_evaluated > 0).then(|| {
            words::not_evaluated(
                info.language,
                summary.run.not_evaluated,
                summary.run.planned_cases,
                "n/e",
            )
        }),
        ..Page::default()
    };
    for (i, m) in info.models.iter().enumerate() {
        let results = summary.models.get(&m.name);
        page.models.push(ModelLine {
            name: m.name.clone(),
            dir: dirs.get(i).cloned().unwrap_or_default(),
            backend: m.backend.clone(),
            endpoint: m.endpoint.clone(),
            unavailable: m
                .unavailable
                .as_ref()
                .map(|w| w.lines().next().unwrap_or_default().to_string()),
            finished: results.map_or(0, |r| r.finished_cases),
            planned: m.planned_cases,
            speed: results
                .and_then(|r| r.generation_speed)
                .map_or_else(|| "-".into(), |s| format!("{s:.1}")),
            best: results.map_or_else(String::new, |r| best_text(r, Labels::of(info.language))),
        });
    }
    page.grid = grid(info, summary);
    page.curves = curves(summary);
    page.transfer = transfer(summary);
    (page.kind_names, page.kinds) = kinds(summary);
    page.robustness = robustness(summary);
    page
}

fn transfer(summary: &ModelsSummary) -> Vec<TransferLine> {
    let Some(cross) = &summary.cross_model else {
        return Vec::new();
    };
    cross
        .rank_transfer
        .iter()
        .map(|t| TransferLine {
            a: t.model_a.clone(),
            b: t.model_b.clone(),
            tau: with_interval(t.kendall_tau_b, t.kendall_tau_b_interval),
            rho: with_interval(t.spearman_rho, t.spearman_rho_interval),
            flips: t
                .flips
                .iter()
                .map(|f| {
                    format!(
                        "{} > {} on {} ({:.1}% vs {:.1}%, p = {}), reversed on {} ({:.1}% vs {:.1}%, p = {})",
                        f.first,
                        f.second,
                        t.model_a,
                        f.on_a.first_accuracy,
                        f.on_a.second_accuracy,
                        f.on_a.p_value,
                        t.model_b,
                        f.on_b.first_accuracy,
                        f.on_b.second_accuracy,
                        f.on_b.p_value
                    )
                })
                .collect(),
            noise_flips: t.flips_within_noise,
        })
        .collect()
}

fn kinds(summary: &ModelsSummary) -> (Vec<String>, Vec<KindRow>) {
    let mut names: Vec<String> = Vec::new();
    for m in summary.models.values() {
        for per_prompt in m.kind_results.iter().flat_map(|k| k.values()) {
            for kind in per_prompt.keys() {
                if !names.contains(kind) {
                    names.push(kind.clone());
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (model, m) in &summary.models {
        for (prompt, per_kind) in m.kind_results.iter().flatten() {
            rows.push(KindRow {
                model: model.clone(),
                prompt: prompt.clone(),
                cells: names
                    .iter()
                    .map(|k| match per_kind.get(k) {
                        Some(a) => format!(
                            "{} {} {}/{}",
                            a.accuracy
                                .map_or_else(|| "-".into(), |v| format!("{v:.1}%")),
                            a.accuracy_interval
                                .map_or_else(String::new, |[lo, hi]| format!("[{lo:.1}, {hi:.1}]")),
                            a.correct_answers,
                            a.total_questions
                        ),
                        None => "-".into(),
                    })
                    .collect(),
            });
        }
    }
    (names, rows)
}

fn robustness(summary: &ModelsSummary) -> Vec<RobustnessView> {
    summary
        .models
        .iter()
        .filter_map(|(model, m)| {
            // Across one prompt there is nothing to compare.
            let r = m.robustness.as_ref().filter(|r| r.prompts > 1)?;
            let pass1 = |k: &std::collections::BTreeMap<String, f64>,
                         i: &std::collections::BTreeMap<String, [f64; 2]>| {
                with_interval(k.get("pass@1").copied(), i.get("pass@1").copied())
            };
            Some(RobustnessView {
                model: model.clone(),
                spread: with_interval(r.mean_spread, r.mean_spread_interval),
                robust: format!(
                    "pass@1 {}",
                    pass1(&r.robust_pass_at_k, &r.robust_pass_at_k_interval)
                ),
                sensitivity: with_interval(r.mean_sensitivity, r.mean_sensitivity_interval),
                questions: r
                    .questions
                    .iter()
                    .map(|q| QuestionView {
                        id: q.question.clone(),
                        spread: with_interval(q.spread, q.spread_interval),
                        extremes: match (&q.lowest, &q.highest) {
                            (Some(lo), Some(hi)) => format!(
                                "{} {:.2} / {} {:.2}",
                                lo.prompt, lo.pass_rate, hi.prompt, hi.pass_rate
                            ),
                            _ => "-".into(),
                        },
                        robust: pass1(&q.robust_pass_at_k, &q.robust_pass_at_k_interval),
                        sensitivity: with_interval(q.sensitivity, q.sensitivity_interval),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// "prompt2 (83.3%), beats prompt1 by more than noise (...)".
fn best_text(results: &Summary, l: &Labels) -> String {
    match &results.best_prompt {
        None => "no evaluated case".into(),
        Some(b) => match &b.versus_runner_up {
            Some(v) if b.tied_with.is_empty() => {
                format!("{}, {}", best_names(b, l), versus_text(v, l.language))
            }
            _ => best_names(b, l),
        },
    }
}

fn grid(info: &RunInfo, summary: &ModelsSummary) -> Vec<GridRow> {
    info.prompts
        .iter()
        .map(|(prompt, _)| GridRow {
            prompt: prompt.clone(),
            cells: summary
                .models
                .values()
                .map(|m| {
                    let Some(r) = m.prompt_results.get(prompt) else {
                        return GridCell::default();
                    };
                    let best = m
                        .best_prompt
                        .as_ref()
                        .is_some_and(|b| &b.name == prompt || b.tied_with.contains(prompt));
                    GridCell {
                        shown: true,
                        accuracy: r.accuracy_text(),
                        interval: r.interval_text(),
                        counts: format!("{}/{}", r.correct_answers, r.total_questions),
                        not_evaluated: r.not_evaluated,
                        best,
                        gate_failed: r.gate_passed == Some(false),
                        threshold: r.threshold.map_or_else(String::new, |t| format!("{t:.1}")),
                    }
                })
                .collect(),
        })
        .collect()
}

/// One chart per strategy of the variant curves, a line per model.
fn curves(summary: &ModelsSummary) -> Vec<CurveChart> {
    let (width, height, left, top) = (320.0, 200.0, 40.0, 10.0);
    let (right, bottom) = (width - 10.0, height - 20.0);
    let mut strategies: Vec<&String> = Vec::new();
    for m in summary.models.values() {
        for po in m.partial_order.values() {
            for s in po.curves.keys() {
                if !strategies.contains(&s) {
                    strategies.push(s);
                }
            }
        }
    }
    let x = |detail: f64| left + detail.clamp(0.0, 1.0) * (right - left);
    let y = |pass: f64| bottom - pass.clamp(0.0, 1.0) * (bottom - top);
    strategies
        .into_iter()
        .map(|strategy| CurveChart {
            strategy: strategy.clone(),
            width,
            height,
            right,
            bottom,
            ticks: [0.0, 0.25, 0.5, 0.75, 1.0]
                .iter()
                .map(|&t| (y(t), format!("{t:.2}")))
                .collect(),
            lines: summary
                .models
                .iter()
                .enumerate()
                .flat_map(|(i, (model, m))| {
                    m.partial_order.iter().filter_map(move |(prompt, po)| {
                        let points = po.curves.get(strategy)?;
                        let label = match m.partial_order.len() {
                            1 => model.clone(),
                            _ => format!("{model} · {prompt}"),
                        };
                        Some(CurveLine {
                            model: label,
                            colour: COLOURS[i % COLOURS.len()],
                            points: points
                                .iter()
                                .map(|p| format!("{:.1},{:.1}", x(p.detail), y(p.pass_at_1)))
                                .collect::<Vec<_>>()
                                .join(" "),
                        })
                    })
                })
                .collect(),
        })
        .collect()
}
