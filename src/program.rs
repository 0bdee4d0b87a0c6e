//! The program a case runs: the code taken from the reply, completed when
//! the question names an `entry_point`, then the question's `tests`.
//!
//! With an entry point the question text is a completion-style prompt
//! (imports, signature, docstring). A reply may hold the whole function or
//! only its body (the paper's Appendix C asks for the body): the body is run
//! after the prompt, indented under its signature; a whole function is run
//! after the prompt too, so the prompt's imports and helpers are there and
//! the reply's definition replaces the stub (a docstring-only body is valid
//! Python).

use crate::suite::Question;

pub fn assemble(question: &Question, code: &str) -> String {
    let mut program = match &question.entry_point {
        None => code.to_string(),
        Some(name) if defines(code, name) => format!("{}\n\n{code}", question.question.trim_end()),
        Some(_) => format!("{}\n{}", question.question.trim_end(), as_body(code)),
    };
    if let Some(tests) = &question.tests {
        if !program.ends_with('\n') {
            program.push('\n');
        }
        program.push_str("\n\n");
        program.push_str(tests);
        program.push('\n');
    }
    program
}

/// Whether `code` defines the function `name` at its top level.
fn defines(code: &str, name: &str) -> bool {
    code.lines().any(|line| {
        let line = line.strip_prefix("async ").unwrap_or(line);
        line.strip_prefix("def ")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.trim_start().starts_with('('))
    })
}

/// A function body: kept as it is when its first line is indented (the
/// model continued the prompt), otherwise every line indented by four
/// spaces. An empty body adds nothing: the prompt's docstring already makes
/// the function valid (it returns None).
fn as_body(code: &str) -> String {
    let first = code.lines().find(|l| !l.trim().is_empty());
    match first {
        None => String::new(),
        Some(l) if l.starts_with(' ') || l.starts_with('\t') => code.to_string(),
        Some(_) => code
            .lines()
            .map(|l| {
                if l.trim().is_empty() {
                    String::new()
                } else {
                    format!("    {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Match;

    fn question(entry_point: Option<&str>, tests: Option<&str>) -> Question {
        Question {
            index: 1,
            id: "q1".into(),
            kind: None,
            question: "from typing import List\n\n\ndef add(xs: List[int]) -> int:\n    \"\"\"Sum.\"\"\"\n".into(),
            answer: String::new(),
            matcher: Match::Exact,
            tests: tests.map(str::to_string),
            entry_point: entry_point.map(str::to_string),
            reference: None,
            p_top: None,
            variant: None,
        }
    }

    fn run(program: &str) -> std::process::Output {
        std::process::Command::new("python3")
            .args(["-c", program])
            .output()
            .unwrap()
    }

    const TESTS: &str = "def check(candidate):\n    assert candidate([1, 2]) == 3\n\ncheck(add)";

    #[test]
    fn a_body_a_whole_function_and_an_indented_body_all_run() {
        let q = question(Some("add"), Some(TESTS));
        for reply in [
            "return sum(xs)",
            "    return sum(xs)",
            "def add(xs):\n    return sum(xs)",
            "import math\n\ndef add(xs: List[int]) -> int:\n    total = 0\n    for x in xs:\n        total += x\n    return total",
        ] {
            let out = run(&assemble(&q, reply));
            assert!(
                out.status.success(),
                "{reply}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    #[test]
    fn an_empty_or_wrong_body_fails_the_tests() {
        let q = question(Some("add"), Some(TESTS));
        for reply in ["", "return 0"] {
            let out = run(&assemble(&q, reply));
            assert!(!out.status.success(), "{reply}");
            assert!(String::from_utf8_lossy(&out.stderr).contains("AssertionError"));
        }
    }

    #[test]
    fn without_an_entry_point_the_code_runs_as_it_is_then_the_tests() {
        let q = Question {
            entry_point: None,
            ..question(None, Some("assert x == 2"))
        };
        assert_eq!(assemble(&q, "x = 2"), "x = 2\n\n\nassert x == 2\n");
        let plain = Question { tests: None, ..q };
        assert_eq!(assemble(&plain, "print(1)"), "print(1)");
    }

    #[test]
    fn only_a_top_level_definition_of_the_entry_point_counts() {
        assert!(defines("def add(x):\n    pass", "add"));
        assert!(defines("async def add (x): pass", "add"));
        assert!(!defines("def adder(x): pass", "add"));
        assert!(!defines("    def add(x): pass", "add"));
    }
}
