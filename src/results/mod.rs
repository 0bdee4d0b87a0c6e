//! What a run's results are, as data: run_info.json ([`RunInfo`]), one
//! model's summary.json ([`Summary`]), the figures a multi-model run or a
//! run of prompt variants adds ([`figures`]), the records of one prompt in
//! report order (`groups`), and the run folder's files ([`run_folder`]).
//! No computation beyond rounding: `crate::analysis` computes these, and
//! `crate::report` renders and writes them.

pub mod budget;
pub mod figures;
#[doc(hidden)]
pub mod fixtures;
pub(crate) mod groups;
pub mod race;
pub mod run_folder;
pub mod run_info;
pub mod summary;
pub mod themes;

pub use figures::*;
pub(crate) use groups::{Cases, PromptGroup};
pub use run_info::{GateSettings, ModelRun, NOT_ASKED, RunInfo};
pub(crate) use summary::round_to;
pub use summary::{
    MatrixCell, ModelsSummary, PromptResult, RoundStats, RunSummary, SpeedSummary, Summary,
};
pub use themes::{AblationDrop, Association, Growth, ThemeAblation, ThemeResults};
