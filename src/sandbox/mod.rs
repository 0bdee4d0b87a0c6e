//! Runs untrusted Python: code -> [`ExecutionRecord`]. Only this module knows processes.
//!
//! [`Sandbox::new`] resolves the interpreter and finds, by running a probe
//! program, the strongest isolation that works on this machine; `run` then
//! costs one fork/exec chain per case. In full strength a case runs:
//!
//! * in fresh user, network (loopback down), pid, mount and IPC namespaces,
//!   as pid 2 under a reaper pid 1: when the program ends or times out the
//!   kernel kills every process it left behind (setsid, double fork);
//! * with its case folder on a size-capped tmpfs (disk fill is bounded) and
//!   Landlock allowing reads of the interpreter and system libraries only,
//!   writes in the case folder only, and no signals outside the sandbox;
//! * in a pids cgroup (`max_processes`) when writable, since RLIMIT_NPROC
//!   does not bind root; with rlimits for memory, CPU, file size, open files
//!   and core dumps; with a scrubbed environment and stdin at /dev/null;
//! * writing stdout and stderr to unnamed files of the harness, of which the
//!   first `output_limit_bytes` each are kept.
//!
//! Whatever could not be enforced is named in [`Isolation::warnings`].

mod case_spec;
mod cgroup;
mod error;
mod filesystem;
mod host_files;
mod interpreter;
mod isolate;
mod launch;
mod limits;
mod mode;
mod probe;
mod proof;
mod runtime;
mod setup_stage;
mod warm;
mod zygote;

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;
use wait_timeout::ChildExt;

use crate::case::ExecutionRecord;
use crate::config::SandboxConfig;
use cgroup::{CaseCgroup, RunCgroup};
pub use error::SandboxError;
use error::error;
use filesystem::FsPolicy;
use host_files::{clone_file, read_capped, remove_stale, report_pipe};
use interpreter::Interpreter;
use isolate::{ChildPlan, NamespacePlan, REPORT_PID_ONE, REPORT_STATUS};
pub use launch::{CaseFile, Launch, LaunchLimits, Launched};
use limits::Limits;
use mode::Mode;
use proof::ProofFile;
pub use proof::ProofMarks;
pub use runtime::Runtime;
use zygote::{ServerSpec, Zygote};

/// The isolation actually in force, recorded in summary.json and the report.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Isolation {
    pub network: String,
    pub filesystem: String,
    pub processes: String,
    pub environment: String,
    pub limits: String,
    pub warnings: Vec<String>,
}

/// Arguments of the interpreter. Not `-I`: it implies `-E`, which would
/// ignore PYTHONHASHSEED and PYTHONIOENCODING; since the environment is
/// cleared and set by us, `-E` adds nothing, and `-s` (no user site) plus
/// `-P` (no script dir on sys.path, 3.11+) are the rest of `-I`.
fn interpreter_args(python: &Interpreter) -> Vec<&'static str> {
    let mut args = vec!["-s", "-B"];
    if python.has_safe_path_flag {
        args.push("-P");
    }
    args.push("main.py");
    args
}

/// The program's whole environment; its names are [`ENV_NAMES`].
fn program_env(folder: &Path) -> Vec<(&'static str, OsString)> {
    let fixed = |v: &str| OsString::from(v);
    vec![
        ("PATH", fixed("/usr/local/bin:/usr/bin:/bin")),
        ("HOME", folder.as_os_str().to_owned()),
        ("TMPDIR", folder.as_os_str().to_owned()),
        ("LANG", fixed("C.UTF-8")),
        ("LC_ALL", fixed("C.UTF-8")),
        ("PYTHONIOENCODING", fixed("utf-8")),
        ("PYTHONHASHSEED", fixed("0")),
        ("PYTHONDONTWRITEBYTECODE", fixed("1")),
    ]
}

