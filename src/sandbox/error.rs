//! What goes wrong in the sandbox itself (never in the program it runs).

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

pub(super) fn error(message: impl Into<String>) -> SandboxError {
    SandboxError {
        message: format!("sandbox: {}", message.into()),
    }
}
