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
pub mod leak;
pub mod parts;
pub mod store;
pub mod themes;

use crate::suite::variant;
pub use crate::suite::variant::{LabeledSentence, PTopTry, Strategy, Variant};
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
    /// p_top from the question and its reference (Appendix B); `attempt`
    /// counts from 1, and each later one must be a request of its own (a
    /// new seed), so that no cache hands back the refused text.
    fn p_top(
        &self,
        question: &Question,
        parts: &Parts,
        attempt: u32,
    ) -> Result<String, Self::Error>;
    /// A summary of `p_top` in at most `words` words.
    fn summary(&self, question: &Question, p_top: &str, words: u32) -> Result<String, Self::Error>;
}

/// How many of the replies to a p_top passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qualified {
    pub passed: u32,
    pub samples: u32,
}

/// The qualification gate's model (paper §3.2): asks the p_top variant
/// question and judges the replies exactly as cases are judged.
pub trait Qualify {
    /// `attempt` is the p_top try (from 1), for the calls' names.
    fn qualify(&self, p_top: &Question, attempt: u32) -> Result<Qualified, String>;
}

/// The gates a p_top passes before any variant is cut from it: the leak
/// gate always, the qualification gate when given (with its `min_pass`).
#[derive(Clone, Copy)]
pub struct Gates<'a> {
    pub p_top_tries: u32,
    pub qualify: Option<(&'a dyn Qualify, f64)>,
}

impl Gates<'_> {
    /// The leak gate alone.
    pub fn leak_only(p_top_tries: u32) -> Gates<'static> {
        Gates {
            p_top_tries,
            qualify: None,
        }
    }
}

