//! What the child does between fork and exec.
//!
//! Everything is prepared by the harness before the fork ([`ChildPlan`]);
//! after it only async-signal-safe system calls run: the harness has other
//! threads, so a lock held by one of them at fork time (e.g. the allocator's)
//! would never be released in the child.
//!
//! With namespaces the child becomes an *intermediate*: it unshares a user,
//! network, pid, mount and IPC namespace, then forks pid 1 of the new pid
//! namespace, which forks the program (pid 2). When the program ends, pid 1
//! reports its wait status on a pipe and exits, and the kernel kills every
//! other process of the namespace, setsid or double fork notwithstanding.
//! On timeout the harness kills pid 1, with the same effect.

use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use rustix::fs::{CWD, Mode, OFlags, openat};
use rustix::thread::UnshareFlags;

use super::case_spec::{self, MountStep, Start};
use super::{cgroup, filesystem};

/// Everything the child needs, prepared before the fork.
pub(super) struct ChildPlan {
    /// User, network, pid, mount and IPC namespaces.
    pub namespaces: Option<NamespacePlan>,
    /// The case folder: cwd, HOME and TMPDIR of the program.
    pub folder: CString,
    /// The files the case folder gets before the program starts: main.py
    /// for Python, sources or a compiled program for native code.
    pub files: Vec<FolderFile>,
    /// The case's rlimits (case_spec.rs), made before the fork.
    pub rlimits: Vec<case_spec::RlimitStep>,
    pub cgroup: Option<File>,
    /// The ruleset fd and the rights granted on the case folder.
    pub landlock: Option<(OwnedFd, u64)>,
}

/// A file written into the case folder after the fork (its name, bytes
/// and mode), prepared before it.
pub(super) struct FolderFile {
    pub name: CString,
    pub bytes: Vec<u8>,
    pub mode: u32,
}

pub(super) struct NamespacePlan {
    pub uid_map: Vec<u8>,
    pub gid_map: Vec<u8>,
    /// The case's mounts (case_spec.rs): private, and a tmpfs on the case
    /// folder, which bounds the disk space and inodes a program can use,
    /// unless the folder stays on disk.
    pub mounts: Vec<MountStep>,
    /// Write end of the pipe on which the intermediate reports pid 1's host
    /// pid and pid 1 the program's wait status.
    pub report: OwnedFd,
}

impl NamespacePlan {
    /// Maps the harness's own ids, so files keep their owners: the only
    /// mapping an unprivileged user may write.
    pub fn new(folder: &CStr, tmpfs: Option<&CStr>, report: OwnedFd) -> NamespacePlan {
        let (uid_map, gid_map) = id_maps();
        NamespacePlan {
            uid_map,
            gid_map,
            // Failures here are not reported by stage: the child's error is
            // returned to Command.
            mounts: case_spec::mounts(None, folder, tmpfs, case_spec::MountStages::UNREPORTED),
            report,
        }
    }
}

/// uid_map and gid_map contents mapping the harness's own ids, so files
/// keep their owners: the only mapping an unprivileged user may write.
pub(super) fn id_maps() -> (Vec<u8>, Vec<u8>) {
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    (
        format!("{uid} {uid} 1\n").into_bytes(),
        format!("{gid} {gid} 1\n").into_bytes(),
    )
}

impl ChildPlan {
    /// Runs in the child after fork. Returns only in the process that will
    /// exec Python.
    pub fn apply(&mut self) -> io::Result<()> {
        if let Some(procs) = &self.cgroup {
            cgroup::join(procs)?;
        }
        if let Some(ns) = &self.namespaces {
            enter_namespaces(&ns.uid_map, &ns.gid_map, Start::Fresh)?;
            for step in &ns.mounts {
                step.apply()?;
            }
        }
        // Again after the mount: the cwd set by Command is the folder below it.
        rustix::process::chdir(self.folder.as_c_str())?;
        for file in &self.files {
            write_folder_file(file)?;
        }
        case_spec::apply_rlimits(&self.rlimits)?;
        if let Some(ns) = &self.namespaces {
            become_pid_one(ns.report.as_raw_fd())?;
        }
        if let Some((ruleset, rights)) = &self.landlock {
            filesystem::restrict_self(ruleset, &self.folder, *rights)?;
        }
        Ok(())
    }
}

/// Unshares the case's namespaces (case_spec.rs, by how it starts) and
/// maps the harness's ids in them; its mounts come next.
pub(super) fn enter_namespaces(uid_map: &[u8], gid_map: &[u8], start: Start) -> io::Result<()> {
    let flags = UnshareFlags::from_bits_retain(start.namespaces() as u32);
    unshare_mapped(flags, uid_map, gid_map)
}

/// For a fork server: a user namespace of its own (the harness's ids
/// mapped to themselves, so a case's maps stay valid one level down) that
/// owns a new, empty network namespace, which every case of the slot then
/// runs in. Creating and destroying a network namespace per case cost about
/// 1 ms of CPU each (registering loopback, sysctls; the teardown runs in a
/// kernel worker), a tenth of what the harness spent per case. Isolation is
/// unchanged: the namespace has only a loopback that is down, a case's own
/// user namespace holds no capability over it (it belongs to the server's),
/// the slot runs one case at a time, and nothing a case starts outlives it
/// (its pid namespace dies with it), so no socket is left for the next.
pub(super) fn enter_slot_network(uid_map: &[u8], gid_map: &[u8]) -> io::Result<()> {
    unshare_mapped(
        UnshareFlags::NEWUSER | UnshareFlags::NEWNET,
        uid_map,
        gid_map,
    )
}

