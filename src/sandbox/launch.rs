//! Any executable, run with the same isolation as a Python case: a
//! compiler on untrusted source, the program it built. The sandbox knows
//! nothing of the language; the caller names the executable, its
//! arguments, the files its case folder starts with and the folders it may
//! read besides the system's.
//!
//! Native programs start fresh (exec per case, never the warm
//! interpreter) in the same namespaces, pids cgroup, rlimits and Landlock
//! ruleset as a fresh Python case, except that the ruleset reads only the
//! system's program and library folders and the loader's files: none of
//! /etc's other files (a compiler asked to `#include "/etc/passwd"` cannot
//! open it).
//!
//! A run of one source file with a tool (`lua prog.lua`, `go test
//! prog_test.go`), and a run of the one program a build made (D's, Rust's),
//! execs from a fork server of its own (zygote.rs), one per execution slot
//! and command: the server joins the slot's pids cgroup and builds the
//! Landlock ruleset once, where a launch from the harness pays both per
//! case (about 11 ms on cgroup v1, twice what Lua itself takes to run a
//! HumanEval problem's tests). Every case is still a fresh exec in fresh
//! user, pid, mount and IPC namespaces on a fresh tmpfs. A build (its
//! folder is kept on disk), a run of several files (Java's classes) and a
//! run with a proof on stdin (C++'s) launch from the harness.

use std::collections::HashMap;
use std::ffi::{CString, OsString};
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::case::ExecutionRecord;

use super::Sandbox;
use super::error::{SandboxError, error};
use super::filesystem::FsPolicy;
use super::host_files::clone_file;
use super::isolate::FolderFile;
use super::limits::Limits;
use super::zygote::{ServerSpec, Zygote};

/// A file the case folder starts with.
#[derive(Debug, Clone, Copy)]
pub struct CaseFile<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    /// Made executable (a compiled program).
    pub executable: bool,
}

/// The limits of one launch; the sandbox's own (`[sandbox]`) fill what is
/// not set.
#[derive(Debug, Clone, Copy, Default)]
pub struct LaunchLimits {
    pub timeout: Option<Duration>,
    pub memory_mb: Option<u64>,
    pub cpu_secs: Option<u64>,
}

/// One run of an executable in a case folder of its own.
pub struct Launch<'a> {
    /// An absolute path, or `./name` for a file of `files`.
    pub executable: &'a Path,
    pub args: &'a [OsString],
    pub files: &'a [CaseFile<'a>],
    /// Folders (or files) it may read besides the system's.
    pub read: &'a [PathBuf],
    /// Its stdin (a proof file), else /dev/null.
    pub stdin: Option<&'a File>,
    pub limits: LaunchLimits,
    /// The case folder stays on the host disk and is handed back (what a
    /// compiler wrote); otherwise it is a private tmpfs, gone at the end.
    pub keep_folder: bool,
    /// Variables beyond the sandbox's own (a toolchain's cache folder);
    /// `{dir}` in a value is the case folder.
    pub env: &'static [(&'static str, &'static str)],
}

/// How it ended, and the folder when it was kept.
pub struct Launched {
    pub execution: ExecutionRecord,
    pub folder: Option<tempfile::TempDir>,
}

/// What a native program's environment holds (no Python variables).
fn native_env(folder: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("PATH", OsString::from("/usr/local/bin:/usr/bin:/bin")),
        ("HOME", folder.as_os_str().to_owned()),
        ("TMPDIR", folder.as_os_str().to_owned()),
        ("LANG", OsString::from("C.UTF-8")),
        ("LC_ALL", OsString::from("C.UTF-8")),
    ]
}

/// What a native fork server execs for every case: its command, the
/// file the case's source becomes, and what fixes the isolation around it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct ServedCommand {
    executable: PathBuf,
    args: Vec<OsString>,
    file: CString,
    file_mode: u32,
    read: Vec<PathBuf>,
    env: &'static [(&'static str, &'static str)],
    memory_mb: Option<u64>,
    cpu_secs: Option<u64>,
}

/// Idle native fork servers, by the command they exec.
#[derive(Default)]
pub(super) struct NativeServers(Mutex<HashMap<ServedCommand, Vec<Zygote>>>);

#[cfg(test)]
impl NativeServers {
    /// How many servers are idle per command, smallest first.
    pub(super) fn idle(&self) -> Vec<usize> {
        let pools = self.0.lock().expect("the pools' lock");
        let mut sizes: Vec<usize> = pools.values().map(Vec::len).collect();
        sizes.sort();
        sizes
    }
}

impl ServedCommand {
    /// The command of `launch` when a fork server can run it: one file
    /// (a source a tool runs, or the program a build made), stdin
    /// /dev/null, the folder not kept.
    fn of(launch: &Launch) -> Option<ServedCommand> {
        let [file] = launch.files else {
            return None;
        };
        if launch.keep_folder || launch.stdin.is_some() {
            return None;
        }
        Some(ServedCommand {
            executable: launch.executable.to_path_buf(),
            args: launch.args.to_vec(),
            file: CString::new(file.name).ok()?,
            file_mode: if file.executable { 0o700 } else { 0o600 },
            read: launch.read.to_vec(),
            env: launch.env,
            memory_mb: launch.limits.memory_mb,
            cpu_secs: launch.limits.cpu_secs,
        })
    }
}

