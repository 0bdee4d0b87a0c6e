//! C++ questions judged as ParEval judges them, by the project's own driver
//! (src/execute/cpp/driver.cc): hostile candidates never pass.

#[path = "support/cpp_sandbox.rs"]
mod cpp_sandbox;
use cpp_sandbox::sandbox;

use std::sync::OnceLock;

use prompteval::case::Verdict;
use prompteval::config::CppConfig;
use prompteval::execute::cpp::Cpp;
use prompteval::execute::language::Ran;
use prompteval::suite::{Question, Suite};

fn cpp() -> &'static Cpp {
    static CPP: OnceLock<Cpp> = OnceLock::new();
    CPP.get_or_init(|| {
        Cpp::new(
            CppConfig {
                compile_timeout_secs: 20.0,
                // ParEval's 120 s would make each hang below take two
                // minutes; these problems' timing loops take a second or
                // two even on a loaded machine.
                pareval_run_timeout_secs: 20.0,
                ..CppConfig::default()
            },
            None,
        )
    })
}

fn omp_suite() -> &'static Suite {
    static SUITE: OnceLock<Suite> = OnceLock::new();
    SUITE.get_or_init(|| {
        let path = std::env::var("PAREVAL_OMP_SUITE").unwrap_or_else(|_| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/benches-data/pareval-omp.json").into()
        });
        Suite::load(std::path::Path::new(&path)).expect("suite")
    })
}

fn question(id: &str) -> &'static Question {
    omp_suite()
        .questions
        .iter()
        .find(|q| q.id.starts_with(id))
        .unwrap_or_else(|| panic!("no question {id}"))
}

fn run(id: &str, reply: &str) -> Ran {
    cpp().run(question(id), reply, sandbox()).expect("harness")
}

fn assert_verdict(ran: &Ran, verdict: Verdict, detail: &str) {
    let got = ran.judgement.detail.clone().unwrap_or_default();
    assert_eq!(ran.judgement.verdict, verdict, "{got}\n{}", ran.shown);
    assert!(got.contains(detail), "detail {got:?} lacks {detail:?}");
}

const AXPY: &str = "03_dense_la_axpy";
const AXPY_BODY: &str = "#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); i += 1) {\n    z[i] = alpha*x[i] + y[i];\n}\n";

#[test]
fn a_correct_body_passes_at_every_thread_count() {
    let ran = run(AXPY, AXPY_BODY);
    assert_eq!(
        ran.judgement.verdict,
        Verdict::Correct,
        "{:?}",
        ran.judgement
    );
}

#[test]
fn a_whole_function_passes_too() {
    let whole = format!(
        "```cpp\n#include <vector>\nvoid axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {{\n{AXPY_BODY}}}\n```"
    );
    let code =
        prompteval::execute::extract::extract_for(&whole, prompteval::suite::CodeLanguage::Cpp)
            .code;
    let ran = run(AXPY, &code);
    assert_eq!(
        ran.judgement.verdict,
        Verdict::Correct,
        "{:?}",
        ran.judgement
    );
}

#[test]
fn a_wrong_body_fails_validation() {
    let ran = run(
        AXPY,
        "for (size_t i = 0; i < x.size(); i++) z[i] = x[i] + y[i];",
    );
    assert_verdict(
        &ran,
        Verdict::WrongAnswer,
        "validate() returned false at 1 thread",
    );
}

#[test]
fn a_race_seen_only_with_several_threads_fails_naming_the_count() {
    // Each thread writes only its share when the team has more than one.
    let body = "#pragma omp parallel\n{\n  int n = omp_get_num_threads();\n  if (n == 1 || omp_get_thread_num() != 1) {\n    #pragma omp for\n    for (size_t i = 0; i < x.size(); i++) z[i] = alpha*x[i] + y[i];\n  } else {\n    #pragma omp for\n    for (size_t i = 0; i < x.size(); i++) {}\n  }\n}\n";
    let ran = run(AXPY, body);
    assert_verdict(&ran, Verdict::WrongAnswer, "at 2 threads");
}

#[test]
fn a_compile_error_is_a_syntax_error_on_the_questions_own_line() {
    let ran = run(AXPY, "z[0] = undefined_name;\n");
    assert_eq!(ran.judgement.verdict, Verdict::SyntaxError);
    let detail = ran.judgement.detail.unwrap();
    let lines = ran.shown.lines().count();
    assert!(
        detail.starts_with(&format!(
            "question_{}.cpp:{}:",
            question(AXPY).index,
            lines - 1
        )),
        "{detail}\n{}",
        ran.shown
    );
}

#[test]
fn printing_the_success_line_and_leaving_never_passes() {
    for exit in [
        "exit(0);",
        "_exit(0);",
        "quick_exit(0);",
        "std::_Exit(0);",
        "std::set_terminate([]{ std::_Exit(0); }); std::terminate();",
        "signal(SIGABRT, [](int){ _exit(0); }); abort();",
    ] {
        let body = format!("printf(\"Validation: PASS\\n\"); fflush(stdout); {exit}\n");
        let reply = format!(
            "#include <cstdio>\n#include <cstdlib>\n#include <csignal>\n#include <exception>\n#include <unistd.h>\n{body}"
        );
        let ran = run(AXPY, &reply.replace("#include <cstdio>\n#include <cstdlib>\n#include <csignal>\n#include <exception>\n#include <unistd.h>\n", ""));
        assert_ne!(
            ran.judgement.verdict,
            Verdict::Correct,
            "{exit}: {:?}",
            ran.judgement
        );
        assert!(
            ran.judgement
                .detail
                .as_deref()
                .unwrap_or("")
                .contains("before validate() returned")
                || ran.judgement.verdict == Verdict::SyntaxError,
            "{exit}: {:?}",
            ran.judgement
        );
    }
}

