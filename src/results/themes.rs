//! summary.json `themes`: what the descriptions say (PartialOrderEval §5)
//! and what taking one theme out of p_top does (the paper's future work).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// One prompt template's theme figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThemeResults {
    /// Detail level (`summary_10w`, `paragraph_0.4`, `p_top`, `original`)
    /// -> theme code -> share of the level's labeled descriptions (every
    /// sample counts) that hold the theme; every theme of the taxonomy.
    pub shares: IndexMap<String, BTreeMap<String, f64>>,
    /// Detail level -> labeled descriptions counted in its shares.
    pub descriptions: IndexMap<String, usize>,
    /// Descriptions the labeler gave no themes (asked twice): not in the
    /// shares.
    pub unlabeled: usize,
    /// The ten themes most frequent over the levels (mean share), most
    /// first: the axes of the quick view's chart (the paper's Figure 5).
    pub top: Vec<String>,
    /// The themes that grow most with detail, most first.
    pub growing: Vec<Growth>,
    /// One per theme of `[variants.themes] ablate` that some problem's
    /// p_top has an ablation of.
    pub ablations: Vec<ThemeAblation>,
    /// Per theme, its association with passing within problems.
    pub associations: Vec<Association>,
}

/// A theme's share at the least detailed labeled level and at p_top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Growth {
    pub theme: String,
    /// The least detailed level with a description (p_bot has none).
    pub from_level: String,
    pub from: f64,
    pub to: f64,
}

/// pass@1 of p_top against p_top without one theme's sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThemeAblation {
    pub theme: String,
    /// Problems with evaluated attempts at both p_top and the ablation.
    pub problems: usize,
    pub problem_ids: Vec<String>,
    /// Mean over those problems of each one's pass@1.
    pub p_top: f64,
    pub ablated: f64,
    /// p_top - ablated: what the theme's sentences are worth.
    pub effect: f64,
    /// 95 % paired bootstrap interval of `effect` over problems (`null`
    /// for fewer than two).
    pub interval: Option<[f64; 2]>,
    /// Problems whose drop is beyond noise on their own: Fisher's exact
    /// test on their attempts, p < 0.05.
    pub beyond_noise: Vec<AblationDrop>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AblationDrop {
    pub problem: String,
    /// `passed/attempts` of each.
    pub p_top: [usize; 2],
    pub ablated: [usize; 2],
    pub p_value: f64,
}

/// How a theme's presence goes with passing, compared only within a
/// problem: an association, not a cause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Association {
    pub theme: String,
    /// Mantel–Haenszel odds ratio of passing with the theme against
    /// without it, stratified by problem; `null` when undefined (no
    /// discordant evidence on one side).
    pub odds_ratio: Option<f64>,
    /// 95 % interval (Robins–Breslow–Greenland variance of its log).
    pub interval: Option<[f64; 2]>,
    /// Labeled cases counted, and those whose description holds the theme.
    pub cases: usize,
    pub with_theme: usize,
    /// Problems where the theme is both present and absent (the only ones
    /// that inform the ratio).
    pub strata: usize,
}
