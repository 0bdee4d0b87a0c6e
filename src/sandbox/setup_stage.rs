//! The numbered setup steps of a slot server and of a case. A child that
//! fails a step reports `failure(step, errno)` in one `REPORT_FAILED`
//! message; the harness turns it back into the step's name. The Rust fork
//! server and the warm interpreter (which gets the numbers by name at
//! start, warm.rs `constants`) both report through it.

use std::io;

/// Setup steps of a case, as reported in `REPORT_FAILED`.
pub(super) const STAGES: &[&str] = &[
    "joining the pids cgroup",
    "entering namespaces",
    "binding the slot folder read-only",
    "mounting the case tmpfs",
    "entering the case folder",
    "writing the case's file (main.py)",
    "setting rlimits",
    "starting the reaper",
    "enforcing landlock",
    "executing the interpreter (or handing the warm one over)",
    "forking the case",
    "creating the slot's network namespace",
    "creating the slot's pid namespace (warm interpreter)",
];
pub(super) const JOIN_CGROUP: i32 = 0;
pub(super) const NAMESPACES: i32 = 1;
pub(super) const BIND_SLOT: i32 = 2;
pub(super) const MOUNT_TMPFS: i32 = 3;
pub(super) const ENTER_FOLDER: i32 = 4;
pub(super) const WRITE_SCRIPT: i32 = 5;
pub(super) const RLIMITS: i32 = 6;
pub(super) const REAPER: i32 = 7;
pub(super) const LANDLOCK: i32 = 8;
pub(super) const EXEC: i32 = 9;
pub(super) const FORK: i32 = 10;
pub(super) const SLOT_NETWORK: i32 = 11;
pub(super) const SLOT_PIDS: i32 = 12;

/// The stages the warm interpreter reports by number, by its names for
/// them (sent to it at start: warm.rs `constants`).
pub(super) fn stage_numbers() -> [(&'static str, i32); 8] {
    [
        ("_NAMESPACES", NAMESPACES),
        ("_ENTER_FOLDER", ENTER_FOLDER),
        ("_WRITE_SCRIPT", WRITE_SCRIPT),
        ("_RLIMITS", RLIMITS),
        ("_REAPER", REAPER),
        ("_LANDLOCK", LANDLOCK),
        ("_HAND_OVER", EXEC),
        ("_FORK", FORK),
    ]
}

/// The server's "ready" message after it joined its cgroup.
pub(super) const READY: i32 = 0;

/// A setup step of the server or of a case that failed in the child, as
/// its `REPORT_FAILED` message says.
#[derive(Debug, thiserror::Error)]
#[error("sandbox setup failed {stage}: {errno}")]
pub(super) struct StageFailure {
    pub stage: &'static str,
    pub errno: io::Error,
}

pub(super) fn stage_error(value: i32) -> StageFailure {
    let stage = STAGES
        .get((value >> 16) as usize)
        .copied()
        .unwrap_or("an unknown step");
    let errno = io::Error::from_raw_os_error(value & 0xffff);
    StageFailure { stage, errno }
}

/// One `REPORT_FAILED` value: the step in the high half, the errno below.
pub(super) fn failure(stage: i32, e: &io::Error) -> i32 {
    (stage << 16) | (e.raw_os_error().unwrap_or(libc::EIO) & 0xffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_errors_name_the_step_and_the_errno() {
        let text = stage_error(failure(
            MOUNT_TMPFS,
            &io::Error::from_raw_os_error(libc::EPERM),
        ))
        .to_string();
        assert!(text.contains("mounting the case tmpfs"), "{text}");
        assert!(text.contains("not permitted"), "{text}");
        assert_eq!(STAGES.len() as i32, SLOT_PIDS + 1);
    }
}
