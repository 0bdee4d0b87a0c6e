//! Every line the harness prints for the user, in one place (spec §9.1's
//! wording). Lines go to stdout, or to stderr when libtest's output is
//! machine-readable (`--format json`) so the JSON stream stays clean.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static TO_STDERR: AtomicBool = AtomicBool::new(false);

pub fn use_stderr(yes: bool) {
    TO_STDERR.store(yes, Ordering::SeqCst);
}

pub fn say(line: impl AsRef<str>) {
    let line = line.as_ref();
    if TO_STDERR.load(Ordering::SeqCst) {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    } else {
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
}

/// A problem that stops the run before any case: always stderr.
pub fn fatal(message: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// Whether this run is in CI: `CI` set to anything but empty, `0` or `false`
/// (what GitHub Actions, GitLab and most others set).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "False"))
}
