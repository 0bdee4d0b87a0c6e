//! What a language of MultiPL-E's is to the runner: one [`Spec`] per
//! language, in the language's own folder under `crate::execute`
//! (execute/lua/mod.rs, ...). The runner (`super`) knows no language by
//! name; everything that differs between them is a field here.

use crate::suite::CodeLanguage;

/// One language's toolchain, commands, proof and verdict rules.
#[derive(Debug)]
pub struct Spec {
    pub language: CodeLanguage,
    /// The program's file name in its case folder (`Problem.java`: javac
    /// wants the class's name; `prog_test.go`: `go test` wants `_test.go`).
    pub file: &'static str,
    /// The executables it needs; the first prints the version that
    /// run_info.json records.
    pub tools: &'static [Tool],
    /// Compiling, when the language compiles ahead of running: its
    /// failure is a `syntax_error`.
    pub build: Option<Step>,
    pub run: Step,
    /// Where the proof that the tests ran to their end goes.
    pub proof: Proof,
    /// MultiPL-E's Racket evaluator fails a program that wrote anything on
    /// stderr (rackunit reports a failed check there and exits 0).
    pub stderr_fails: bool,
    /// What on stdout or stderr fails even a run that exited 0, as
    /// MultiPL-E's evaluator has it (Perl: `ERROR`; Go: `FAIL`).
    pub output_fails: &'static [&'static str],
    /// What on stderr or stdout of a failed run means the program did not
    /// parse (interpreted languages): a `syntax_error`.
    pub syntax_markers: &'static [&'static str],
    /// What means a test's check failed, rather than the program crashing:
    /// a `wrong_answer`.
    pub failure_markers: &'static [&'static str],
    /// Address space for the run, when the runtime reserves more than
    /// `[sandbox] memory_mb` before doing anything (the JVM); its heap is
    /// capped by its own flags in `run`.
    pub memory_mb: Option<u64>,
    /// Environment beyond the sandbox's; `{dir}` is the case folder.
    pub env: &'static [(&'static str, &'static str)],
    /// Files its tests need besides the tools (a test library), each with
    /// the Debian package that installs it.
    pub requires: &'static [(&'static str, &'static str)],
    /// The prompt opens an `import ( ... )` block (Go): packages the reply
    /// imports join it instead of opening a second one.
    pub import_block: bool,
    /// The smallest program the language builds and runs: the floor a case
    /// cannot go below (benches/languages.rs).
    pub trivial: &'static str,
    /// Folders outside /usr it reads (configuration under /etc that its
    /// files link to); a toolchain outside /usr adds its own.
    pub read: &'static [&'static str],
}

/// An executable and the Debian package that installs it.
#[derive(Debug)]
pub struct Tool {
    /// Tried in order on PATH (`lua5.4`, then `lua`).
    pub names: &'static [&'static str],
    pub package: &'static str,
    /// Its arguments that print its version.
    pub version_args: &'static [&'static str],
    /// Where a multiplexer on PATH (rustup's `rustc`) keeps the real tool:
    /// arguments that print a sysroot whose `bin/` holds it.
    pub sysroot_args: Option<&'static [&'static str]>,
}

/// A command: `program` with `args`, where `{file}` is the program's file
/// name and `{stem}` that name without its extension.
#[derive(Debug)]
pub struct Step {
    pub program: Program,
    pub args: &'static [&'static str],
}

/// What a step runs.
#[derive(Debug, Clone, Copy)]
pub enum Program {
    /// The tool at this index of [`Spec::tools`].
    Tool(usize),
    /// The file the build step left in the case folder.
    Built(&'static str),
}

/// How the proof goes into the tests: each form writes `{nonce}`, a secret
/// of the case's, on a line of stdout after the last test has passed and
/// before the program exits; an exit before that point (`os.exit(0)`,
/// `process.exit(0)`, `quit(status = 0)`, ...) leaves it out.
#[derive(Debug)]
pub enum Proof {
    /// `text` after the tests.
    Append(&'static str),
    /// The tests' last occurrence of `from` becomes `to`.
    Replace {
        from: &'static str,
        to: &'static str,
    },
    /// `text` before the tests' `nth` closing brace from the end (1: the
    /// last), inside the function that runs them.
    BeforeClosingBrace { nth: usize, text: &'static str },
}

impl Proof {
    /// The tests with the proof in; None when they do not have the shape
    /// the proof needs (an importer refuses such a file).
    pub fn insert(&self, tests: &str, nonce: &str) -> Option<String> {
        match self {
            Proof::Append(text) => {
                let mut out = tests.trim_end().to_string();
                out.push('\n');
                out.push_str(&text.replace("{nonce}", nonce));
                out.push('\n');
                Some(out)
            }
            Proof::Replace { from, to } => {
                let at = tests.rfind(from)?;
                let mut out = tests[..at].to_string();
                out.push_str(&to.replace("{nonce}", nonce));
                out.push_str(&tests[at + from.len()..]);
                Some(out)
            }
            Proof::BeforeClosingBrace { nth, text } => {
                let at = tests.rmatch_indices('}').nth(nth.checked_sub(1)?)?.0;
                let mut out = tests[..at].to_string();
                out.push_str(&text.replace("{nonce}", nonce));
                out.push('\n');
                out.push_str(&tests[at..]);
                Some(out)
            }
        }
    }
}
