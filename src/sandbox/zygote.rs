//! A fork server per execution slot: the slot's pids cgroup is joined, its
//! Landlock ruleset built and the interpreter's arguments prepared once, and
//! every case is a fork of the server into fresh namespaces.
//!
//! Why: on cgroup v1, moving a process into a cgroup waits for an RCU grace
//! period (about 9 ms per case here, measured with strace), and a ruleset
//! opens some twenty paths (about 2 ms); that was most of what the sandbox
//! cost over the bare interpreter. A process forked by a member of a cgroup
//! is born in it, so a server that joined once pays it once.
//!
//! Every case starts from the same clean state: the server never runs case
//! code. A case is a fork of it that unshares user, pid, mount and IPC
//! namespaces (the network namespace, empty, is the server's: see
//! `isolate::enter_slot_network`), binds the slot folder read-only, mounts a fresh tmpfs on
//! `slot/case`, writes main.py there and execs the interpreter as pid 2 under
//! a reaper, as the per-case path in isolate.rs does. What a case leaves
//! behind dies with its pid namespace, and its files with its tmpfs.
//!
//! The server is a fork of the multi-threaded harness, so after the fork it
//! makes only async-signal-safe calls on data prepared before it, like the
//! child of `Command::pre_exec`. It exits when the harness closes its socket
//! (also when the harness dies), and its running case dies with it.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut, Read, Seek, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::StatVfsMountFlags;
use rustix::mount::MountFlags;
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType, recvmsg, sendmsg, socketpair,
};
use rustix::process::{Pid, PidfdFlags, Signal, pidfd_open, pidfd_send_signal};

use super::case_spec::{self, MountStages, MountStep, RlimitStep, Start};
use super::cgroup::{self, CaseCgroup, RunCgroup};
use super::filesystem::{self, FsPolicy, LandlockError};
use super::host_files::report_pipe;
use super::isolate::{
    self, REPORT_FAILED, REPORT_INTERMEDIATE, REPORT_PID_ONE, REPORT_STATUS, report_message,
};
use super::limits::Limits;
use super::mode::Mode;
use super::setup_stage::{
    BIND_SLOT, ENTER_FOLDER, EXEC, FORK, JOIN_CGROUP, LANDLOCK, MOUNT_TMPFS, NAMESPACES, READY,
    REAPER, RLIMITS, SLOT_NETWORK, SLOT_PIDS, StageFailure, WRITE_SCRIPT, failure, stage_error,
};
use super::warm;

/// How long a server may take to start, and a killed case to vanish.
const GRACE: Duration = Duration::from_secs(5);

/// What the server needs for every case, in the shape the child uses.
pub(super) struct ServerSpec<'a> {
    pub mode: Mode,
    pub cases: &'a Path,
    pub cgroup: Option<&'a RunCgroup>,
    /// pids.max of the slot: the program's processes plus the server, the
    /// intermediate and the reaper (one fewer for a warm slot: the idle
    /// interpreter and its pid 1).
    pub max_tasks: u64,
    pub policy: &'a FsPolicy,
    /// What every case execs: the interpreter, or a native toolchain's
    /// runtime (launch.rs).
    pub program: &'a Path,
    pub args: &'a [&'a OsStr],
    /// The program's whole environment, given the case folder.
    pub env: &'a dyn Fn(&Path) -> Vec<(&'static str, OsString)>,
    /// The tests' prelude (proof.rs): `PYTHONPATH` of the interpreter a
    /// case execs (the warm interpreter imports it from its own folder).
    /// None for a native program.
    pub prelude: Option<&'a Path>,
    /// The name the case's code gets in its folder (`main.py`, `prog.lua`),
    /// and its mode (0o700 for a program a build made).
    pub file: &'a CStr,
    pub file_mode: u32,
    pub tmpfs: CString,
    pub limits: Limits,
    /// The warm interpreter's folder (warm.rs): the server execs it instead
    /// of forking a fresh interpreter per case.
    pub warm: Option<&'a Path>,
}

/// The harness's handle on one server.
pub(super) struct Zygote {
    pid: libc::pid_t,
    sock: OwnedFd,
    pub mode: Mode,
    /// Whether this is a warm interpreter (warm.rs) rather than the Rust server.
    pub warm: bool,
    /// Which of the warm interpreter's fast paths work on this interpreter.
    pub warm_paths: Option<WarmPaths>,
    /// Removed after the server is gone (field order: dropped after `sock`).
    cgroup: Option<CaseCgroup>,
    _slot: tempfile::TempDir,
}

/// The warm interpreter's fast paths, as it reported them when ready: each
/// works where what it needs is there, and one that does not is off alone
/// (the case then takes the interpreter's own way for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WarmPaths {
    /// Each program pinned to pid 2 of the slot's pid namespace, as the
    /// fresh paths have it (`ns_last_pid` writable).
    pub pinned: bool,
    /// How the shorter way out after the program's atexit functions knows
    /// that main.py ended the normal way; None: it is off.
    pub way_out: Option<WayOutProof>,
}

