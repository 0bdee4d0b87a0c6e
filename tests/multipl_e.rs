//! The languages of MultiPL-E's, judged in the sandbox on problem 0
//! (`has_close_elements`) of the committed suites: a correct reply passes;
//! a wrong one, one that exits 0 before the tests (MultiPL-E itself counts
//! that a pass), an endless one and one that does not compile do not, each
//! with its own verdict. Every reply is also run as MultiPL-E runs it, the
//! prompt, the completion and MultiPL-E's own tests unchanged, outside the
//! sandbox, and the verdict agrees with that run's exit status except where
//! the program left before the tests.
//!
//! The hostile corpus per language (tests/data/multipl-e/hostile.json):
//! a fork bomb, a write outside the case's folder and a connection to a
//! listener on the host's loopback, each from the language's own calls,
//! end within the time limit and leave the host unharmed (no file, no
//! connection, the sandbox still runs programs). Its endless loop is the
//! `endless` reply above.
//!
//! A language whose toolchain is absent is reported ignored with the
//! package to install (a failure under CI=true, whose .ci/run installs
//! them all); the hostile trials also need the sandbox's full isolation.

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
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::{Question, Suite};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let config = SandboxConfig {
            timeout_secs: LIMIT_SECS,
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

fn hostile_replies() -> &'static BTreeMap<String, BTreeMap<String, String>> {
    static REPLIES: OnceLock<BTreeMap<String, BTreeMap<String, String>>> = OnceLock::new();
    REPLIES.get_or_init(|| {
        let path = root().join("tests/data/multipl-e/hostile.json");
        serde_json::from_str(&std::fs::read_to_string(path).expect("hostile")).expect("json")
    })
}

/// The time limit of [`sandbox`], and what a case may take beyond it
/// (compiling, killing).
const LIMIT_SECS: f64 = 10.0;
const SLACK_SECS: f64 = 60.0;

fn contained(spec: &'static Spec, kind: &'static str) -> impl Fn(()) + Send + 'static {
    move |()| {
        let question = problem(spec);
        let outside = std::env::temp_dir().join(format!(
            "prompteval-escape-{}-{}",
            spec.language.as_str(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&outside);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let reply = hostile_replies()[spec.language.as_str()][kind]
            .replace("{path}", outside.to_str().expect("utf-8"))
            .replace("{port}", &port.to_string());
        let code = languages().extract(&question, &reply).code;
        let started = std::time::Instant::now();
        let ran = languages()
            .run(&question, &code, sandbox())
            .unwrap_or_else(|e| panic!("harness: {e}"));
        let took = started.elapsed().as_secs_f64();
        let context = format!(
            "{} {kind}: {} {:?}\nstdout: {}\nstderr: {}",
            spec.language.as_str(),
            ran.judgement.verdict,
            ran.judgement.detail,
            ran.execution.stdout,
            ran.execution.stderr
        );
        assert!(took < LIMIT_SECS + SLACK_SECS, "took {took:.1}s: {context}");
        // The attack compiled and ran: the function then returned the wrong
        // answer (a fork bomb ends by the limit or an error instead).
        match kind {
            "fork" => assert!(
                !matches!(
                    ran.judgement.verdict,
                    Verdict::Correct | Verdict::SyntaxError
                ),
                "{context}"
            ),
            // Denied: the call fails quietly (the wrong answer follows) or
            // ends the program.
            _ => assert!(
                matches!(
                    ran.judgement.verdict,
                    Verdict::WrongAnswer | Verdict::RuntimeError
                ),
                "{context}"
            ),
        }
        assert!(
            !outside.exists(),
            "the program wrote {}: {context}",
            outside.display()
        );
        assert!(
            listener.accept().is_err(),
            "the program reached the host's port {port}: {context}"
        );
        // The host still runs programs normally.
        let again = sandbox().run("print(sum(range(10)))").expect("run");
        assert_eq!(again.stdout, "45\n", "after {context}");
    }
}

/// Every reference of the partial-order suites in a language of
/// MultiPL-E's (humaneval-<language>-po8.json) passes MultiPL-E's tests:
/// the writer describes a correct function.
fn the_references_pass(spec: &'static Spec) -> impl Fn(()) + Send + 'static {
    move |()| {
        let path = root()
            .join("benches-data/multipl-e")
            .join(format!("humaneval-{}-po8.json", spec.language.as_str()));
        let suite = Suite::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(suite.questions.len(), 8);
        for q in &suite.questions {
            let reference = q.reference.as_deref().expect("a reference");
            let ran = languages()
                .run(q, reference, sandbox())
                .unwrap_or_else(|e| panic!("harness: {e}"));
            assert_eq!(
                ran.judgement.verdict,
                Verdict::Correct,
                "{}: {:?}\n{}\nstdout: {}\nstderr: {}",
                q.id,
                ran.judgement.detail,
                ran.shown,
                ran.execution.stdout,
                ran.execution.stderr
            );
        }
    }
}

/// The sandbox enforces everything it can here (no isolation warning).
fn full_isolation() -> Result<(), String> {
    let warnings = &sandbox().isolation().warnings;
    match warnings.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "the sandbox is not fully isolated on this machine: {}",
            warnings.join("; ")
        )),
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
    for spec in MULTIPL_E {
        let po8 = root()
            .join("benches-data/multipl-e")
            .join(format!("humaneval-{}-po8.json", spec.language.as_str()));
        if po8.is_file() {
            let present = Toolchain::find(spec).map(|_| ());
            all.push(trials::needing(
                &args,
                &present,
                &format!("{}_po8_references_pass", spec.language.as_str()),
                the_references_pass(spec),
            ));
        }
    }
    let isolated = full_isolation();
    for spec in MULTIPL_E {
        let Some(kinds) = hostile_replies().get(spec.language.as_str()) else {
            continue;
        };
        let present = Toolchain::find(spec)
            .map(|_| ())
            .and_then(|()| isolated.clone());
        for kind in kinds.keys() {
            let kind: &'static str = Box::leak(kind.clone().into_boxed_str());
            all.push(trials::needing(
                &args,
                &present,
                &format!("{}_hostile_{kind}", spec.language.as_str()),
                contained(spec, kind),
            ));
        }
    }
    trials::run(&args, all)
}
