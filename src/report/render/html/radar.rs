//! The geometry of quick_view.html's theme charts, in the shape of the
//! paper's Figure 5: one radar per strategy, an axis per theme (the ten
//! most frequent), one closed line per detail level (its levels and
//! p_top), the distance from the centre the share of the level's
//! descriptions holding the theme. Numbers only; the template writes the
//! markup, escaped.

use serde::Serialize;

use crate::results::ThemeResults;
use crate::variants::themes::taxonomy;

const SIZE: f64 = 360.0;
const RADIUS: f64 = 120.0;

#[derive(Serialize)]
pub(crate) struct ThemeCharts<'a> {
    pub name: &'a str,
    pub results: &'a ThemeResults,
    pub charts: Vec<Radar>,
}

#[derive(Serialize)]
pub(crate) struct Radar {
    pub strategy: String,
    pub size: f64,
    pub centre: f64,
    pub axes: Vec<Axis>,
    /// `x,y ...` of the 0.25, 0.5, 0.75 and 1 rings.
    pub rings: Vec<String>,
    pub lines: Vec<Line>,
}

#[derive(Serialize)]
pub(crate) struct Axis {
    pub code: String,
    pub name: String,
    pub x: f64,
    pub y: f64,
    pub label_x: f64,
    pub label_y: f64,
    pub anchor: &'static str,
}

#[derive(Serialize)]
pub(crate) struct Line {
    pub level: String,
    pub points: String,
    pub colour: String,
    /// `code=share` per axis, as summary.json has them.
    pub values: String,
}

/// One radar per strategy whose levels are labeled.
pub(crate) fn charts<'a>(name: &'a str, results: &'a ThemeResults) -> ThemeCharts<'a> {
    let axes = &results.top;
    let charts = if axes.len() < 3 {
        Vec::new()
    } else {
        ["summary", "paragraph", "masking"]
            .into_iter()
            .filter_map(|strategy| radar(strategy, results))
            .collect()
    };
    ThemeCharts {
        name,
        results,
        charts,
    }
}

fn radar(strategy: &str, results: &ThemeResults) -> Option<Radar> {
    let levels: Vec<&String> = results
        .shares
        .keys()
        .filter(|l| l.starts_with(&format!("{strategy}_")) || *l == "p_top")
        .collect();
    if levels.len() < 2 {
        return None;
    }
    let n = results.top.len();
    let centre = SIZE / 2.0;
    let at = |i: usize, r: f64| {
        let angle = std::f64::consts::TAU * i as f64 / n as f64 - std::f64::consts::FRAC_PI_2;
        (
            round2(centre + r * angle.cos()),
            round2(centre + r * angle.sin()),
        )
    };
    let ring = |share: f64| {
        (0..n)
            .map(|i| {
                let (x, y) = at(i, RADIUS * share);
                format!("{x},{y}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let axes = results
        .top
        .iter()
        .enumerate()
        .map(|(i, code)| {
            let (x, y) = at(i, RADIUS);
            let (label_x, label_y) = at(i, RADIUS + 16.0);
            Axis {
                code: code.clone(),
                name: taxonomy::by_code(code).map_or("", |t| t.name).to_string(),
                x,
                y,
                label_x,
                label_y,
                anchor: match label_x - centre {
                    d if d > 8.0 => "start",
                    d if d < -8.0 => "end",
                    _ => "middle",
                },
            }
        })
        .collect();
    let lines = levels
        .iter()
        .enumerate()
        .map(|(li, level)| {
            let shares = &results.shares[*level];
            let value = |code: &String| shares.get(code).copied().unwrap_or(0.0);
            Line {
                level: level.to_string(),
                points: results
                    .top
                    .iter()
                    .enumerate()
                    .map(|(i, code)| {
                        let (x, y) = at(i, RADIUS * value(code));
                        format!("{x},{y}")
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                // From light (least detailed) to dark (p_top).
                colour: format!(
                    "hsl(215, 70%, {:.0}%)",
                    75.0 - 55.0 * li as f64 / (levels.len() - 1) as f64
                ),
                values: results
                    .top
                    .iter()
                    .map(|c| format!("{c}={}", value(c)))
                    .collect::<Vec<_>>()
                    .join(" "),
            }
        })
        .collect();
    Some(Radar {
        strategy: strategy.to_string(),
        size: SIZE,
        centre,
        axes,
        rings: [0.25, 0.5, 0.75, 1.0].map(ring).to_vec(),
        lines,
    })
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}
