//! Why a run could not start. Every variant carries what the user needs to
//! fix it (file and line, variable, host, folder); all exit with status 2.

use std::path::PathBuf;

use crate::ask::variant_writer::WriterError;
use crate::baseline::BaselineError;
use crate::config::ConfigError;
use crate::plan::shard::ShardError;
use crate::sandbox::SandboxError;
use crate::suite::SuiteError;
use crate::terminal::progress::ProgressSettingError;
use crate::variants::VariantsError;

#[derive(Debug)]
pub enum SetupError {
    /// harness.toml or an environment variable.
    Config(ConfigError),
    Suite(SuiteError),
    /// The writer model could not write a text the suite's prompt variants
    /// need (`[variants]`).
    Variants {
        suite: PathBuf,
        source: VariantsError<WriterError>,
    },
    /// The interpreter or the isolation cannot be used.
    Sandbox(SandboxError),
    /// The model server or the recordings cannot serve this run; the
    /// message names the host or folder and what to do.
    Backend(String),
    /// A folder the run must write to or read from.
    Folder {
        path: PathBuf,
        message: String,
    },
    /// PROMPTEVAL_RESUME names no run folder.
    Resume(String),
    /// PROMPTEVAL_SHARD has a value it cannot take.
    Shard(ShardError),
    /// PROMPTEVAL_PROGRESS has a value it cannot take.
    Progress(ProgressSettingError),
    /// `[gate] baseline` cannot be read or is from another experiment.
    Baseline(BaselineError),
    /// A race with something it cannot be combined with (a shard).
    Race(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Config(e) => e.fmt(f),
            SetupError::Suite(e) => e.fmt(f),
            SetupError::Sandbox(e) => e.fmt(f),
            SetupError::Variants { suite, source } => write!(f, "{}: {source}", suite.display()),
            SetupError::Shard(e) => e.fmt(f),
            SetupError::Progress(e) => e.fmt(f),
            SetupError::Baseline(e) => e.fmt(f),
            SetupError::Backend(message)
            | SetupError::Resume(message)
            | SetupError::Race(message) => f.write_str(message),
            SetupError::Folder { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for SetupError {}

/// `?` on each boundary's own error: the variant that holds it.
macro_rules! setup_error_from {
    ($($variant:ident($error:ty)),* $(,)?) => {$(
        impl From<$error> for SetupError {
            fn from(e: $error) -> Self {
                SetupError::$variant(e)
            }
        }
    )*};
}

setup_error_from!(
    Config(ConfigError),
    Suite(SuiteError),
    Shard(ShardError),
    Progress(ProgressSettingError),
    Sandbox(SandboxError),
    Baseline(BaselineError),
);
