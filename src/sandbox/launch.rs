//! Any executable, run with the same isolation as a Python case: a
//! compiler on untrusted source, the program it built. The sandbox knows
//! nothing of the language; the caller names the executable, its
//! arguments, the files its case folder starts with and the folders it may
//! read besides the system's.
//!
//! Native programs start fresh (fork and exec, never the warm
//! interpreter's fork server) in the same namespaces, pids cgroup,
//! rlimits and Landlock ruleset as a fresh Python case, except that the
//! ruleset reads only the system's program and library folders and the
//! loader's files: none of /etc's other files (a compiler asked to
//! `#include "/etc/passwd"` cannot open it).

use std::ffi::{CString, OsString};
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::case::ExecutionRecord;

use super::Sandbox;
use super::error::{SandboxError, error};
use super::filesystem::FsPolicy;
use super::host_files::clone_file;
use super::isolate::FolderFile;

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
    pub env: &'a [(&'a str, &'a str)],
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

impl Sandbox {
    /// Runs `launch` and returns what it did.
    pub fn launch(&self, launch: &Launch) -> Result<Launched, SandboxError> {
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
        let mut limits = self.limits;
        if let Some(mb) = launch.limits.memory_mb {
            limits.address_space = mb.saturating_mul(1024 * 1024);
        }
        if let Some(secs) = launch.limits.cpu_secs {
            limits.cpu_secs = secs.max(1);
        }
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