impl Sandbox {
    /// Runs `launch` and returns what it did.
    pub fn launch(&self, launch: &Launch) -> Result<Launched, SandboxError> {
        if self.serves(self.mode)
            && let Some(command) = ServedCommand::of(launch)
        {
            let execution = self.launch_served(&command, launch)?;
            return Ok(Launched {
                execution,
                folder: None,
            });
        }
        let mut mode = self.mode;
        if launch.keep_folder {
            mode.tmpfs = false;
        }
        let folder = tempfile::Builder::new()
            .prefix("native-")
            .tempdir_in(self.cases.path())
            .map_err(|e| error(format!("cannot create a case folder: {e}")))?;
        let stdout = self.output_file()?;
        let stderr = self.output_file()?;
        let cgroup = self.case_cgroup(mode);
        let files = launch
            .files
            .iter()
            .map(|f| {
                Ok(FolderFile {
                    name: CString::new(f.name)
                        .map_err(|_| error(format!("file name {:?} contains NUL", f.name)))?,
                    bytes: f.bytes.to_vec(),
                    mode: if f.executable { 0o700 } else { 0o600 },
                })
            })
            .collect::<Result<Vec<_>, SandboxError>>()?;
        let limits = self.launch_limits(launch.limits.memory_mb, launch.limits.cpu_secs);
        let policy = FsPolicy::for_native(launch.read);
        let (mut plan, report) = self.child_plan(
            mode,
            files,
            folder.path(),
            cgroup.as_ref(),
            &policy,
            &limits,
        )?;
        let mut command = Command::new(launch.executable);
        command
            .args(launch.args)
            .current_dir(folder.path())
            .env_clear()
            .envs(native_env(folder.path()))
            .envs(
                launch
                    .env
                    .iter()
                    .map(|(k, v)| (*k, v.replace("{dir}", &folder.path().to_string_lossy()))),
            )
            .stdout(clone_file(&stdout)?)
            .stderr(clone_file(&stderr)?)
            // Without a pid namespace, the group is what the timeout kills.
            .process_group(0);
        match launch.stdin {
            Some(file) => command.stdin(clone_file(file)?),
            None => command.stdin(Stdio::null()),
        };
        // SAFETY: ChildPlan::apply makes only async-signal-safe calls on data
        // prepared here (see isolate.rs).
        unsafe { command.pre_exec(move || plan.apply()) };
        let started = Instant::now();
        let child = command.spawn();
        // Closes the harness's copies of the report pipe's write end and
        // the ruleset, so reads see EOF once the case's processes are gone.
        drop(command);
        let child = child.map_err(|e| {
            error(format!(
                "cannot start {} in the sandbox: {e}",
                launch.executable.display()
            ))
        })?;
        let timeout = launch.limits.timeout.unwrap_or(self.timeout);
        let outcome = self.wait(child, report, timeout)?;
        let execution = self.record(outcome, started.elapsed(), &stdout, &stderr)?;
        drop(cgroup);
        Ok(Launched {
            execution,
            folder: launch.keep_folder.then_some(folder),
        })
    }
}

impl Sandbox {
    /// The sandbox's limits with a launch's own memory and CPU time.
    fn launch_limits(&self, memory_mb: Option<u64>, cpu_secs: Option<u64>) -> Limits {
        let mut limits = self.limits;
        if let Some(mb) = memory_mb {
            limits.address_space = mb.saturating_mul(1024 * 1024);
        }
        if let Some(secs) = cpu_secs {
            limits.cpu_secs = secs.max(1);
        }
        limits
    }

    /// Runs the case from an idle fork server of its command (one is
    /// started when none is idle).
    fn launch_served(
        &self,
        command: &ServedCommand,
        launch: &Launch,
    ) -> Result<crate::case::ExecutionRecord, SandboxError> {
        self.run_in_server(
            || self.take_native_server(command),
            |server| self.return_native_server(command, server),
            launch.files[0].bytes,
            None,
            launch.limits.timeout.unwrap_or(self.timeout),
        )
    }

    fn take_native_server(&self, command: &ServedCommand) -> Result<Zygote, SandboxError> {
        let idle = self
            .native_servers
            .0
            .lock()
            .ok()
            .and_then(|mut pools| pools.get_mut(command)?.pop());
        if let Some(server) = idle {
            return Ok(server);
        }
        let read = &command.read;
        let policy = FsPolicy::for_native(read);
        let env_of = |folder: &Path| -> Vec<(&'static str, OsString)> {
            let mut env = native_env(folder);
            env.retain(|(name, _)| !command.env.iter().any(|(own, _)| own == name));
            env.extend(command.env.iter().map(|&(k, v)| {
                (
                    k,
                    OsString::from(v.replace("{dir}", &folder.to_string_lossy())),
                )
            }));
            env
        };
        let args: Vec<&std::ffi::OsStr> = command.args.iter().map(OsString::as_os_str).collect();
        Zygote::spawn(&ServerSpec {
            mode: self.mode,
            cases: self.cases.path(),
            cgroup: self.cgroup.as_ref(),
            // + the server, the intermediate and the reaper.
            max_tasks: self.config.max_processes.saturating_add(3),
            policy: &policy,
            program: &command.executable,
            args: &args,
            env: &env_of,
            prelude: None,
            file: &command.file,
            file_mode: command.file_mode,
            tmpfs: self.tmpfs_options(),
            limits: self.launch_limits(command.memory_mb, command.cpu_secs),
            warm: None,
        })
        .map_err(|why| {
            error(format!(
                "cannot start a fork server for {}: {why}",
                command.executable.display()
            ))
        })
    }

    fn return_native_server(&self, command: &ServedCommand, server: Zygote) {
        if let Ok(mut pools) = self.native_servers.0.lock() {
            pools.entry(command.clone()).or_default().push(server);
        }
    }
}
