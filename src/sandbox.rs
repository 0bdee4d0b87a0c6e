//! Runs untrusted Python: code -> [`ExecutionRecord`]. Only this module knows processes.
//! (interface placeholder; the implementation lands with the sandbox work)

use serde::Serialize;

use crate::case::ExecutionRecord;
use crate::config::SandboxConfig;

/// The isolation actually in force, recorded in summary.json and the report.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Isolation {
    pub network: String,
    pub filesystem: String,
    pub processes: String,
    pub environment: String,
    pub limits: String,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SandboxError {
    pub message: String,
}

impl std::fmt::Display for SandboxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SandboxError {}

pub struct Sandbox {
    config: SandboxConfig,
    python: std::path::PathBuf,
    isolation: Isolation,
}

impl Sandbox {
    /// Resolves the interpreter once and probes which isolation works here.
    pub fn new(config: &SandboxConfig) -> Result<Sandbox, SandboxError> {
        Ok(Sandbox {
            config: config.clone(),
            python: config.python.clone().into(),
            isolation: Isolation::default(),
        })
    }

    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    pub fn python(&self) -> &std::path::Path {
        &self.python
    }

    /// Runs one program in a fresh temp dir and returns what it did.
    pub fn run(&self, code: &str) -> Result<ExecutionRecord, SandboxError> {
        let _ = (&self.config, code);
        Err(SandboxError {
            message: "not implemented".into(),
        })
    }
}
