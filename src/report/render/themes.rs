//! The theme figures (summary.json `themes`) as report/themes.csv and as
//! lines under the terminal table.

use std::path::Path;

use super::files::{finish_csv, spreadsheet_safe};
use super::text::terminal_safe;
use crate::results::{Summary, ThemeResults};
use crate::variants::themes::taxonomy;

/// report/themes.csv, one row per figure: `share` (level, theme: the
/// share of the level's labeled descriptions holding it, `count`
/// descriptions), `ablation` (theme: effect on pass@1 with its interval,
/// `count` problems, p_top and ablated pass@1) and `association` (theme:
/// Mantel–Haenszel odds ratio with its interval, `count` cases).
pub(crate) fn write_themes_csv(path: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "prompt", "figure", "level", "theme", "name", "value", "ci_low", "ci_high", "count",
        "p_top", "ablated",
    ])?;
    let name = |code: &str| taxonomy::by_code(code).map_or("", |t| t.name).to_string();
    let interval =
        |i: Option<[f64; 2]>, at: usize| i.map(|v| v[at].to_string()).unwrap_or_default();
    for (prompt, t) in &summary.themes {
        let prompt = spreadsheet_safe(prompt);
        for (level, shares) in &t.shares {
            for (code, share) in shares {
                out.write_record([
                    prompt.clone(),
                    "share".into(),
                    level.clone(),
                    code.clone(),
                    name(code),
                    share.to_string(),
                    String::new(),
                    String::new(),
                    t.descriptions[level].to_string(),
                    String::new(),
                    String::new(),
                ])?;
            }
        }
        for a in &t.ablations {
            out.write_record([
                prompt.clone(),
                "ablation".into(),
                format!("ablate_{}", a.theme),
                a.theme.clone(),
                name(&a.theme),
                a.effect.to_string(),
                interval(a.interval, 0),
                interval(a.interval, 1),
                a.problems.to_string(),
                a.p_top.to_string(),
                a.ablated.to_string(),
            ])?;
        }
        for a in &t.associations {
            out.write_record([
                prompt.clone(),
                "association".into(),
                String::new(),
                a.theme.clone(),
                name(&a.theme),
                a.odds_ratio.map(|o| o.to_string()).unwrap_or_default(),
                interval(a.interval, 0),
                interval(a.interval, 1),
                a.cases.to_string(),
                String::new(),
                String::new(),
            ])?;
        }
    }
    finish_csv(path, out)
}

/// Per prompt: how many descriptions are labeled, the themes that grow
/// most with detail, each ablation's effect and the associations.
pub(crate) fn theme_lines(summary: &Summary) -> String {
    let mut out = String::new();
    for (prompt, t) in &summary.themes {
        out.push_str(&format!(
            "themes, {} (PartialOrderEval §5; report/themes.csv): {} description(s) labeled{}\n",
            terminal_safe(prompt),
            t.descriptions.values().sum::<usize>(),
            match t.unlabeled {
                0 => String::new(),
                n => format!(", ⚠️  {n} unlabeled (left out of the shares)"),
            }
        ));
        out.push_str(&growing_line(t));
        out.push_str(&ablation_line(t));
        out.push_str(&association_line(t));
    }
    out
}

fn growing_line(t: &ThemeResults) -> String {
    let Some(first) = t.growing.first() else {
        return "  no theme grows from the least detailed description to p_top\n".into();
    };
    let grown: Vec<String> = t
        .growing
        .iter()
        .map(|g| format!("{} {:.2}→{:.2}", taxonomy::label(&g.theme), g.from, g.to))
        .collect();
    format!(
        "  grow most with detail ({} → p_top; p_bot holds no description): {}\n",
        first.from_level,
        grown.join(", ")
    )
}

fn ablation_line(t: &ThemeResults) -> String {
    if t.ablations.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = t
        .ablations
        .iter()
        .map(|a| {
            format!(
                "{} {:+.2} {} ({} problem{})",
                a.theme,
                a.effect,
                a.interval
                    .map(|[lo, hi]| format!("[{lo:+.2}, {hi:+.2}]"))
                    .unwrap_or_else(|| "[no interval]".into()),
                a.problems,
                if a.problems == 1 { "" } else { "s" }
            )
        })
        .collect();
    let beyond: Vec<String> = t
        .ablations
        .iter()
        .flat_map(|a| {
            a.beyond_noise
                .iter()
                .map(move |d| format!("{} without {}", d.problem, a.theme))
        })
        .collect();
    format!(
        "  ablation, pass@1(p_top) − pass@1(p_top without the theme's sentences), 95% CI over problems: {}; beyond noise on its own: {}\n",
        shown.join(", "),
        if beyond.is_empty() {
            "none".into()
        } else {
            beyond.join(", ")
        }
    )
}

fn association_line(t: &ThemeResults) -> String {
    let shown: Vec<String> = t
        .associations
        .iter()
        .filter_map(|a| {
            let (o, [lo, hi]) = (a.odds_ratio?, a.interval?);
            Some(format!("{} {o:.2} [{lo:.2}, {hi:.2}]", a.theme))
        })
        .collect();
    if shown.is_empty() {
        return "  association with passing: no theme both present and absent within a problem\n"
            .into();
    }
    format!(
        "  association with passing within problems (Mantel–Haenszel odds ratio, 95% CI; not a cause): {}\n",
        shown.join(", ")
    )
}
