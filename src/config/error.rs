//! A configuration mistake, with where it is and what to do.

use std::path::PathBuf;

use super::percent::PercentError;

#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// A problem inside a config file; `line` is 1-based when known.
    File {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// A bad environment variable value.
    Env {
        var: &'static str,
        value: String,
        message: String,
    },
    /// An environment variable's threshold that is not a percentage.
    Threshold {
        var: &'static str,
        value: String,
        source: PercentError,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::File {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            ConfigError::File {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
            ConfigError::Env {
                var,
                value,
                message,
            } => write!(f, "environment variable {var}={value:?}: {message}"),
            ConfigError::Threshold { var, value, source } => {
                write!(f, "environment variable {var}={value:?}: {source}")
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Threshold { source, .. } => Some(source),
            _ => None,
        }
    }
}
