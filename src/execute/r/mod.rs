//! R (MultiPL-E's `r`): `Rscript prog.r`; a failed `stopifnot` stops the
//! script with status 1.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::R,
    file: "prog.r",
    tools: &[Tool {
        names: &["Rscript"],
        package: "r-base-core",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["--vanilla", "{file}"],
    },
    proof: Proof::Append("cat(\"\\n{nonce}\\n\")"),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &["Error: unexpected", "Error: unexpected end of input"],
    failure_markers: &["is not TRUE", "are not all TRUE"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    // R_HOME/etc's files are links into /etc/R.
    trivial: "",
    read: &["/etc/R"],
};
