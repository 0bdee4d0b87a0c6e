//! Python's side of the language seam (`crate::execute::language`): the program a
//! reply becomes (`program`: the prompt's shape, the reply completed for
//! an entry point, the tests after it), and the programs the sandbox runs
//! inside the Python it starts.
//! The sandbox knows processes, not Python's code: it gets these as
//! [`Runtime`] and writes them where the interpreter imports them. Their
//! comments name the sandbox's Rust files (warm.rs, zygote.rs, ...) by bare
//! name: those are src/sandbox's.

pub mod program;

use crate::sandbox::Runtime;

/// What Python runs inside the sandbox's interpreter:
///
/// - `warm_server.py`: the warm interpreter's server, each slot's
///   `sitecustomize` (src/sandbox/warm.rs explains why);
/// - `tests_proof.py`: the tests' prelude, which proves that a question's
///   hidden tests ran to their end (src/sandbox/proof.rs);
/// - `probe.py`: what a case can really do, run once per run
///   (src/sandbox/probe.rs), with `{port}` and `{canary}` filled in.
pub const RUNTIME: Runtime = Runtime {
    warm_server: include_str!("warm_server.py"),
    tests_prelude: include_str!("tests_proof.py"),
    probe: include_str!("probe.py"),
};
