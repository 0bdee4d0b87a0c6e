//! Shared test support: `mod support;` in a `tests/*.rs` target, then
//! `use support::stub_server::{Behaviour, StubServer};`.

pub mod stub_server;
