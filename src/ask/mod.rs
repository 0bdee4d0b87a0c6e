//! Asking the model: one case's prompt (history, request), whether it fits
//! the server's context window, the reply cache and the insta snapshots, and
//! the backends that talk to a server (or replay a recording).

pub mod backend;
pub mod cache;
pub mod history;
pub mod request;
pub mod snapshot;
pub mod variant_writer;
pub mod window;
