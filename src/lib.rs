//! # prompteval
//!
//! Measures how well prompt templates make an LLM write correct Python.
//! (crate docs are completed with the harness)

pub mod backend;
pub mod case;
pub mod config;
pub mod console;
pub mod extract;
pub mod gate;
pub mod harness;
pub mod history;
pub mod journal;
pub mod judge;
pub mod plan;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod snapshot;
pub mod suite;