/// A text the variants of question `question` (its id) need could not be
/// written; `source` is the writer's reason.
#[derive(Debug, thiserror::Error)]
pub enum VariantsError<E> {
    #[error("question `{question}`: writing its p_top: {source}")]
    PTop { question: String, source: E },
    /// The qualification gate could not judge (the server or the sandbox
    /// failed): never counted as the p_top failing.
    #[error("question `{question}`: qualifying its p_top: {reason}")]
    Qualify { question: String, reason: String },
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
/// variants; `seed` decides the paragraph samples, and a p_top the writer
/// writes is written at most `gates.p_top_tries` times until one passes the
/// leak gate (leak.rs) and, when on, the qualification gate.
pub fn expand<W: Writer + ?Sized>(
    suite: &Suite,
    seed: u64,
    gates: Gates<'_>,
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
        let gated = gate_p_top(q, &parts, gates, writer)?;
        written += gated.written;
        warnings.extend(gated.warnings);
        let p_top = gated.text;
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
        let mut top = Variant::new(&q.id, Strategy::PTop);
        top.tries = Some(gated.tries);
        top.accepted = Some(gated.accepted);
        top.names_function = q
            .entry_point
            .as_deref()
            .map(|entry| leak::names_function(&p_top, entry));
        family.add(top, Some(&p_top));
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

/// The leak gate on an expansion made before it (a stored `variants.json`
/// whose p_top variants carry no `tries`): each such p_top, as the model
/// sees it, against its reference, with the family's original prompt as
/// what the model is shown anyway. A refused one is marked (`tries`,
/// `accepted: false`), never rewritten; the session says which
/// ([`unqualified`]).
pub fn gate_stored(suite: &mut Suite) {
    let originals: std::collections::HashMap<String, String> = suite
        .questions
        .iter()
        .filter_map(|q| {
            let v = q.variant.as_deref()?;
            (v.strategy == Strategy::Original).then(|| (v.of.clone(), q.question.clone()))
        })
        .collect();
    for q in &mut suite.questions {
        let Some(v) = q.variant.as_deref_mut() else {
            continue;
        };
        if v.strategy != Strategy::PTop || v.tries.is_some() {
            continue;
        }
        let given = originals.get(&v.of).map_or("", String::as_str);
        if let Some(why) = leak::refusal(&q.question, q.reference.as_deref(), given) {
            v.tries = Some(vec![variant::PTopTry::leak_checked(Some(why))]);
            v.accepted = Some(false);
        }
    }
}

/// The problems whose p_top no text of passed the gates, in the order
/// given, each with why (the last refusal): (problem, reason).
pub fn unqualified<'a>(variants: impl IntoIterator<Item = &'a Variant>) -> Vec<(String, String)> {
    variants
        .into_iter()
        .filter(|v| v.strategy == Strategy::PTop && v.accepted == Some(false))
        .map(|v| {
            let tries = v.tries.as_deref().unwrap_or_default();
            let last = tries
                .iter()
                .rev()
                .find_map(|t| t.refused.clone())
                .unwrap_or_else(|| "refused".into());
            let reason = match tries.len() {
                0 | 1 => format!("its p_top was refused: {last}"),
                n => format!("none of its {n} p_top texts passed; the last: {last}"),
            };
            (v.of.clone(), reason)
        })
        .collect()
}

/// A question's p_top after the leak gate: the text the variants are cut
/// from (the accepted one, else the last written), every try, and what a
/// reader should know.
struct GatedPTop {
    text: String,
    tries: Vec<variant::PTopTry>,
    accepted: bool,
    written: usize,
    warnings: Vec<String>,
}

/// The suite's p_top, checked and never rewritten; else the writer's,
/// written again with a new attempt while a gate refuses it, at most
/// `gates.p_top_tries` times.
fn gate_p_top<W: Writer + ?Sized>(
    q: &Question,
    parts: &Parts,
    gates: Gates<'_>,
    writer: &W,
) -> Result<GatedPTop, VariantsError<W::Error>> {
    let tries = gates.p_top_tries.max(1);
    if let Some(given) = &q.p_top {
        let (tried, gate) = judge_p_top(q, parts, given, 1, gates)?;
        let warnings = tried
            .refused
            .iter()
            .map(|why| {
                format!(
                    "question `{}`: the suite's p_top is refused by the {gate}: {why}; it is \
                     not rewritten (the suite gave it), and the problem is marked unqualified",
                    q.id
                )
            })
            .collect();
        return Ok(GatedPTop {
            text: given.clone(),
            accepted: tried.refused.is_none(),
            tries: vec![tried],
            written: 0,
            warnings,
        });
    }
    let mut gated = GatedPTop {
        text: String::new(),
        tries: Vec::new(),
        accepted: false,
        written: 0,
        warnings: Vec::new(),
    };
    for attempt in 1..=tries {
        let text = writer
            .p_top(q, parts, attempt)
            .map_err(|source| VariantsError::PTop {
                question: q.id.clone(),
                source,
            })?;
        gated.written += 1;
        let (tried, gate) = judge_p_top(q, parts, &text, attempt, gates)?;
        gated.text = text;
        gated.accepted = tried.refused.is_none();
        if let Some(why) = &tried.refused {
            gated.warnings.push(format!(
                "question `{}`: p_top try {attempt} of {tries} refused by the {gate}: {why}{}",
                q.id,
                if attempt < tries {
                    "; written again"
                } else {
                    ""
                }
            ));
        }
        gated.tries.push(tried);
        if gated.accepted {
            break;
        }
    }
    if !gated.accepted {
        gated.warnings.push(format!(
            "question `{}`: no p_top passed the gates in {tries} tries: its variants are cut \
             from the last one and the problem is marked unqualified",
            q.id
        ));
    }
    Ok(gated)
}

/// One p_top text through the gates: the leak gate, then (when on and
/// the text did not leak) the qualification gate; the try as kept, and
/// which gate refused it.
fn judge_p_top<E>(
    q: &Question,
    parts: &Parts,
    text: &str,
    attempt: u32,
    gates: Gates<'_>,
) -> Result<(variant::PTopTry, &'static str), VariantsError<E>> {
    if let Some(why) = leak::refusal(text, q.reference.as_deref(), &q.question) {
        return Ok((variant::PTopTry::leak_checked(Some(why)), "leak gate"));
    }
    let Some((qualifier, min_pass)) = gates.qualify else {
        return Ok((variant::PTopTry::leak_checked(None), "leak gate"));
    };
    let asked = variant_question(q, parts, Variant::new(&q.id, Strategy::PTop), Some(text));
    let Qualified { passed, samples } =
        qualifier
            .qualify(&asked, attempt)
            .map_err(|reason| VariantsError::Qualify {
                question: q.id.clone(),
                reason,
            })?;
    let rate = f64::from(passed) / f64::from(samples.max(1));
    // A share is compared with a margin, so 4 of 5 meets 0.8.
    let refused = (samples == 0 || rate + 1e-9 < min_pass).then(|| {
        format!(
            "{passed} of {samples} replies to it passed (pass@1 {rate:.2}), below \
             [variants.qualify] min_pass = {min_pass}"
        )
    });
    Ok((
        variant::PTopTry {
            refused,
            passed: Some(passed),
            samples: Some(samples),
        },
        "qualification gate",
    ))
}

/// The question of one variant: `q` with the variant's id, its
/// description (the original's own text for the original) and the
/// variant's facts.
fn variant_question(
    q: &Question,
    parts: &Parts,
    variant: Variant,
    description: Option<&str>,
) -> Question {
    let mut v = q.clone();
    v.id = format!("{}.{}", q.id, variant.name());
    v.question = match variant.strategy {
        Strategy::Original => q.question.clone(),
        _ => parts.render(description),
    };
    v.p_top = None;
    v.variant = Some(Box::new(variant));
    v
}

/// The variants of one question, added in the order a suite lists them.
struct Family<'a> {
    q: &'a Question,
    parts: &'a Parts,
    out: &'a mut Vec<Question>,
}

