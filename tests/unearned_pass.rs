//! No pass the tests did not give: programs that end their process with
//! status 0 before (or instead of) their hidden tests, or make the tests
//! unable to fail, are judged on every way a case can start (the warm
//! interpreter, the Rust fork server, a fresh interpreter forked from the
//! harness), as the pipeline runs them (program::runnable).

use std::sync::OnceLock;

use prompteval::case::{ExecutionRecord, Verdict};
use prompteval::config::SandboxConfig;
use prompteval::execute::program::{Shapes, runnable};
use prompteval::judge::{Judgement, judge_question};
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::{Match, Question};

const TESTS: &str = "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n\ncheck(add)";

fn question(tests: Option<&str>, answer: &str) -> Question {
    Question {
        index: 1,
        id: "add".into(),
        kind: None,
        question: "Write `def add(a, b):` returning the sum.".into(),
        answer: answer.into(),
        matcher: Match::Exact,
        tests: tests.map(str::to_string),
        entry_point: tests.map(|_| "add".to_string()),
        reference: None,
        p_top: None,
        variant: None,
        language: None,
        pareval: None,
        multipl_e: None,
    }
}

/// The three ways a case starts, each a sandbox shared by the tests.
fn sandboxes() -> &'static [(&'static str, Sandbox)] {
    static ALL: OnceLock<Vec<(&'static str, Sandbox)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let config = |warm| SandboxConfig {
            timeout_secs: 5.0,
            warm,
            ..SandboxConfig::default()
        };
        vec![
            (
                "warm",
                Sandbox::new(&config(true), &RUNTIME).expect("warm sandbox"),
            ),
            (
                "fork server",
                Sandbox::new(&config(false), &RUNTIME).expect("sandbox"),
            ),
            (
                "forked from the harness",
                Sandbox::without_fork_server(&config(false), &RUNTIME).expect("sandbox"),
            ),
        ]
    })
}

fn run(sandbox: &Sandbox, q: &Question, code: &str) -> ExecutionRecord {
    runnable(q, code, &Shapes::default())
        .run(sandbox)
        .expect("the sandbox runs it")
}

/// Judges `code` on every start; they must agree. Returns the judgement.
fn judge(q: &Question, code: &str) -> Judgement {
    let mut seen: Option<(String, Judgement)> = None;
    for (start, sandbox) in sandboxes() {
        let execution = run(sandbox, q, code);
        let j = judge_question(&execution, q);
        if let Some((first, earlier)) = &seen {
            assert_eq!(
                (&earlier.verdict, &earlier.detail),
                (&j.verdict, &j.detail),
                "{first} and {start} disagree on\n{code}\n{execution:?}"
            );
        } else {
            seen = Some((start.to_string(), j));
        }
    }
    seen.expect("three sandboxes").1
}

fn assert_unearned(code: &str, verdict: Verdict, detail: &str) {
    let j = judge(&question(Some(TESTS), ""), code);
    assert_eq!(j.verdict, verdict, "{code}\n{j:?}");
    let got = j.detail.clone().unwrap_or_default();
    assert!(
        got.contains(detail),
        "{code}\nexpected {detail:?} in {got:?}"
    );
}

const WRONG: &str = "def add(a, b):\n    return a - b\n";

#[test]
fn controls_a_correct_and_a_wrong_solution() {
    let q = question(Some(TESTS), "");
    let j = judge(&q, "def add(a, b):\n    return a + b\n");
    assert_eq!(j.verdict, Verdict::Correct, "{j:?}");
    let j = judge(&q, WRONG);
    assert_eq!(j.verdict, Verdict::WrongAnswer);
    assert!(j.detail.unwrap().starts_with("a test failed"));
}

#[test]
fn exiting_before_the_tests_is_not_a_pass() {
    let ran = "before the tests ran";
    for exit in ["import sys\nsys.exit(0)", "exit()", "raise SystemExit(0)"] {
        assert_unearned(
            &format!("{WRONG}{exit}\n"),
            Verdict::WrongAnswer,
            &format!("the program exited (sys.exit(0)) {ran}"),
        );
    }
    assert_unearned(
        &format!("{WRONG}import os\nos._exit(0)\n"),
        Verdict::WrongAnswer,
        &format!("the process ended (os._exit) {ran}"),
    );
    // What models write: every hidden test vanishes, even after a correct add.
    let main = "import sys\n\ndef add(a, b):\n    return a + b\n\ndef main():\n    print(add(1, 2))\n    return 0\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n";
    assert_unearned(main, Verdict::WrongAnswer, ran);
    let unit = "import unittest\n\ndef add(a, b):\n    return a + b\n\nclass T(unittest.TestCase):\n    def test(self):\n        self.assertEqual(add(1, 2), 3)\n\nunittest.main()\n";
    assert_unearned(unit, Verdict::WrongAnswer, ran);
}

