//! The figures of a run, computed from its case records: per prompt
//! (`prompt_results`: accuracy, intervals, pass@k, the best prompt), and
//! over prompts and models ([`outcomes`] laid out for [`robustness`],
//! [`kinds`] and [`cross_model`]), PartialOrderEval's [`curves`], and the
//! [`gate`]'s thresholds. One significance level and one paired test
//! ([`stats`]), and that test's [`power`] (what a run of a given size can
//! tell apart, for the plan), one best-prompt rule (`best_prompt`). Results are the
//! shapes of `crate::results`; nothing here writes a file.

pub(crate) mod best_prompt;
pub mod cross_model;
pub mod curves;
pub mod gate;
pub mod kinds;
pub mod outcomes;
pub mod power;
pub(crate) mod prompt_results;
pub mod robustness;
pub(crate) mod speed;
pub mod stats;
pub mod themes;
