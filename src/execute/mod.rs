//! Executing a reply: the Python code extracted from it, the program built
//! around it, run in the sandbox (`crate::sandbox`), and the verdict on
//! what it printed.

pub mod extract;
pub mod judge;
pub mod program;
/// The sandbox is its own stage (`crate::sandbox`); its old path stays.
pub use crate::sandbox;
