//! Rust (MultiPL-E's `rs`): `rustc prog.rs -o prog` as MultiPL-E runs it
//! (no flags: the 2015 edition, a debug build), then the program, whose
//! `main` holds the tests as `assert!`s.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Rust,
    file: "prog.rs",
    tools: &[Tool {
        names: &["rustc"],
        package: "rustc",
        version_args: &["--version"],
        sysroot_args: Some(&["--print", "sysroot"]),
    }],
    build: Some(Step {
        program: Program::Tool(0),
        args: &["{file}", "-o", "prog"],
    }),
    run: Step {
        program: Program::Built("prog"),
        args: &[],
    },
    // Before `main`'s closing brace, the tests' last.
    proof: Proof::BeforeClosingBrace {
        nth: 1,
        text: "    println!(\"\\n{nonce}\");",
    },
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[],
    failure_markers: &["assertion `left == right` failed", "assertion failed"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "fn main() {}\n",
    read: &[],
};
