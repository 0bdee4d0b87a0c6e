//! The program a case runs: the code taken from the reply, completed when
//! the question names an `entry_point`, then the question's `tests`.
//!
//! A question with an entry point comes in two shapes, told apart once per
//! run by the interpreter itself ([`Shapes::check`]: does the text compile?):
//!
//! - **A Python prompt** (HumanEval: imports, signature, docstring). A reply
//!   may hold the whole function or only its body (the paper's Appendix C
//!   asks for the body): the body runs after the prompt, under its
//!   signature; a whole function runs after the prompt too, so the prompt's
//!   imports and helpers are there and the reply's definition replaces the
//!   stub (a docstring-only body is valid Python).
//! - **Plain language** (a description beside the signature, as many
//!   benchmarks ship). Prepending it would make every program a syntax
//!   error of the harness's making, so a whole function runs alone, and a
//!   body runs under the `def` line the text shows, if it shows one.
//!
//! The suite's `tests` must compile, or the suite is refused before any case
//! runs: a harness-made syntax error is never a model's verdict.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use crate::case::ExecutionRecord;
use crate::sandbox::{ProofMarks, Sandbox, SandboxError};
use crate::suite::{Question, Suite, SuiteError, SuiteProblem};

/// What an entry-point question's text is, as the interpreter sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Python that compiles: imports, helpers, signature and docstring.
    Prompt,
    /// Python that ends in a signature without a body (PartialOrderEval's
    /// p_bot: preamble and signature only): it compiles with a stub body.
    BareSignature,
    /// Plain language, with the signature in it or not.
    Text,
}

/// The shape of every entry-point question (by 1-based index).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shapes {
    shapes: HashMap<usize, Shape>,
}

/// What a bare signature gets so that its prompt compiles on its own.
const STUB_BODY: &str = "    pass\n";

impl Shapes {
    /// Questions not checked are taken as plain language: nothing of
    /// theirs runs unless it is known to compile.
    pub fn of(&self, question: &Question) -> Shape {
        self.shapes
            .get(&question.index)
            .copied()
            .unwrap_or(Shape::Text)
    }

    /// How many Python entry-point questions are written in plain
    /// language (a C++ prompt is never Python's, so never counted).
    pub fn plain_language(&self, suite: &Suite) -> usize {
        suite
            .questions
            .iter()
            .filter(|q| q.code_language() == crate::suite::CodeLanguage::Python)
            .filter(|q| q.entry_point.is_some() && self.of(q) == Shape::Text)
            .count()
    }

    /// Compiles, with `python` and without running anything, the text of
    /// every entry-point question (alone, then with a stub body) and every
    /// question's `tests`. Tests that do not compile refuse the suite,
    /// naming the question and its line.
    pub fn check(python: &Path, suite: &Suite) -> Result<Shapes, SuiteError> {
        let mut sources: Vec<(&Question, Part, String)> = Vec::new();
        // Only Python questions: a C++ prompt is never Python's to compile.
        let python_questions = suite
            .questions
            .iter()
            .filter(|q| q.code_language() == crate::suite::CodeLanguage::Python);
        for q in python_questions {
            if q.entry_point.is_some() {
                sources.push((q, Part::Prompt, q.question.clone()));
                sources.push((q, Part::Stubbed, stubbed(&q.question)));
            }
            if let Some(tests) = &q.tests {
                sources.push((q, Part::Tests, tests.clone()));
            }
        }
        if sources.is_empty() {
            return Ok(Shapes::default());
        }
        let texts: Vec<&str> = sources.iter().map(|(_, _, t)| t.as_str()).collect();
        let errors = compile_all(python, &texts).map_err(|why| SuiteError {
            path: suite.path.clone(),
            line: None,
            problem: SuiteProblem::Uncheckable {
                python: python.to_path_buf(),
                why: Box::new(why),
            },
        })?;
        let mut shapes = Shapes::default();
        for ((q, part, _), error) in sources.iter().zip(errors) {
            match (part, error) {
                (Part::Prompt, None) => {
                    shapes.shapes.insert(q.index, Shape::Prompt);
                }
                (Part::Stubbed, None) => {
                    let shape = shapes.shapes.entry(q.index).or_insert(Shape::BareSignature);
                    if *shape == Shape::Text {
                        *shape = Shape::BareSignature;
                    }
                }
                (Part::Prompt | Part::Stubbed, Some(_)) => {
                    shapes.shapes.entry(q.index).or_insert(Shape::Text);
                }
                (Part::Tests, None) => {}
                (Part::Tests, Some(error)) => {
                    return Err(SuiteError {
                        path: suite.path.clone(),
                        line: suite.question_line(q.index),
                        problem: SuiteProblem::InvalidTests {
                            index: q.index,
                            id: q.id.clone(),
                            error,
                        },
                    });
                }
            }
        }
        Ok(shapes)
    }
}

