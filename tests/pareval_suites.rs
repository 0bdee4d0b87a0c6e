//! The committed ParEval suites (`prompteval import pareval` of ParEval at
//! 4c9877f, see benches-data/PAREVAL-LICENSE) load, and hold what their
//! checks need: 60 C++ questions each, with ParEval's check of the right
//! model, unique ids, ParEval's prompts as written (OpenMP's with its
//! include) and a reference each. No compiler here: the references were
//! built and run with ParEval's own drivers when the suites were imported
//! (docs/guide/suites.md gives the results).

use std::collections::HashSet;
use std::path::Path;

use prompteval::suite::{CodeLanguage, ParallelModel, Question, Suite};
use prompteval::variants::parts::Parts;
use prompteval::variants::{Gates, PER_QUESTION, Strategy, Writer, expand};

fn load(file: &str) -> Suite {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches-data")
        .join(file);
    Suite::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn check(file: &str, model: ParallelModel) {
    let suite = load(file);
    assert_eq!(suite.questions.len(), 60, "{file}");
    assert_eq!(suite.stem(), format!("pareval-{}", model.as_str()));
    assert_eq!(suite.settings.history, Some(false), "{file}");
    let template = &suite.prompts[0];
    assert_eq!(template.name, "pareval_chat");
    assert!(template.template.contains("{entry_point}"));
    let mut ids = HashSet::new();
    for q in &suite.questions {
        assert!(ids.insert(q.id.as_str()), "{file}: {} twice", q.id);
        assert_eq!(q.code_language(), CodeLanguage::Cpp, "{}", q.id);
        let check = q
            .pareval
            .as_deref()
            .unwrap_or_else(|| panic!("{}: no pareval check", q.id));
        assert_eq!(check.parallelism_model, model, "{}", q.id);
        assert_eq!(check.name, q.id);
        assert!(
            check.driver.contains("bool validate(Context *ctx)"),
            "{}",
            q.id
        );
        assert!(!check.baseline.is_empty() && !check.problem_size.is_empty());
        if model == ParallelModel::Omp {
            assert!(q.question.starts_with("#include <omp.h>"), "{}", q.id);
        }
        assert!(q.question.trim_end().ends_with('{'), "{}", q.id);
        let entry_point = q.entry_point.as_deref().unwrap();
        let reference = q
            .reference
            .as_deref()
            .unwrap_or_else(|| panic!("{}: no reference", q.id));
        // The reference is a whole function under the prompt's signature.
        let signature = q.question.lines().last().unwrap();
        assert!(signature.contains(&format!(" {entry_point}(")), "{}", q.id);
        assert!(reference.starts_with(signature), "{}", q.id);
        assert!(reference.trim_end().ends_with('}'), "{}", q.id);
        // The message the model gets names the function.
        assert!(
            template
                .template_for(q)
                .starts_with(&format!("Complete the C++ function {entry_point}."))
        );
    }
    // ParEval's known defects stay visible on their questions.
    let defective: Vec<&str> = suite
        .questions
        .iter()
        .filter(|q| q.pareval.as_ref().is_some_and(|c| c.defect.is_some()))
        .map(|q| q.id.as_str())
        .collect();
    assert_eq!(
        defective,
        [
            "48_sparse_la_sparse_axpy",
            "22_histogram_count_quadrants",
            "07_fft_fft_conjugate"
        ]
    );
}

#[test]
fn the_serial_suite_loads_with_60_checked_questions() {
    check("pareval-serial.json", ParallelModel::Serial);
}

#[test]
fn the_omp_suite_loads_with_60_checked_questions() {
    check("pareval-omp.json", ParallelModel::Omp);
}

/// Writes texts that show where they came from: a p_top of five
/// paragraphs and summaries one word too long.
struct Scripted;

impl Writer for Scripted {
    type Error = std::convert::Infallible;
    fn p_top(&self, q: &Question, _: &Parts, _: u32) -> Result<String, Self::Error> {
        Ok(format!(
            "The function solves {}. It reads its input.\n\nIt loops. It keeps a total.\n\nIt uses OpenMP. Threads share the loop.\n\nIt handles the empty case.\n\nIt returns. Done.",
            q.id
        ))
    }
    fn summary(&self, _: &Question, _: &str, words: u32) -> Result<String, Self::Error> {
        Ok(vec!["word"; words as usize + 1].join(" "))
    }
}

/// PO-ParEval (paper §3.3): every problem of both subsets gives the 41
/// prompts of the partial order and the original, and only the
/// description comment changes: the preamble (everything before the last
/// `/* */` before the signature) and the signature stay byte for byte.
#[test]
fn the_partial_order_varies_only_the_description_comment() {
    for (file, first_line) in [
        ("pareval-serial.json", None),
        ("pareval-omp.json", Some("#include <omp.h>")),
    ] {
        let suite = load(file);
        let expanded = expand(&suite, 42, Gates::leak_only(3), &Scripted)
            .unwrap()
            .suite;
        assert_eq!(expanded.questions.len(), 60 * PER_QUESTION, "{file}");
        for q in &suite.questions {
            let open = q.question.rfind("/*").expect("a description comment");
            let preamble = &q.question[..open];
            let signature = q.question.lines().last().unwrap();
            if let Some(line) = first_line {
                assert!(preamble.starts_with(line), "{}", q.id);
            }
            let family: Vec<_> = expanded
                .questions
                .iter()
                .filter(|v| v.variant.as_ref().is_some_and(|v| v.of == q.id))
                .collect();
            let count = |s: Strategy| {
                family
                    .iter()
                    .filter(|v| v.variant.as_ref().unwrap().strategy == s)
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
                [1, 1, 7, 16, 16, 1],
                "{}",
                q.id
            );
            for v in &family {
                let strategy = v.variant.as_ref().unwrap().strategy;
                assert_eq!(v.code_language(), CodeLanguage::Cpp);
                assert_eq!(v.pareval, q.pareval, "{}", v.id);
                if strategy == Strategy::Original {
                    assert_eq!(v.question, q.question);
                    continue;
                }
                assert!(v.question.starts_with(preamble), "{}", v.id);
                assert!(v.question.ends_with(signature), "{}", v.id);
                let middle = &v.question[preamble.len()..v.question.len() - signature.len()];
                if strategy == Strategy::PBot {
                    assert_eq!(middle, "", "{}", v.id);
                } else {
                    assert!(
                        middle.starts_with("/* ") && middle.ends_with("*/\n"),
                        "{}: {middle:?}",
                        v.id
                    );
                    assert_eq!(middle.matches("*/").count(), 1, "{}", v.id);
                }
            }
            let p_top = family.iter().find(|v| v.id.ends_with(".p_top")).unwrap();
            assert!(p_top.question.contains("It handles the empty case."));
        }
        // The seed decides the samples, the same on every run.
        let again = expand(&suite, 42, Gates::leak_only(3), &Scripted)
            .unwrap()
            .suite;
        assert_eq!(again, expanded);
        assert_ne!(
            expand(&suite, 7, Gates::leak_only(3), &Scripted)
                .unwrap()
                .suite,
            expanded
        );
    }
}
