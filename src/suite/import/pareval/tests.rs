//! The importer on a tiny fake ParEval checkout: two problems, each with a
//! serial and an omp prompt (and a cuda one, never imported).

use std::path::Path;

use super::*;
use crate::suite::import::to_text;
use crate::suite::{CodeLanguage, Suite};

const AXPY_SERIAL: &str = "/* Compute z = alpha*x+y.\n*/\nvoid axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {";
const SUM_SERIAL: &str =
    "/* Return the sum of x.\n*/\ndouble sumOf(std::vector<double> const& x) {";

fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let prompt = |name: &str, kind: &str, model: &str, text: String| {
        json!({"problem_type": kind, "language": "cpp", "name": name,
               "parallelism_model": model, "prompt": text})
    };
    let prompts = json!([
        prompt("03_dense_la_axpy", "dense_la", "serial", AXPY_SERIAL.into()),
        prompt("27_reduce_sum", "reduce", "serial", SUM_SERIAL.into()),
        prompt(
            "03_dense_la_axpy",
            "dense_la",
            "omp",
            format!("#include <omp.h>\n\n{AXPY_SERIAL}")
        ),
        prompt(
            "27_reduce_sum",
            "reduce",
            "omp",
            format!("#include <omp.h>\n\n{SUM_SERIAL}")
        ),
        prompt(
            "27_reduce_sum",
            "reduce",
            "cuda",
            "__global__ void sumOf(const double *x) {".into()
        ),
    ]);
    write(
        root,
        "prompts/generation-prompts.json",
        &prompts.to_string(),
    );
    write(
        root,
        "drivers/problem-sizes.json",
        r#"{"03_dense_la_axpy": {"serial": "(1<<20)", "omp": "(1<<20)", "cuda": "(1<<20)"},
            "27_reduce_sum": {"serial": "(1<<18)", "omp": "(1<<19)", "cuda": "(1<<20)"}}"#,
    );
    for (dir, correct, params, call, body) in [
        (
            "dense_la/03_dense_la_axpy",
            "correctAxpy",
            "double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z",
            "(alpha, x, y, correct)",
            "\n   for (size_t i = 0; i < x.size(); i += 1) {\n      z[i] = alpha*x[i] + y[i];\n   }\n}",
        ),
        (
            "reduce/27_reduce_sum",
            "correctSumOf",
            "std::vector<double> const& x",
            "(x)",
            "\n    double s = 0;\n    for (double v : x) s += v;\n    return s;\n}",
        ),
    ] {
        let kind = if correct == "correctAxpy" {
            "void"
        } else {
            "double"
        };
        write(
            root,
            &format!("drivers/cpp/benchmarks/{dir}/baseline.hpp"),
            &format!(
                "#pragma once\n#include <vector>\n\n{kind} NO_INLINE {correct}({params}) {{{body}\n"
            ),
        );
        write(
            root,
            &format!("drivers/cpp/benchmarks/{dir}/cpu.cc"),
            &format!(
                "#include \"baseline.hpp\"\n#include \"generated-code.hpp\"\nbool validate(Context *ctx) {{\n    {correct}{call};\n    return true;\n}}\n"
            ),
        );
    }
    dir
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load(suite: &Value) -> Suite {
    Suite::parse(Path::new("pareval.json"), to_text(suite).as_bytes()).unwrap()
}

#[test]
fn both_models_become_one_suite_serial_first_with_distinct_ids() {
    let dir = checkout();
    let models = parse_models(DEFAULT_MODELS).unwrap();
    let problems = read_checkout(dir.path(), &models).unwrap();
    let value = suite(&problems).unwrap();
    let s = load(&value);
    let ids: Vec<_> = s.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "03_dense_la_axpy",
            "27_reduce_sum",
            "03_dense_la_axpy_omp",
            "27_reduce_sum_omp"
        ]
    );
    assert_eq!(s.stem(), "pareval");
    assert_eq!(s.prompts.len(), 1);
    assert_eq!(s.prompts[0].name, PAREVAL_TEMPLATE_NAME);
    assert_eq!(s.prompts[0].template, PAREVAL_TEMPLATE);
    assert_eq!(s.system_prompt.as_deref(), Some(PAREVAL_SYSTEM));
    assert_eq!(s.settings.history, Some(false));

    let axpy = &s.questions[0];
    assert_eq!(axpy.kind.as_deref(), Some("dense_la"));
    assert_eq!(axpy.question, AXPY_SERIAL);
    assert_eq!(axpy.entry_point.as_deref(), Some("axpy"));
    assert_eq!(axpy.code_language(), CodeLanguage::Cpp);
    let reference = axpy.reference.as_deref().unwrap();
    assert!(
        reference.starts_with(&format!(
            "{}\n   for (size_t i = 0;",
            AXPY_SERIAL.lines().last().unwrap()
        )),
        "{reference}"
    );
    assert!(reference.ends_with("y[i];\n   }\n}"), "{reference}");
    let check = axpy.pareval.as_deref().unwrap();
    assert_eq!(check.name, "03_dense_la_axpy");
    assert_eq!(check.problem_type, "dense_la");
    assert_eq!(check.parallelism_model, ParallelModel::Serial);
    assert!(check.driver.contains("correctAxpy(alpha, x, y, correct)"));
    assert!(check.baseline.starts_with("#pragma once\n"));
    assert_eq!(check.problem_size, "(1<<20)");
    assert_eq!(
        (check.threads.as_ref(), check.defect.as_ref()),
        (None, None)
    );

    let sum_omp = &s.questions[3];
    assert!(
        sum_omp
            .question
            .starts_with("#include <omp.h>\n\n/* Return")
    );
    assert_eq!(sum_omp.entry_point.as_deref(), Some("sumOf"));
    let check = sum_omp.pareval.as_deref().unwrap();
    assert_eq!(check.parallelism_model, ParallelModel::Omp);
    assert_eq!(check.problem_size, "(1<<19)");
    // The JSON's own key order, as the committed suites have it.
    let first = &value["questions"][0];
    let keys: Vec<_> = first.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "kind",
            "language",
            "question",
            "entry_point",
            "reference",
            "pareval"
        ]
    );
}