/// What tells the warm interpreter that main.py returned (or raised) rather
/// than called `sys.exit()`, whose status only the interpreter knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WayOutProof {
    /// sys.monitoring's PY_RETURN event on main.py's code (3.12 and later).
    Monitoring,
    /// The C stack, read by backtrace() (3.11 with glibc).
    Backtrace,
}

impl WarmPaths {
    fn from_ready(value: i32) -> WarmPaths {
        WarmPaths {
            way_out: if value & 0x100 != 0 {
                Some(WayOutProof::Monitoring)
            } else if value & 0x200 != 0 {
                Some(WayOutProof::Backtrace)
            } else {
                None
            },
            pinned: value & 0x800 != 0,
        }
    }

    /// `one fork per case ...; a shorter way out after the atexit functions`.
    pub fn describe(self) -> String {
        let start = if self.pinned {
            "one fork per case, of the slot's pid 1, the program as pid 2"
        } else {
            "one fork per case, of the slot's pid 1 (program pids not pinned to 2)"
        };
        match self.way_out {
            Some(proof) => format!(
                "{start}; a shorter way out after the atexit functions when nothing is left to \
                 finalize (main.py's end {})",
                match proof {
                    WayOutProof::Monitoring => "seen by sys.monitoring",
                    WayOutProof::Backtrace => "read from the C stack",
                }
            ),
            None => format!("{start}; the interpreter's own shutdown"),
        }
    }

