//! OCaml (MultiPL-E's `ml`): the script run by the `ocaml` toplevel; a
//! failed `assert` raises Assert_failure, which exits with status 2.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::OCaml,
    file: "prog.ml",
    tools: &[Tool {
        names: &["ocaml"],
        package: "ocaml-nox",
        version_args: &["-version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    proof: Proof::Append(";;\nlet () = print_string \"\\n{nonce}\\n\";;"),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[
        "Error: Syntax error",
        "Error: This expression",
        "Error: Unbound",
        "Error: ",
    ],
    failure_markers: &["Assert_failure"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "",
    read: &[],
};
