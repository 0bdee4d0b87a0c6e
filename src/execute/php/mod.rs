//! PHP (MultiPL-E's `php`): `php prog.php`; a failed test throws
//! `Exception("Test failed!")`, uncaught: status 255.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Php,
    file: "prog.php",
    tools: &[Tool {
        names: &["php"],
        package: "php-cli",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["-d", "display_errors=stderr", "{file}"],
    },
    proof: Proof::Append("echo \"\\n{nonce}\\n\";"),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &["Parse error", "syntax error"],
    failure_markers: &["Test failed!"],
    memory_mb: None,
    requires: &[],
    import_block: false,
    env: &[],
    trivial: "<?php\n",
    read: &["/etc/php"],
};
