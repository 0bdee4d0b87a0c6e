//! What a case gets (case_spec.rs).

use crate::sandbox::case_spec::*;
use crate::sandbox::limits::Limits;
use std::ffi::CStr;

const STAGES: MountStages = MountStages {
    namespaces: 1,
    bind_slot: 2,
    tmpfs: 3,
};

#[test]
fn a_fork_servers_case_binds_the_slot_read_only_before_its_tmpfs() {
    let steps = mounts(
        Some((c"/s", libc::MS_NOSUID)),
        c"/s/case",
        Some(c"size=1m"),
        STAGES,
    );
    let targets: Vec<&CStr> = steps.iter().map(|s| s.target.as_c_str()).collect();
    assert_eq!(targets, [c"/", c"/s", c"/s", c"/s/case"]);
    let ro = libc::MS_RDONLY | libc::MS_NOSUID;
    assert_eq!(steps[2].flags & ro, ro);
    assert_eq!(steps[3].fstype.as_deref(), Some(c"tmpfs"));
    let fresh = mounts(None, c"/f", None, STAGES);
    assert_eq!(fresh.len(), 1, "private only: no slot, folder on disk");
}

#[test]
fn the_messages_hold_every_step_in_order() {
    let steps = mounts(Some((c"/s", 0)), c"/s/case", Some(c"size=1m"), STAGES);
    let text = String::from_utf8(mounts_message(&steps)).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\u{1f}').collect()).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0],
        [
            "",
            "/",
            "",
            &(libc::MS_REC | libc::MS_PRIVATE).to_string(),
            "",
            "1"
        ]
    );
    assert_eq!(lines[2][4], "=", "an empty but present data field");
    assert_eq!(lines[3][0], "=prompteval-case");
    let limits = Limits {
        address_space: 1 << 30,
        cpu_secs: 20,
        file_size: 1 << 20,
        open_files: 256,
        processes: 64,
    };
    let r = rlimits_message(&rlimits(&limits));
    assert_eq!(r.split(',').count(), 6);
    assert!(r.contains(&format!("{}:20:21", libc::RLIMIT_CPU)), "{r}");
}
