//! The run folder: created once the run can start, named by its start
//! time, with a manifest (`run.json`) that lets `PROMPTEVAL_RESUME` finish
//! it with the same suite, model and cases.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::SetupError;
use crate::case::{CaseId, Unevaluated};
use crate::config::ResumedRun;
use crate::results::run_folder::Staged;

const MANIFEST: &str = "run.json";

/// What a run folder remembers about its run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunManifest {
    pub test_id: String,
    pub timestamp: String,
    pub suite: PathBuf,
    pub model: String,
    /// The models of a multi-model run, in order; empty for one model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    pub rounds: u32,
    /// Replies per case (`samples`); 1 in manifests written before samples.
    #[serde(default = "one")]
    pub samples: u32,
    /// `PROMPTEVAL_SHARD`: which part of a larger run this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::plan::shard::Shard>,
    pub backend: String,
    pub endpoint: String,
    /// The cases the run set out to evaluate.
    pub cases: Vec<CaseId>,
    /// Selected cases the run could not evaluate (no matching recording).
    #[serde(default)]
    pub not_evaluated: Vec<Unevaluated>,
    /// `[race]` when the run is a race: a resumed race goes on as one, at
    /// its own level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<crate::config::RaceConfig>,
}

fn one() -> u32 {
    1
}

impl RunManifest {
    /// What the run set out to do, which a resume keeps.
    pub fn resumed_run(&self) -> ResumedRun {
        ResumedRun {
            suite: self.suite.clone(),
            model: self.model.clone(),
            models: self.models.clone(),
            rounds: self.rounds,
            samples: self.samples,
            race: self.race.clone(),
        }
    }
}

/// Checked before the connection test, so a bad result folder is reported
/// before anything else happens (the run folder itself is created only once
/// the server answered, so a failed start leaves no empty folder behind).
pub fn ensure_writable(root: &Path) -> Result<(), SetupError> {
    std::fs::create_dir_all(root)
        .and_then(|()| tempfile::tempfile_in(root).map(drop))
        .map_err(|e| SetupError::Folder {
            path: root.to_path_buf(),
            message: format!(
                "the result folder is not writable: {e}; set PROMPTEVAL_RESULT_DIR or `result_dir` in harness.toml to a writable folder"
            ),
        })
}

/// A new `test_YYYYMMDD_HHMMSS` folder: (path, test id, timestamp).
pub fn create(root: &Path) -> Result<(PathBuf, String, String), SetupError> {
    let now = jiff::Zoned::now();
    let stamp = now.strftime("%Y%m%d_%H%M%S").to_string();
    let timestamp = now.strftime("%Y-%m-%dT%H:%M:%S").to_string();
    let folder_error = |path: &Path, message: String| SetupError::Folder {
        path: path.to_path_buf(),
        message,
    };
    std::fs::create_dir_all(root).map_err(|e| {
        folder_error(root, format!(
            "cannot create the result folder: {e}; set PROMPTEVAL_RESULT_DIR or `result_dir` in harness.toml to a writable folder"
        ))
    })?;
    // Two runs in the same second get distinct folders.
    for n in 1..1000 {
        let test_id = if n == 1 {
            format!("test_{stamp}")
        } else {
            format!("test_{stamp}_{n}")
        };
        let dir = root.join(&test_id);
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok((dir, test_id, timestamp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(folder_error(
                    &dir,
                    format!("cannot create the run folder: {e}"),
                ));
            }
        }
    }
    Err(folder_error(root, "too many runs in one second".into()))
}

pub fn write_manifest(dir: &Path, m: &RunManifest) -> Result<(), SetupError> {
    let error = |e: std::io::Error| SetupError::Folder {
        path: dir.to_path_buf(),
        message: format!("cannot write {MANIFEST}: {e}"),
    };
    // Through a temp file and a rename: a run killed while writing it must
    // still resume (an empty run.json was refused as "not a manifest").
    // Streamed: a run's manifest names every case.
    let (staged, mut file) = Staged::create(&dir.join(MANIFEST)).map_err(error)?;
    serde_json::to_writer_pretty(&mut file, m).map_err(|e| error(e.into()))?;
    staged.finish(file).map_err(error)
}

pub fn read_manifest(dir: &Path) -> Result<RunManifest, SetupError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        if dir.is_dir() && e.kind() == std::io::ErrorKind::NotFound {
            // A run killed between creating its folder and writing its plan:
            // nothing in it finished, and nothing says what it was to run.
            SetupError::Resume(format!(
                "PROMPTEVAL_RESUME={}: the folder has no {MANIFEST}: that run was stopped before it wrote its plan, so no case of it finished; start the run again without PROMPTEVAL_RESUME",
                dir.display()
            ))
        } else {
            SetupError::Resume(format!(
                "PROMPTEVAL_RESUME={}: {e}; point it at a run folder such as result/test_20250814_012345",
                dir.display()
            ))
        }
    })?;
    serde_json::from_str(&text).map_err(|e| SetupError::Folder {
        path: path.clone(),
        message: format!("not a prompteval run manifest: {e}"),
    })
}
