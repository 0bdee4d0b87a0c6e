//! Asking the model: one case's prompt (history, request), whether it fits
//! the server's context window, the reply cache, the insta snapshots and
//! their replay (which knows no HTTP). The servers themselves are
//! `backend`'s.

pub mod cache;
pub mod history;
pub mod replay;
pub mod request;
pub mod snapshot;
pub mod theme_labeler;
pub mod variant_writer;
pub mod window;