/// `env` (the program's) with `PYTHONPATH` naming `dir` last: the warm
/// server's folder, or the tests' prelude (proof.rs) of a fresh start. Each
/// removes it before main.py runs, which leaves `os.environ` in a fresh
/// start's order.
fn with_pythonpath(
    mut env: Vec<(&'static str, OsString)>,
    dir: &Path,
) -> Vec<(&'static str, OsString)> {
    env.push(("PYTHONPATH", dir.as_os_str().to_owned()));
    env
}

/// The warm server's environment: [`with_pythonpath`], and `LD_BIND_NOW`,
/// so that every symbol is bound once in the server rather than in each
/// case (whose binding would copy the pages of the tables it writes). The
/// server removes both before a program runs (`_leave_no_trace`).
fn warm_env(env: Vec<(&'static str, OsString)>, dir: &Path) -> Vec<(&'static str, OsString)> {
    let mut env = with_pythonpath(env, dir);
    env.push(("LD_BIND_NOW", "1".into()));
    env
}

const ENV_NAMES: &str = "PATH, HOME, TMPDIR, LANG, LC_ALL, PYTHONIOENCODING, PYTHONHASHSEED, \
                         PYTHONDONTWRITEBYTECODE";

pub struct Sandbox {
    /// Idle fork servers, one per execution slot that has run a case.
    /// First field: they are dropped before the folders and cgroup they use.
    servers: Mutex<Vec<Zygote>>,
    /// Idle fork servers of native programs (launch.rs), by what they exec.
    native_servers: launch::NativeServers,
    /// Whether namespaced cases fork from a server (see zygote.rs) rather
    /// than from the harness; false where the server cannot work.
    fork_server: bool,
    /// The warm interpreter's folder (warm.rs) when the fork servers run
    /// one warm interpreter each; None: a fresh interpreter per case.
    warm: Option<PathBuf>,
    /// Why the warm interpreter is not used although configured.
    warm_refused: Option<String>,
    /// The tests' prelude (proof.rs) that fresh interpreters import.
    prelude: PathBuf,
    config: SandboxConfig,
    python: Interpreter,
    isolation: Isolation,
    mode: Mode,
    limits: Limits,
    policy: FsPolicy,
    timeout: Duration,
    /// Parent of the case folders; removed when the sandbox is dropped.
    cases: tempfile::TempDir,
    cgroup: Option<RunCgroup>,
}

impl Sandbox {
    /// Resolves the interpreter once and probes which isolation works here;
    /// `runtime` is what runs inside the interpreter (runtime.rs).
    pub fn new(config: &SandboxConfig, runtime: &Runtime) -> Result<Sandbox, SandboxError> {
        Sandbox::build(config, runtime, true)
    }

    /// The same isolation, every case forked from the harness itself: the
    /// baseline the sandbox bench compares the fork server with.
    #[doc(hidden)]
    pub fn without_fork_server(
        config: &SandboxConfig,
        runtime: &Runtime,
    ) -> Result<Sandbox, SandboxError> {
        Sandbox::build(config, runtime, false)
    }

    fn build(
        config: &SandboxConfig,
        runtime: &Runtime,
        fork_server: bool,
    ) -> Result<Sandbox, SandboxError> {
        let python = interpreter::resolve(&config.python)?;
        // A sandbox kept in a static (tests) is never dropped: folders of
        // finished processes are removed here instead.
        remove_stale(&std::env::temp_dir(), "prompteval-sandbox-", |p| {
            std::fs::remove_dir_all(p)
        });
        let (cases, prelude) = cases_folder(runtime)?;
        let mut policy = FsPolicy::for_interpreter(&python.prefixes);
        // Fresh interpreters import it after Landlock is in force.
        policy.read.push(prelude.clone());
        let mut warm_refused = None;
        let warm = match (
            config.warm && fork_server,
            warm::install(cases.path(), runtime),
        ) {
            (false, _) => None,
            (true, Ok(dir)) => Some(dir),
            (true, Err(e)) => {
                warm_refused = Some(format!("cannot write its server: {e}"));
                None
            }
        };
        let mut warnings = Vec::new();
        let landlock = probe_landlock(&policy, &mut warnings);
        let cgroup = run_cgroup(&mut warnings);
        let mut sandbox = Sandbox {
            servers: Mutex::new(Vec::new()),
            native_servers: launch::NativeServers::default(),
            fork_server,
            warm,
            warm_refused,
            prelude,
            config: config.clone(),
            limits: Limits::from_config(config),
            timeout: Duration::try_from_secs_f64(config.timeout_secs)
                .unwrap_or(Duration::from_secs(10)),
            python,
            isolation: Isolation::default(),
            mode: Mode {
                namespaces: true,
                tmpfs: true,
                landlock,
                cgroup: cgroup.is_some(),
            },
            policy,
            cases,
            cgroup,
        };
        let findings = sandbox.settle_mode(runtime.probe, &mut warnings)?;
        sandbox.say_what_is_slower();
        sandbox.isolation = sandbox.describe(&findings, warnings);
        if !sandbox.isolation.warnings.is_empty() {
            tracing::warn!(
                "sandbox isolation is incomplete: {}",
                sandbox.isolation.warnings.join("; ")
            );
        }
        Ok(sandbox)
    }

    /// Never silently slower: a warm interpreter that is not used, or a
    /// shortcut of it that is off here, is said once, with the reason.
    fn say_what_is_slower(&self) {
        if let Some(why) = &self.warm_refused
            && self.config.warm
        {
            tracing::warn!(
                "sandbox: the warm interpreter is not used ({why}); every case starts a fresh \
                 interpreter, which is slower. `[sandbox] warm = false` says so on purpose"
            );
        }
        if let Some(paths) = self.warm_paths()
            && let Some(why) = paths.missing()
        {
            tracing::warn!(
                "sandbox: part of the warm interpreter's shortcut is off on {} ({why}); \
                 cases take the interpreter's own way there, which is slower but exact",
                self.python.executable.display()
            );
        }
    }

    /// What the idle warm servers reported of their fast paths.
    fn warm_paths(&self) -> Option<zygote::WarmPaths> {
        let idle = self.servers.lock().ok()?;
        idle.iter().find_map(|s| s.warm_paths)
    }

    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    pub fn python(&self) -> &Path {
        &self.python.executable
    }

    /// Whether cases fork from a warm interpreter per slot (`[sandbox]
    /// warm`, where it works here) rather than each starting a fresh one.
    pub fn warm(&self) -> bool {
        self.warm.is_some() && self.serves(self.mode)
    }

    /// Runs one program in a fresh temp dir and returns what it did.
    pub fn run(&self, code: &str) -> Result<ExecutionRecord, SandboxError> {
        self.run_in(self.mode, code, None)
    }

    /// Runs a program followed by its hidden tests (`marks`, see proof.rs):
    /// the record's `tests` says whether they ran to their end.
    pub fn run_tested(&self, marks: &ProofMarks) -> Result<ExecutionRecord, SandboxError> {
        let proof = ProofFile::new(marks)?;
        let mut record = self.run_in(self.mode, &marks.program, Some(&proof))?;
        record.tests = Some(proof.read()?);
        Ok(record)
    }

    /// Runs the probe (`template`: the runtime's) in ever weaker modes
    /// until one works.
    fn settle_mode(
        &mut self,
        template: &str,
        warnings: &mut Vec<String>,
    ) -> Result<probe::Findings, SandboxError> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| {
            error(format!(
                "cannot open a loopback listener for the probe: {e}"
            ))
        })?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let canary = self.cases.path().join("canary");
        std::fs::write(&canary, "harness-only")
            .map_err(|e| error(format!("cannot write {}: {e}", canary.display())))?;
        let program = probe::program(template, port, &canary);
        let mut failures = Vec::new();
        let mut first = Some(self.first_probe(&program));
        loop {
            let outcome = match first.take() {
                Some(outcome) => outcome,
                None => self.probe_once(&program),
            };
            match outcome {
                Ok(mut findings) => {
                    listener.set_nonblocking(true).ok();
                    if listener.accept().is_ok() {
                        findings.loopback = "ok".into();
                    }
                    warnings.extend(failures);
                    return Ok(findings);
                }
                Err(why) => self.step_down(why, &mut failures)?,
            }
        }
    }

    /// The first probe, while the other execution slots' servers start: one
    /// after the other, each added 35-40 ms to a run's start. (`prepare`
    /// starts any still missing; a mode the probe gives up drops them.)
    fn first_probe(&mut self, program: &str) -> Result<probe::Findings, String> {
        let others = if self.serves(self.mode) {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .saturating_sub(1)
        } else {
            0
        };
        let (spawned, first) = std::thread::scope(|scope| {
            let this = &*self;
            let mode = this.mode;
            let helpers = scope.spawn(move || {
                (0..others)
                    .filter_map(|_| this.spawn_server(mode).ok())
                    .collect::<Vec<_>>()
            });
            let first = this.probe_once(program);
            (helpers.join().unwrap_or_default(), first)
        });
        for server in spawned {
            self.return_server(server);
        }
        first
    }

    /// After a failed probe, the next thing to try: without the warm
    /// interpreter, then without the fork server, then with one isolation
    /// layer fewer (said in `failures`); an error when nothing is left.
    fn step_down(&mut self, why: String, failures: &mut Vec<String>) -> Result<(), SandboxError> {
        if self.serves(self.mode) && self.warm.is_some() {
            // Announced once the mode is settled (build).
            self.warm_refused = Some(why);
            self.warm = None;
        } else if self.serves(self.mode) {
            tracing::warn!(
                "sandbox: the fork server does not work here ({why}); every case forks from \
                 the harness instead, which is slower"
            );
            self.fork_server = false;
        } else {
            let Some((weaker, dropped)) = self.mode.weaker() else {
                return Err(error(format!(
                    "cannot run {} even without isolation: {why}; check `[sandbox] python` in \
                     harness.toml",
                    self.python.executable.display()
                )));
            };
            failures.push(format!("{dropped} unavailable: {why}"));
            self.mode = weaker;
            return Ok(());
        }
        if let Ok(idle) = self.servers.get_mut() {
            idle.clear();
        }
        Ok(())
    }

    /// Runs the probe once in the current mode: what it found, or why not.
    fn probe_once(&self, program: &str) -> Result<probe::Findings, String> {
        self.run_in(self.mode, program, None)
            .map_err(|e| e.message)
            .and_then(|r| match r.exit_code {
                Some(0) => probe::parse(&r.stdout).map_err(|e| e.to_string()),
                _ => Err(format!(
                    "probe failed: {:?} {}",
                    r.exit_code,
                    r.stderr.trim()
                )),
            })
    }

    /// Whether cases of `mode` run through a fork server: it needs the
    /// mount namespace for the case's tmpfs and the read-only slot.
    fn serves(&self, mode: Mode) -> bool {
        self.fork_server && mode.namespaces && mode.tmpfs
    }

    fn run_in(
        &self,
        mode: Mode,
        code: &str,
        proof: Option<&ProofFile>,
    ) -> Result<ExecutionRecord, SandboxError> {
        if self.serves(mode) {
            return self.run_served(mode, code, proof);
        }
        let folder = tempfile::Builder::new()
            .prefix("case-")
            .tempdir_in(self.cases.path())
            .map_err(|e| error(format!("cannot create a case folder: {e}")))?;
        let stdout = self.output_file()?;
        let stderr = self.output_file()?;
        let cgroup = self.case_cgroup(mode);
        let (mut command, report) = self.command(mode, code, folder.path(), cgroup.as_ref())?;
        command
            .stdout(clone_file(&stdout)?)
            .stderr(clone_file(&stderr)?);
        if let Some(proof) = proof {
            command.stdin(clone_file(proof.file())?);
        }
        let started = Instant::now();
        let child = command.spawn();
        // Closes the harness's copies of the report pipe's write end and
        // the ruleset, so reads see EOF once the case's processes are gone.
        drop(command);
        let child = child.map_err(|e| {
            error(format!(
                "cannot start {} in the sandbox: {e}",
                self.python.executable.display()
            ))
        })?;
        let outcome = self.wait(child, report, self.timeout)?;
        self.record(outcome, started.elapsed(), &stdout, &stderr)
    }

    /// Runs the case in a fork server of `mode`.
    fn run_served(
        &self,
        mode: Mode,
        code: &str,
        proof: Option<&ProofFile>,
    ) -> Result<ExecutionRecord, SandboxError> {
        self.run_in_server(
            || self.take_server(mode),
            |server| self.return_server(server),
            code.as_bytes(),
            proof.map(ProofFile::file),
            self.timeout,
        )
    }

    /// Runs `code` in a server `take` gives (Python's or a native
    /// command's, launch.rs) and gives it back with `give_back`; a server
    /// found dead is replaced once, since that is the harness's failure,
    /// not the case's.
    fn run_in_server(
        &self,
        take: impl Fn() -> Result<Zygote, SandboxError>,
        give_back: impl Fn(Zygote),
        code: &[u8],
        proof: Option<&File>,
        timeout: Duration,
    ) -> Result<ExecutionRecord, SandboxError> {
        let mut attempts = 0;
        loop {
            attempts += 1;
            let server = take()?;
            let stdout = self.output_file()?;
            let stderr = self.output_file()?;
            match server.run(code, &stdout, &stderr, proof, timeout) {
                Ok(ended) => {
                    give_back(server);
                    let killed = ExitStatus::from_raw(libc::SIGKILL);
                    let outcome = Outcome::new(killed, ended.status, ended.timed_out);
                    return self.record(outcome, ended.duration, &stdout, &stderr);
                }
                Err(zygote::Failure::Setup(why)) => {
                    give_back(server);
                    return Err(error(why));
                }
                Err(zygote::Failure::ServerGone(why)) if attempts < 2 => {
                    tracing::warn!("sandbox: {why}; starting another fork server");
                }
                Err(zygote::Failure::ServerGone(why)) => return Err(error(why)),
            }
        }
    }

    /// Starts the fork servers of `slots` execution slots now, while the
    /// harness is still small: a server is a fork of the harness, and every
    /// case of the Rust server forks it three times (intermediate, pid 1,
    /// program), so the page tables of a server forked once the worker
    /// threads exist (their stacks and allocator arenas) are copied and
    /// torn down three times per case. Measured: a late server had 6x the
    /// page tables of an early one. (A warm server execs the interpreter,
    /// whose pid 1 forks once per case.) Usually the servers already started
    /// alongside the probe (`settle_mode`); a server that cannot start here
    /// is started (or the case forked from the harness) when a case needs it.
    pub fn prepare(&self, slots: usize) {
        if !self.serves(self.mode) {
            return;
        }
        let idle = self.servers.lock().map_or(0, |s| s.len());
        for _ in idle..slots {
            match self.spawn_server(self.mode) {
                Ok(server) => self.return_server(server),
                Err(e) => {
                    tracing::debug!("fork server not started ahead: {e}");
                    return;
                }
            }
        }
    }

    fn take_server(&self, mode: Mode) -> Result<Zygote, SandboxError> {
        let idle = self.servers.lock().ok().and_then(|mut s| s.pop());
        if let Some(server) = idle.filter(|s| s.mode == mode && s.warm == self.warm.is_some()) {
            return Ok(server);
        }
        self.spawn_server(mode)
    }

    fn spawn_server(&self, mode: Mode) -> Result<Zygote, SandboxError> {
        let env = |folder: &Path| program_env(folder);
        let args: Vec<&OsStr> = interpreter_args(&self.python)
            .into_iter()
            .map(OsStr::new)
            .collect();
        Zygote::spawn(&ServerSpec {
            mode,
            cases: self.cases.path(),
            cgroup: self.cgroup.as_ref(),
            // + the server, the intermediate and the reaper (a warm slot
            // lowers it by one when ready: the idle interpreter and pid 1).
            max_tasks: self.config.max_processes.saturating_add(3),
            policy: &self.policy,
            program: &self.python.executable,
            args: &args,
            env: &env,
            prelude: Some(&self.prelude),
            file: c"main.py",
            file_mode: 0o600,
            tmpfs: self.tmpfs_options(),
            limits: self.limits,
            warm: self.warm.as_deref(),
        })
        .map_err(|why| error(format!("cannot start a fork server: {why}")))
    }

    fn return_server(&self, server: Zygote) {
        if let Ok(mut idle) = self.servers.lock() {
            idle.push(server);
        }
    }

    fn record(
        &self,
        outcome: Outcome,
        duration: Duration,
        stdout: &File,
        stderr: &File,
    ) -> Result<ExecutionRecord, SandboxError> {
        let (stdout, stdout_truncated) = read_capped(stdout, self.config.output_limit_bytes)?;
        let (stderr, stderr_truncated) = read_capped(stderr, self.config.output_limit_bytes)?;
        Ok(ExecutionRecord {
            exit_code: outcome.exit_code,
            signal: outcome.signal,
            timed_out: outcome.timed_out,
            duration_secs: duration.as_secs_f64(),
            stdout,
            stderr,
            stdout_truncated,
            stderr_truncated,
            tests: None,
            reused: false,
        })
    }

    /// An unnamed in-memory file: the program gets a handle to write to but
    /// no path to find it by, and its size is bounded by the file-size
    /// limit like any file. In memory, not on disk: two files per case on a
    /// disk file system cost inode allocation under churn (measured: about
    /// 1.5 ms of CPU per case on ext4).
    fn output_file(&self) -> Result<File, SandboxError> {
        rustix::fs::memfd_create("prompteval-output", rustix::fs::MemfdFlags::CLOEXEC)
            .map(File::from)
            .map_err(|e| error(format!("cannot create an output file: {e}")))
    }

    fn case_cgroup(&self, mode: Mode) -> Option<CaseCgroup> {
        let run = self.cgroup.as_ref().filter(|_| mode.cgroup)?;
        // +2: the intermediate and the reaper are tasks of the group too.
        match run.case(self.config.max_processes.saturating_add(2)) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!(
                    "no pids cgroup for this case in {}: {e}",
                    run.path().display()
                );
                None
            }
        }
    }

    fn command(
        &self,
        mode: Mode,
        code: &str,
        folder: &Path,
        cgroup: Option<&CaseCgroup>,
    ) -> Result<(Command, Option<File>), SandboxError> {
        let mut command = Command::new(&self.python.executable);
        command
            .args(interpreter_args(&self.python))
            .current_dir(folder)
            .env_clear()
            .envs(with_pythonpath(program_env(folder), &self.prelude))
            .stdin(Stdio::null())
            // Without a pid namespace, the group is what the timeout kills.
            .process_group(0);
        let main = isolate::FolderFile {
            name: c"main.py".to_owned(),
            bytes: code.as_bytes().to_vec(),
            mode: 0o600,
        };
        let (mut plan, report) =
            self.child_plan(mode, vec![main], folder, cgroup, &self.policy, &self.limits)?;
        // SAFETY: ChildPlan::apply makes only async-signal-safe calls on data
        // prepared here (see isolate.rs).
        unsafe { command.pre_exec(move || plan.apply()) };
        Ok((command, report))
    }

    /// What the child of a fresh case does before exec (isolate.rs): its
    /// namespaces, `files` written into `folder`, `limits`, its cgroup and
    /// Landlock's `policy`; the report pipe's read end with namespaces.
    fn child_plan(
        &self,
        mode: Mode,
        files: Vec<isolate::FolderFile>,
        folder: &Path,
        cgroup: Option<&CaseCgroup>,
        policy: &FsPolicy,
        limits: &Limits,
    ) -> Result<(ChildPlan, Option<File>), SandboxError> {
        let folder_c = CString::new(folder.as_os_str().as_bytes())
            .map_err(|_| error(format!("case folder {} contains NUL", folder.display())))?;
        let (namespaces, report) = if mode.namespaces {
            let (reader, writer) = report_pipe()?;
            let tmpfs = mode.tmpfs.then(|| self.tmpfs_options());
            let plan = NamespacePlan::new(&folder_c, tmpfs.as_deref(), writer);
            (Some(plan), Some(reader))
        } else {
            (None, None)
        };
        let landlock = match mode.landlock {
            Some(abi) => {
                let fd = filesystem::build_ruleset(policy).map_err(|e| error(e.to_string()))?;
                fd.map(|fd: OwnedFd| (fd, filesystem::case_folder_rights(abi)))
            }
            None => None,
        };
        let cgroup = match cgroup {
            Some(c) => Some(clone_file(&c.procs)?),
            None => None,
        };
        let plan = ChildPlan {
            namespaces,
            folder: folder_c,
            files,
            rlimits: case_spec::rlimits(limits),
            cgroup,
            landlock,
        };
        Ok((plan, report))
    }

    /// The case folder holds at most `max_file_mb` in few enough inodes that
    /// a file-creating loop cannot exhaust memory either.
    fn tmpfs_options(&self) -> CString {
        let opts = format!(
            "size={}m,nr_inodes=4096,mode=0700",
            self.config.max_file_mb.max(1)
        );
        // No NUL can appear in a formatted number.
        CString::new(opts).unwrap_or_default()
    }

    /// Waits for the case, killing it on timeout; returns how it ended.
    fn wait(
        &self,
        mut child: Child,
        report: Option<File>,
        timeout: Duration,
    ) -> Result<Outcome, SandboxError> {
        let mut report = report.map(Report::new);
        let pid_one = report.as_mut().and_then(Report::pid_one);
        let waited = child
            .wait_timeout(timeout)
            .map_err(|e| error(format!("cannot wait for the program: {e}")))?;
        let (status, timed_out) = match waited {
            Some(status) => (status, false),
            None => (self.kill(&mut child, pid_one)?, true),
        };
        let program_status = report.as_mut().and_then(Report::program_status);
        Ok(Outcome::new(status, program_status, timed_out))
    }

    /// Kills the whole case. With namespaces, killing pid 1 makes the kernel
    /// kill the namespace; the intermediate then exits once all are gone.
    fn kill(
        &self,
        child: &mut Child,
        pid_one: Option<OwnedFd>,
    ) -> Result<ExitStatus, SandboxError> {
        match &pid_one {
            Some(pidfd) => {
                let _ = rustix::process::pidfd_send_signal(pidfd, rustix::process::Signal::KILL);
                if let Ok(Some(status)) = child.wait_timeout(Duration::from_secs(5)) {
                    return Ok(status);
                }
                let _ = child.kill();
            }
            None => {
                if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                let _ = child.kill();
            }
        }
        child
            .wait()
            .map_err(|e| error(format!("cannot reap the killed program: {e}")))
    }

    fn describe(&self, f: &probe::Findings, mut warnings: Vec<String>) -> Isolation {
        let m = self.mode;
        let network = self.describe_network(f, &mut warnings);
        let filesystem = if f.canary != "ok" && f.tmp != "ok" && f.write_cwd == "ok" {
            let folder = if m.tmpfs {
                format!(
                    "a private tmpfs of {} MiB",
                    f.folder_fs_bytes / (1024 * 1024)
                )
            } else {
                "on the host disk".to_string()
            };
            format!("{}; case folder: {folder}", self.policy.describe())
        } else {
            warnings.push(format!(
                "filesystem not isolated: a program can read and write what the harness's user \
                 can (reading a harness file: {}; listing /tmp: {})",
                f.canary, f.tmp
            ));
            format!(
                "unrestricted (landlock {})",
                if m.landlock.is_some() {
                    "ineffective"
                } else {
                    "unavailable"
                }
            )
        };
        let processes = self.describe_processes(f, &mut warnings);
        let extra: Vec<&String> = f
            .env
            .iter()
            .filter(|n| !ENV_NAMES.split(", ").any(|e| e == n.as_str()) && n.as_str() != "LC_CTYPE")
            .collect();
        if !extra.is_empty() {
            warnings.push(format!(
                "unexpected environment variables reach the program: {extra:?}"
            ));
        }
        let interpreter = if self.warm() {
            let paths = self
                .warm_paths()
                .map(|p| format!("; {}", p.describe()))
                .unwrap_or_default();
            format!(
                "one warm interpreter per slot, forked per case (hash seed fixed per run){paths}"
            )
        } else {
            match &self.warm_refused {
                Some(why) if self.config.warm => {
                    format!("a fresh interpreter per case (the warm one failed: {why})")
                }
                _ => "a fresh interpreter per case".to_string(),
            }
        };
        let environment = format!(
            "scrubbed: only {} ({}); python {}; stdin /dev/null; {interpreter}",
            f.env.join(", "),
            if f.hash_seed_fixed {
                "hash seed fixed"
            } else {
                "hash seed random"
            },
            interpreter_args(&self.python)[..interpreter_args(&self.python).len() - 1].join(" "),
        );
        Isolation {
            network,
            filesystem,
            processes,
            environment,
            limits: self.limits.describe(&self.config),
            warnings,
        }
    }

    fn describe_network(&self, f: &probe::Findings, warnings: &mut Vec<String>) -> String {
        let tcp = if self.mode.landlock.is_some() {
            "; TCP connect/bind also denied by landlock"
        } else {
            ""
        };
        if f.loopback == "ok" || f.udp == "ok" {
            warnings.push("the program can reach the host's network".into());
            format!(
                "host network (not isolated: TCP {}, UDP {})",
                f.loopback, f.udp
            )
        } else if self.mode.namespaces {
            format!(
                "none (network namespace: loopback down, UDP to 127.0.0.1: {}{tcp})",
                f.udp
            )
        } else {
            warnings.push("no network namespace: only TCP is blocked (by landlock)".into());
            format!(
                "TCP blocked by landlock only ({}); UDP: {}",
                f.loopback, f.udp
            )
        }
    }

    fn describe_processes(&self, f: &probe::Findings, warnings: &mut Vec<String>) -> String {
        let bound = if self.mode.cgroup {
            format!("at most {} tasks (pids cgroup)", self.config.max_processes)
        } else if !rustix::process::getuid().is_root() && self.mode.namespaces {
            format!(
                "at most {} tasks (RLIMIT_NPROC in a user namespace)",
                self.config.max_processes
            )
        } else {
            warnings.push(
                "the number of processes is not bounded (only the timeout ends a fork bomb)".into(),
            );
            "process count not bounded".to_string()
        };
        // Parent pid 1: the probe runs under a namespace's init (pid 2 where
        // the warm interpreter can pin it, as the fresh paths have it).
        if self.mode.namespaces && f.ppid == 1 && f.pid >= 2 {
            let origin = if self.serves(self.mode) {
                "; each case forked from its slot's fork server, which never runs case code"
            } else {
                ""
            };
            format!(
                "pid namespace: the program is pid 2 under a reaper, every process it leaves \
                 is killed when it exits or times out; cannot signal the harness; {bound}{origin}"
            )
        } else {
            warnings
                .push("no pid namespace: a program's daemonised descendants can outlive it".into());
            format!("own process group, killed on timeout; {bound}")
        }
    }
}

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Outcome {
    exit_code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
}