impl Family<'_> {
    fn add(&mut self, variant: Variant, description: Option<&str>) {
        self.out
            .push(variant_question(self.q, self.parts, variant, description));
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
        fn p_top(&self, q: &Question, _: &Parts, _: u32) -> Result<String, Self::Error> {
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
        let e = expand(&suite(), 42, Gates::leak_only(3), &Echo).unwrap();
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
        let e = expand(&suite(), 42, Gates::leak_only(3), &Echo).unwrap();
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
        let a = expand(&suite(), 42, Gates::leak_only(3), &Echo)
            .unwrap()
            .suite;
        let b = expand(&suite(), 42, Gates::leak_only(3), &Echo)
            .unwrap()
            .suite;
        assert_eq!(a, b);
        let other = expand(&suite(), 7, Gates::leak_only(3), &Echo)
            .unwrap()
            .suite;
        assert_ne!(a, other, "another seed samples other paragraphs");
        let again = expand(&a, 42, Gates::leak_only(3), &Echo).unwrap();
        assert_eq!(again.suite, a);
        assert_eq!(again.written, 0);
    }
}

#[cfg(test)]
mod gate_tests {
    use super::*;
    use std::cell::RefCell;
    use std::path::Path;

    /// Writes the texts of `script` in turn (the last one again after
    /// them), counting the calls and the attempts it was asked for.
    struct Scripted {
        script: Vec<&'static str>,
        attempts: RefCell<Vec<u32>>,
    }

    impl Writer for Scripted {
        type Error = std::convert::Infallible;
        fn p_top(&self, _: &Question, _: &Parts, attempt: u32) -> Result<String, Self::Error> {
            let mut attempts = self.attempts.borrow_mut();
            let i = attempts.len().min(self.script.len() - 1);
            attempts.push(attempt);
            Ok(self.script[i].to_string())
        }
        fn summary(&self, _: &Question, _: &str, _: u32) -> Result<String, Self::Error> {
            Ok("It adds one.".into())
        }
    }

    const LEAKS: &str = "It adds one:\n\n```python\nreturn x + 1\n```\n";
    const QUOTES: &str = "It does this. result = x + 1 and then return result + 0 here.";
    const CLEAN: &str = "The function adds one to its argument and returns the sum.";

