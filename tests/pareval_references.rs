//! Every ParEval problem of the committed suites, answered with its
//! reference (the `correct...` function's body ParEval's own check compares
//! with), is judged as ParEval's own driver judges the same program: correct,
//! except ParEval's two defects (src/suite/import/pareval.rs), kept visible:
//! 22_histogram_count_quadrants does not compile (its prompt lacks
//! `<array>`), and 48_sparse_la_sparse_axpy's check empties the output
//! before calling the candidate, so even its reference aborts (fequal's
//! size assertion, SIGABRT, as under ParEval's own driver). (The third,
//! 07_fft_fft_conjugate, passes: its reference is the function its check
//! compares with.)

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use prompteval::case::Verdict;
use prompteval::config::{CppConfig, SandboxConfig};
use prompteval::execute::cpp::Cpp;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::Suite;

fn expected(id: &str) -> Verdict {
    if id.starts_with("22_histogram_count_quadrants") {
        Verdict::SyntaxError
    } else if id.starts_with("48_sparse_la_sparse_axpy") {
        // ParEval's driver aborts there too (fequal's size assertion).
        Verdict::RuntimeError
    } else {
        Verdict::Correct
    }
}

#[test]
fn the_references_pass_as_pareval_judges_them() {
    let sandbox = Sandbox::new(&SandboxConfig::default(), &RUNTIME).expect("sandbox");
    // ParEval's verdict: validate() and the timing loops at every thread
    // count, under ParEval's run limit, as its harness runs them.
    let cpp = Cpp::new(CppConfig::default(), None);
    let mut questions = Vec::new();
    for file in ["pareval-serial.json", "pareval-omp.json"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches-data")
            .join(file);
        let suite = Suite::load(&path).expect("suite");
        assert_eq!(suite.questions.len(), 60, "{file}");
        questions.extend(suite.questions.into_iter().map(|q| (file, q)));
    }
    let started = Instant::now();
    let next = Mutex::new(questions.iter());
    let wrong = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let Some((file, q)) = next.lock().unwrap().next() else {
                        return;
                    };
                    let reference = q
                        .reference
                        .as_deref()
                        .expect("every problem has a reference");
                    let ran = cpp.run(q, reference, &sandbox).expect("harness");
                    let want = expected(&q.id);
                    if ran.judgement.verdict != want {
                        wrong.lock().unwrap().push(format!(
                            "{file} {}: {} ({}), expected {want}",
                            q.id,
                            ran.judgement.verdict,
                            ran.judgement.detail.unwrap_or_default()
                        ));
                    }
                }
            });
        }
    });
    let wrong = wrong.into_inner().unwrap();
    eprintln!(
        "120 references judged in {:.1} s on {workers} workers",
        started.elapsed().as_secs_f64()
    );
    assert!(
        wrong.is_empty(),
        "{} of 120 judged otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
