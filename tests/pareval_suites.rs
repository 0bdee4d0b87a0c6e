//! The committed ParEval suites (`prompteval import pareval` of ParEval at
//! 4c9877f, see benches-data/PAREVAL-LICENSE) load, and hold what their
//! checks need: 60 C++ questions each, with ParEval's check of the right
//! model, unique ids, ParEval's prompts as written (OpenMP's with its
//! include) and a reference each. No compiler here: the references were
//! built and run with ParEval's own drivers when the suites were imported
//! (docs/guide/suites.md gives the results).

use std::collections::HashSet;
use std::path::Path;

use prompteval::suite::{CodeLanguage, ParallelModel, Suite};

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