impl Outcome {
    /// Prefers the program's own wait status (reported by pid 1) over the
    /// status of the process the harness started.
    fn new(status: ExitStatus, program: Option<i32>, timed_out: bool) -> Outcome {
        // Killed on timeout before it could report: the harness's SIGKILL.
        let killed = ExitStatus::from_raw(libc::SIGKILL);
        let fallback = if timed_out { killed } else { status };
        let status = program.map(ExitStatus::from_raw).unwrap_or(fallback);
        let signal = status.signal();
        Outcome {
            exit_code: if signal.is_some() {
                None
            } else {
                status.code()
            },
            signal: signal.or(if timed_out { Some(libc::SIGKILL) } else { None }),
            timed_out,
        }
    }
}

/// The harness's end of the report pipe of a namespaced case.
struct Report {
    pipe: File,
    status: Option<i32>,
}

impl Report {
    fn new(pipe: File) -> Report {
        Report { pipe, status: None }
    }

    /// pid 1's host pid, which the intermediate wrote before spawn returned.
    fn pid_one(&mut self) -> Option<OwnedFd> {
        while let Some((kind, value)) = self.next() {
            if kind == REPORT_STATUS {
                self.status = Some(value);
            } else if kind == REPORT_PID_ONE {
                let pid = rustix::process::Pid::from_raw(value)?;
                return rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok();
            }
        }
        None
    }

