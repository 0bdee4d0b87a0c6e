//! Executing a reply: the code extracted from it, the program built
//! around it, run in the sandbox (`crate::sandbox`), and the verdict on
//! what it did. [`language::Languages`] is the seam: Python (`program`)
//! and C++ (`cpp`) are its two cases; `python` holds the programs Python
//! runs inside the sandbox's interpreter.

pub mod cpp;
pub mod extract;
pub mod judge;
pub mod language;
pub mod program;
pub mod python;
/// The sandbox is its own stage (`crate::sandbox`); its old path stays.
pub use crate::sandbox;
