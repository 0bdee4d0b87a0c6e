//! The theme figures of one prompt (PartialOrderEval §5 and its future
//! work): how often each theme appears at each detail level, what taking
//! one theme's sentences out of p_top does to pass@1, and how each theme
//! goes with passing within problems.
//!
//! - Shares count descriptions, not cases: every labeled variant of the
//!   prompt's problems (each sample of a level is a description); p_bot
//!   has none, so it has no shares.
//! - An ablation's effect is the mean over problems of pass@1(p_top) -
//!   pass@1(ablate_<theme>), over the problems with both; its interval is
//!   the paired percentile bootstrap over those problems, and a problem's
//!   own drop is beyond noise when Fisher's exact test on its attempts
//!   gives p < 0.05 (as for the partial-order violations).
//! - The association is the Mantel–Haenszel odds ratio of passing with
//!   the theme against without it, with every labeled case (original,
//!   variants, ablations) in its problem's stratum, and the
//!   Robins–Breslow–Greenland interval: a comparison within problems, so
//!   easy and hard problems do not pass for a theme's effect. It is not a
//!   cause: details come together (a longer prompt holds more of them).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use indexmap::IndexMap;

use super::stats::{self, SIGNIFICANCE, round_to};
use crate::results::{AblationDrop, Association, Growth, ThemeAblation, ThemeResults};
use crate::variants::themes::taxonomy::THEMES;
use crate::variants::{Strategy, Variant};

/// Themes on the chart, as the paper's Figure 5.
const CHART_THEMES: usize = 10;
/// Themes named as growing most.
const GROWING: usize = 3;

/// The figures of one prompt from its evaluated cells `(question id,
/// passed)`; `None` when no variant of the run is labeled.
pub fn theme_results<'a>(
    variants: &BTreeMap<String, Variant>,
    cells: impl Iterator<Item = (&'a str, bool)>,
) -> Option<ThemeResults> {
    if !variants
        .values()
        .any(|v| v.themes.is_some() || v.unlabeled.is_some())
    {
        return None;
    }
    let unqualified: BTreeSet<String> = crate::variants::unqualified(variants.values())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let cells: Vec<(&Variant, bool)> = cells
        .filter_map(|(id, passed)| variants.get(id).map(|v| (v, passed)))
        .filter(|(v, _)| !unqualified.contains(&v.of))
        .collect();
    let problems: BTreeSet<&str> = cells.iter().map(|(v, _)| v.of.as_str()).collect();
    if problems.is_empty() {
        return None;
    }
    // p_bot has no description (signature only): no level to share over.
    let described: Vec<&Variant> = variants
        .values()
        .filter(|v| problems.contains(v.of.as_str()))
        .filter(|v| !matches!(v.strategy, Strategy::Ablate | Strategy::PBot))
        .collect();
    let (shares, descriptions) = shares(&described);
    let unlabeled = described.iter().filter(|v| v.themes.is_none()).count();
    Some(ThemeResults {
        top: top(&shares),
        growing: growing(&shares, &described),
        shares,
        descriptions,
        unlabeled,
        ablations: ablations(&cells),
        associations: associations(&cells),
    })
}

/// Level -> theme -> share, and level -> descriptions, least detailed
/// first (the original first of all).
fn shares(
    described: &[&Variant],
) -> (
    IndexMap<String, BTreeMap<String, f64>>,
    IndexMap<String, usize>,
) {
    let mut by_level: BTreeMap<(u8, u64, String), Vec<&Vec<String>>> = BTreeMap::new();
    for v in described {
        let Some(themes) = &v.themes else { continue };
        by_level.entry(level_key(v)).or_default().push(themes);
    }
    let mut shares = IndexMap::new();
    let mut counts = IndexMap::new();
    for ((_, _, label), labeled) in by_level {
        let n = labeled.len();
        let row = THEMES
            .iter()
            .map(|t| {
                let holding = labeled
                    .iter()
                    .filter(|l| l.iter().any(|c| c == t.code))
                    .count();
                (t.code.to_string(), round_to(holding as f64 / n as f64, 4))
            })
            .collect();
        shares.insert(label.clone(), row);
        counts.insert(label, n);
    }
    (shares, counts)
}

