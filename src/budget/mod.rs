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
pub use plan::Plan;
