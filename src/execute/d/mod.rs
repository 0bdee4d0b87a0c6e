//! D (MultiPL-E's `d`, which runs `rdmd -unittest -main`): compiled by gdc
//! with the `unittest` blocks in; druntime runs them in place of `main`,
//! and a failed assert aborts with AssertError.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::D,
    file: "prog.d",
    tools: &[Tool {
        names: &["gdc"],
        package: "gdc",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: Some(Step {
        program: Program::Tool(0),
        args: &["-funittest", "-O0", "-o", "prog", "{file}"],
    }),
    run: Step {
        program: Program::Built("prog"),
        args: &[],
    },
    // At the end of the unittest block (the one before `void main(){}`):
    // druntime runs the unittests and, when there are any, not `main`.
    // C's printf, not std.stdio: importing std.stdio took gdc 80 ms more
    // per case than the tests alone (half the compile); both write through
    // C's stdout buffer, so the order of lines is kept.
    proof: Proof::BeforeClosingBrace {
        nth: 2,
        text: "    { import core.stdc.stdio : printf; printf(\"\\n{nonce}\\n\"); }",
    },
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &[],
    failure_markers: &["AssertError", "unittest failure"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "void main(){}\n",
    read: &[],
};
