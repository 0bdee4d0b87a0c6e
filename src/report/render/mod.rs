//! Results -> what a person or a tool reads. Each renderer takes
//! `crate::results` types and gives text or a file's bytes; none computes
//! a figure. The words of every view, in both languages, are in [`crate::language::Labels`]
//! and the sentences of `text`.

pub mod budget;
pub(crate) mod case_file;
pub(crate) mod files;
pub mod html;
pub(crate) mod junit;
pub(crate) mod race;
pub mod step_summary;
pub mod table;
pub(crate) mod text;
pub(crate) mod themes;

pub use crate::language::Labels;
pub use table::terminal_table;
