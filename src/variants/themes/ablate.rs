//! The ablation the paper left as future work (§5): p_top without the
//! sentences that carry one theme, the rest kept as written.

use super::super::derive::Sentence;
use crate::suite::variant::LabeledSentence;

/// What taking a theme's sentences out of p_top gives.
#[derive(Debug, Clone, PartialEq)]
pub enum Ablation {
    /// No sentence carries the theme: no variant.
    Absent,
    /// Every sentence carries it: nothing would be left.
    Empty { removed: Vec<usize> },
    /// p_top without `removed` (0-based sentence indices).
    Text { removed: Vec<usize>, text: String },
}

/// p_top's `sentences` (as split, with the whitespace between them) less
/// those whose labels hold `theme`. A paragraph break after a removed
/// sentence is kept, so the paragraphs left stay apart.
pub fn ablate(split: &[Sentence<'_>], labeled: &[LabeledSentence], theme: &str) -> Ablation {
    let removed: Vec<usize> = labeled
        .iter()
        .enumerate()
        .filter(|(_, s)| s.themes.iter().any(|t| t == theme))
        .map(|(i, _)| i)
        .collect();
    if removed.is_empty() {
        return Ablation::Absent;
    }
    if removed.len() == split.len() {
        return Ablation::Empty { removed };
    }
    let mut text = String::new();
    // The gap owed after the last kept sentence: the widest seen since.
    let mut gap: &str = "";
    let mut kept_any = false;
    for (i, s) in split.iter().enumerate() {
        if removed.contains(&i) {
            if newlines(s.gap) > newlines(gap) {
                gap = s.gap;
            }
            continue;
        }
        if kept_any {
            text.push_str(gap);
        }
        text.push_str(s.text);
        gap = s.gap;
        kept_any = true;
    }
    Ablation::Text {
        removed,
        text: text.trim().to_string(),
    }
}

fn newlines(gap: &str) -> usize {
    gap.matches('\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::derive::sentences;

    fn labeled(split: &[Sentence<'_>], themes: &[&[&str]]) -> Vec<LabeledSentence> {
        split
            .iter()
            .zip(themes)
            .map(|(s, t)| LabeledSentence {
                text: s.text.to_string(),
                themes: t.iter().map(|c| c.to_string()).collect(),
            })
            .collect()
    }

    #[test]
    fn the_themes_sentences_are_gone_and_the_rest_kept_with_its_paragraphs() {
        let p_top =
            "Return the sum. The input is a list of ints.\n\nAn empty list gives 0. Loop and add.";
        let split = sentences(p_top);
        let labels = labeled(&split, &[&["1.1"], &["1.3"], &["2.3"], &["3.4", "1.5"]]);
        assert_eq!(
            ablate(&split, &labels, "2.3"),
            Ablation::Text {
                removed: vec![2],
                text: "Return the sum. The input is a list of ints.\n\nLoop and add.".into()
            }
        );
        assert_eq!(
            ablate(&split, &labels, "1.3"),
            Ablation::Text {
                removed: vec![1],
                text: "Return the sum.\n\nAn empty list gives 0. Loop and add.".into()
            }
        );
        assert_eq!(
            ablate(&split, &labels, "1.1"),
            Ablation::Text {
                removed: vec![0],
                text: "The input is a list of ints.\n\nAn empty list gives 0. Loop and add.".into()
            }
        );
        assert_eq!(ablate(&split, &labels, "4.1"), Ablation::Absent);
        let all = labeled(&split, &[&["1.1"], &["1.1"], &["1.1"], &["1.1"]]);
        assert_eq!(
            ablate(&split, &all, "1.1"),
            Ablation::Empty {
                removed: vec![0, 1, 2, 3]
            }
        );
    }
}
