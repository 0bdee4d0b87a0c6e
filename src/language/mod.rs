//! Every line a person reads, in the run's [`Language`]: the spec's Chinese
//! by default, English on request. One way for all of them: each line is a
//! function of the language here, its two wordings side by side, and the
//! stages that show it (the terminal, the report's views) call it. A stage
//! never writes a sentence of its own in two languages.
//!
//! Machine-read text is not a line a person reads and stays English:
//! summary.json keys and values, CSV columns, verdict names, setting and
//! variable names inside a sentence, and the log's `tracing` records.

pub mod console;
pub mod gate;
mod labels;
pub mod numbers;
pub mod report;

pub use labels::Labels;

pub use crate::config::Language;
