//! PartialOrderEval's prompt variants (paper §3.3): from each question's
//! maximally detailed description p_top, the 41 prompts of the partial
//! order plus the original, each a question of an expanded suite whose id
//! carries its strategy and detail level (`HumanEval_0.paragraph_0.4-2`),
//! so `-- paragraph_0.4` selects them.
//!
//! Per question, from least to most detailed within each strategy:
//! - `p_bot`: preamble and signature only;
//! - `summary_<L>w`: an LLM summary of p_top in at most L words,
//!   L in {10, 25, 50, 75, 100, 150, 200}, one per L;
//! - `paragraph_<r>-<i>`: paragraph sampling at r in {0.2, 0.4, 0.6, 0.8},
//!   4 seeded samples each;
//! - `masking_<r>-<i>`: sentence-block masking at r in {0.8, 0.6, 0.4, 0.2}
//!   (more masked is less detailed), the block at 4 evenly spaced starts;
//! - `p_top`;
//! - and `original`, the benchmark's own prompt, outside the order.
//!
//! Only the description changes; preamble and signature stay
//! ([`parts::Parts`]): a Python question's docstring, a C++ question's
//! last `/* */` comment before its signature (ParEval's). The expanded suite is written to the run folder
//! (`variants.json`) for review and reuse as a suite: questions that
//! already carry a `variant` are taken as they are.

pub mod appendix_b;
pub mod derive;
pub mod parts;
pub mod store;

pub use crate::suite::variant::{Strategy, Variant};
use crate::suite::{Question, Suite};
use parts::Parts;

/// The paper's summary word limits.
pub const SUMMARY_WORDS: [u32; 7] = [10, 25, 50, 75, 100, 150, 200];
/// The paper's paragraph-retention and sentence-mask ratios.
pub const RATIOS: [f64; 4] = [0.2, 0.4, 0.6, 0.8];
/// Prompts per question: 41 of the partial order and the original.
pub const PER_QUESTION: usize = 2 + SUMMARY_WORDS.len() + 2 * RATIOS.len() * derive::PER_LEVEL + 1;

/// What the writer model is asked for.
pub trait Writer {
    /// Why a text could not be written.
    type Error: std::error::Error + 'static;
    /// p_top from the question and its reference (Appendix B).
    fn p_top(&self, question: &Question, parts: &Parts) -> Result<String, Self::Error>;
    /// A summary of `p_top` in at most `words` words.
    fn summary(&self, question: &Question, p_top: &str, words: u32) -> Result<String, Self::Error>;
}

/// A text the variants of question `question` (its id) need could not be
/// written; `source` is the writer's reason.
#[derive(Debug, thiserror::Error)]
pub enum VariantsError<E> {
    #[error("question `{question}`: writing its p_top: {source}")]
    PTop { question: String, source: E },
    #[error("question `{question}`: writing its {words}-word summary: {source}")]
    Summary {
        question: String,
        words: u32,
        source: E,
    },
}

/// The expanded suite and what a reader should know about it.
pub struct Expanded {
    pub suite: Suite,
    pub warnings: Vec<String>,
    /// Texts the writer model wrote (p_top and summaries).
    pub written: usize,
}

/// Every question without a `variant` becomes its [`PER_QUESTION`]
/// variants; `seed` decides the paragraph samples.
pub fn expand<W: Writer + ?Sized>(
    suite: &Suite,
    seed: u64,
    writer: &W,
) -> Result<Expanded, VariantsError<W::Error>> {
    let mut questions = Vec::new();
    let mut warnings = Vec::new();
    let mut written = 0;
    for q in &suite.questions {
        if q.variant.is_some() {
            questions.push(q.clone());
            continue;
        }
        let parts = Parts::of_question(q);
        let p_top = match &q.p_top {
            Some(p) => p.clone(),
            None => {
                written += 1;
                writer
                    .p_top(q, &parts)
                    .map_err(|source| VariantsError::PTop {
                        question: q.id.clone(),
                        source,
                    })?
            }
        };
        let mut family = Family {
            q,
            parts: &parts,
            out: &mut questions,
        };
        family.add(Variant::new(&q.id, Strategy::Original), None);
        family.add(Variant::new(&q.id, Strategy::PBot), None);
        written += family.summaries(&p_top, writer)?;
        warnings.extend(family.paragraph_samples(&p_top, seed));
        family.maskings(&p_top);
        family.add(Variant::new(&q.id, Strategy::PTop), Some(&p_top));
    }
    for (i, q) in questions.iter_mut().enumerate() {
        q.index = i + 1;
    }
    Ok(Expanded {
        suite: Suite {
            questions,
            ..suite.clone()
        },
        warnings,
        written,
    })
}

