//! Ruby (MultiPL-E's `rb`): `ruby prog.rb`, the tests a Test::Unit case.
//! Test::Unit runs them from an `at_exit` hook, so a program that exits
//! before the test class is defined ran no test and exits 0; the proof
//! runs the tests itself and writes only when they passed.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Ruby,
    file: "prog.rb",
    tools: &[Tool {
        names: &["ruby"],
        package: "ruby",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    proof: Proof::Append(
        "Test::Unit::AutoRunner.need_auto_run = false\nprompteval_passed = Test::Unit::AutoRunner.run\nprint \"\\n{nonce}\\n\" if prompteval_passed == true\nexit(prompteval_passed == true ? 0 : 1)",
    ),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &["syntax error", "SyntaxError"],
    failure_markers: &["Failure:"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "",
    read: &[],
};
