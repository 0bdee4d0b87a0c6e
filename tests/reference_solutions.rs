//! Every answer in the shipped suites is backed by a reference solution that
//! really prints it: checked through the project's own sandbox and judge, and
//! by the suites' own verification script (which also checks that the broken
//! programs in fix-the-bug and fix-the-indentation questions really fail).

use std::path::Path;
use std::process::Command;

use prompteval::case::Verdict;
use prompteval::config::SandboxConfig;
use prompteval::judge::judge_question;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::Suite;

fn check_suite(name: &str, reference_name: impl Fn(usize, &str) -> String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data");
    let suite = Suite::load(&root.join(format!("{name}.json"))).unwrap();
    let sandbox = Sandbox::new(&SandboxConfig::default(), &RUNTIME).unwrap();
    let mut wrong = Vec::new();
    for q in &suite.questions {
        let file = root
            .join("reference")
            .join(name)
            .join(reference_name(q.index, &q.id));
        let code =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let execution = sandbox.run(&code).unwrap();
        let j = judge_question(&execution, q);
        if j.verdict != Verdict::Correct {
            wrong.push(format!("{}: {} {:?}", q.id, j.verdict, j.detail));
        }
    }
    assert!(
        wrong.is_empty(),
        "reference solutions judged wrong:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn python_basics_references_are_judged_correct() {
    check_suite("python-basics", |_, id| format!("{id}.py"));
}

#[test]
fn spec_example_references_are_judged_correct() {
    check_suite("example", |index, _| format!("q{index}.py"));
}

#[test]
fn python_basics_has_at_least_24_questions_of_all_three_kinds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data");
    let suite = Suite::load(&root.join("python-basics.json")).unwrap();
    assert!(suite.questions.len() >= 24);
    assert!((3..=4).contains(&suite.prompts.len()));
    for kind in ["algorithm", "indentation", "bugfix"] {
        let n = suite
            .questions
            .iter()
            .filter(|q| q.kind.as_deref() == Some(kind))
            .count();
        assert!(n >= 8, "{kind}: {n}");
    }
}

#[test]
fn verification_script_passes() {
    let out = Command::new("python3")
        .arg("benches-data/verify_references.py")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("0 failed"), "{stdout}");
}