#[test]
fn replacing_the_failed_tests_exit_status_is_not_a_pass() {
    assert_unearned(
        &format!("import atexit, os\natexit.register(lambda: os._exit(0))\n{WRONG}"),
        Verdict::WrongAnswer,
        "a test failed (AssertionError: assert candidate(1, 2) == 3)",
    );
    assert_unearned(
        &format!("import os, sys\nsys.excepthook = lambda *a: os._exit(0)\n{WRONG}"),
        Verdict::WrongAnswer,
        "a test failed (AssertionError",
    );
    // The parent exits 0; the child fails the tests, or is killed with the
    // case before it gets there (a race: no agreement between starts).
    let q = question(Some(TESTS), "");
    let fork = format!("import os\nif os.fork():\n    os._exit(0)\n{WRONG}");
    for (start, sandbox) in sandboxes() {
        let j = judge_question(&run(sandbox, &q, &fork), &q);
        assert_eq!(j.verdict, Verdict::WrongAnswer, "{start}: {j:?}");
    }
    // A thread ends the process while the tests wait.
    assert_unearned(
        "import os, threading, time\nthreading.Thread(target=lambda: os._exit(0)).start()\ntime.sleep(1)\ndef add(a, b):\n    return 0\n",
        Verdict::WrongAnswer,
        "the process ended (os._exit) before the tests ran",
    );
}

#[test]
fn a_candidate_that_ends_the_process_is_not_a_pass() {
    let finished = "before the tests finished";
    assert_unearned(
        "def add(a, b):\n    raise SystemExit(0)\n",
        Verdict::WrongAnswer,
        &format!("the program exited (sys.exit(0)) {finished}"),
    );
    assert_unearned(
        "import os\ndef add(a, b):\n    os._exit(0)\n",
        Verdict::WrongAnswer,
        &format!("the process ended (os._exit) {finished}"),
    );
}

#[test]
fn objects_equal_to_everything_are_suspect() {
    let module_level = "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return AlwaysEqual()\n";
    assert_unearned(
        module_level,
        Verdict::WrongAnswer,
        "suspect: the program's class AlwaysEqual",
    );
    let local = "def add(a, b):\n    class Anything(int):\n        __eq__ = lambda self, other: True\n    return Anything()\n";
    assert_unearned(
        local,
        Verdict::WrongAnswer,
        "suspect: the program's class add.<locals>.Anything",
    );
    // Classes with an honest == are not flagged.
    let honest = "from dataclasses import dataclass\n\n@dataclass\nclass Sum:\n    value: int\n\nclass Loose:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, other):\n        return self.v == getattr(other, 'v', other)\n\ndef add(a, b):\n    assert Sum(a) == Sum(a) and Loose(1) == 1\n    return a + b\n";
    let j = judge(&question(Some(TESTS), ""), honest);
    assert_eq!(j.verdict, Verdict::Correct, "{j:?}");
}

#[test]
fn stdout_questions_keep_the_specs_rule() {
    let q = question(None, "3");
    let j = judge(&q, "import sys\nprint(1 + 2)\nsys.exit(0)\n");
    assert_eq!(j.verdict, Verdict::Correct, "{j:?}");
}

#[test]
fn the_program_never_sees_the_secret() {
    // stdin is empty, and no descriptor, environment or file holds the
    // proof's header; the tests still pass.
    let snoop = r#"import os, sys
seen = sys.stdin.read() + os.read(0, 100).decode()
for fd in range(3, 1024):
    try:
        seen += os.pread(fd, 4096, 0).decode("latin-1")
    except OSError:
        pass
try:
    seen += open("/proc/self/environ", "rb").read().decode("latin-1")
except OSError:
    pass
seen += open("main.py").read()
assert "prompteval" + "-proof" not in seen, seen
def add(a, b):
    return a + b
"#;
    let j = judge(&question(Some(TESTS), ""), snoop);
    assert_eq!(j.verdict, Verdict::Correct, "{j:?}");
}
