//! What a run will cost and what it may spend: the [`plan`] made before
//! the first call (calls, tokens, time, money, what the run can tell
//! apart), and the [`keeper`] of `[budget]`'s caps during the run. What
//! was spent lands in summary.json's `budget` (`crate::results::budget`).

pub mod evidence;
pub mod keeper;
pub mod lines;
pub mod plan;
pub mod race_share;

pub use keeper::{Keeper, Ticket};

/// The money of `prompt` and `reply` tokens at `prices` per million
/// (prompt, reply); `None` without prices.
pub fn cost(prices: Option<(f64, f64)>, prompt: u64, reply: u64) -> Option<f64> {
    prices.map(|(p_in, p_out)| (prompt as f64 * p_in + reply as f64 * p_out) / 1e6)
}
pub use plan::Plan;
