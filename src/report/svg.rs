//! The geometry of quick_view.html's curves: numbers only (the template
//! writes the SVG markup, escaped). One chart per prompt and strategy:
//! pass@1 (0 to 1, upwards) at each detail level, evenly spaced from p_bot
//! to p_top, its 95 % interval as a vertical bar, the original prompt's
//! pass@1 as a dashed line.

use serde::Serialize;

use super::curves::{PartialOrder, Point};

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
