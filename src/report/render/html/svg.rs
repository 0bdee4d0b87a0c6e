//! The geometry of quick_view.html's curves: numbers only (the template
//! writes the SVG markup, escaped). One chart per prompt and strategy:
//! pass@1 (0 to 1, upwards) at each detail level, evenly spaced from p_bot
//! to p_top, its 95 % interval as a vertical bar, the original prompt's
//! pass@1 as a dashed line.

use serde::Serialize;

use crate::results::summary::failure_verdicts;
use crate::results::{PartialOrder, Point};

const WIDTH: f64 = 420.0;
const HEIGHT: f64 = 250.0;
const LEFT: f64 = 40.0;
const RIGHT: f64 = 44.0;
const TOP: f64 = 12.0;
/// Room for the rotated level labels.
const BOTTOM: f64 = 78.0;

#[derive(Serialize)]
pub(crate) struct PromptCharts<'a> {
    pub name: &'a str,
    pub charts: Vec<Chart>,
    pub order: &'a PartialOrder,
}

#[derive(Serialize)]
pub(crate) struct Chart {
    pub strategy: String,
    pub width: f64,
    pub height: f64,
    /// Plot area edges.
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// `x,y x,y ...` of the line through the points.
    pub polyline: String,
    pub points: Vec<ChartPoint>,
    pub ticks: Vec<Tick>,
    pub original: Option<Original>,
}

#[derive(Serialize)]
pub(crate) struct ChartPoint {
    pub x: f64,
    pub y: f64,
    /// The interval's ends (equal to `y` without one).
    pub y_low: f64,
    pub y_high: f64,
    pub label: String,
    /// The CSV's values, written as the CSV writes them, carried as data
    /// attributes (a checker compares text with text).
    pub pass_at_1: String,
    pub ci_low: Option<String>,
    pub ci_high: Option<String>,
    pub problems: usize,
    pub attempts: usize,
}

#[derive(Serialize)]
pub(crate) struct Tick {
    pub y: f64,
    pub text: String,
}

#[derive(Serialize)]
pub(crate) struct Original {
    pub y: f64,
    pub pass_at_1: String,
}

fn y_of(value: f64) -> f64 {
    round2(TOP + (1.0 - value.clamp(0.0, 1.0)) * (HEIGHT - TOP - BOTTOM))
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

pub(crate) fn charts<'a>(name: &'a str, order: &'a PartialOrder) -> PromptCharts<'a> {
    let charts = order
        .curves
        .iter()
        .map(|(strategy, points)| chart(strategy, points, order.original.as_ref()))
        .collect();
    PromptCharts {
        name,
        charts,
        order,
    }
}

fn chart(strategy: &str, points: &[Point], original: Option<&Point>) -> Chart {
    let span = WIDTH - LEFT - RIGHT;
    let step = span / (points.len().max(2) - 1) as f64;
    let shown: Vec<ChartPoint> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let y = y_of(p.pass_at_1);
            ChartPoint {
                x: round2(LEFT + i as f64 * step),
                y,
                y_low: p.interval.map_or(y, |[lo, _]| y_of(lo)),
                y_high: p.interval.map_or(y, |[_, hi]| y_of(hi)),
                label: p.label.clone(),
                pass_at_1: p.pass_at_1.to_string(),
                ci_low: p.interval.map(|i| i[0].to_string()),
                ci_high: p.interval.map(|i| i[1].to_string()),
                problems: p.problems,
                attempts: p.attempts,
            }
        })
        .collect();
    Chart {
        strategy: strategy.to_string(),
        width: WIDTH,
        height: HEIGHT,
        left: LEFT,
        right: WIDTH - RIGHT,
        top: TOP,
        bottom: HEIGHT - BOTTOM,
        polyline: shown
            .iter()
            .map(|p| format!("{},{}", p.x, p.y))
            .collect::<Vec<_>>()
            .join(" "),
        points: shown,
        ticks: [0.0, 0.25, 0.5, 0.75, 1.0]
            .into_iter()
            .map(|v| Tick {
                y: y_of(v),
                text: format!("{v:.2}"),
            })
            .collect(),
        original: original.map(|o| Original {
            y: y_of(o.pass_at_1),
            pass_at_1: o.pass_at_1.to_string(),
        }),
    }
}

