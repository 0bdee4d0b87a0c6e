//! JavaScript (MultiPL-E's `js`): `node prog.js`, the tests with
//! node:assert.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::JavaScript,
    file: "prog.js",
    tools: &[Tool {
        names: &["node", "nodejs"],
        package: "nodejs",
        version_args: &["--version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        args: &["--max-old-space-size=512", "{file}"],
    },
    proof: Proof::Append("console.log(\"\\n{nonce}\");"),
    stderr_fails: false,
    output_fails: &[],
    syntax_markers: &["SyntaxError"],
    failure_markers: &["AssertionError"],
    memory_mb: Some(4096),
    requires: &[],
    import_block: false,
    // Node reads OpenSSL's configuration at its start, from /etc.
    env: &[("OPENSSL_CONF", "/dev/null")],
    trivial: "",
    read: &[],
};
