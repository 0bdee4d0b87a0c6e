//! A pids cgroup per case: the process bound that also holds for root.
//!
//! RLIMIT_NPROC does not apply to kuid 0 (verified here: with `ulimit -u 5`
//! root starts 10 processes, in or out of a user namespace), so when the
//! harness runs as root a fork bomb would otherwise be bounded only by the
//! wall clock. Where the pids controller is writable (root, cgroup v1 or a
//! delegated v2 subtree) each case gets its own `pids.max`.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Why the run's pids cgroup could not be made.
#[derive(Debug, thiserror::Error)]
pub(super) enum CgroupError {
    /// /proc/self/cgroup cannot be read.
    #[error(transparent)]
    OwnGroup(std::io::Error),
    #[error("no pids cgroup controller is mounted")]
    NoPidsController,
    #[error("cannot create {}: {source}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The per-run parent cgroup; removed on drop.
#[derive(Debug)]
pub(super) struct RunCgroup {
    dir: PathBuf,
    next: AtomicU64,
}

/// One case's cgroup: join it by writing "0" to `procs` in the child.
#[derive(Debug)]
pub(super) struct CaseCgroup {
    dir: PathBuf,
    pub procs: File,
}

impl RunCgroup {
    /// Creates `prompteval-<pid>-<n>` under this process's pids cgroup.
    pub fn create() -> Result<RunCgroup, CgroupError> {
        let own = fs::read_to_string("/proc/self/cgroup").map_err(CgroupError::OwnGroup)?;
        let parent = pids_cgroup_dir(&own).ok_or(CgroupError::NoPidsController)?;
        super::host_files::remove_stale(&parent, "prompteval-", remove_group);
        let dir = parent.join(format!(
            "prompteval-{}-{}",
            std::process::id(),
            fastrand::u32(..)
        ));
        if let Err(source) = fs::create_dir(&dir) {
            return Err(CgroupError::Create { path: dir, source });
        }
        Ok(RunCgroup {
            dir,
            next: AtomicU64::new(0),
        })
    }

    pub fn case(&self, max_tasks: u64) -> std::io::Result<CaseCgroup> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let dir = self.dir.join(format!("case-{n}"));
        fs::create_dir(&dir)?;
        let group = (|| {
            fs::write(dir.join("pids.max"), max_tasks.to_string())?;
            OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
        })();
        match group {
            Ok(procs) => Ok(CaseCgroup { dir, procs }),
            Err(e) => {
                let _ = fs::remove_dir(&dir);
                Err(e)
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl CaseCgroup {
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// A new pids.max for the group.
    pub fn set_max(&self, max_tasks: u64) -> std::io::Result<()> {
        fs::write(self.dir.join("pids.max"), max_tasks.to_string())
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        let _ = fs::remove_dir(&self.dir);
    }
}

impl Drop for CaseCgroup {
    /// The case's processes are reaped by now, but the kernel may take a
    /// moment to drop the last task from the group.
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_millis(500);
        while fs::remove_dir(&self.dir).is_err() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Removes a cgroup and its child groups (a run that never dropped its
/// sandbox leaves its slots' groups behind). A cgroup's files go with it.
fn remove_group(dir: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir(entry.path());
        }
    }
    fs::remove_dir(dir)
}

/// Where this process's pids cgroup lives, from `/proc/self/cgroup`.
fn pids_cgroup_dir(proc_self_cgroup: &str) -> Option<PathBuf> {
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            return Some(Path::new("/sys/fs/cgroup/pids").join(rel));
        }
        if controllers.is_empty() {
            // cgroup v2: usable only if pids is enabled for our children.
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let dir = Path::new(root).join(rel);
                let enabled = fs::read_to_string(dir.join("cgroup.subtree_control"))
                    .is_ok_and(|s| s.split_whitespace().any(|c| c == "pids"));
                if enabled {
                    return Some(dir);
                }
            }
        }
    }
    None
}

/// Writes "0" (= the calling process) to `cgroup.procs`. Async-signal-safe.
pub(super) fn join(procs: &File) -> std::io::Result<()> {
    let mut f = procs;
    f.write_all(b"0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_pids_line_gives_the_pids_hierarchy() {
        let own = "9:name=systemd:/\n8:pids:/a/b\n4:memory:/x\n0::/\n";
        assert_eq!(
            pids_cgroup_dir(own),
            Some(PathBuf::from("/sys/fs/cgroup/pids/a/b"))
        );
        assert_eq!(pids_cgroup_dir("4:memory:/x\n"), None);
    }
}
