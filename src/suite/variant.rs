//! What a variant question is (PartialOrderEval, paper §3.3): its strategy
//! and detail level, stored with the question in an expanded suite. The
//! expansion itself is [`crate::variants`].

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Original,
    PBot,
    Summary,
    Paragraph,
    Masking,
    PTop,
    /// p_top without the sentences of one theme (`[variants.themes]`).
    Ablate,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Original => "original",
            Strategy::PBot => "p_bot",
            Strategy::Summary => "summary",
            Strategy::Paragraph => "paragraph",
            Strategy::Masking => "masking",
            Strategy::PTop => "p_top",
            Strategy::Ablate => "ablate",
        }
    }

    /// The strategies with a curve between p_bot and p_top.
    pub const CURVES: [Strategy; 3] = [Strategy::Summary, Strategy::Paragraph, Strategy::Masking];
}

/// What a variant question is: stored with it in the expanded suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// The id of the question it varies.
    pub of: String,
    pub strategy: Strategy,
    /// r_p (paragraph), r_s (masking) or L in words (summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// 1 to 4 among the variants of one paragraph ratio or mask ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
    /// Paragraph sampling: the 0-based p_top paragraphs kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Vec<usize>>,
    /// Sentence masking: the masked sentences, `[start, end)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masked: Option<[usize; 2]>,
    /// Paragraphs (sampling) or sentences (masking) of p_top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<usize>,
    /// Words of a summary as used (cut to L when the writer wrote more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub words: Option<usize>,
    /// The seed of a paragraph sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// p_top: one entry per text written for it (or the suite's own), in
    /// order, each with why the gates refused it (variants/leak.rs).
    /// Absent in expansions made before the gates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tries: Option<Vec<PTopTry>>,
    /// p_top: whether one of its texts passed the gates; the variants are
    /// cut from that one (else from the last written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    /// p_top: it names the function, which Appendix B asks it not to do
    /// (counted and shown, never refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names_function: Option<bool>,
    /// The taxonomy's themes its description holds, per the labeler
    /// (`[variants.themes]`): codes in the taxonomy's order. Absent when
    /// not labeled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub themes: Option<Vec<String>>,
    /// Why the labeler's replies gave no themes (asked twice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlabeled: Option<String>,
    /// Who gave `themes`: the labeler model, or a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labeled_by: Option<String>,
    /// p_top: its sentences in order (as masking splits them), each with
    /// its themes: what the ablations take out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<Vec<LabeledSentence>>,
    /// p_top: why its sentences are not labeled (asked twice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences_unlabeled: Option<String>,
    /// p_top: who gave `sentences` their themes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences_by: Option<String>,
    /// Ablation: the theme whose sentences were taken out of p_top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Ablation: the 0-based indices of p_top's sentences left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<usize>>,
}

/// One sentence of p_top and the themes the labeler gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabeledSentence {
    pub text: String,
    pub themes: Vec<String>,
}

/// One text written for a problem's p_top, and what the gates found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PTopTry {
    /// Why it was refused; null when it passed.
    pub refused: Option<String>,
    /// Qualified (`[variants.qualify]`): how many of `samples` replies to
    /// it passed. Absent when the qualification gate did not ask (it was
    /// off, or the leak gate refused the text first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
}

impl PTopTry {
    /// A text the leak gate judged, not qualified.
    pub fn leak_checked(refused: Option<String>) -> PTopTry {
        PTopTry {
            refused,
            passed: None,
            samples: None,
        }
    }
}

impl Variant {
    pub(crate) fn new(of: &str, strategy: Strategy) -> Variant {
        Variant {
            of: of.to_string(),
            strategy,
            level: None,
            sample: None,
            kept: None,
            masked: None,
            units: None,
            words: None,
            seed: None,
            tries: None,
            accepted: None,
            names_function: None,
            themes: None,
            unlabeled: None,
            labeled_by: None,
            sentences: None,
            sentences_unlabeled: None,
            sentences_by: None,
            theme: None,
            removed: None,
        }
    }

    /// `p_bot`, `summary_50w`, `paragraph_0.4-2`, `masking_0.8-1`, ...
    pub fn name(&self) -> String {
        let level = self.level.unwrap_or(0.0);
        match self.strategy {
            Strategy::Summary => format!("summary_{level}w"),
            Strategy::Paragraph | Strategy::Masking => format!(
                "{}_{level}-{}",
                self.strategy.as_str(),
                self.sample.unwrap_or(1)
            ),
            Strategy::Ablate => format!("ablate_{}", self.theme.as_deref().unwrap_or("")),
            other => other.as_str().to_string(),
        }
    }

    /// The detail level's label, shared by a level's samples: `paragraph_0.4`.
    pub fn level_name(&self) -> String {
        match (self.strategy, self.level) {
            (Strategy::Summary, Some(l)) => format!("summary_{l}w"),
            (Strategy::Ablate, _) => self.name(),
            (s, Some(l)) => format!("{}_{l}", s.as_str()),
            (s, None) => s.as_str().to_string(),
        }
    }

    /// Position in its strategy's order, least detailed first: p_bot 0,
    /// p_top 1, levels between (masking: 1 - r_s; summary: L / 250).
    pub fn detail(&self) -> f64 {
        let level = self.level.unwrap_or(0.0);
        match self.strategy {
            Strategy::PBot => 0.0,
            // Outside the curves: p_top less one theme.
            Strategy::PTop | Strategy::Original | Strategy::Ablate => 1.0,
            Strategy::Paragraph => level,
            Strategy::Masking => 1.0 - level,
            Strategy::Summary => level / 250.0,
        }
    }
}
