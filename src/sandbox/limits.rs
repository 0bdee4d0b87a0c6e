//! Resource limits, computed before the fork and applied after it.

use crate::config::SandboxConfig;

const MIB: u64 = 1024 * 1024;

/// rlimits as plain numbers so that applying them in the child does no
/// allocation (only async-signal-safe work is allowed between fork and exec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    pub address_space: u64,
    /// Soft limit; the hard limit is one second later so the program first
    /// gets SIGXCPU and is then killed.
    pub cpu_secs: u64,
    pub file_size: u64,
    pub open_files: u64,
    pub processes: u64,
}

impl Limits {
    pub fn from_config(c: &SandboxConfig) -> Limits {
        Limits {
            address_space: c.memory_mb.saturating_mul(MIB),
            cpu_secs: c.cpu_secs.max(1),
            file_size: c.max_file_mb.saturating_mul(MIB),
            open_files: c.max_open_files.max(16),
            processes: c.max_processes.max(1),
        }
    }

    pub fn describe(&self, c: &SandboxConfig) -> String {
        format!(
            "address space {} MiB, CPU {} s, file size {} MiB, {} open files, no core dumps, \
             wall clock {} s, output {} bytes per stream",
            self.address_space / MIB,
            self.cpu_secs,
            self.file_size / MIB,
            self.open_files,
            c.timeout_secs,
            c.output_limit_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_come_from_the_config_in_bytes() {
        let c = SandboxConfig {
            memory_mb: 256,
            max_file_mb: 2,
            cpu_secs: 0,
            ..SandboxConfig::default()
        };
        let l = Limits::from_config(&c);
        assert_eq!(l.address_space, 256 * MIB);
        assert_eq!(l.file_size, 2 * MIB);
        // A zero CPU limit would kill the interpreter before it starts.
        assert_eq!(l.cpu_secs, 1);
        assert!(l.describe(&c).contains("address space 256 MiB"));
    }
}