/// The overview: one row per prompt, accuracy as a bar (0 to 100 %) with
/// its 95 % interval as a whisker and the rounds' min-max as ticks, and a
/// stacked bar of its verdicts (correct and each failure kind).
#[derive(Serialize)]
pub(crate) struct Overview {
    pub width: f64,
    pub height: f64,
    pub label_width: f64,
    pub bar_width: f64,
    pub stack_x: f64,
    pub rows: Vec<OverviewRow>,
    pub legend: Vec<(String, String)>,
}

#[derive(Serialize)]
pub(crate) struct OverviewRow {
    pub name: String,
    pub y: f64,
    pub accuracy: Option<f64>,
    pub bar: f64,
    pub ci: Option<[f64; 2]>,
    pub range: Option<[f64; 2]>,
    pub text: String,
    pub segments: Vec<Segment>,
}

#[derive(Serialize)]
pub(crate) struct Segment {
    pub x: f64,
    pub width: f64,
    pub verdict: String,
    pub count: usize,
    pub colour: &'static str,
}

const ROW: f64 = 26.0;
const LABEL: f64 = 150.0;
const BAR: f64 = 300.0;
const STACK: f64 = 300.0;

/// A colour per verdict, as the legend shows.
pub(crate) fn colour(verdict: &str) -> &'static str {
    match verdict {
        "correct" => "#1a7f37",
        "wrong_answer" => "#cf222e",
        "syntax_error" => "#8250df",
        "runtime_error" => "#bc4c00",
        "timeout" => "#9a6700",
        "api_error" => "#59636e",
        "no_answer" => "#0969da",
        _ => "#afb8c1",
    }
}

pub(crate) fn overview(summary: &crate::results::Summary) -> Overview {
    let x_of = |percent: f64| round2(LABEL + percent.clamp(0.0, 100.0) / 100.0 * BAR);
    let stack_x = LABEL + BAR + 40.0;
    let verdicts = failure_verdicts(summary.prompt_results.values());
    let rows = summary
        .prompt_results
        .iter()
        .enumerate()
        .map(|(i, (name, r))| {
            let mut segments = Vec::new();
            let total = r.total_questions.max(1) as f64;
            let mut x = stack_x;
            let counts = std::iter::once(("correct".to_string(), r.correct_answers)).chain(
                verdicts.iter().map(|v| {
                    (
                        v.as_str().to_string(),
                        r.error_breakdown.get(v.as_str()).copied().unwrap_or(0),
                    )
                }),
            );
            for (verdict, count) in counts.filter(|(_, c)| *c > 0) {
                let width = round2(count as f64 / total * STACK);
                segments.push(Segment {
                    x: round2(x),
                    width,
                    colour: colour(&verdict),
                    verdict,
                    count,
                });
                x += width;
            }
            OverviewRow {
                name: name.clone(),
                y: round2(10.0 + i as f64 * ROW),
                accuracy: r.accuracy,
                bar: r.accuracy.map_or(0.0, |a| round2(a / 100.0 * BAR)),
                ci: r.accuracy_interval.map(|[lo, hi]| [x_of(lo), x_of(hi)]),
                range: r.rounds.as_ref().map(|s| [x_of(s.min), x_of(s.max)]),
                text: r.accuracy_text(),
                segments,
            }
        })
        .collect::<Vec<_>>();
    Overview {
        width: stack_x + STACK + 20.0,
        height: 30.0 + rows.len() as f64 * ROW,
        label_width: LABEL,
        bar_width: BAR,
        stack_x,
        rows,
        legend: std::iter::once("correct")
            .chain(verdicts.iter().map(|v| v.as_str()))
            .map(|v| (v.to_string(), colour(v).to_string()))
            .collect(),
    }
}