    fn suite(p_top: Option<&str>) -> Suite {
        let given = p_top.map_or(String::new(), |p| {
            format!(", \"p_top\": {}", serde_json::json!(p))
        });
        Suite::parse(
            Path::new("s.json"),
            format!(
                r#"{{"t": "{{question}}", "questions": [
              {{"id": "inc", "question": "def inc(x):\n    \"\"\"Add one.\"\"\"\n", "entry_point": "inc",
               "tests": "assert inc(1) == 2", "reference": "    result = x + 1\n    return result + 0\n"{given}}}]}}"#
            )
            .as_bytes(),
        )
        .unwrap()
    }

    fn p_top_of(e: &Expanded) -> (Variant, String) {
        let q = e
            .suite
            .questions
            .iter()
            .find(|q| q.id == "inc.p_top")
            .unwrap();
        (*q.variant.clone().unwrap(), q.question.clone())
    }

    #[test]
    fn a_leaking_p_top_is_written_again_with_a_new_attempt_until_one_passes() {
        let writer = Scripted {
            script: vec![LEAKS, QUOTES, CLEAN],
            attempts: RefCell::new(Vec::new()),
        };
        let e = expand(&suite(None), 42, Gates::leak_only(3), &writer).unwrap();
        assert_eq!(*writer.attempts.borrow(), [1, 2, 3]);
        let (v, text) = p_top_of(&e);
        assert_eq!(v.accepted, Some(true));
        let refused: Vec<Option<String>> =
            v.tries.unwrap().into_iter().map(|t| t.refused).collect();
        assert!(
            refused[0].as_deref().unwrap().contains("fenced code block"),
            "{refused:?}"
        );
        assert!(
            refused[1]
                .as_deref()
                .unwrap()
                .contains("quotes 2 of its reference's 2"),
            "{refused:?}"
        );
        assert_eq!(refused[2], None);
        assert!(
            text.contains(CLEAN),
            "the variants are cut from the accepted text"
        );
        assert_eq!(e.written, 3 + 7);
        assert_eq!(
            e.warnings
                .iter()
                .filter(|w| w.contains("written again"))
                .count(),
            2
        );
        assert_eq!(v.names_function, Some(false));
    }

    #[test]
    fn a_p_top_that_always_leaks_is_kept_as_unaccepted_after_its_tries() {
        let writer = Scripted {
            script: vec![LEAKS],
            attempts: RefCell::new(Vec::new()),
        };
        let e = expand(&suite(None), 42, Gates::leak_only(2), &writer).unwrap();
        assert_eq!(*writer.attempts.borrow(), [1, 2]);
        let (v, _) = p_top_of(&e);
        assert_eq!(v.accepted, Some(false));
        assert_eq!(v.tries.as_ref().map(Vec::len), Some(2));
        assert!(
            e.warnings
                .iter()
                .any(|w| w.contains("no p_top passed the gates in 2 tries"))
        );
        // Every variant is still planned: the names do not depend on the texts.
        assert_eq!(e.suite.questions.len(), PER_QUESTION);
    }

    #[test]
    fn the_suites_own_p_top_is_checked_and_never_rewritten() {
        let writer = Scripted {
            script: vec![CLEAN],
            attempts: RefCell::new(Vec::new()),
        };
        let e = expand(&suite(Some(LEAKS)), 42, Gates::leak_only(3), &writer).unwrap();
        assert!(writer.attempts.borrow().is_empty(), "never rewritten");
        let (v, _) = p_top_of(&e);
        assert_eq!(v.accepted, Some(false));
        assert!(
            e.warnings
                .iter()
                .any(|w| w.contains("the suite's p_top is refused"))
        );
        let e = expand(&suite(Some(CLEAN)), 42, Gates::leak_only(3), &writer).unwrap();
        assert_eq!(p_top_of(&e).0.accepted, Some(true));
        let e = expand(
            &suite(Some("Call inc(x) to add one.")),
            42,
            Gates::leak_only(3),
            &writer,
        )
        .unwrap();
        assert_eq!(
            p_top_of(&e).0.names_function,
            Some(true),
            "counted, not refused"
        );
        assert_eq!(p_top_of(&e).0.accepted, Some(true));
    }

    /// Passes the texts it is given, `passed` of 5 each; counts its calls.
    struct Model {
        passed: Vec<u32>,
        asked: RefCell<Vec<String>>,
    }

    impl Qualify for Model {
        fn qualify(&self, p_top: &Question, _: u32) -> Result<Qualified, String> {
            let mut asked = self.asked.borrow_mut();
            let passed = *self.passed.get(asked.len()).ok_or("server down")?;
            asked.push(p_top.question.clone());
            Ok(Qualified { passed, samples: 5 })
        }
    }

    #[test]
    fn the_qualification_gate_asks_only_texts_that_did_not_leak_and_four_of_five_meets_0_8() {
        let writer = Scripted {
            script: vec![LEAKS, CLEAN, CLEAN],
            attempts: RefCell::new(Vec::new()),
        };
        let model = Model {
            passed: vec![3, 4],
            asked: RefCell::new(Vec::new()),
        };
        let gates = Gates {
            p_top_tries: 3,
            qualify: Some((&model, 0.8)),
        };
        let e = expand(&suite(None), 42, gates, &writer).unwrap();
        assert_eq!(*writer.attempts.borrow(), [1, 2, 3]);
        let asked = model.asked.borrow();
        assert_eq!(asked.len(), 2, "the leaking text is never asked");
        assert!(asked[0].contains(CLEAN) && asked[0].starts_with("def inc(x):"));
        let (v, _) = p_top_of(&e);
        let tries = v.tries.unwrap();
        assert_eq!(tries[0].passed, None);
        assert_eq!((tries[1].passed, tries[1].samples), (Some(3), Some(5)));
        assert!(tries[1].refused.as_deref().unwrap().contains("below"));
        assert_eq!(tries[2].refused, None, "4 of 5 is pass@1 0.8");
        assert_eq!(v.accepted, Some(true));
    }

    #[test]
    fn a_qualification_that_cannot_judge_stops_the_expansion() {
        let writer = Scripted {
            script: vec![CLEAN],
            attempts: RefCell::new(Vec::new()),
        };
        let model = Model {
            passed: vec![],
            asked: RefCell::new(Vec::new()),
        };
        let gates = Gates {
            p_top_tries: 3,
            qualify: Some((&model, 0.8)),
        };
        let Err(e) = expand(&suite(None), 42, gates, &writer) else {
            panic!("a failed call is not the p_top failing");
        };
        assert_eq!(
            e.to_string(),
            "question `inc`: qualifying its p_top: server down"
        );
    }
}