/// The prompt with a stub body under its last line.
fn stubbed(prompt: &str) -> String {
    format!("{}\n{STUB_BODY}", prompt.trim_end())
}

#[derive(Clone, Copy)]
enum Part {
    Prompt,
    Stubbed,
    Tests,
}

/// Reads a JSON list of sources on stdin and prints, for each, `null` or
/// its compile error: `compile()` parses, it never runs the code.
const COMPILE_ALL: &str = r#"
import json, sys
out = []
for src in json.load(sys.stdin):
    try:
        compile(src, "<question>", "exec", dont_inherit=True)
        out.append(None)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None)
        out.append(f"{type(e).__name__}: {getattr(e, 'msg', e)}" + (f" at line {line}" if line else ""))
    except (RecursionError, MemoryError) as e:
        out.append(f"{type(e).__name__}: too deeply nested to compile")
json.dump(out, sys.stdout)
"#;

/// How long the interpreter may take to compile every text.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);

/// Why the interpreter could not compile-check the texts (not a text that
/// does not compile: that is its answer).
#[derive(Debug, thiserror::Error)]
pub enum CompileCheckError {
    /// The texts cannot be written as JSON.
    #[error(transparent)]
    Encode(serde_json::Error),
    #[error("no temporary file: {0}")]
    TempFile(#[source] std::io::Error),
    #[error("cannot write the temporary file: {0}")]
    WriteTempFile(#[source] std::io::Error),
    #[error("cannot start it: {0}")]
    Start(#[source] std::io::Error),
    /// Waiting for the interpreter, or reading its answer, failed.
    #[error(transparent)]
    Io(std::io::Error),
    #[error("it took over {} s", COMPILE_TIMEOUT.as_secs())]
    TimedOut,
    #[error("the reader failed")]
    ReaderPanicked,
    /// `stderr` is what it printed, trimmed.
    #[error("it exited with {status}: {stderr}")]
    Exited {
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("unreadable answer: {0}")]
    Answer(#[source] serde_json::Error),
    #[error("{answers} answers for {texts} texts")]
    Count { answers: usize, texts: usize },
}

/// One interpreter compiles every text; `None` where it compiled.
fn compile_all(python: &Path, texts: &[&str]) -> Result<Vec<Option<String>>, CompileCheckError> {
    let input = serde_json::to_vec(texts).map_err(CompileCheckError::Encode)?;
    // A file, not a pipe: the texts of a large suite exceed a pipe's buffer.
    let mut sources = tempfile::tempfile().map_err(CompileCheckError::TempFile)?;
    sources
        .write_all(&input)
        .and_then(|()| std::io::Seek::rewind(&mut sources))
        .map_err(CompileCheckError::WriteTempFile)?;
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", COMPILE_ALL])
        .stdin(Stdio::from(sources))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(CompileCheckError::Start)?;
    // Reading stdout before waiting: the answer can exceed a pipe's buffer.
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut out).map(|_| out)
    });
    let status = match child
        .wait_timeout(COMPILE_TIMEOUT)
        .map_err(CompileCheckError::Io)?
    {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(CompileCheckError::TimedOut);
        }
    };
    let out = reader
        .join()
        .map_err(|_| CompileCheckError::ReaderPanicked)?
        .map_err(CompileCheckError::Io)?;
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        return Err(CompileCheckError::Exited {
            status,
            stderr: err.trim().to_string(),
        });
    }
    let errors: Vec<Option<String>> =
        serde_json::from_slice(&out).map_err(CompileCheckError::Answer)?;
    if errors.len() != texts.len() {
        return Err(CompileCheckError::Count {
            answers: errors.len(),
            texts: texts.len(),
        });
    }
    Ok(errors)
}

