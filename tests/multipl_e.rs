//! The languages of MultiPL-E's, judged in the sandbox on problem 0
//! (`has_close_elements`) of the committed suites: a correct reply passes;
//! a wrong one, one that exits 0 before the tests (MultiPL-E itself counts
//! that a pass), an endless one and one that does not compile do not, each
//! with its own verdict. Every reply is also run as MultiPL-E runs it, the
//! prompt, the completion and MultiPL-E's own tests unchanged, outside the
//! sandbox, and the verdict agrees with that run's exit status except where
//! the program left before the tests.
//!
//! A language whose toolchain is absent is reported ignored with the
//! package to install (a failure under CI=true, whose .ci/run installs
//! them all).

#[path = "support/trials.rs"]
mod trials;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::OnceLock;

use libtest_mimic::Arguments;

use prompteval::case::Verdict;
use prompteval::config::{CppConfig, SandboxConfig};
use prompteval::execute::cpp::Cpp;
use prompteval::execute::language::{Languages, MULTIPL_E};
use prompteval::execute::multipl_e::{MultiplE, Spec, Toolchain};
use prompteval::execute::program::Shapes;
use prompteval::execute::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::{Question, Suite};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let config = SandboxConfig {
            timeout_secs: 10.0,
            ..SandboxConfig::default()
        };
        Sandbox::new(&config, &RUNTIME).expect("sandbox")
    })
}

fn languages() -> &'static Languages {
    static LANGUAGES: OnceLock<Languages> = OnceLock::new();
    LANGUAGES.get_or_init(|| Languages {
        shapes: Shapes::default(),
        cpp: Cpp::new(CppConfig::default(), None),
        multipl_e: MultiplE::new(CppConfig::default()),
    })
}

/// Problem 0 of the language's committed suite.
fn problem(spec: &Spec) -> Question {
    let path = root()
        .join("benches-data/multipl-e")
        .join(format!("humaneval-{}.json", spec.language.as_str()));
    let suite = Suite::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    suite
        .questions
        .into_iter()
        .find(|q| q.id == "HumanEval_0_has_close_elements")
        .expect("problem 0")
}

/// The replies of tests/data/multipl-e/has_close_elements.json.
fn replies() -> &'static BTreeMap<String, BTreeMap<String, String>> {
    static REPLIES: OnceLock<BTreeMap<String, BTreeMap<String, String>>> = OnceLock::new();
    REPLIES.get_or_init(|| {
        let path = root().join("tests/data/multipl-e/has_close_elements.json");
        serde_json::from_str(&std::fs::read_to_string(path).expect("replies")).expect("json")
    })
}

/// The verdict each kind of reply must get.
fn expected(kind: &str) -> Verdict {
    match kind {
        "correct" => Verdict::Correct,
        "wrong" | "early" => Verdict::WrongAnswer,
        "endless" => Verdict::Timeout,
        "syntax" => Verdict::SyntaxError,
        other => panic!("unknown kind {other}"),
    }
}

/// Runs the prompt, the completion and MultiPL-E's own tests as MultiPL-E
/// runs them (no proof, no sandbox: only the trusted replies): whether it
/// exited 0 within the time.
fn multipl_e_passes(spec: &Spec, question: &Question, code: &str) -> Option<bool> {
    let toolchain = Toolchain::find(spec).ok()?;
    let problem = prompteval::execute::multipl_e::assemble::Problem::of(question, spec);
    let program = prompteval::execute::multipl_e::assemble::program(&problem, code, problem.tests);
    prompteval::execute::multipl_e::run_directly(spec, &toolchain, &program.shown)
}

fn judged(spec: &'static Spec, kind: &'static str) -> impl Fn(()) + Send + 'static {
    move |()| {
        let question = problem(spec);
        let reply = &replies()[spec.language.as_str()][kind];
        let code = languages().extract(&question, reply).code;
        let ran = languages()
            .run(&question, &code, sandbox())
            .unwrap_or_else(|e| panic!("harness: {e}"));
        let want = expected(kind);
        assert_eq!(
            ran.judgement.verdict,
            want,
            "{} {kind}: {:?}\nprogram:\n{}\nstdout: {}\nstderr: {}",
            spec.language.as_str(),
            ran.judgement.detail,
            ran.shown,
            ran.execution.stdout,
            ran.execution.stderr
        );
        if kind != "endless" {
            let truth = multipl_e_passes(spec, &question, &code).expect("ran directly");
            let agrees = match kind {
                // MultiPL-E counts a program that left before its tests a pass.
                "early" => truth,
                _ => truth == (want == Verdict::Correct),
            };
            assert!(
                agrees,
                "{} {kind}: MultiPL-E's own run passed = {truth}",
                spec.language.as_str()
            );
        }
    }
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let mut all = Vec::new();
    for spec in MULTIPL_E {
        let Some(kinds) = replies().get(spec.language.as_str()) else {
            continue;
        };
        let present = Toolchain::find(spec).map(|_| ());
        for kind in kinds.keys() {
            let kind: &'static str = Box::leak(kind.clone().into_boxed_str());
            all.push(trials::needing(
                &args,
                &present,
                &format!("{}_{kind}", spec.language.as_str()),
                judged(spec, kind),
            ));
        }
    }
    trials::run(&args, all)
}
