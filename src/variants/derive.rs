//! The paper's two sampling strategies (§3.3), on the maximally detailed
//! description p_top: deterministic for a given seed.
//!
//! - Paragraph sampling at r_p: keep round(r_p x N) of p_top's N paragraphs
//!   (blocks separated by blank lines), chosen at random, in their order.
//! - Sentence-block masking at r_s: remove a contiguous block of
//!   round(r_s x S) of its S sentences, placed at 4 evenly spaced starts
//!   (beginning, two midpoints, end: round(i (S - B) / 3) for i = 0..3),
//!   and put `[REDACTED]` where it was (as in the paper's Appendix E).

/// What stands where the masked block was.
pub const REDACTED: &str = "[REDACTED]";

/// Samples per ratio, and block positions per mask ratio (the paper's 4).
pub const PER_LEVEL: usize = 4;

/// p_top's paragraphs, trimmed, without the blank lines between them.
pub fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n").trim().to_string());
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(current.join("\n").trim().to_string());
    }
    out
}

/// How many of `units` a ratio keeps (or masks): round(ratio x units),
/// at least 1 and at most all.
pub fn share(ratio: f64, units: usize) -> usize {
    ((ratio * units as f64).round() as usize).clamp(1, units.max(1))
}

/// The paragraph indices (ascending) of each of the `PER_LEVEL` samples at
/// `ratio`, from `seed`. Samples differ from each other while enough
/// distinct subsets exist.
pub fn sample_paragraphs(count: usize, ratio: f64, seed: u64) -> Vec<Vec<usize>> {
    if count == 0 {
        return vec![Vec::new(); PER_LEVEL];
    }
    let keep = share(ratio, count);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut chosen: Vec<Vec<usize>> = Vec::with_capacity(PER_LEVEL);
    for _ in 0..PER_LEVEL {
        let mut pick = Vec::new();
        // Bounded: with fewer distinct subsets than samples, repeats remain.
        for _ in 0..64 {
            let mut order: Vec<usize> = (0..count).collect();
            rng.shuffle(&mut order);
            pick = order[..keep].to_vec();
            pick.sort_unstable();
            if !chosen.contains(&pick) {
                break;
            }
        }
        chosen.push(pick);
    }
    chosen
}

/// The kept paragraphs, joined by blank lines.
pub fn keep_paragraphs(paragraphs: &[String], kept: &[usize]) -> String {
    kept.iter()
        .filter_map(|&i| paragraphs.get(i).map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One sentence and the whitespace after it: joined back they are the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence<'a> {
    pub text: &'a str,
    pub gap: &'a str,
}

/// Sentences end at `.`, `!` or `?` (and closing quotes or brackets)
/// followed by whitespace, and at blank lines; a heading line or a
/// separator (`---`) is a sentence of its own.
pub fn sentences(text: &str) -> Vec<Sentence<'_>> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let c = bytes[i];
        let ends_sentence = matches!(c, b'.' | b'!' | b'?') && {
            let mut j = i + 1;
            while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')' | b']' | b'*') {
                j += 1;
            }
            j == bytes.len() || bytes[j].is_ascii_whitespace()
        };
        let line_break = c == b'\n' && {
            // A blank line, or a line that is not prose (a heading, `---`).
            let rest = &text[i + 1..];
            let line = &text[start..i];
            rest.trim_start_matches([' ', '\t']).starts_with('\n')
                || is_block_line(line.lines().last().unwrap_or(""))
                || is_block_line(rest.lines().next().unwrap_or(""))
        };
        if ends_sentence || line_break {
            let mut end = if ends_sentence { i + 1 } else { i };
            while end < bytes.len() && matches!(bytes[end], b'"' | b'\'' | b')' | b']' | b'*') {
                end += 1;
            }
            let mut next = end;
            while next < bytes.len() && bytes[next].is_ascii_whitespace() {
                next += 1;
            }
            if end > start {
                out.push(Sentence {
                    text: &text[start..end],
                    gap: &text[end..next],
                });
            }
            start = next;
            i = next;
            continue;
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(Sentence {
            text: &text[start..],
            gap: "",
        });
    }
    out
}