#[test]
fn a_deadlock_and_an_endless_loop_are_timeouts() {
    // Correct at 1 thread; with more, thread 0 waits at a barrier no other
    // thread reaches.
    let deadlock = format!(
        "{AXPY_BODY}#pragma omp parallel\n{{\n  if (omp_get_thread_num() == 0) {{\n    #pragma omp barrier\n  }}\n}}\n"
    );
    assert_verdict(&run(AXPY, &deadlock), Verdict::Timeout, "at 2 threads");
    assert_verdict(
        &run(AXPY, "for (;;) {}\n"),
        Verdict::Timeout,
        "did not return",
    );
}

#[test]
fn includes_outside_the_case_do_not_compile() {
    let ran = run(AXPY, "}\n#include \"/etc/passwd\"\nvoid unused() {\n");
    assert_eq!(
        ran.judgement.verdict,
        Verdict::SyntaxError,
        "{:?}",
        ran.judgement
    );
    let detail = ran.judgement.detail.unwrap();
    assert!(!detail.contains("root:"), "{detail}");
    assert!(detail.contains("/etc/passwd"), "{detail}");
}

#[test]
fn a_preprocessor_bomb_is_a_timeout() {
    let bomb = "}\n#define A0 x x\n#define A1 A0 A0\n#define A2 A1 A1\n#define A3 A2 A2\n#define A4 A3 A3\n#define A5 A4 A4\n#define A6 A5 A5\n#define A7 A6 A6\n#define A8 A7 A7\n#define A9 A8 A8\n#define B0 A9 A9\n#define B1 B0 B0\n#define B2 B1 B1\n#define B3 B2 B2\n#define B4 B3 B3\n#define B5 B4 B4\n#define B6 B5 B5\n#define B7 B6 B6\n#define B8 B7 B7\n#define B9 B8 B8\n#define C0 B9 B9\n#define C1 C0 C0\n#define C2 C1 C1\n#define C3 C2 C2\nint bomb = sizeof((int[]){C3});\nvoid unused() {\n";
    let ran = run(AXPY, bomb);
    assert_eq!(
        ran.judgement.verdict,
        Verdict::Timeout,
        "{:?}",
        ran.judgement
    );
}

#[test]
fn fork_and_memory_bombs_end_without_passing() {
    let fork = "#include <unistd.h>\n}\nstatic int forked = [](){ for (;;) fork(); return 0; }();\nvoid unused() {\n";
    let ran = run(AXPY, fork);
    assert_ne!(
        ran.judgement.verdict,
        Verdict::Correct,
        "{:?}",
        ran.judgement
    );
    let memory = "std::vector<std::vector<double>> hog; for (;;) hog.emplace_back(1 << 20, 1.0);\n";
    let ran = run(AXPY, memory);
    assert_eq!(
        ran.judgement.verdict,
        Verdict::RuntimeError,
        "{:?}",
        ran.judgement
    );
}

#[test]
fn a_reply_that_redefines_the_checks_helpers_is_refused() {
    for reply in [
        "#define fequal(a, b, c) true\n",
        "}\nbool fequal(std::vector<double> const&, std::vector<double> const&, double) { return true; }\nvoid unused() {\n",
    ] {
        let ran = run(AXPY, reply);
        assert_verdict(&ran, Verdict::WrongAnswer, "redefines `fequal`");
    }
}

#[test]
fn a_whole_cpp_program_is_judged_by_what_it_prints() {
    let suite = Suite::parse(
        std::path::Path::new("stdout.json"),
        br#"{"settings": {"language": "cpp"}, "t": "{question}",
             "questions": [{"id": "sum", "question": "Print 6 * 7.", "answer": "42"}]}"#,
    )
    .expect("suite");
    let q = &suite.questions[0];
    let judge = |code: &str| cpp().run(q, code, sandbox()).expect("harness").judgement;
    let right = judge("#include <cstdio>\nint main() { std::printf(\"%d\\n\", 6 * 7); }\n");
    assert_eq!(right.verdict, Verdict::Correct, "{right:?}");
    let wrong = judge("#include <cstdio>\nint main() { std::printf(\"41\\n\"); }\n");
    assert_eq!(wrong.verdict, Verdict::WrongAnswer, "{wrong:?}");
    assert!(wrong.detail.unwrap().contains("expected \"42\""));
    let crash = judge("int main() { volatile int *p = nullptr; return *p; }\n");
    assert_eq!(crash.verdict, Verdict::RuntimeError, "{crash:?}");
    let broken = judge("int main() { return }\n");
    assert_eq!(broken.verdict, Verdict::SyntaxError, "{broken:?}");
    assert!(broken.detail.unwrap().starts_with("question_1.cpp:1:"));
}
