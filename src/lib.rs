//! # prompteval
//!
//! Measures how well prompt templates make an LLM write correct Python. The
//! main job is `cargo test --test prompts`: a libtest-mimic harness that turns
//! every prompt x question x round of a JSON suite into a named test case.
//!
//! The pipeline runs in one direction, one module per arrow:
//!
//! ```text
//! harness.toml + env ─► config::Config
//! suite JSON ─► suite::Suite                  validated, file:line errors
//! Suite × rounds ─► plan::cases               names, trial order
//! Case + chain history ─► request             the spec's "learning history", messages
//! request ─► backend::{ollama, openai, replay} connection test, retries
//! reply ─► extract                            fenced Python blocks, fallback
//! code ─► sandbox                             namespaces, landlock, limits
//! execution ─► judge                          verdict
//! verdict ─► journal (JSONL) + snapshot (insta)
//! journal ─► report                           summary.json, reports, .py, html, table
//! summary + thresholds ─► gate                exit status
//! ```
//!
//! [`session`] sequences a run (plan, start, finish, with a typed
//! [`session::SetupError`]); [`schedule`] runs the cases through two bounded
//! pools, model requests (`concurrency`) and program executions (cores);
//! [`run`] is one case's two stages; [`output`] is the one path for every
//! line the user sees. [`harness`] is the only module that knows
//! libtest-mimic; `tests/prompts.rs` calls [`harness::main`].

pub mod backend;
pub mod cache;
pub mod case;
pub mod compare;
pub mod config;
pub mod console;
pub mod extract;
pub mod gate;
pub mod harness;
pub mod history;
pub mod import;
pub mod journal;
pub mod judge;
pub mod nextest;
pub mod output;
pub mod plan;
pub mod program;
pub mod progress;
pub mod report;
pub mod request;
pub mod run;
pub mod sandbox;
pub mod schedule;
pub mod session;
pub mod shard;
pub mod snapshot;
mod status_line;
pub mod suite;
pub mod variants;
pub mod window;