/// Markdown structure rather than prose: `---`, `# heading`, `**Step 1**`.
fn is_block_line(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('#')
        || t.chars().all(|c| c == '-') && t.len() >= 3
        || (t.starts_with("**") && t.ends_with("**"))
}

/// The `PER_LEVEL` masked blocks `[start, end)` at `ratio` of `count`
/// sentences: beginning, two midpoints, end.
pub fn mask_blocks(count: usize, ratio: f64) -> Vec<[usize; 2]> {
    if count == 0 {
        return vec![[0, 0]; PER_LEVEL];
    }
    let block = share(ratio, count);
    let room = (count - block) as f64;
    (0..PER_LEVEL)
        .map(|i| {
            let start = (i as f64 * room / (PER_LEVEL - 1) as f64).round() as usize;
            [start, start + block]
        })
        .collect()
}

/// The text with sentences `[start, end)` replaced by [`REDACTED`].
pub fn mask(sentences: &[Sentence<'_>], [start, end]: [usize; 2]) -> String {
    let mut out = String::new();
    for (i, s) in sentences.iter().enumerate() {
        if i == start {
            out.push_str(REDACTED);
            out.push_str(if end > 0 { sentences[end - 1].gap } else { "" });
        }
        if (start..end).contains(&i) {
            continue;
        }
        out.push_str(s.text);
        out.push_str(s.gap);
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_share_is_the_ratio_of_the_units_rounded() {
        assert_eq!(share(0.2, 10), 2);
        assert_eq!(share(0.4, 7), 3); // 2.8
        assert_eq!(share(0.2, 2), 1); // 0.4 -> at least one
        assert_eq!(share(0.8, 3), 2); // 2.4
        assert_eq!(share(0.8, 1), 1);
    }

    #[test]
    fn paragraph_samples_keep_the_ratio_in_order_and_differ() {
        let samples = sample_paragraphs(10, 0.4, 7);
        assert_eq!(samples.len(), 4);
        for kept in &samples {
            assert_eq!(kept.len(), 4);
            assert!(kept.windows(2).all(|w| w[0] < w[1]), "{kept:?}");
        }
        let distinct: std::collections::HashSet<_> = samples.iter().collect();
        assert_eq!(distinct.len(), 4);
        // Deterministic for a seed, different for another.
        assert_eq!(sample_paragraphs(10, 0.4, 7), samples);
        assert_ne!(sample_paragraphs(10, 0.4, 8), samples);
        let ps = paragraphs("One.\n\n\nTwo\nlines.\n  \nThree.");
        assert_eq!(ps, ["One.", "Two\nlines.", "Three."]);
        assert_eq!(keep_paragraphs(&ps, &[0, 2]), "One.\n\nThree.");
    }

    #[test]
    fn mask_blocks_start_at_the_beginning_two_midpoints_and_the_end() {
        // S = 10, r = 0.2: B = 2, room 8: starts 0, 3 (2.67), 5 (5.33), 8.
        assert_eq!(mask_blocks(10, 0.2), [[0, 2], [3, 5], [5, 7], [8, 10]]);
        // r = 0.8: B = 8, room 2: 0, 1 (0.67), 1 (1.33), 2.
        assert_eq!(mask_blocks(10, 0.8), [[0, 8], [1, 9], [1, 9], [2, 10]]);
    }

    #[test]
    fn sentences_split_at_ends_and_blank_lines_and_join_back() {
        let text = "**Step 1: Sort**\nThe function sorts. It keeps ties (stably)! Why?\n\n---\n\nDone e.g. here.";
        let s = sentences(text);
        let texts: Vec<&str> = s.iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "**Step 1: Sort**",
                "The function sorts.",
                "It keeps ties (stably)!",
                "Why?",
                "---",
                "Done e.g.",
                "here."
            ]
        );
        let joined: String = s.iter().map(|s| format!("{}{}", s.text, s.gap)).collect();
        assert_eq!(joined, text);
        assert_eq!(
            mask(&s, [1, 3]),
            "**Step 1: Sort**\n[REDACTED] Why?\n\n---\n\nDone e.g. here."
        );
        assert_eq!(
            mask(&s, [5, 7]),
            "**Step 1: Sort**\nThe function sorts. It keeps ties (stably)! Why?\n\n---\n\n[REDACTED]"
        );
    }
}
