//! The program run once in `Sandbox::new` to see what a case can really do,
//! so that [`Isolation`](super::Isolation) reports facts, not intentions.

use serde::Deserialize;

/// What the probe program saw from inside the sandbox.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(super) struct Findings {
    pub pid: i64,
    pub ppid: i64,
    /// "ok" or the error text of connecting to the harness's listener.
    pub loopback: String,
    /// "ok" or the error text of sending a UDP datagram to loopback, which
    /// Landlock does not cover: it shows whether loopback itself is down.
    pub udp: String,
    /// "ok" or the error text of reading a harness file outside the case folder.
    pub canary: String,
    /// "ok" or the error text of listing /tmp.
    pub tmp: String,
    /// "ok" or the error text of writing a file in the case folder.
    pub write_cwd: String,
    /// Names of the environment variables the program got.
    pub env: Vec<String>,
    /// Size in bytes of the filesystem holding the case folder.
    pub folder_fs_bytes: u64,
    pub hash_seed_fixed: bool,
}

/// The probe's program: the runtime's `probe` (runtime.rs) with `port`, a
/// listener of the harness, and `canary`, a file the harness owns outside
/// the case folder, put in its placeholders.
pub(super) fn program(template: &str, port: u16, canary: &std::path::Path) -> String {
    let canary = serde_json::to_string(&canary.to_string_lossy()).unwrap_or_default();
    template
        .replace("{port}", &port.to_string())
        .replace("{canary}", &canary)
}

/// The probe's last line of output is not its findings.
#[derive(Debug, thiserror::Error)]
#[error("unreadable probe output {line:?}: {source}")]
pub(super) struct ProbeOutputError {
    pub line: String,
    pub source: serde_json::Error,
}

pub(super) fn parse(stdout: &str) -> Result<Findings, ProbeOutputError> {
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).map_err(|source| ProbeOutputError {
        line: line.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_output_parses() {
        let out = r#"{"pid": 2, "ppid": 1, "loopback": "Network is unreachable", "udp": "Network is unreachable", "canary": "Permission denied", "tmp": "Permission denied", "write_cwd": "ok", "env": ["HOME"], "folder_fs_bytes": 1024, "hash_seed_fixed": true}"#;
        let f = parse(out).unwrap();
        assert_eq!(f.pid, 2);
        assert_eq!(f.canary, "Permission denied");
        assert!(parse("Traceback").is_err());
    }

    #[test]
    fn the_probe_program_quotes_the_canary_path() {
        let template = "connect({port}); open({canary}); sendto({port})";
        let p = program(template, 1234, std::path::Path::new("/tmp/a\"b"));
        assert!(p.contains(r#"open("/tmp/a\"b")"#), "{p}");
        assert_eq!(p.matches("1234").count(), 2, "{p}");
    }
}
