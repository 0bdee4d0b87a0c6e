//! Racket (MultiPL-E's `rkt`): `racket prog.rkt`, the tests in rackunit,
//! which reports a failed check on stderr and still exits 0: as
//! MultiPL-E's evaluator does, anything on stderr fails the case.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Racket,
    file: "prog.rkt",
    tools: &[Tool {
        names: &["racket"],
        package: "racket",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    proof: Proof::Append("(display \"\\n{nonce}\\n\")"),
    stderr_fails: true,
    output_fails: &[],
    syntax_markers: &["read-syntax:", "read:", "bad syntax", "unbound identifier"],
    failure_markers: &["FAILURE"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "#lang racket\n",
    read: &["/etc/racket"],
};
