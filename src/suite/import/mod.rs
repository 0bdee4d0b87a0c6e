//! Benchmarks -> suites: `prompteval import humaneval` (HumanEval's JSONL
//! shape, Python `tests` questions) and `prompteval import pareval`
//! (ParEval's serial and OpenMP problems, C++ questions judged by ParEval's
//! own drivers).

pub mod humaneval;
pub mod pareval;

use serde_json::Value;

/// An import that cannot be done, with the file and line where known.
#[derive(Debug)]
pub struct ImportError(pub String);

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImportError {}

/// The suite as written to disk: pretty JSON with a final newline, so a
/// regenerated file compares byte for byte.
pub fn to_text(suite: &Value) -> String {
    let mut text = serde_json::to_string_pretty(suite).expect("a JSON value serialises");
    text.push('\n');
    text
}
