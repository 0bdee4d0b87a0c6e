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

/// Python source of the probe; `port` is a listener of the harness, `canary`
/// a file the harness owns outside the case folder.
pub(super) fn program(port: u16, canary: &std::path::Path) -> String {
    let canary = serde_json::to_string(&canary.to_string_lossy()).unwrap_or_default();
    format!(
        r#"import _socket, os, sys
# Only built-in modules: json and socket would cost a run's start 18 ms of
# imports (re, enum, selectors) in the first slot before any case.
def attempt(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return e.strerror or type(e).__name__
def connect():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        s.settimeout(2)
        s.connect(("127.0.0.1", {port}))
    finally:
        s.close()
def udp():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        s.sendto(b"x", ("127.0.0.1", {port}))
    finally:
        s.close()
def write_cwd():
    with open("probe.txt", "w") as f:
        f.write("x")
def js(v):
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ",".join(js(x) for x in v) + "]"
    return '"' + "".join(c if c >= " " and c not in '"\\' else "\\u%04x" % ord(c) for c in v) + '"'
st = os.statvfs(".")
found = {{
    "pid": os.getpid(),
    "ppid": os.getppid(),
    "loopback": attempt(connect),
    "udp": attempt(udp),
    "canary": attempt(lambda: open({canary}).read()),
    "tmp": attempt(lambda: os.listdir("/tmp")),
    "write_cwd": attempt(write_cwd),
    "env": sorted(os.environ),
    "folder_fs_bytes": st.f_blocks * st.f_frsize,
    "hash_seed_fixed": sys.flags.hash_randomization == 0,
}}
print("{{" + ",".join(js(k) + ":" + js(v) for k, v in found.items()) + "}}")
"#
    )
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
        let p = program(1234, std::path::Path::new("/tmp/a\"b"));
        assert!(p.contains(r#"open("/tmp/a\"b")"#), "{p}");
        assert!(p.contains("1234"));
    }
}