/// Sorts levels: original, p_bot, summaries, paragraphs, maskings (each
/// least detailed first), p_top.
fn level_key(v: &Variant) -> (u8, u64, String) {
    let rank = match v.strategy {
        Strategy::Original => 0,
        Strategy::PBot => 1,
        Strategy::Summary => 2,
        Strategy::Paragraph => 3,
        Strategy::Masking => 4,
        Strategy::PTop => 5,
        Strategy::Ablate => 6,
    };
    ((rank), (v.detail() * 1e6) as u64, v.level_name())
}

/// The themes by mean share over the levels (not the original), most
/// frequent first; those never seen are left off.
fn top(shares: &IndexMap<String, BTreeMap<String, f64>>) -> Vec<String> {
    let levels: Vec<&BTreeMap<String, f64>> = shares
        .iter()
        .filter(|(l, _)| *l != "original")
        .map(|(_, s)| s)
        .collect();
    let mut mean: Vec<(String, f64)> = THEMES
        .iter()
        .map(|t| {
            let sum: f64 = levels
                .iter()
                .map(|s| s.get(t.code).copied().unwrap_or(0.0))
                .sum();
            (t.code.to_string(), sum / levels.len().max(1) as f64)
        })
        .filter(|(_, m)| *m > 0.0)
        .collect();
    mean.sort_by(|a, b| b.1.total_cmp(&a.1));
    mean.into_iter()
        .take(CHART_THEMES)
        .map(|(c, _)| c)
        .collect()
}

/// The rise of each theme's share from the least detailed level that has
/// a description (p_bot has none) to p_top; the largest rises.
fn growing(
    shares: &IndexMap<String, BTreeMap<String, f64>>,
    described: &[&Variant],
) -> Vec<Growth> {
    let Some(to) = shares.get("p_top") else {
        return Vec::new();
    };
    // The least detailed level with a description, by detail.
    let from_level = described
        .iter()
        .filter(|v| {
            !matches!(
                v.strategy,
                Strategy::Original | Strategy::PBot | Strategy::PTop
            )
        })
        .filter(|v| v.themes.is_some())
        .min_by(|a, b| {
            a.detail()
                .total_cmp(&b.detail())
                .then(a.level_name().cmp(&b.level_name()))
        })
        .map(|v| v.level_name());
    let Some(from_level) = from_level else {
        return Vec::new();
    };
    let from = &shares[&from_level];
    let mut rises: Vec<Growth> = THEMES
        .iter()
        .map(|t| Growth {
            theme: t.code.to_string(),
            from_level: from_level.clone(),
            from: from.get(t.code).copied().unwrap_or(0.0),
            to: to.get(t.code).copied().unwrap_or(0.0),
        })
        .filter(|g| g.to > g.from)
        .collect();
    rises.sort_by(|a, b| (b.to - b.from).total_cmp(&(a.to - a.from)));
    rises.truncate(GROWING);
    rises
}

/// (problem, level label) -> [passed, attempts].
fn counts(cells: &[(&Variant, bool)]) -> HashMap<(String, String), [usize; 2]> {
    let mut out: HashMap<(String, String), [usize; 2]> = HashMap::new();
    for (v, passed) in cells {
        let c = out.entry((v.of.clone(), v.level_name())).or_insert([0, 0]);
        c[0] += usize::from(*passed);
        c[1] += 1;
    }
    out
}