/// The variants of one question, added in the order a suite lists them.
struct Family<'a> {
    q: &'a Question,
    parts: &'a Parts,
    out: &'a mut Vec<Question>,
}

impl Family<'_> {
    fn add(&mut self, variant: Variant, description: Option<&str>) {
        let q = self.q;
        let mut v = q.clone();
        v.id = format!("{}.{}", q.id, variant.name());
        v.question = match variant.strategy {
            Strategy::Original => q.question.clone(),
            _ => self.parts.render(description),
        };
        v.p_top = None;
        v.variant = Some(Box::new(variant));
        self.out.push(v);
    }

    /// One summary of p_top per length in [`SUMMARY_WORDS`], by the writer;
    /// how many texts it wrote.
    fn summaries<W: Writer + ?Sized>(
        &mut self,
        p_top: &str,
        writer: &W,
    ) -> Result<usize, VariantsError<W::Error>> {
        let q = self.q;
        for words in SUMMARY_WORDS {
            let text =
                writer
                    .summary(q, p_top, words)
                    .map_err(|source| VariantsError::Summary {
                        question: q.id.clone(),
                        words,
                        source,
                    })?;
            let (text, count) = at_most_words(&text, words as usize);
            let mut v = Variant::new(&q.id, Strategy::Summary);
            v.level = Some(f64::from(words));
            v.words = Some(count);
            self.add(v, Some(&text));
        }
        Ok(SUMMARY_WORDS.len())
    }

    /// p_top's paragraphs sampled at each ratio in [`RATIOS`]; a warning
    /// when p_top has too few paragraphs for sampling to mean anything.
    fn paragraph_samples(&mut self, p_top: &str, seed: u64) -> Option<String> {
        let q = self.q;
        let paragraphs = derive::paragraphs(p_top);
        for ratio in RATIOS {
            let sample_seed = derive_seed(seed, &q.id, "paragraph", ratio);
            for (i, kept) in derive::sample_paragraphs(paragraphs.len(), ratio, sample_seed)
                .into_iter()
                .enumerate()
            {
                let text = derive::keep_paragraphs(&paragraphs, &kept);
                let mut v = Variant::new(&q.id, Strategy::Paragraph);
                v.level = Some(ratio);
                v.sample = Some(i as u32 + 1);
                v.units = Some(paragraphs.len());
                v.kept = Some(kept);
                v.seed = Some(sample_seed);
                self.add(v, Some(&text));
            }
        }
        (paragraphs.len() < 2).then(|| format!(
            "question `{}`: p_top has {} paragraph(s), so paragraph sampling keeps all of it at every ratio; write p_top in paragraphs (blank lines between steps)",
            q.id,
            paragraphs.len()
        ))
    }

    /// p_top with a block of its sentences masked, from the largest ratio.
    fn maskings(&mut self, p_top: &str) {
        let q = self.q;
        let sentences = derive::sentences(p_top);
        for ratio in RATIOS.into_iter().rev() {
            for (i, block) in derive::mask_blocks(sentences.len(), ratio)
                .into_iter()
                .enumerate()
            {
                let text = derive::mask(&sentences, block);
                let mut v = Variant::new(&q.id, Strategy::Masking);
                v.level = Some(ratio);
                v.sample = Some(i as u32 + 1);
                v.units = Some(sentences.len());
                v.masked = Some(block);
                self.add(v, Some(&text));
            }
        }
    }
}

/// The first `limit` words of `text` and how many words it kept.
fn at_most_words(text: &str, limit: usize) -> (String, usize) {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= limit {
        return (text.trim().to_string(), words.len());
    }
    (words[..limit].join(" "), limit)
}