/// The program for `code` (the reply's) answering `question`, whose text
/// has the shape `shapes` found, as the report shows it: the code,
/// completed, then the question's tests.
pub fn assemble(question: &Question, code: &str, shapes: &Shapes) -> String {
    assembled(question, code, shapes).0
}

/// [`assemble`]'s program, and with tests, the byte where the blank line
/// before them starts (where the proof's start marker goes).
fn assembled(question: &Question, code: &str, shapes: &Shapes) -> (String, Option<usize>) {
    let mut program = completed(question, code, shapes);
    let Some(tests) = &question.tests else {
        return (program, None);
    };
    if !program.ends_with('\n') {
        program.push('\n');
    }
    let blank_at = program.len();
    program.push_str("\n\n");
    program.push_str(tests);
    program.push('\n');
    (program, Some(blank_at))
}

/// What the sandbox runs for `code`: [`assemble`]'s program (`shown`, as
/// the report shows it), with the markers that prove the tests ran to
/// their end (sandbox/proof.rs) when the question has tests.
pub struct Runnable {
    pub shown: String,
    proof: Option<ProofMarks>,
}

impl Runnable {
    /// A program without tests, run as it is.
    pub fn plain(program: &str) -> Runnable {
        Runnable {
            shown: program.to_string(),
            proof: None,
        }
    }

    /// Runs it in `sandbox`: a tests program with its proof.
    pub fn run(&self, sandbox: &Sandbox) -> Result<ExecutionRecord, SandboxError> {
        match &self.proof {
            Some(marks) => sandbox.run_tested(marks),
            None => sandbox.run(&self.shown),
        }
    }
}

pub fn runnable(question: &Question, code: &str, shapes: &Shapes) -> Runnable {
    let (shown, blank_at) = assembled(question, code, shapes);
    Runnable {
        proof: blank_at.map(|at| ProofMarks::around(&shown, at)),
        shown,
    }
}

/// The reply's code with what the question's entry point needs around it.
fn completed(question: &Question, code: &str, shapes: &Shapes) -> String {
    let text = &question.question;
    match (&question.entry_point, shapes.of(question)) {
        (None, _) => code.to_string(),
        (Some(name), shape) if defines(code, name) => match shape {
            Shape::Prompt => format!("{}\n\n{code}", text.trim_end()),
            Shape::BareSignature => format!("{}\n\n{code}", stubbed(text)),
            Shape::Text => with_imports(text, code.to_string()),
        },
        (Some(_), Shape::Prompt | Shape::BareSignature) => {
            format!("{}\n{}", text.trim_end(), as_body(code))
        }
        (Some(name), Shape::Text) => match signature(text, name) {
            Some(signature) => {
                let body = as_body(code);
                let body = if body.trim().is_empty() {
                    STUB_BODY.to_string()
                } else {
                    body
                };
                with_imports(text, format!("{signature}\n{body}"))
            }
            // No signature to put a body under: the reply runs as it is.
            None => with_imports(text, code.to_string()),
        },
    }
}

/// `program` after the import lines a plain-language question shows (its
/// signature may name `List` from `typing`, say): what the question told
/// the model is there, as a Python prompt's preamble would be.
fn with_imports(text: &str, program: String) -> String {
    let imports: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end().trim_matches('`'))
        .filter(|l| is_import(l))
        .collect();
    if imports.is_empty() {
        return program;
    }
    format!("{}\n\n{program}", imports.join("\n"))
}

/// `import a.b, c as d` or `from a.b import c, d as e` (or `*`), whole: a
/// line of prose that starts with "import" is not one.
fn is_import(line: &str) -> bool {
    let aliased = |item: &str, name: fn(&str) -> bool| {
        let words: Vec<&str> = item.split_whitespace().collect();
        match words.as_slice() {
            [n] => name(n),
            [n, "as", alias] => name(n) && is_identifier(alias),
            _ => false,
        }
    };
    if let Some(rest) = line.strip_prefix("import ") {
        rest.split(',').all(|item| aliased(item, is_dotted_name))
    } else if let Some(rest) = line.strip_prefix("from ") {
        let Some((module, names)) = rest.split_once(" import ") else {
            return false;
        };
        let names = names.trim().trim_start_matches('(').trim_end_matches(')');
        is_dotted_name(module.trim())
            && (names.trim() == "*" || names.split(',').all(|item| aliased(item, is_identifier)))
    } else {
        false
    }
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

fn is_dotted_name(s: &str) -> bool {
    s.split('.').all(is_identifier)
}

/// The `def name(...) ...:` header a plain-language question shows (in
/// backticks or a code block, over one line or several).
fn signature(text: &str, name: &str) -> Option<String> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(start) = find_def(line, name) {
            return header_at(&text[offset + start..]);
        }
        offset += line.len();
    }
    None
}

