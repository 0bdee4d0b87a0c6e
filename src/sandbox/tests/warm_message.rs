//! The warm interpreter's start message (warm.rs).

use crate::python::RUNTIME;
use crate::sandbox::case_spec;
use crate::sandbox::warm::*;
use std::path::Path;

#[test]
fn the_config_message_holds_every_key_the_server_reads() {
    let limits = crate::sandbox::limits::Limits {
        address_space: 1 << 30,
        cpu_secs: 20,
        file_size: 1 << 20,
        open_files: 256,
        processes: 64,
    };
    let mounts = case_spec::mounts(
        Some((c"/t/slot", 0)),
        c"/t/slot/case",
        Some(c"size=1m"),
        case_spec::MountStages::UNREPORTED,
    );
    let rlimits = case_spec::rlimits(&limits);
    let config = ServerConfig {
        case: Path::new("/t/slot/case"),
        mounts: &mounts,
        rlimits: &rlimits,
        uid_map: b"0 0 1\n",
        gid_map: b"0 0 1\n",
        landlock: true,
    };
    let message = config.message();
    let text = String::from_utf8(message).unwrap();
    for item in text
        .split('\0')
        .filter(|s| !s.is_empty() && !s.starts_with("const."))
    {
        let (key, _) = item.split_once('=').unwrap();
        assert!(
            RUNTIME.warm_server.contains(&format!("\"{key}\"")),
            "the server never reads {key}"
        );
    }
    assert!(text.contains("ruleset=4\0"), "{text}");
    assert!(
        text.contains(&format!(
            "rlimits={}:1073741824:1073741824,",
            libc::RLIMIT_AS
        )),
        "{text}"
    );
}

/// The shared numbers go in the message under the names the server
/// lists; the server refuses to start on any other set (so every warm
/// test would fail), which is why no number is copied into it.
#[test]
fn the_shared_numbers_are_sent_under_the_servers_names() {
    let listed = RUNTIME
        .warm_server
        .split("_CONSTANTS = (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap();
    for (name, _) in constants() {
        assert!(listed.contains(&format!("\"{name}\"")), "{name}");
    }
    let sent: std::collections::BTreeMap<_, _> = constants().into_iter().collect();
    assert_eq!(
        sent["_SYS_LANDLOCK_RESTRICT_SELF"],
        libc::SYS_landlock_restrict_self
    );
    assert_eq!(
        sent["_REPORT_STATUS"],
        i64::from(crate::sandbox::isolate::REPORT_STATUS)
    );
    assert_eq!(sent.len(), listed.matches('"').count() / 2);
}
