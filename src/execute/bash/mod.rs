//! Bash (MultiPL-E's `sh`): `bash prog.sh`, the tests under `set -e`,
//! where the first failed `[[ ... ]]` ends the script with status 1.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Bash,
    file: "prog.sh",
    tools: &[Tool {
        names: &["bash"],
        package: "bash",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    proof: Proof::Append("printf '\\n%s\\n' '{nonce}'"),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[
        "syntax error near unexpected token",
        "syntax error: unexpected end of file",
    ],
    failure_markers: &[],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "",
    read: &[],
};
