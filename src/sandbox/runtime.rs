//! The interpreter's side of the sandbox: the programs the sandbox runs
//! inside the interpreter it starts. They are the language's (for Python,
//! `crate::python::RUNTIME`); the sandbox gets them as text, writes
//! them where the interpreter finds them, and knows none of their code.

/// The programs the sandbox runs inside the interpreter it starts.
#[derive(Debug, Clone, Copy)]
pub struct Runtime {
    /// The warm interpreter's server, installed as `sitecustomize.py`
    /// (warm.rs): it reads the keys of `ServerConfig::message` and the
    /// names of `warm::constants`.
    pub warm_server: &'static str,
    /// The tests' prelude (proof.rs), installed as `sitecustomize.py` for
    /// fresh starts and as `prompteval_proof.py` beside the warm server.
    pub tests_prelude: &'static str,
    /// The probe (probe.rs), with `{port}` where the harness's loopback
    /// port goes and `{canary}` where the canary's path goes, as a JSON
    /// string; its last line of output is the probe's findings, as JSON.
    pub probe: &'static str,
}