/// The header starting `rest`: up to the `:` after the parameters' closing
/// parenthesis (and any `-> annotation`), at most a few hundred characters.
fn header_at(rest: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut closed = false;
    for (i, c) in rest.char_indices().take(2000) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                closed |= depth == 0;
            }
            ':' if closed && depth == 0 => return Some(rest[..=i].to_string()),
            '`' => return None,
            _ => {}
        }
    }
    None
}

/// Where `def name(` (or `async def name(`) starts on `line`.
fn find_def(line: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = line[from..].find("def ") {
        let at = from + pos;
        let rest = line[at + 4..].trim_start();
        if rest
            .strip_prefix(name)
            .is_some_and(|r| r.trim_start().starts_with('('))
        {
            let start = line[..at]
                .strip_suffix("async ")
                .map_or(at, |before| before.len());
            return Some(start);
        }
        from = at + 4;
    }
    None
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
            language: None,
            pareval: None,
            multipl_e: None,
        }
    }

    /// Runs `program` and fails the test, showing it, unless it exits 0.
    fn assert_passes(program: &str) {
        let out = run(program);
        assert!(
            out.status.success(),
            "{program}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn run(program: &str) -> std::process::Output {
        std::process::Command::new("python3")
            .args(["-c", program])
            .output()
            .unwrap()
    }

    /// Question 1's text taken as a Python prompt.
    fn python() -> Shapes {
        Shapes {
            shapes: HashMap::from([(1, Shape::Prompt)]),
        }
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
            assert_passes(&assemble(&q, reply, &python()));
        }
    }

    #[test]
    fn an_empty_or_wrong_body_fails_the_tests() {
        let q = question(Some("add"), Some(TESTS));
        for reply in ["", "return 0"] {
            let out = run(&assemble(&q, reply, &python()));
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
        assert_eq!(
            assemble(&q, "x = 2", &python()),
            "x = 2\n\n\nassert x == 2\n"
        );
        let plain = Question { tests: None, ..q };
        assert_eq!(assemble(&plain, "print(1)", &python()), "print(1)");
    }

    #[test]
    fn only_a_top_level_definition_of_the_entry_point_counts() {
        assert!(defines("def add(x):\n    pass", "add"));
        assert!(defines("async def add (x): pass", "add"));
        assert!(!defines("def adder(x): pass", "add"));
        assert!(!defines("    def add(x): pass", "add"));
    }

    const PLAIN: &str = "Write a function `add(xs)` that returns the sum of the list of integers xs.\n\nSignature:\n```python\ndef add(xs: list[int]) -> int:\n```\nFor example, add([1, 2]) returns 3.";

    #[test]
    fn a_plain_language_question_runs_the_reply_alone_or_under_its_signature() {
        let q = Question {
            question: PLAIN.into(),
            ..question(Some("add"), Some(TESTS))
        };
        let text = Shapes::default();
        for reply in [
            "def add(xs):\n    return sum(xs)",
            "from typing import List\n\ndef add(xs: List[int]) -> int:\n    return sum(xs)",
            "return sum(xs)",
            "    total = 0\n    for x in xs:\n        total += x\n    return total",
        ] {
            let program = assemble(&q, reply, &text);
            assert!(!program.contains("Write a function"), "{program}");
            assert_passes(&program);
        }
        for reply in ["", "return 0"] {
            let out = run(&assemble(&q, reply, &text));
            assert!(String::from_utf8_lossy(&out.stderr).contains("AssertionError"));
        }
        // Taken as Python, the same text would make every program a syntax error.
        let out = run(&assemble(&q, "def add(xs):\n    return sum(xs)", &python()));
        assert!(String::from_utf8_lossy(&out.stderr).contains("SyntaxError"));
    }

    #[test]
    fn a_plain_language_question_keeps_the_imports_it_shows() {
        let q = Question {
            question: "from typing import List\n\nWrite `def add(xs: List[int]) -> int:` summing xs; import the world.".into(),
            ..question(Some("add"), Some(TESTS))
        };
        for reply in [
            "def add(xs: List[int]) -> int:\n    return sum(xs)",
            "return sum(xs)",
        ] {
            let program = assemble(&q, reply, &Shapes::default());
            assert!(
                program.starts_with("from typing import List\n\n"),
                "{program}"
            );
            assert_passes(&program);
        }
    }

    #[test]
    fn only_whole_import_statements_count() {
        for line in [
            "import math",
            "import os.path as p, sys",
            "from typing import List, Dict as D",
            "from typing import (List, Tuple)",
            "from math import *",
        ] {
            assert!(is_import(line), "{line}");
        }
        for line in [
            "import numpy and use it",
            "from the list import the largest",
            "important: return a list",
            "import",
        ] {
            assert!(!is_import(line), "{line}");
        }
    }

    #[test]
    fn signatures_are_found_over_several_lines_and_in_backticks() {
        assert_eq!(
            signature("Implement `def add(xs: list) -> int:` please", "add").as_deref(),
            Some("def add(xs: list) -> int:")
        );
        assert_eq!(
            signature("x\nasync def add(\n    xs,\n    ys,\n):\n", "add").as_deref(),
            Some("async def add(\n    xs,\n    ys,\n):")
        );
        assert_eq!(signature("def adder(x):", "add"), None);
        assert_eq!(signature("Sum the list.", "add"), None);
    }

    /// A suite file in a scratch folder, one question per line from line 3.
    fn suite_of(questions: serde_json::Value) -> (Suite, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let items: Vec<String> = questions
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q.to_string())
            .collect();
        let text = format!(
            "{{\"p\": \"{{question}}\",\n\"questions\": [\n{}\n]}}\n",
            items.join(",\n")
        );
        std::fs::write(&path, text).unwrap();
        (Suite::load(&path).unwrap(), dir)
    }

    #[test]
    fn the_interpreter_tells_python_prompts_from_plain_language() {
        let (suite, _dir) = suite_of(serde_json::json!([
            {"question": "def add(xs):\n    \"\"\"Sum.\"\"\"\n", "entry_point": "add", "tests": TESTS},
            {"question": PLAIN, "entry_point": "add", "tests": TESTS},
            {"question": "def helper(x):\n    return x\n\n\ndef add(xs):\n", "entry_point": "add", "tests": TESTS},
            {"question": "print one", "answer": "1"},
        ]));
        let shapes = Shapes::check(Path::new("python3"), &suite).unwrap();
        let found: Vec<Shape> = suite.questions.iter().map(|q| shapes.of(q)).collect();
        assert_eq!(
            found,
            [
                Shape::Prompt,
                Shape::Text,
                Shape::BareSignature,
                Shape::Text
            ]
        );
        assert_eq!(
            shapes.plain_language(&suite),
            1,
            "question 4 has no entry point"
        );
        // A bare signature's helpers stay: a whole function or a body runs
        // after them.
        let bare = &suite.questions[2];
        for reply in [
            "def add(xs):\n    return helper(sum(xs))",
            "return helper(sum(xs))",
        ] {
            let program = assemble(bare, reply, &shapes);
            assert_passes(&program);
        }
    }

    #[test]
    fn tests_that_do_not_compile_refuse_the_suite_with_the_question_line() {
        let (suite, _dir) = suite_of(serde_json::json!([
            {"question": "def add(xs):\n    pass\n", "entry_point": "add", "tests": TESTS},
            {"id": "broken", "question": "def add(xs):\n    pass\n", "entry_point": "add", "tests": "def check(c):\n    assert c([1]) == 1\ncheck(add"},
        ]));
        let e = Shapes::check(Path::new("python3"), &suite).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        let message = e.problem.to_string();
        assert!(
            message.contains("question 2 (`broken`): its `tests` are not valid Python")
                && message.contains("fix the tests"),
            "{e}"
        );
    }
}
