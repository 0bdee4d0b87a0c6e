//! Perl (MultiPL-E's `pl`): `perl prog.pl`, the tests comparing with
//! Test::Deep's `eq_deeply` and exiting 1 at the first mismatch.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Perl,
    file: "prog.pl",
    tools: &[Tool {
        names: &["perl"],
        package: "perl libtest-deep-perl",
        version_args: &["-e", "print \"perl $^V\\n\""],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["{file}"],
    },
    proof: Proof::Append("print \"\\n{nonce}\\n\";"),
    stderr_fails: false,
    output_fails: &["ERROR"],
    syntax_markers: &["syntax error at", "aborted due to compilation errors"],
    // The tests exit 1 on a mismatch without a word; a `die` exits 255.
    failure_markers: &[],
    memory_mb: None,
    requires: &[("/usr/share/perl5/Test/Deep.pm", "libtest-deep-perl")],
    import_block: false,
    env: &[],
    trivial: "",
    read: &[],
};