    /// The program's wait status; reads until EOF, which comes once every
    /// process of the case is gone.
    fn program_status(&mut self) -> Option<i32> {
        while let Some((kind, value)) = self.next() {
            if kind == REPORT_STATUS {
                self.status = Some(value);
            }
        }
        self.status
    }

    fn next(&mut self) -> Option<(i32, i32)> {
        let mut msg = [0u8; 8];
        self.pipe.read_exact(&mut msg).ok()?;
        Some(isolate::decode_report(&msg))
    }
}

/// The run's folder of case folders, with the tests' prelude in it.
fn cases_folder(runtime: &Runtime) -> Result<(tempfile::TempDir, PathBuf), SandboxError> {
    let cases = tempfile::Builder::new()
        .prefix(&format!("prompteval-sandbox-{}-", std::process::id()))
        .tempdir()
        .map_err(|e| {
            error(format!(
                "cannot create the sandbox's temp folder: {e}; check TMPDIR"
            ))
        })?;
    let prelude = proof::install(cases.path(), runtime.tests_prelude).map_err(|e| {
        error(format!(
            "cannot write the tests' prelude into {}: {e}; check TMPDIR",
            cases.path().display()
        ))
    })?;
    Ok((cases, prelude))
}

/// The run's pids cgroup, where one can be made. Without one, root's
/// forks are bounded by the timeout only (RLIMIT_NPROC does not bind root),
/// which `warnings` then says.
fn run_cgroup(warnings: &mut Vec<String>) -> Option<RunCgroup> {
    match RunCgroup::create() {
        Ok(c) => Some(c),
        Err(why) => {
            if rustix::process::getuid().is_root() {
                warnings.push(format!(
                    "no pids cgroup ({why}): running as root, RLIMIT_NPROC does not bound \
                     forks, only the timeout does"
                ));
            }
            None
        }
    }
}

/// Landlock in use, or None with a warning saying why not.
fn probe_landlock(policy: &FsPolicy, warnings: &mut Vec<String>) -> Option<landlock::ABI> {
    use landlock::RulesetStatus;
    let (ruleset, status) = match filesystem::probe(policy) {
        Ok(found) => found,
        Err(why) => {
            warnings.push(format!(
                "landlock unusable ({why}): the filesystem is not restricted"
            ));
            return None;
        }
    };
    let why = filesystem::describe_status(&ruleset, status);
    match (ruleset, filesystem::effective_abi(status)) {
        (RulesetStatus::NotEnforced, _) | (_, None) => {
            warnings.push(format!("landlock {why}: the filesystem is not restricted"));
            None
        }
        (RulesetStatus::PartiallyEnforced, abi) => {
            warnings.push(format!("landlock {why}: some rights are not restricted"));
            abi
        }
        (RulesetStatus::FullyEnforced, abi) => abi,
    }
}

#[cfg(test)]
mod tests;
