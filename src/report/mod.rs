//! A run's results as the files and views a person or a CI reads:
//! [`render`] turns `crate::results` (computed by `crate::analysis`) into
//! text, tables, markdown, JUnit, CSV, JSON, `.py`/`.cpp` files and HTML;
//! `crate::publish` streams each model's journal once and writes every file
//! once. Imports run one way: results <- analysis <- render <- publish.

pub mod render;

pub use crate::analysis::gate;
pub use crate::results::run_folder::{model_folder, models_of, write_json};
pub use crate::results::{ModelRun, ModelsSummary, RunInfo, RunSummary, Summary};
pub use render::step_summary;
pub use render::{Labels, terminal_table};

/// Adds the run's gate to its junit.xml (each model's, in a multi-model
/// run: the gate is the run's), once the gate is decided.
pub fn add_gate_to_junit(
    run_dir: &std::path::Path,
    info: &RunInfo,
    gate: &gate::GateReport,
) -> std::io::Result<()> {
    let lang = info.language;
    let folders = match info.models.is_empty() {
        true => vec![run_dir.to_path_buf()],
        false => crate::results::run_folder::model_dirs(info)
            .iter()
            .map(|d| run_dir.join(d))
            .collect(),
    };
    for folder in folders {
        let junit = folder.join("report").join("junit.xml");
        if junit.is_file() {
            render::junit::add_gate(&junit, gate, lang)?;
        }
    }
    Ok(())
}