    /// Why a fast path is off here, for the log (None: all on).
    pub fn missing(self) -> Option<String> {
        let mut why = Vec::new();
        if !self.pinned {
            why.push(
                "/proc/sys/kernel/ns_last_pid is not writable (a kernel without \
                 CONFIG_CHECKPOINT_RESTORE?): programs see pids other than 2",
            );
        }
        if self.way_out.is_none() {
            why.push(
                "no sys.monitoring (before 3.12) and the C stack is not readable (no \
                 backtrace()/dladdr(): musl?): every program takes the interpreter's own \
                 shutdown",
            );
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// Why a fork server could not be started.
#[derive(Debug, thiserror::Error)]
pub(super) enum ZygoteError {
    #[error("cannot create a slot folder: {0}")]
    SlotFolder(#[source] io::Error),
    #[error("cannot create {}: {source}", .path.display())]
    CaseFolder { path: PathBuf, source: io::Error },
    /// The slot's pids cgroup, in the run's cgroup at `path`.
    #[error("cannot create a pids cgroup in {}: {source}", .path.display())]
    Cgroup { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Landlock(#[from] LandlockError),
    #[error("cannot create the fork server's socket: {0}")]
    Socket(#[source] rustix::io::Errno),
    #[error("cannot open /dev/null: {0}")]
    DevNull(#[source] io::Error),
    /// The slot cgroup's `cgroup.procs` cannot be handed to the server.
    #[error(transparent)]
    CgroupHandle(io::Error),
    #[error("{} contains NUL", .0.display())]
    NulInPath(PathBuf),
    #[error("an argument contains NUL")]
    NulInArgument,
    #[error("cannot fork the fork server: {0}")]
    Fork(#[source] io::Error),
    #[error("the fork server did not start within {} s", GRACE.as_secs())]
    StartTimeout,
    /// The server reported a setup step that failed.
    #[error(transparent)]
    Stage(#[from] StageFailure),
    #[error("the fork server exited while starting")]
    ExitedWhileStarting,
    /// The warm interpreter did not say it was ready; `output` is what it
    /// wrote (a traceback, say).
    #[error("the warm interpreter did not start ({cause}){}", warm_output(.output))]
    WarmStart {
        cause: Box<ZygoteError>,
        output: String,
    },
    #[error("cannot create the warm interpreter's log: {0}")]
    WarmLog(#[source] io::Error),
    #[error("the fork server's socket failed: {0}")]
    SocketFailed(#[source] rustix::io::Errno),
}

/// Why a case could not be run.
pub(super) enum Failure {
    /// The server is gone or broken: start another and run the case again.
    ServerGone(String),
    /// A setup step of this case failed.
    Setup(String),
}

/// How a case ended.
pub(super) struct Ended {
    /// The program's wait status, as its reaper reported it.
    pub status: Option<i32>,
    pub timed_out: bool,
    pub duration: Duration,
}

impl Zygote {
    /// Prepares what the slot's server owns, forks it, and waits until it
    /// says it is ready.
    pub fn spawn(spec: &ServerSpec) -> Result<Zygote, ZygoteError> {
        let (slot, case) = slot_folders(spec.cases)?;
        let cgroup = slot_cgroup(spec)?;
        let warm_log = match spec.warm {
            Some(_) => Some(File::from(
                rustix::fs::memfd_create("prompteval-warm-log", rustix::fs::MemfdFlags::CLOEXEC)
                    .map_err(|e| ZygoteError::WarmLog(e.into()))?,
            )),
            None => None,
        };
        let (ours, theirs) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(ZygoteError::Socket)?;
        let kit = ServerKit::prepare(spec, slot.path(), &case, theirs, &cgroup, &warm_log)?;
        let config = spec.warm.map(|_| kit.warm_config(&case));
        let pid = isolate::fork().map_err(ZygoteError::Fork)?;
        if pid == 0 {
            serve(kit);
        }
        drop(kit);
        let mut zygote = Zygote {
            pid,
            sock: ours,
            mode: spec.mode,
            warm: spec.warm.is_some(),
            warm_paths: None,
            cgroup,
            _slot: slot,
        };
        match (zygote.start(config.as_deref(), spec.max_tasks), warm_log) {
            (Ok(()), _) => Ok(zygote),
            (Err(cause), Some(log)) => {
                // Reaped first, so that the log holds all it wrote.
                drop(zygote);
                Err(ZygoteError::WarmStart {
                    cause: Box::new(cause),
                    output: read_log(&log),
                })
            }
            (Err(e), None) => Err(e),
        }
    }

    /// Sends the warm interpreter its start message (when there is one),
    /// waits for the ready message, and sets the slot's pids limit.
    fn start(&mut self, config: Option<&[u8]>, max_tasks: u64) -> Result<(), ZygoteError> {
        let ready = match config {
            Some(message) => rustix::net::send(&self.sock, message, SendFlags::NOSIGNAL)
                .map_err(ZygoteError::SocketFailed)
                .and_then(|_| self.await_ready()),
            None => self.await_ready(),
        }?;
        // The warm interpreter says which of its fast paths work here.
        if self.warm {
            self.warm_paths = Some(WarmPaths::from_ready(ready));
        }
        // A warm slot holds two processes of ours beside the program's (the
        // interpreter, idle, and its child, the slot's pid 1); the Rust
        // server's case holds three (server, intermediate, reaper).
        match &self.cgroup {
            Some(group) if self.warm => {
                group
                    .set_max(max_tasks.saturating_sub(1))
                    .map_err(|source| ZygoteError::Cgroup {
                        path: group.path().to_path_buf(),
                        source,
                    })
            }
            _ => Ok(()),
        }
    }

    /// The server's ready message's value (see `spawn`).
    fn await_ready(&self) -> Result<i32, ZygoteError> {
        let mut msg = [0u8; 8];
        if !readable(self.sock.as_fd(), Some(Instant::now() + GRACE)) {
            return Err(ZygoteError::StartTimeout);
        }
        match rustix::net::recv(&self.sock, &mut msg, rustix::net::RecvFlags::empty()) {
            Ok((8, _)) => match isolate::decode_report(&msg) {
                (READY, helpers) => Ok(helpers),
                (_, value) => Err(stage_error(value).into()),
            },
            Ok(_) => Err(ZygoteError::ExitedWhileStarting),
            Err(e) => Err(ZygoteError::SocketFailed(e)),
        }
    }

    /// Runs `code` in a new case, its output going to `stdout` and `stderr`,
    /// with `proof` (a tests case's, see proof.rs) on its stdin.
    pub fn run(
        &self,
        code: &[u8],
        stdout: &File,
        stderr: &File,
        proof: Option<&File>,
        timeout: Duration,
    ) -> Result<Ended, Failure> {
        let (pipe, started) = self.send_case(code, stdout, stderr, proof)?;
        let mut watch = Watch::new(pipe);
        if self.warm {
            watch.program = self.receive_program();
        }
        let timed_out = !watch.read_until(Some(started + timeout));
        if timed_out {
            self.stop_overdue(&mut watch)?;
        }
        let duration = started.elapsed();
        watch.await_namespace_end();
        if let Some(value) = watch.failed {
            return Err(Failure::Setup(format!(
                "{}{}",
                stage_error(value),
                warm_output(&read_log(stderr))
            )));
        }
        if watch.status.is_none() && !timed_out {
            return Err(if self.alive() {
                Failure::Setup(
                    "the case's reaper ended without reporting the program's status (killed \
                     from outside the harness?)"
                        .into(),
                )
            } else {
                Failure::ServerGone("the fork server died during the case".into())
            });
        }
        Ok(Ended {
            status: watch.status,
            timed_out,
            duration,
        })
    }

    /// Hands the server a case: main.py (in a memfd), the output files,
    /// the report pipe's write end and the proof; the report pipe's read
    /// end and when the case began.
    fn send_case(
        &self,
        code: &[u8],
        stdout: &File,
        stderr: &File,
        proof: Option<&File>,
    ) -> Result<(File, Instant), Failure> {
        let setup = |e: io::Error| Failure::Setup(format!("cannot prepare the case: {e}"));
        let script = rustix::fs::memfd_create("main.py", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| setup(e.into()))?;
        File::from(script.try_clone().map_err(setup)?)
            .write_all(code)
            .map_err(setup)?;
        let (pipe, writer) = report_pipe().map_err(|e| Failure::Setup(e.message))?;
        let mut fds = vec![
            stdout.as_fd(),
            stderr.as_fd(),
            script.as_fd(),
            writer.as_fd(),
        ];
        fds.extend(proof.map(|p| p.as_fd()));
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(5))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        control.push(SendAncillaryMessage::ScmRights(&fds));
        let started = Instant::now();
        sendmsg(
            &self.sock,
            &[IoSlice::new(b"case")],
            &mut control,
            SendFlags::NOSIGNAL,
        )
        .map_err(|e| Failure::ServerGone(format!("the fork server is gone: {e}")))?;
        // Only the case holds the write end now: EOF means it is over.
        drop(writer);
        drop(script);
        Ok((pipe, started))
    }

    /// A case past its time: killed in steps (its pid namespace, then the
    /// intermediate, then a warm slot as a whole), each given [`GRACE`].
    fn stop_overdue(&self, watch: &mut Watch) -> Result<(), Failure> {
        watch.kill(Target::Namespace);
        if watch.read_until(Some(Instant::now() + GRACE)) {
            return Ok(());
        }
        watch.kill(Target::Intermediate);
        if self.warm {
            // The warm server did not end the case: the slot goes, its pid
            // namespace (every process of the case) with it.
            // SAFETY: killing our own child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
        if watch.read_until(Some(Instant::now() + GRACE)) {
            return Ok(());
        }
        Err(Failure::ServerGone(
            "a timed-out case did not end 10 s after SIGKILL".into(),
        ))
    }

    /// The warm case's first message on the socket: the program's pidfd,
    /// sent by the program itself as it starts, which a timeout kills (the
    /// interpreter, as the slot's pid 1, then kills what the program left).
    /// None when the fork failed (the server then sends the message
    /// without one, and the report pipe says why).
    fn receive_program(&self) -> Option<OwnedFd> {
        if !readable(self.sock.as_fd(), Some(Instant::now() + GRACE)) {
            return None;
        }
        let mut payload = [0u8; 8];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        recvmsg(
            &self.sock,
            &mut [IoSliceMut::new(&mut payload)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        )
        .ok()?;
        control.drain().find_map(|message| match message {
            RecvAncillaryMessage::ScmRights(mut fds) => fds.next(),
            _ => None,
        })
    }

    fn alive(&self) -> bool {
        // SAFETY: waitpid with WNOHANG on our own child.
        unsafe { libc::waitpid(self.pid, std::ptr::null_mut(), libc::WNOHANG) == 0 }
    }
}

impl Drop for Zygote {
    /// Closing the socket ends the server; it is reaped before its cgroup
    /// and slot folder are removed.
    fn drop(&mut self) {
        let _ = rustix::net::shutdown(&self.sock, rustix::net::Shutdown::Both);
        let deadline = Instant::now() + GRACE;
        loop {
            // SAFETY: waitpid with WNOHANG on our own child.
            let r = unsafe { libc::waitpid(self.pid, std::ptr::null_mut(), libc::WNOHANG) };
            if r != 0 {
                return;
            }
            if Instant::now() > deadline {
                // SAFETY: killing and reaping our own child.
                unsafe {
                    libc::kill(self.pid, libc::SIGKILL);
                    libc::waitpid(self.pid, std::ptr::null_mut(), 0);
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

enum Target {
    Namespace,
    Intermediate,
}

/// The harness's end of a case's report pipe.
struct Watch {
    pipe: File,
    intermediate: Option<OwnedFd>,
    pid_one: Option<OwnedFd>,
    /// The warm interpreter's program (its server is the slot's pid 1).
    program: Option<OwnedFd>,
    status: Option<i32>,
    failed: Option<i32>,
}

impl Watch {
    fn new(pipe: File) -> Watch {
        Watch {
            pipe,
            intermediate: None,
            pid_one: None,
            program: None,
            status: None,
            failed: None,
        }
    }

    /// Reads reports until EOF (true: every process of the case is gone)
    /// or the deadline (false).
    fn read_until(&mut self, deadline: Option<Instant>) -> bool {
        loop {
            if !readable(self.pipe.as_fd(), deadline) {
                return false;
            }
            let mut msg = [0u8; 8];
            match self.pipe.read(&mut msg) {
                Ok(0) => return true,
                Ok(8) => self.note(isolate::decode_report(&msg)),
                // Messages are written whole; anything else is the end.
                Ok(_) => return true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return true,
            }
        }
    }

    fn note(&mut self, (kind, value): (i32, i32)) {
        let pidfd = || pidfd_open(Pid::from_raw(value)?, PidfdFlags::empty()).ok();
        match kind {
            REPORT_INTERMEDIATE => self.intermediate = pidfd(),
            REPORT_PID_ONE => self.pid_one = pidfd(),
            REPORT_STATUS => self.status = Some(value),
            REPORT_FAILED => self.failed = Some(value),
            _ => {}
        }
    }

    /// With an intermediate, the pipe's end already means every process
    /// of the case is gone: it exits only after pid 1 has. A reaper cloned
    /// without one closes its end as it starts to exit, before the kernel
    /// has killed and reaped the rest of its namespace; pid 1 becomes a
    /// zombie (its pidfd readable) only once they are gone.
    fn await_namespace_end(&self) {
        if self.intermediate.is_none()
            && let Some(pid_one) = &self.pid_one
        {
            readable(pid_one.as_fd(), Some(Instant::now() + GRACE));
        }
    }

    /// Killing pid 1 makes the kernel kill the whole pid namespace; the
    /// intermediate is the last resort (its death kills pid 1 too). A warm
    /// case's program is killed alone: its server, the slot's pid 1, then
    /// kills and reaps the rest before it closes the report pipe.
    fn kill(&self, target: Target) {
        let fd = match target {
            Target::Namespace => self
                .pid_one
                .as_ref()
                .or(self.intermediate.as_ref())
                .or(self.program.as_ref()),
            Target::Intermediate => self.intermediate.as_ref(),
        };
        if let Some(fd) = fd {
            let _ = pidfd_send_signal(fd, Signal::KILL);
        }
    }
}

/// Waits until `fd` is readable (or hung up) or the deadline passes.
fn readable(fd: BorrowedFd, deadline: Option<Instant>) -> bool {
    loop {
        let timeout = match deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return false;
                }
                i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX)
            }
            None => -1,
        };
        let mut pfd = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout) };
        if n > 0 {
            return true;
        }
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return true;
        }
    }
}

fn c_path(p: &Path) -> Result<CString, ZygoteError> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| ZygoteError::NulInPath(p.to_path_buf()))
}

/// The flags a read-only rebind must keep: a user namespace may not clear
/// nosuid, nodev or noexec of the mount it inherited.
fn locked_flags(p: &Path) -> MountFlags {
    let Ok(st) = rustix::fs::statvfs(p) else {
        return MountFlags::empty();
    };
    let mut flags = MountFlags::empty();
    for (has, keep) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
    ] {
        if st.f_flag.contains(has) {
            flags |= keep;
        }
    }
    flags
}

/// execve's arguments, as null-terminated pointer arrays built before the fork.
struct Exec {
    path: CString,
    _strings: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

impl Exec {
    fn new(
        program: &Path,
        args: &[&OsStr],
        env: &[(&'static str, OsString)],
    ) -> Result<Exec, ZygoteError> {
        let path = c_path(program)?;
        let nul = |s: Vec<u8>| CString::new(s).map_err(|_| ZygoteError::NulInArgument);
        let argv: Vec<CString> = std::iter::once(Ok(path.clone()))
            .chain(args.iter().map(|a| nul(a.as_bytes().to_vec())))
            .collect::<Result<_, _>>()?;
        let envp: Vec<CString> = env
            .iter()
            .map(|(k, v)| nul([k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<Result<_, _>>()?;
        let pointers = |v: &[CString]| -> Vec<*const libc::c_char> {
            v.iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        let (argv_p, envp_p) = (pointers(&argv), pointers(&envp));
        Ok(Exec {
            path,
            _strings: argv.into_iter().chain(envp).collect(),
            argv: argv_p,
            envp: envp_p,
        })
    }
}

/// The warm interpreter the server execs instead of serving (warm.rs).
struct WarmExec {
    exec: Exec,
    /// Its stdout and stderr: what it says when it cannot start.
    log: OwnedFd,
}

/// Up to the last 2 KiB the warm interpreter wrote.
fn read_log(log: &File) -> String {
    let mut text = Vec::new();
    let _ = (&*log).seek(io::SeekFrom::Start(0));
    let _ = (&*log).read_to_end(&mut text);
    let tail = &text[text.len().saturating_sub(2048)..];
    String::from_utf8_lossy(tail).trim().to_string()
}

fn warm_output(output: &str) -> String {
    if output.is_empty() {
        String::new()
    } else {
        format!(": {output}")
    }
}

/// The slot's folder and, inside it, the folder each case runs in.
fn slot_folders(cases: &Path) -> Result<(tempfile::TempDir, PathBuf), ZygoteError> {
    let slot = tempfile::Builder::new()
        .prefix("slot-")
        .tempdir_in(cases)
        .map_err(ZygoteError::SlotFolder)?;
    let case = slot.path().join("case");
    std::fs::create_dir(&case).map_err(|source| ZygoteError::CaseFolder {
        path: case.clone(),
        source,
    })?;
    Ok((slot, case))
}

/// The slot's pids cgroup, where the mode has cgroups.
fn slot_cgroup(spec: &ServerSpec) -> Result<Option<CaseCgroup>, ZygoteError> {
    let Some(run) = spec.cgroup.filter(|_| spec.mode.cgroup) else {
        return Ok(None);
    };
    run.case(spec.max_tasks)
        .map(Some)
        .map_err(|source| ZygoteError::Cgroup {
            path: run.path().to_path_buf(),
            source,
        })
}

/// Everything the server owns, prepared by the harness before the fork.
struct ServerKit {
    sock: OwnedFd,
    null: OwnedFd,
    cgroup: Option<File>,
    ruleset: Option<OwnedFd>,
    /// uid_map and gid_map contents (isolate::id_maps).
    ids: (Vec<u8>, Vec<u8>),
    case: CString,
    /// What each case gets (case_spec.rs), made before the fork.
    mounts: Vec<MountStep>,
    rlimits: Vec<RlimitStep>,
    exec: Exec,
    /// The name the case's code is copied to in the case folder, and its mode.
    file: CString,
    file_mode: u32,
    warm: Option<WarmExec>,
}

impl ServerKit {
    fn prepare(
        spec: &ServerSpec,
        slot: &Path,
        case: &Path,
        sock: OwnedFd,
        cgroup: &Option<CaseCgroup>,
        warm_log: &Option<File>,
    ) -> Result<ServerKit, ZygoteError> {
        let ruleset = match spec.mode.landlock {
            Some(_) => Some(filesystem::build_slot_ruleset(spec.policy, slot)?),
            None => None,
        };
        let warm = match (spec.warm, warm_log) {
            (Some(dir), Some(log)) => Some(WarmExec {
                exec: Exec::new(
                    spec.program,
                    spec.args,
                    &super::warm_env((spec.env)(case), dir),
                )?,
                log: log.try_clone().map_err(ZygoteError::WarmLog)?.into(),
            }),
            _ => None,
        };
        let (slot_c, case_c) = (c_path(slot)?, c_path(case)?);
        let mounts = case_spec::mounts(
            Some((
                slot_c.as_c_str(),
                libc::c_ulong::from(locked_flags(slot).bits()),
            )),
            &case_c,
            Some(spec.tmpfs.as_c_str()),
            MountStages {
                namespaces: NAMESPACES,
                bind_slot: BIND_SLOT,
                tmpfs: MOUNT_TMPFS,
            },
        );
        Ok(ServerKit {
            sock,
            null: File::options()
                .read(true)
                .write(true)
                .open("/dev/null")
                .map_err(ZygoteError::DevNull)?
                .into(),
            cgroup: match cgroup {
                Some(c) => Some(c.procs.try_clone().map_err(ZygoteError::CgroupHandle)?),
                None => None,
            },
            ruleset,
            ids: isolate::id_maps(),
            case: case_c,
            mounts,
            rlimits: case_spec::rlimits(&spec.limits),
            exec: Exec::new(
                spec.program,
                spec.args,
                &match spec.prelude {
                    Some(prelude) => super::with_pythonpath((spec.env)(case), prelude),
                    None => (spec.env)(case),
                },
            )?,
            file: spec.file.to_owned(),
            file_mode: spec.file_mode,
            warm,
        })
    }

    /// The warm interpreter's start message: the same case steps the Rust
    /// server applies, as lists.
    fn warm_config(&self, case: &Path) -> Vec<u8> {
        warm::ServerConfig {
            case,
            mounts: &self.mounts,
            rlimits: &self.rlimits,
            uid_map: &self.ids.0,
            gid_map: &self.ids.1,
            landlock: self.ruleset.is_some(),
        }
        .message()
    }
}

/// The server: forks a case per request until the harness hangs up.
fn serve(kit: ServerKit) -> ! {
    isolate::reset_signal_handlers();
    let sock = kit.sock.as_raw_fd();
    if let Some(procs) = &kit.cgroup
        && let Err(e) = cgroup::join(procs)
    {
        report_message(sock, REPORT_FAILED, failure(JOIN_CGROUP, &e));
        exit(1);
    }
    if let Err(e) = isolate::enter_slot_network(&kit.ids.0, &kit.ids.1) {
        report_message(sock, REPORT_FAILED, failure(SLOT_NETWORK, &e));
        exit(1);
    }
    if let Some(warm) = &kit.warm {
        if let Err(e) = enter_slot_pids() {
            report_message(sock, REPORT_FAILED, failure(SLOT_PIDS, &e));
            exit(1);
        }
        exec_warm(&kit, warm);
    }
    // Cases are reaped by the kernel; the harness learns their end from
    // their report pipe. (Not for the warm interpreter: its cases would
    // inherit the disposition, and a program's subprocess.wait would fail.)
    // SAFETY: signal(2) with SIG_IGN is async-signal-safe.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    let mut keep = [
        sock,
        kit.null.as_raw_fd(),
        kit.cgroup.as_ref().map_or(-1, |f| f.as_raw_fd()),
        kit.ruleset.as_ref().map_or(-1, |f| f.as_raw_fd()),
    ];
    close_all_but(&mut keep);
    report_message(sock, READY, 0);
    loop {
        let mut payload = [0u8; 4];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(5))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        match recvmsg(
            &kit.sock,
            &mut [IoSliceMut::new(&mut payload)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Ok(m) if m.bytes == 0 => exit(0),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => exit(0),
        }
        // stdout, stderr, main.py, the report pipe, and a tests case's proof.
        let mut fds: [Option<OwnedFd>; 5] = [None, None, None, None, None];
        let mut n = 0;
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(received) = message {
                for fd in received {
                    if n < fds.len() {
                        fds[n] = Some(fd);
                    }
                    n += 1;
                }
            }
        }
        let [Some(out), Some(err), Some(script), Some(report), proof] = fds else {
            // Not a request of ours: the received fds close here.
            continue;
        };
        match isolate::fork() {
            Ok(0) => run_case(&kit, out, err, script, report, proof),
            Ok(_) => {}
            Err(e) => report_message(report.as_raw_fd(), REPORT_FAILED, failure(FORK, &e)),
        }
    }
}

/// For the warm interpreter: a pid namespace of the slot, which the
/// interpreter's first child enters as its pid 1 (warm_server.py: the
/// interpreter forks it at once, and itself stays behind as the slot's
/// process for the harness, idle, killing pid 1 if the harness hangs up).
/// Each case is then one fork of pid 1 (the program, pinned to pid 2
/// through `ns_last_pid`), and when the program ends pid 1 kills and reaps
/// whatever it left (`kill(-1)` reaches every other process of the
/// namespace): the reaper and the pid namespace per case that the fresh
/// paths need, without a second copy of the interpreter per case.
///
/// The interpreter keeps `CAP_SYS_ADMIN` over the slot's own user namespace
/// across its exec (the ambient set): writing `ns_last_pid` needs it. A
/// case's program leaves it behind when it enters its own user namespace.
fn enter_slot_pids() -> io::Result<()> {
    use rustix::thread::{CapabilitySet, UnshareFlags};
    // SAFETY: single-threaded; no FILES/FS sharing changes.
    unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWPID) }?;
    // Only the pinning of pids needs it: where the capability cannot be
    // kept, the interpreter finds ns_last_pid unwritable and says so
    // (WarmPaths::pinned), and everything else works as before.
    if let Ok(mut sets) = rustix::thread::capabilities(None) {
        sets.inheritable |= CapabilitySet::SYS_ADMIN;
        if rustix::thread::set_capabilities(None, sets).is_ok() {
            let _ =
                rustix::thread::configure_capability_in_ambient_set(CapabilitySet::SYS_ADMIN, true);
        }
    }
    Ok(())
}

/// Becomes the warm interpreter: `python -s -B -P main.py` in the slot's
/// case folder with the program's environment plus `PYTHONPATH`, its
/// stdin /dev/null, stdout and stderr its log, its socket on fd 3 and the
/// ruleset on fd 4, nothing else open, and the signal state a case's exec
/// gets (run_case). Never returns.
fn exec_warm(kit: &ServerKit, warm: &WarmExec) -> ! {
    let sock = kit.sock.as_raw_fd();
    let fail = |stage: i32, e: io::Error| -> ! {
        report_message(sock, REPORT_FAILED, failure(stage, &e));
        exit(1)
    };
    // Every source above the targets first, so no dup2 overwrites another.
    let high = |fd: i32| -> i32 {
        // SAFETY: fcntl(2) on a descriptor we own.
        unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 16) }
    };
    let null = high(kit.null.as_raw_fd());
    let log = high(warm.log.as_raw_fd());
    let server = high(sock);
    let ruleset = kit.ruleset.as_ref().map_or(-1, |r| high(r.as_raw_fd()));
    if null < 0 || log < 0 || server < 0 || (kit.ruleset.is_some() && ruleset < 0) {
        fail(EXEC, io::Error::last_os_error());
    }
    // No allocation after the fork: a fixed array, the ruleset's move
    // skipped when there is none.
    let moves = [
        (null, 0),
        (log, 1),
        (log, 2),
        (server, warm::SERVER_FD),
        (ruleset, warm::RULESET_FD),
    ];
    for (from, to) in moves.into_iter().filter(|&(from, _)| from >= 0) {
        // SAFETY: dup2(2) on descriptors we own; it clears close-on-exec.
        if unsafe { libc::dup2(from, to) } < 0 {
            fail(EXEC, io::Error::last_os_error());
        }
    }
    let first_free = if ruleset >= 0 {
        warm::RULESET_FD + 1
    } else {
        warm::SERVER_FD + 1
    };
    // SAFETY: close_range(2) only closes descriptors.
    unsafe { libc::syscall(libc::SYS_close_range, first_free as u32, u32::MAX, 0u32) };
    if let Err(e) = rustix::process::chdir(kit.case.as_c_str()) {
        fail(ENTER_FOLDER, e.into());
    }
    // SAFETY: as in run_case.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::execve(
            warm.exec.path.as_ptr(),
            warm.exec.argv.as_ptr(),
            warm.exec.envp.as_ptr(),
        )
    };
    fail(EXEC, io::Error::last_os_error())
}

/// One case, in the child of the server. Never returns: it execs the
/// interpreter (as pid 2 of its own pid namespace) or reports and exits.
fn run_case(
    kit: &ServerKit,
    out: OwnedFd,
    err: OwnedFd,
    script: OwnedFd,
    report: OwnedFd,
    proof: Option<OwnedFd>,
) -> ! {
    let report = report.as_raw_fd();
    let fail = |stage: i32, e: io::Error| -> ! {
        report_message(report, REPORT_FAILED, failure(stage, &e));
        exit(127)
    };
    // SAFETY: plain system calls on valid descriptors; as std's Command
    // does, the child starts with an empty signal mask and SIGPIPE default.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::close(kit.sock.as_raw_fd());
        if let Some(procs) = &kit.cgroup {
            libc::close(procs.as_raw_fd());
        }
        let stdin = proof.as_ref().unwrap_or(&kit.null);
        libc::dup2(stdin.as_raw_fd(), 0);
        libc::dup2(out.as_raw_fd(), 1);
        libc::dup2(err.as_raw_fd(), 2);
        libc::close(kit.null.as_raw_fd());
    }
    drop(out);
    drop(err);
    drop(proof);
    report_message(
        report,
        REPORT_INTERMEDIATE,
        rustix::process::getpid().as_raw_nonzero().get(),
    );
    if let Err(e) = isolate::enter_namespaces(&kit.ids.0, &kit.ids.1, Start::Forked) {
        fail(NAMESPACES, e);
    }
    for step in &kit.mounts {
        if let Err(e) = step.apply() {
            fail(step.stage, e);
        }
    }
    if let Err(e) = rustix::process::chdir(kit.case.as_c_str()) {
        fail(ENTER_FOLDER, e.into());
    }
    if let Err(e) = copy_script(&script, &kit.file, kit.file_mode) {
        fail(WRITE_SCRIPT, e);
    }
    drop(script);
    if let Err(e) = case_spec::apply_rlimits(&kit.rlimits) {
        fail(RLIMITS, e);
    }
    // Returns only in the program (pid 2); the intermediate and the reaper
    // wait, report and exit inside.
    if let Err(e) = isolate::become_pid_one(report) {
        fail(REAPER, e);
    }
    if let Some(ruleset) = &kit.ruleset
        && let Err(e) = filesystem::enforce(ruleset.as_raw_fd())
    {
        fail(LANDLOCK, e);
    }
    // SAFETY: null-terminated arrays of pointers into strings that live in
    // `kit` for the rest of this process.
    unsafe {
        libc::execve(
            kit.exec.path.as_ptr(),
            kit.exec.argv.as_ptr(),
            kit.exec.envp.as_ptr(),
        )
    };
    fail(EXEC, io::Error::last_os_error())
}

/// Copies the script from its memfd to `name` in the case folder.
fn copy_script(script: &OwnedFd, name: &CStr, mode: u32) -> io::Result<()> {
    let target = isolate::create_script(name, mode)?;
    let mut buf = [0u8; 16 * 1024];
    let mut offset = 0;
    loop {
        let n = match rustix::io::pread(script, &mut buf, offset) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        };
        isolate::write_all(target.as_raw_fd(), &buf[..n])?;
        offset += n as u64;
    }
}

/// Closes every descriptor from 3 up except those in `keep` (-1 = none).
fn close_all_but(keep: &mut [i32]) {
    keep.sort_unstable();
    let mut from = 3u32;
    for &fd in keep.iter().filter(|&&fd| fd >= 3) {
        if (fd as u32) > from {
            // SAFETY: close_range(2) only closes descriptors.
            unsafe { libc::syscall(libc::SYS_close_range, from, fd as u32 - 1, 0u32) };
        }
        from = fd as u32 + 1;
    }
    // SAFETY: as above.
    unsafe { libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32) };
}

fn exit(code: i32) -> ! {
    // SAFETY: _exit skips atexit handlers and destructors, as it must here.
    unsafe { libc::_exit(code) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn exec_arguments_are_null_terminated() {
        let env = vec![("HOME", OsString::from("/x"))];
        let args = [OsStr::new("-s"), OsStr::new("main.py")];
        let e = Exec::new(Path::new("/usr/bin/python3"), &args, &env).unwrap();
        assert_eq!(e.argv.len(), 4);
        assert!(e.argv[3].is_null());
        assert_eq!(e.envp.len(), 2);
        // SAFETY: a pointer into `e`'s own strings.
        let home = unsafe { CStr::from_ptr(e.envp[0]) };
        assert_eq!(home.to_bytes(), b"HOME=/x");
    }
}
