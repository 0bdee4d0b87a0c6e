//! The race between prompts (`[race]`, issue #44): prompts answer the
//! questions in lockstep, and a prompt that has lost beyond noise is asked
//! nothing more.
//!
//! - [`rule`]: the anytime-valid test that eliminates a prompt;
//! - [`gate`]: its hold on the scheduler (which case may be asked now,
//!   which never will be);
//! - [`standing`]: what the race decided, rebuilt from the journal for the
//!   report (so an interrupted, resumed or replayed race reports the same).

pub mod gate;
pub mod rule;
pub mod standing;
