//! The warm interpreter: one Python per execution slot, forked per case.
//!
//! A fresh `python -s -B -P main.py` spends most of its 30-45 ms starting:
//! the runtime, the encodings, `site` and whatever the installation's .pth
//! files import. Each slot's fork server (zygote.rs) therefore execs that
//! very command once, in the slot's cgroup and network namespace, with
//! `PYTHONPATH` pointing at a folder holding [`SERVER`] as
//! `sitecustomize.py`. `site` imports it at the end of the start-up, just
//! before the interpreter opens main.py, and there it serves. The
//! interpreter is pid 1 of a pid namespace of the slot's (zygote.rs
//! `enter_slot_pids`); each case is one fork of it into new user, mount and
//! IPC namespaces, pinned to pid 2, which binds the slot read-only, mounts a
//! fresh tmpfs on the case folder, writes main.py, sets the rlimits, starts
//! its own session, enforces the slot's Landlock ruleset, closes every
//! descriptor but 0-2, and drops
//! the capabilities an execve would have dropped: the steps and order of
//! `zygote::run_case`. Then it undoes what the server changed (modules
//! imported, `sys.path`, the importer cache, `PYTHONPATH`) and returns from
//! `sitecustomize`: the interpreter goes on with its own start-up, imports
//! the installation's real `sitecustomize` if there is one, and runs main.py
//! itself. Frames, tracebacks, `sys.argv`, `sys.path[0]`, buffering, exit
//! codes, signals, `atexit` and the shutdown are the interpreter's own.
//!
//! The server never runs case code, so every case starts from the same
//! state, and nothing a case does reaches the next: each is a fork, and
//! when it ends the server, as pid 1, kills and reaps every other process
//! of the namespace. At the program's shutdown the server's hooks
//! shorten the interpreter's teardown where that cannot be seen
//! (warm_server.py, `_Shutdown`).

use std::io;
use std::path::{Path, PathBuf};

use super::limits::Limits;

/// The server, installed as `sitecustomize.py` (see the file's comments).
pub(super) const SERVER: &str = include_str!("warm_server.py");

/// The descriptor the server reads its socket from (`_SERVER_FD`).
pub(super) const SERVER_FD: i32 = 3;
/// The descriptor of the slot's Landlock ruleset, when there is one.
pub(super) const RULESET_FD: i32 = 4;

/// Writes the server into `<cases>/warm/`; returns that folder, which the
/// slots' interpreters get as `PYTHONPATH` (cases cannot read it: it is
/// outside their Landlock rules and removed from their `sys.path`).
pub(super) fn install(cases: &Path) -> io::Result<PathBuf> {
    let dir = cases.join("warm");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("sitecustomize.py"), SERVER)?;
    std::fs::write(
        dir.join(super::proof::WARM_MODULE_FILE),
        super::proof::PRELUDE,
    )?;
    Ok(dir)
}

/// What the server needs per case, as NUL-separated `key=value` pairs: it
/// reads them from its socket before it says it is ready.
pub(super) struct ServerConfig<'a> {
    pub slot: &'a Path,
    pub case: &'a Path,
    pub tmpfs: &'a [u8],
    pub uid_map: &'a [u8],
    pub gid_map: &'a [u8],
    pub bind_flags: u64,
    pub limits: Limits,
    pub landlock: bool,
}

impl ServerConfig<'_> {
    pub fn message(&self) -> Vec<u8> {
        use std::os::unix::ffi::OsStrExt;
        let l = self.limits;
        let numbers = [
            ("bind_flags", self.bind_flags.to_string()),
            ("as", l.address_space.to_string()),
            ("cpu", l.cpu_secs.to_string()),
            ("fsize", l.file_size.to_string()),
            ("nofile", l.open_files.to_string()),
            ("nproc", l.processes.to_string()),
            (
                "ruleset",
                if self.landlock { RULESET_FD } else { -1 }.to_string(),
            ),
        ];
        let mut out = Vec::new();
        let mut push = |key: &str, value: &[u8]| {
            out.extend_from_slice(key.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value);
            out.push(0);
        };
        for (name, value) in constants() {
            push(&format!("const.{name}"), value.to_string().as_bytes());
        }
        push("slot", self.slot.as_os_str().as_bytes());
        push("case", self.case.as_os_str().as_bytes());
        push("tmpfs", self.tmpfs);
        push("uid_map", self.uid_map);
        push("gid_map", self.gid_map);
        for (key, value) in &numbers {
            push(key, value.as_bytes());
        }
        out
    }
}

/// The numbers the server shares with the harness and the kernel, by the
/// server's names for them: sent at start, so that they are written once
/// (here, from zygote.rs, isolate.rs and the libc crate), never copied.
pub(super) fn constants() -> Vec<(&'static str, i64)> {
    use super::isolate::{REPORT_FAILED, REPORT_STATUS};
    let mut out: Vec<(&'static str, i64)> = super::zygote::stage_numbers()
        .into_iter()
        .map(|(name, stage)| (name, i64::from(stage)))
        .collect();
    out.extend([
        ("_READY", i64::from(super::zygote::READY)),
        ("_REPORT_STATUS", i64::from(REPORT_STATUS)),
        ("_REPORT_FAILED", i64::from(REPORT_FAILED)),
        // The case's own user, mount and IPC namespaces; the network and
        // pid namespaces are the slot's (the server's: it is their pid 1).
        (
            "_CASE_NAMESPACES",
            i64::from(libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWIPC),
        ),
        (
            "_SYS_LANDLOCK_RESTRICT_SELF",
            libc::SYS_landlock_restrict_self,
        ),
        ("_PR_SET_PDEATHSIG", i64::from(libc::PR_SET_PDEATHSIG)),
        ("_PR_SET_NO_NEW_PRIVS", i64::from(libc::PR_SET_NO_NEW_PRIVS)),
        ("_MS_REC_PRIVATE", (libc::MS_REC | libc::MS_PRIVATE) as i64),
        ("_MS_BIND", libc::MS_BIND as i64),
        (
            "_MS_REMOUNT_BIND_RDONLY",
            (libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY) as i64,
        ),
        (
            "_MS_NOSUID_NODEV",
            (libc::MS_NOSUID | libc::MS_NODEV) as i64,
        ),
        // capset(2)'s header version for 64-bit capability sets.
        ("_CAPABILITY_VERSION", 0x2008_0522),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_message_holds_every_key_the_server_reads() {
        let limits = Limits {
            address_space: 1 << 30,
            cpu_secs: 20,
            file_size: 1 << 20,
            open_files: 256,
            processes: 64,
        };
        let config = ServerConfig {
            slot: Path::new("/t/slot"),
            case: Path::new("/t/slot/case"),
            tmpfs: b"size=1m",
            uid_map: b"0 0 1\n",
            gid_map: b"0 0 1\n",
            bind_flags: 2,
            limits,
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
                SERVER.contains(&format!("\"{key}\"")),
                "the server never reads {key}"
            );
        }
        assert!(text.contains("ruleset=4\0"), "{text}");
        assert!(text.contains("as=1073741824\0"), "{text}");
    }

    /// The shared numbers go in the message under the names the server
    /// lists; the server refuses to start on any other set (so every warm
    /// test would fail), which is why no number is copied into it.
    #[test]
    fn the_shared_numbers_are_sent_under_the_servers_names() {
        let listed = SERVER
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
            i64::from(super::super::isolate::REPORT_STATUS)
        );
        assert_eq!(sent.len(), listed.matches('"').count() / 2);
    }
}