fn unshare_mapped(flags: UnshareFlags, uid_map: &[u8], gid_map: &[u8]) -> io::Result<()> {
    // SAFETY: no FILES/FS sharing is changed, and the caller is single-threaded.
    unsafe { rustix::thread::unshare_unsafe(flags) }?;
    write_file(c"/proc/self/setgroups", b"deny")?;
    write_file(c"/proc/self/uid_map", uid_map)?;
    write_file(c"/proc/self/gid_map", gid_map)
}

fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    let fd = openat(CWD, path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    write_all(fd.as_raw_fd(), data)
}

/// Creates `file` in the current folder (the case folder). Async-signal-safe.
fn write_folder_file(file: &FolderFile) -> io::Result<()> {
    let fd = openat(
        CWD,
        file.name.as_c_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
        Mode::from_raw_mode(file.mode),
    )?;
    write_all(fd.as_raw_fd(), &file.bytes)
}

/// A new, empty file `name` (main.py) in the current folder (the case
/// folder). Async-signal-safe.
pub(super) fn create_script(name: &CStr, mode: u32) -> io::Result<OwnedFd> {
    Ok(openat(
        CWD,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    )?)
}

pub(super) fn write_all(fd: i32, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        // SAFETY: write(2) on a borrowed buffer.
        let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        data = &data[n as usize..];
    }
    Ok(())
}

/// Report messages: 8 bytes, a kind and a value, each written atomically.
pub(super) const REPORT_PID_ONE: i32 = 1;
pub(super) const REPORT_STATUS: i32 = 2;
/// The intermediate's own host pid (fork server only: the harness is not
/// its parent, so it needs the pid to kill it as a last resort).
pub(super) const REPORT_INTERMEDIATE: i32 = 3;
/// A setup step failed: the value is `stage << 16 | errno`.
pub(super) const REPORT_FAILED: i32 = 4;

/// The (kind, value) of one report message.
pub(super) fn decode_report(msg: &[u8; 8]) -> (i32, i32) {
    let word = |i: usize| i32::from_ne_bytes([msg[i], msg[i + 1], msg[i + 2], msg[i + 3]]);
    (word(0), word(4))
}

pub(super) fn report_message(fd: i32, kind: i32, value: i32) {
    let mut msg = [0u8; 8];
    msg[..4].copy_from_slice(&kind.to_ne_bytes());
    msg[4..].copy_from_slice(&value.to_ne_bytes());
    let _ = write_all(fd, &msg);
}

/// Forks pid 1 of the new pid namespace, which forks the program as pid 2.
/// Only the program returns; the intermediate and pid 1 wait and exit.
///
/// The program is not pid 1 itself because the kernel shields a namespace's
/// init from its own signals: a program that kills itself would survive.
pub(super) fn become_pid_one(report: i32) -> io::Result<()> {
    reset_signal_handlers();
    let pid = fork()?;
    if pid == 0 {
        return become_program(report);
    }
    // The intermediate, in the harness's pid namespace.
    // If the harness dies (Ctrl-C), the case dies with it.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    report_message(report, REPORT_PID_ONE, pid);
    // Everything else inherited from the harness is closed, in particular
    // std's exec-error pipe: spawn() returns once it reaches EOF, i.e. when
    // the program has exec'd, not when it has finished.
    close_fds_except(report);
    let status = wait_for(pid);
    exit_like(status)
}

/// Pid 1: forks the program, reaps orphans until the program ends, reports
/// its status and exits, which makes the kernel kill what is left.
fn become_program(report: i32) -> io::Result<()> {
    // Killing the intermediate (the harness's timeout fallback) kills pid 1
    // and with it the namespace.
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
    let pid = fork()?;
    if pid == 0 {
        // Its own session and group: killpg(0) from the program reaches only
        // its own processes.
        rustix::process::setsid()?;
        // The report pipe is close-on-exec: the program itself never holds
        // it, but a failed exec can still be reported on it.
        return Ok(());
    }
    close_fds_except(report);
    let status = wait_for(pid);
    report_message(report, REPORT_STATUS, status);
    // SAFETY: _exit skips atexit handlers and destructors, as it must here.
    unsafe { libc::_exit(0) }
}

/// The harness's handlers (wait-timeout's SIGCHLD handler, signal-hook's)
/// are inherited by the fork but their file descriptors are closed here:
/// running them would abort the intermediate or pid 1.
pub(super) fn reset_signal_handlers() {
    for sig in [
        libc::SIGCHLD,
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
    ] {
        // SAFETY: signal(2) with SIG_DFL is async-signal-safe.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

pub(super) fn fork() -> io::Result<libc::pid_t> {
    // SAFETY: the process is single-threaded after the harness's fork, and
    // both sides only make async-signal-safe calls afterwards.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid)
}

/// Exits with the status a shell would show for `status`.
fn exit_like(status: i32) -> ! {
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    // SAFETY: _exit skips atexit handlers and destructors, as it must here.
    unsafe { libc::_exit(code) }
}

pub(super) fn close_fds_except(keep: i32) {
    // SAFETY: close_range(2) only closes descriptors.
    unsafe {
        if keep > 3 {
            libc::syscall(libc::SYS_close_range, 3u32, (keep - 1) as u32, 0u32);
        }
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
    }
}

/// Waits for `pid`, reaping any other child on the way: as pid 1, orphans
/// of the program are re-parented to us.
fn wait_for(pid: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own children.
        let r = unsafe { libc::waitpid(-1, &mut status, 0) };
        if r == pid {
            return status;
        }
        if r < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // Cannot happen for our own child; report "killed" to be safe.
            return libc::SIGKILL;
        }
    }
}
