//! Executing a reply: the code extracted from it, the program built
//! around it, run in the sandbox (`crate::sandbox`), and the verdict on
//! what it did. [`language::Languages`] is the seam: Python (`program`,
//! and `python`: the programs Python runs inside the sandbox's
//! interpreter), C++ (`cpp`), and one folder per language of MultiPL-E's
//! (`lua`, `racket`, ...), each a [`multipl_e::Spec`] that `multipl_e`
//! runs.

pub mod bash;
pub mod cpp;
pub mod d;
pub mod extract;
pub mod go;
pub mod java;
pub mod javascript;
pub mod language;
pub mod lua;
pub mod multipl_e;
pub mod ocaml;
pub mod perl;
pub mod php;
/// Python's program, where it always was.
pub use crate::python::program;
pub mod r;
pub mod racket;
pub mod ruby;
pub mod rust;
/// The sandbox is its own stage (`crate::sandbox`); its old path stays.
pub use crate::sandbox;