/// A seed per question, strategy and level, from the run's seed: the same
/// for the same inputs on every machine.
fn derive_seed(seed: u64, id: &str, strategy: &str, level: f64) -> u64 {
    let hash = blake3::hash(format!("{seed}/{id}/{strategy}/{level}").as_bytes());
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Writes what it is asked, so the texts show where they came from.
    struct Echo;
    impl Writer for Echo {
        type Error = std::convert::Infallible;
        fn p_top(&self, q: &Question, _: &Parts) -> Result<String, Self::Error> {
            Ok(format!(
                "Written for {}.\n\nSecond part. More.\n\nThird.",
                q.id
            ))
        }
        fn summary(&self, _: &Question, _: &str, words: u32) -> Result<String, Self::Error> {
            Ok(vec!["word"; words as usize + 3].join(" "))
        }
    }

    fn suite() -> Suite {
        Suite::parse(
            Path::new("s.json"),
            br#"{"t": "{question}", "questions": [
              {"id": "f", "question": "def f(x):\n    \"\"\"Old.\"\"\"\n", "entry_point": "f", "tests": "assert f(1) == 1",
               "p_top": "Step one. It returns x.\n\nStep two. Nothing else.\n\nStep three.\n\nStep four. Done."},
              {"id": "g", "question": "def g():\n    \"\"\"Old g.\"\"\"\n", "entry_point": "g", "tests": "assert g() is None"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn each_question_gives_the_papers_41_prompts_plus_the_original() {
        let e = expand(&suite(), 42, &Echo).unwrap();
        assert_eq!(PER_QUESTION, 42);
        assert_eq!(e.suite.questions.len(), 2 * 42);
        // g had no p_top: written, with its 7 summaries; f only its summaries.
        assert_eq!(e.written, 1 + 2 * 7);
        let of_f: Vec<&Question> = e
            .suite
            .questions
            .iter()
            .filter(|q| q.id.starts_with("f."))
            .collect();
        let count = |s: Strategy| {
            of_f.iter()
                .filter(|q| q.variant.as_ref().unwrap().strategy == s)
                .count()
        };
        assert_eq!(
            [
                Strategy::Original,
                Strategy::PBot,
                Strategy::Summary,
                Strategy::Paragraph,
                Strategy::Masking,
                Strategy::PTop
            ]
            .map(count),
            [1, 1, 7, 16, 16, 1]
        );
        let ids: Vec<&str> = of_f.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(
            &ids[..4],
            ["f.original", "f.p_bot", "f.summary_10w", "f.summary_25w"]
        );
        assert!(
            ids.contains(&"f.paragraph_0.4-2") && ids.contains(&"f.masking_0.8-4"),
            "{ids:?}"
        );
        assert_eq!(ids[41], "f.p_top");
        // Questions are renumbered and keep their tests and entry point.
        assert!(
            e.suite
                .questions
                .iter()
                .enumerate()
                .all(|(i, q)| q.index == i + 1)
        );
        assert!(
            of_f.iter()
                .all(|q| q.tests.as_deref() == Some("assert f(1) == 1"))
        );
    }

    #[test]
    fn only_the_description_changes() {
        let e = expand(&suite(), 42, &Echo).unwrap();
        let q = |id: &str| e.suite.questions.iter().find(|q| q.id == id).unwrap();
        assert_eq!(
            q("f.original").question,
            "def f(x):\n    \"\"\"Old.\"\"\"\n"
        );
        assert_eq!(q("f.p_bot").question, "def f(x):\n");
        assert!(
            q("f.p_top")
                .question
                .starts_with("def f(x):\n    \"\"\"\n    Step one. It returns x.\n\n    Step two.")
        );
        // Summaries longer than L are cut to L words.
        let s = q("f.summary_10w");
        assert_eq!(s.variant.as_ref().unwrap().words, Some(10));
        assert!(s.question.contains(&["word"; 10].join(" ")));
        assert!(!s.question.contains(&["word"; 11].join(" ")));
        // 4 paragraphs, r = 0.4: 2 kept.
        let p = q("f.paragraph_0.4-1").variant.clone().unwrap();
        assert_eq!((p.units, p.kept.as_ref().map(Vec::len)), (Some(4), Some(2)));
        // 7 sentences, r = 0.2: a block of 1 at 0, 2, 4, 6.
        let starts: Vec<usize> = (1..=4)
            .map(|i| {
                q(&format!("f.masking_0.2-{i}"))
                    .variant
                    .as_ref()
                    .unwrap()
                    .masked
                    .unwrap()[0]
            })
            .collect();
        assert_eq!(starts, [0, 2, 4, 6]);
        assert!(
            q("f.masking_0.2-1")
                .question
                .contains("[REDACTED] It returns x.")
        );
    }

    #[test]
    fn variants_are_deterministic_for_a_seed_and_expanding_twice_changes_nothing() {
        let a = expand(&suite(), 42, &Echo).unwrap().suite;
        let b = expand(&suite(), 42, &Echo).unwrap().suite;
        assert_eq!(a, b);
        let other = expand(&suite(), 7, &Echo).unwrap().suite;
        assert_ne!(a, other, "another seed samples other paragraphs");
        let again = expand(&a, 42, &Echo).unwrap();
        assert_eq!(again.suite, a);
        assert_eq!(again.written, 0);
    }
}