#[test]
fn one_model_keeps_the_bare_names_and_names_the_suite_after_it() {
    let dir = checkout();
    for (models, name, size) in [
        ("omp", "pareval-omp", "(1<<19)"),
        ("serial", "pareval-serial", "(1<<18)"),
    ] {
        let problems = read_checkout(dir.path(), &parse_models(models).unwrap()).unwrap();
        let s = load(&suite(&problems).unwrap());
        assert_eq!(s.stem(), name);
        let ids: Vec<_> = s.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["03_dense_la_axpy", "27_reduce_sum"]);
        assert_eq!(s.questions[1].pareval.as_ref().unwrap().problem_size, size);
    }
}

#[test]
fn models_other_than_serial_and_omp_are_refused_by_name() {
    assert_eq!(
        parse_models("omp, serial,omp").unwrap(),
        [ParallelModel::Serial, ParallelModel::Omp]
    );
    for (value, named) in [
        ("serial,cuda", "`cuda`"),
        ("", "``"),
        ("mpi+omp", "`mpi+omp`"),
    ] {
        let e = parse_models(value).unwrap_err().0;
        assert!(
            e.contains(named) && e.contains("only serial and omp"),
            "{e}"
        );
    }
}

#[test]
fn a_missing_driver_or_checkout_is_named_with_what_to_do() {
    let dir = checkout();
    let cpu = dir
        .path()
        .join("drivers/cpp/benchmarks/reduce/27_reduce_sum/cpu.cc");
    std::fs::remove_file(&cpu).unwrap();
    let e = read_checkout(dir.path(), &[ParallelModel::Serial])
        .unwrap_err()
        .0;
    assert!(
        e.starts_with(&format!("{}: cannot read cpu.cc", cpu.display())),
        "{e}"
    );
    assert!(e.contains("check out ParEval whole again"), "{e}");

    let e = read_checkout(&dir.path().join("nowhere"), &[ParallelModel::Serial])
        .unwrap_err()
        .0;
    assert!(
        e.contains("no such folder") && e.contains("ParEval checkout"),
        "{e}"
    );
    std::fs::remove_file(dir.path().join("drivers/problem-sizes.json")).unwrap();
    let e = read_checkout(dir.path(), &[ParallelModel::Serial])
        .unwrap_err()
        .0;
    assert!(e.contains("problem-sizes.json: cannot read"), "{e}");
}

#[test]
fn a_known_defect_is_carried_and_leaves_the_fingerprint_alone() {
    let dir = checkout();
    let mut problems = read_checkout(dir.path(), &[ParallelModel::Serial]).unwrap();
    let before = load(&suite(&problems).unwrap()).questions[0].fingerprint();
    problems[0].check.defect = Some(KNOWN_DEFECTS[1].1.into());
    let s = load(&suite(&problems).unwrap());
    let check = s.questions[0].pareval.as_deref().unwrap();
    assert!(check.defect.as_deref().unwrap().contains("<array>"));
    assert_eq!(s.questions[0].fingerprint(), before);
}

#[test]
fn the_function_name_is_found_as_parevals_regex_finds_it() {
    assert_eq!(
        function_name("void axpy(double alpha) {").as_deref(),
        Some("axpy")
    );
    assert_eq!(
        function_name("  double sumOf(std::vector<double> const& x) {").as_deref(),
        Some("sumOf")
    );
    // ParEval's pattern wants one word, a space, then the name.
    assert_eq!(function_name("std::vector<int> f(int n) {"), None);
}
