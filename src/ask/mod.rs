//! Asking the model: one case's prompt (history, request), whether it fits
//! the server's context window, the reply cache and the insta snapshots.
//! The servers themselves (or a replay of recordings) are `backend`'s.

pub mod cache;
pub mod history;
pub mod request;
pub mod snapshot;
pub mod theme_labeler;
pub mod variant_writer;
pub mod window;
