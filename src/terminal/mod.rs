//! What the user sees: the run's events and the sink that prints them, the
//! progress counter and the live status line.

pub mod console;
pub mod output;
pub mod progress;
mod status_line;
