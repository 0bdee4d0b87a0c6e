//! Go (MultiPL-E's `go`): `go test` on the program as a test file, with
//! the build cache in the case's folder; a build failure is a
//! `syntax_error`, a failed `t.Errorf` a `wrong_answer`.

use super::multipl_e::spec::{Program, Proof, Spec, Step, Tool};
use crate::suite::CodeLanguage;

pub const SPEC: Spec = Spec {
    language: CodeLanguage::Go,
    file: "prog_test.go",
    tools: &[Tool {
        names: &["go"],
        package: "golang-go",
        version_args: &["version"],
        sysroot_args: None,
    }],
    build: None,
    run: Step {
        program: Program::Tool(0),
        // -v: without it go test hides what a passing test printed.
        args: &["test", "-v", "-count=1", "{file}"],
    },
    // A test of its own after MultiPL-E's: go test runs them in order, and
    // exits 0 only when every one passed.
    proof: Proof::Append(
        "func TestZzzPromptevalProof(t *testing.T) {\n\tif !t.Failed() {\n\t\tprintln()\n\t\tprintln(\"{nonce}\")\n\t}\n}",
    ),
    stderr_fails: false,
    output_fails: &["FAIL"],
    syntax_markers: &["[setup failed]", "[build failed]", "syntax error"],
    failure_markers: &["--- FAIL"],
    memory_mb: Some(4096),
    requires: &[],
    import_block: true,
    env: &[
        ("GOCACHE", "{dir}/.gocache"),
        ("GOPATH", "{dir}/.gopath"),
        ("GO111MODULE", "off"),
        ("GOFLAGS", "-buildvcs=false"),
        ("GOTOOLCHAIN", "local"),
        ("CGO_ENABLED", "0"),
    ],
    trivial: "package trivial_test\n",
    read: &[],
};