fn ablations(cells: &[(&Variant, bool)]) -> Vec<ThemeAblation> {
    let counts = counts(cells);
    let themes: BTreeSet<&str> = cells
        .iter()
        .filter_map(|(v, _)| {
            v.theme
                .as_deref()
                .filter(|_| v.strategy == Strategy::Ablate)
        })
        .collect();
    let problems: BTreeSet<&str> = cells.iter().map(|(v, _)| v.of.as_str()).collect();
    let mut out = Vec::new();
    for theme in themes {
        let label = format!("ablate_{theme}");
        let mut pairs: Vec<(&str, [usize; 2], [usize; 2])> = Vec::new();
        for &p in &problems {
            if let (Some(top), Some(ab)) = (
                counts.get(&(p.to_string(), "p_top".to_string())),
                counts.get(&(p.to_string(), label.clone())),
            ) {
                pairs.push((p, *top, *ab));
            }
        }
        if pairs.is_empty() {
            continue;
        }
        let rate = |c: [usize; 2]| c[0] as f64 / c[1] as f64;
        let n = pairs.len() as f64;
        let p_top = pairs.iter().map(|p| rate(p.1)).sum::<f64>() / n;
        let ablated = pairs.iter().map(|p| rate(p.2)).sum::<f64>() / n;
        let differences: Vec<f64> = pairs.iter().map(|p| rate(p.1) - rate(p.2)).collect();
        let beyond_noise = pairs
            .iter()
            .filter(|(_, top, ab)| rate(*ab) < rate(*top))
            .filter_map(|(p, top, ab)| {
                let p_value = stats::fisher_exact(top[0], top[1], ab[0], ab[1]);
                (p_value < SIGNIFICANCE).then(|| AblationDrop {
                    problem: p.to_string(),
                    p_top: *top,
                    ablated: *ab,
                    p_value: round_to(p_value, 4),
                })
            })
            .collect();
        out.push(ThemeAblation {
            theme: theme.to_string(),
            problems: pairs.len(),
            problem_ids: pairs.iter().map(|p| p.0.to_string()).collect(),
            p_top: round_to(p_top, 4),
            ablated: round_to(ablated, 4),
            effect: round_to(p_top - ablated, 4),
            interval: stats::bootstrap_mean(&differences)
                .map(|(lo, hi)| [round_to(lo, 4), round_to(hi, 4)]),
            beyond_noise,
        });
    }
    out
}

/// Per problem, one theme's 2x2 table: [with & passed, with & failed,
/// without & passed, without & failed].
type Table = [f64; 4];

fn associations(cells: &[(&Variant, bool)]) -> Vec<Association> {
    let labeled: Vec<(&Variant, &Vec<String>, bool)> = cells
        .iter()
        .filter_map(|(v, passed)| v.themes.as_ref().map(|t| (*v, t, *passed)))
        .collect();
    let mut out = Vec::new();
    for theme in THEMES {
        let mut tables: BTreeMap<&str, Table> = BTreeMap::new();
        let mut with_theme = 0;
        for (v, themes, passed) in &labeled {
            let has = themes.iter().any(|c| c == theme.code);
            with_theme += usize::from(has);
            let t = tables.entry(v.of.as_str()).or_insert([0.0; 4]);
            let cell = match (has, passed) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            };
            t[cell] += 1.0;
        }
        if with_theme == 0 {
            continue;
        }
        let informative: Vec<Table> = tables
            .into_values()
            .filter(|t| t[0] + t[1] > 0.0 && t[2] + t[3] > 0.0)
            .collect();
        let (odds_ratio, interval) = mantel_haenszel(&informative);
        out.push(Association {
            theme: theme.code.to_string(),
            odds_ratio: odds_ratio.map(|o| round_to(o, 4)),
            interval: interval.map(|[lo, hi]| [round_to(lo, 4), round_to(hi, 4)]),
            cases: labeled.len(),
            with_theme,
            strata: informative.len(),
        });
    }
    out
}

/// The Mantel–Haenszel odds ratio over `tables` ([a, b, c, d] each) and
/// its 95 % interval from the Robins–Breslow–Greenland variance of its
/// log; `None` where a sum it divides by is 0.
pub(crate) fn mantel_haenszel(tables: &[Table]) -> (Option<f64>, Option<[f64; 2]>) {
    let (mut r, mut s) = (0.0, 0.0);
    let (mut pr, mut ps_qr, mut qs) = (0.0, 0.0, 0.0);
    for &[a, b, c, d] in tables {
        let n = a + b + c + d;
        if n == 0.0 {
            continue;
        }
        let (ri, si) = (a * d / n, b * c / n);
        let (pi, qi) = ((a + d) / n, (b + c) / n);
        r += ri;
        s += si;
        pr += pi * ri;
        ps_qr += pi * si + qi * ri;
        qs += qi * si;
    }
    if r == 0.0 || s == 0.0 {
        return (None, None);
    }
    let ratio = r / s;
    let variance = pr / (2.0 * r * r) + ps_qr / (2.0 * r * s) + qs / (2.0 * s * s);
    let half = 1.959_963_984_540_054 * variance.sqrt();
    (
        Some(ratio),
        Some([(ratio.ln() - half).exp(), (ratio.ln() + half).exp()]),
    )
}

#[cfg(test)]
mod tests;
