//! What judging a case costs in each language of MultiPL-E's, as ratios
//! against that language's own floors, measured in the same process and
//! interleaved case by case (so a load on the machine weighs on all three
//! alike):
//!
//! - **trivial**: the language's smallest program (`Spec::trivial`), built
//!   and run directly per case: starting the runtime, or compiling and
//!   running, and nothing else;
//! - **MultiPL-E**: the case's own program (prompt, completion, MultiPL-E's
//!   unchanged tests) built and run directly, as MultiPL-E's evaluator does
//!   without a container;
//! - **judged**: the same case through prompteval: the completion taken
//!   from a cached reply, the proof put into the tests, build and run in
//!   the sandbox (namespaces, cgroup, rlimits, Landlock), the verdict.
//!
//! The reply is a correct one to problem 0 (tests/data/multipl-e), from
//! the response cache's point of view a cached case: no model is asked.
//!
//! `cargo bench --bench languages` (N cases per language, default 20; set
//! PROMPTEVAL_BENCH_CASES, e.g. 1000; PROMPTEVAL_BENCH_LANGUAGES=lua,go
//! limits the languages).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use prompteval::case::Verdict;
use prompteval::config::{CppConfig, SandboxConfig};
use prompteval::execute::cpp::Cpp;
use prompteval::execute::language::{Languages, MULTIPL_E};
use prompteval::execute::multipl_e::assemble::{Problem, program};
use prompteval::execute::multipl_e::{MultiplE, Toolchain, run_directly};
use prompteval::execute::program::Shapes;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::Suite;

fn mean(v: &[Duration]) -> Duration {
    v.iter().sum::<Duration>() / v.len().max(1) as u32
}

fn main() {
    let cases: usize = std::env::var("PROMPTEVAL_BENCH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let only: Option<Vec<String>> = std::env::var("PROMPTEVAL_BENCH_LANGUAGES")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let replies: BTreeMap<String, BTreeMap<String, String>> = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/multipl-e/has_close_elements.json"))
            .expect("replies"),
    )
    .expect("json");
    let sandbox = Sandbox::new(&SandboxConfig::default(), &RUNTIME).expect("sandbox");
    let languages = Languages {
        shapes: Shapes::default(),
        cpp: Cpp::new(CppConfig::default(), None),
        multipl_e: MultiplE::new(CppConfig::default()),
    };
    println!(
        "{cases} cases per language, one at a time; mean seconds per case\n\n\
         | language | trivial | MultiPL-E | judged | judged / MultiPL-E | judged / trivial |\n\
         |---|---|---|---|---|---|"
    );
    for spec in MULTIPL_E {
        let id = spec.language.as_str();
        if only.as_ref().is_some_and(|o| !o.iter().any(|l| l == id)) {
            continue;
        }
        let Ok(toolchain) = Toolchain::find(spec) else {
            println!("| {id} | not installed | | | | |");
            continue;
        };
        let suite = Suite::load(
            &root
                .join("benches-data/multipl-e")
                .join(format!("humaneval-{id}.json")),
        )
        .expect("suite");
        let question = &suite.questions[0];
        let reply = &replies[id]["correct"];
        let code = languages.extract(question, reply).code;
        let problem = Problem::of(question, spec);
        let direct = program(&problem, &code, problem.tests).shown;
        let (mut trivial, mut multipl_e, mut judged) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..cases {
            let t = Instant::now();
            run_directly(spec, &toolchain, spec.trivial).expect("trivial program runs");
            trivial.push(t.elapsed());
            let t = Instant::now();
            let passed = run_directly(spec, &toolchain, &direct).expect("MultiPL-E's program runs");
            multipl_e.push(t.elapsed());
            assert!(
                passed,
                "{id}: MultiPL-E's own run of the correct reply failed"
            );
            let t = Instant::now();
            let ran = languages.run(question, &code, &sandbox).expect("judged");
            judged.push(t.elapsed());
            assert_eq!(
                ran.judgement.verdict,
                Verdict::Correct,
                "{id}: {:?}",
                ran.judgement
            );
        }
        let (t, m, j) = (mean(&trivial), mean(&multipl_e), mean(&judged));
        println!(
            "| {id} | {:.3} | {:.3} | {:.3} | {:.2} | {:.2} |",
            t.as_secs_f64(),
            m.as_secs_f64(),
            j.as_secs_f64(),
            j.as_secs_f64() / m.as_secs_f64(),
            j.as_secs_f64() / t.as_secs_f64()
        );
    }
}
