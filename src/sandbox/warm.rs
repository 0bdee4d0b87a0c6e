//! The warm interpreter: one Python per execution slot, forked per case.
//!
//! A fresh `python -s -B -P main.py` spends most of its 30-45 ms starting:
//! the runtime, the encodings, `site` and whatever the installation's .pth
//! files import. Each slot's fork server (zygote.rs) therefore execs that
//! very command once, in the slot's cgroup and network namespace, with
//! `PYTHONPATH` pointing at a folder holding the runtime's
//! [`warm_server`](super::Runtime::warm_server) as `sitecustomize.py`. `site` imports it at the end of the start-up, just
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
//! of the namespace. After the program's atexit functions, the server's
//! way out ends the process before the interpreter's teardown when main.py
//! ended the normal way and nothing the program made could still run
//! (the server's `_WayOut`).

use std::io;
use std::path::{Path, PathBuf};

use super::Runtime;
use super::case_spec::{self, MountStep, RlimitStep, Start};

/// The descriptor the server reads its socket from (`_SERVER_FD`).
pub(super) const SERVER_FD: i32 = 3;
/// The descriptor of the slot's Landlock ruleset, when there is one.
pub(super) const RULESET_FD: i32 = 4;

/// Writes the runtime's server, and the tests' prelude beside it, into
/// `<cases>/warm/`; returns that folder, which the slots' interpreters get
/// as `PYTHONPATH` (cases cannot read it: it is outside their Landlock
/// rules and removed from their `sys.path`).
pub(super) fn install(cases: &Path, runtime: &Runtime) -> io::Result<PathBuf> {
    let dir = cases.join("warm");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("sitecustomize.py"), runtime.warm_server)?;
    std::fs::write(
        dir.join(super::proof::WARM_MODULE_FILE),
        runtime.tests_prelude,
    )?;
    Ok(dir)
}

/// What the server needs per case, as NUL-separated `key=value` pairs: it
/// reads them from its socket before it says it is ready.
pub(super) struct ServerConfig<'a> {
    pub case: &'a Path,
    /// What each case gets (case_spec.rs): the server applies the steps in
    /// order, knowing none of them.
    pub mounts: &'a [MountStep],
    pub rlimits: &'a [RlimitStep],
    pub uid_map: &'a [u8],
    pub gid_map: &'a [u8],
    pub landlock: bool,
}

impl ServerConfig<'_> {
    pub fn message(&self) -> Vec<u8> {
        use std::os::unix::ffi::OsStrExt;
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
        push("case", self.case.as_os_str().as_bytes());
        push("mounts", &case_spec::mounts_message(self.mounts));
        push(
            "rlimits",
            case_spec::rlimits_message(self.rlimits).as_bytes(),
        );
        push("uid_map", self.uid_map);
        push("gid_map", self.gid_map);
        let ruleset = if self.landlock { RULESET_FD } else { -1 };
        push("ruleset", ruleset.to_string().as_bytes());
        out
    }
}

/// The numbers the server shares with the harness and the kernel, by the
/// server's names for them: sent at start, so that they are written once
/// (here, from setup_stage.rs, isolate.rs and the libc crate), never copied.
pub(super) fn constants() -> Vec<(&'static str, i64)> {
    use super::isolate::{REPORT_FAILED, REPORT_STATUS};
    let mut out: Vec<(&'static str, i64)> = super::setup_stage::stage_numbers()
        .into_iter()
        .map(|(name, stage)| (name, i64::from(stage)))
        .collect();
    out.extend([
        ("_READY", i64::from(super::setup_stage::READY)),
        ("_REPORT_STATUS", i64::from(REPORT_STATUS)),
        ("_REPORT_FAILED", i64::from(REPORT_FAILED)),
        // The case's own user, mount and IPC namespaces; the network and
        // pid namespaces are the slot's (the server's: it is their pid 1).
        ("_CASE_NAMESPACES", i64::from(Start::Warm.namespaces())),
        (
            "_SYS_LANDLOCK_RESTRICT_SELF",
            libc::SYS_landlock_restrict_self,
        ),
        ("_PR_SET_PDEATHSIG", i64::from(libc::PR_SET_PDEATHSIG)),
        ("_PR_SET_NO_NEW_PRIVS", i64::from(libc::PR_SET_NO_NEW_PRIVS)),
        // capset(2)'s header version for 64-bit capability sets.
        ("_CAPABILITY_VERSION", 0x2008_0522),
    ]);
    out
}
