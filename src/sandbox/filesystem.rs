//! Landlock: what the program may read, write and signal.
//!
//! The ruleset with the fixed rules (interpreter, system libraries) is built
//! in the harness before the fork; the one rule that depends on the child's
//! view of the filesystem (its case folder, which may be a fresh tmpfs only
//! visible in its mount namespace) is added after the fork with raw system
//! calls, which are async-signal-safe where the crate's builder is not.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus,
    PathBeneath, PathFd, PathFdError, RestrictionStatus, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
};

/// Why a Landlock ruleset could not be built, or the probe not run.
#[derive(Debug, thiserror::Error)]
pub(super) enum LandlockError {
    /// The ruleset itself (its handled rights and scopes).
    #[error("landlock ruleset: {0}")]
    Ruleset(#[source] RulesetError),
    /// A path of the policy, or the slot, cannot be opened.
    #[error("landlock {}: {source}", .path.display())]
    Open { path: PathBuf, source: PathFdError },
    /// The kernel refused the rule for `path`.
    #[error("landlock rule {}: {source}", .path.display())]
    Rule { path: PathBuf, source: RulesetError },
    #[error("landlock is not supported here")]
    Unsupported,
    #[error("landlock probe folder: {0}")]
    ProbeFolder(#[source] std::io::Error),
    #[error("landlock probe thread panicked")]
    ProbePanicked,
    /// The probe's own folder cannot be opened.
    #[error(transparent)]
    ProbeOpen(PathFdError),
    /// The probe's rule for its own folder was refused.
    #[error(transparent)]
    ProbeRule(RulesetError),
    /// The probe's ruleset could not be enforced.
    #[error(transparent)]
    Enforce(RulesetError),
}

/// The newest ABI whose features we use: V4 TCP rules, V6 signal scoping.
const TARGET_ABI: ABI = ABI::V6;

/// System locations an interpreter reads at start (shared libraries, the
/// loader, time zones). Missing ones are skipped.
const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
];

/// Single files of /etc rather than /etc itself: /etc also holds secrets
/// (shadow, ssh host keys) that root could otherwise read.
const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/mime.types",
    "/etc/ssl/certs",
];

const READ_DEVICES: &[&str] = &["/dev/urandom", "/dev/random", "/dev/zero"];
const READ_WRITE_DEVICES: &[&str] = &["/dev/null"];

/// What the program may read; everything else but its case folder is denied.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FsPolicy {
    pub read: Vec<PathBuf>,
    pub read_write_files: Vec<PathBuf>,
}

impl FsPolicy {
    pub fn for_interpreter(prefixes: &[PathBuf]) -> FsPolicy {
        let mut read: Vec<PathBuf> = prefixes.to_vec();
        let system = SYSTEM_DIRS.iter().chain(ETC_FILES).chain(READ_DEVICES);
        read.extend(system.map(PathBuf::from).filter(|p| p.exists()));
        FsPolicy {
            read,
            read_write_files: READ_WRITE_DEVICES.iter().map(PathBuf::from).collect(),
        }
    }

    /// A native program's (a compiler, what it built): the system's
    /// program and library folders, the loader's files and `extra`; none
    /// of /etc's other files, which a compiler would print back in its
    /// diagnostics (`#include "/etc/passwd"`).
    pub fn for_native(extra: &[PathBuf]) -> FsPolicy {
        let loader = ETC_FILES.iter().filter(|f| f.starts_with("/etc/ld.so"));
        let system = SYSTEM_DIRS.iter().chain(loader).chain(READ_DEVICES);
        let mut read: Vec<PathBuf> = system.map(PathBuf::from).filter(|p| p.exists()).collect();
        read.extend(extra.iter().cloned());
        FsPolicy {
            read,
            read_write_files: READ_WRITE_DEVICES.iter().map(PathBuf::from).collect(),
        }
    }

    pub fn describe(&self) -> String {
        let read: Vec<String> = self.read.iter().map(|p| p.display().to_string()).collect();
        format!(
            "landlock: read-only {}; read-write /dev/null and the case's own folder only",
            read.join(", ")
        )
    }
}

/// The access rights handled (denied unless granted) at a given ABI.
fn handled_fs(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_all(abi)
}

/// Builds the ruleset with the fixed rules; the case folder rule is added by
/// [`restrict_self`] in the child. Returns the ruleset's file descriptor
/// (close-on-exec).
pub(super) fn build_ruleset(policy: &FsPolicy) -> Result<Option<OwnedFd>, LandlockError> {
    Ok(ruleset_with_fixed_rules(policy)?.into())
}

fn ruleset_with_fixed_rules(policy: &FsPolicy) -> Result<RulesetCreated, LandlockError> {
    let file_rights = AccessFs::from_file(TARGET_ABI);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled_fs(TARGET_ABI))
        .and_then(|r| r.handle_access(AccessNet::from_all(TARGET_ABI)))
        .and_then(|r| r.scope(Scope::Signal | Scope::AbstractUnixSocket))
        .and_then(|r| r.create())
        .map_err(LandlockError::Ruleset)?;
    for path in &policy.read {
        let fd = open(path)?;
        let mut rights = AccessFs::from_read(TARGET_ABI);
        if !path.is_dir() {
            rights &= file_rights;
        }
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|source| rule_error(path, source))?;
    }
    for path in &policy.read_write_files {
        let fd = open(path)?;
        let rights = (AccessFs::ReadFile | AccessFs::WriteFile) & file_rights;
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|source| rule_error(path, source))?;
    }
    Ok(ruleset)
}

fn open(path: &Path) -> Result<PathFd, LandlockError> {
    PathFd::new(path).map_err(|source| LandlockError::Open {
        path: path.to_path_buf(),
        source,
    })
}

fn rule_error(path: &Path, source: RulesetError) -> LandlockError {
    LandlockError::Rule {
        path: path.to_path_buf(),
        source,
    }
}

/// The bits of the case folder rule: everything handled at the effective ABI.
pub(super) fn case_folder_rights(effective: ABI) -> u64 {
    let abi = if (effective as i32) < (TARGET_ABI as i32) {
        effective
    } else {
        TARGET_ABI
    };
    handled_fs(abi).bits()
}

/// Enforces `policy` on a throwaway thread (Landlock restricts only the
/// calling thread) to learn what this kernel really enforces.
pub(super) fn probe(policy: &FsPolicy) -> Result<(RulesetStatus, LandlockStatus), LandlockError> {
    let policy = policy.clone();
    let scratch = tempfile::tempdir().map_err(LandlockError::ProbeFolder)?;
    let folder = scratch.path().to_path_buf();
    let status: Result<RestrictionStatus, LandlockError> = std::thread::spawn(move || {
        let ruleset = ruleset_with_fixed_rules(&policy)?;
        let dir = PathFd::new(&folder).map_err(LandlockError::ProbeOpen)?;
        ruleset
            .add_rule(PathBeneath::new(dir, handled_fs(TARGET_ABI)))
            .map_err(LandlockError::ProbeRule)?
            .restrict_self()
            .map_err(LandlockError::Enforce)
    })
    .join()
    .map_err(|_| LandlockError::ProbePanicked)?;
    let status = status?;
    Ok((status.ruleset, status.landlock))
}

/// `struct landlock_path_beneath_attr`, which the kernel declares packed.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_RULE_PATH_BENEATH: libc::c_long = 1;

/// In the child, after the fork: grants `rights` under `folder` and enforces
/// the ruleset. Async-signal-safe: only system calls on prepared data.
pub(super) fn restrict_self(
    ruleset: &OwnedFd,
    folder: &std::ffi::CStr,
    rights: u64,
) -> std::io::Result<()> {
    use rustix::fs::{CWD, Mode, OFlags, openat};
    let dir = openat(
        CWD,
        folder,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let attr = PathBeneathAttr {
        allowed_access: rights,
        parent_fd: dir.as_raw_fd(),
    };
    // SAFETY: the attribute struct lives across the call and matches the
    // kernel's layout; the fds are valid.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0,
        )
    };
    if added != 0 {
        return Err(std::io::Error::last_os_error());
    }
    drop(dir);
    enforce(ruleset.as_raw_fd())
}

/// Enforces a finished ruleset on the calling process. Async-signal-safe.
pub(super) fn enforce(ruleset: i32) -> std::io::Result<()> {
    // Required to restrict oneself without CAP_SYS_ADMIN; also stops setuid
    // binaries from regaining privileges.
    rustix::thread::set_no_new_privs(true)?;
    // SAFETY: plain system call on a valid fd.
    let restricted = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) };
    if restricted != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The fork server's ruleset, built once per slot: the fixed rules plus
/// every handled right beneath `slot`. Each case mounts its tmpfs on
/// `slot/case`; a rule covers what lies beneath its directory across mount
/// points, so the fresh tmpfs is writable without a rule added per case
/// (which would pin every earlier case's tmpfs in the shared ruleset).
/// `slot` itself is bound read-only in each case, so only the tmpfs takes writes.
pub(super) fn build_slot_ruleset(policy: &FsPolicy, slot: &Path) -> Result<OwnedFd, LandlockError> {
    let dir = open(slot)?;
    let ruleset = ruleset_with_fixed_rules(policy)?
        .add_rule(PathBeneath::new(dir, handled_fs(TARGET_ABI)))
        .map_err(|source| rule_error(slot, source))?;
    Option::<OwnedFd>::from(ruleset).ok_or(LandlockError::Unsupported)
}

/// Human text for the status of the probe, e.g. "fully enforced (ABI 6)".
pub(super) fn describe_status(ruleset: &RulesetStatus, landlock: LandlockStatus) -> String {
    let abi = match landlock {
        LandlockStatus::Available { effective_abi, .. } => {
            format!("kernel ABI {}", effective_abi as i32)
        }
        LandlockStatus::NotEnabled => "not enabled at boot".into(),
        LandlockStatus::NotImplemented => "not built into this kernel".into(),
    };
    let enforced = match ruleset {
        RulesetStatus::FullyEnforced => "fully enforced",
        RulesetStatus::PartiallyEnforced => "partially enforced",
        RulesetStatus::NotEnforced => "not enforced",
    };
    format!("{enforced}, {abi}")
}

/// The ABI the rules were built for on this kernel, when Landlock works.
pub(super) fn effective_abi(landlock: LandlockStatus) -> Option<ABI> {
    match landlock {
        LandlockStatus::Available { effective_abi, .. } => Some(effective_abi),
        _ => None,
    }
}

/// Whether `p` is a path that must never be readable by a case.
#[cfg(test)]
fn is_below(p: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| p.starts_with(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_grants_the_prefix_and_system_dirs_but_not_etc_home_or_tmp() {
        let p = FsPolicy::for_interpreter(&[PathBuf::from("/opt/py")]);
        assert!(is_below(Path::new("/opt/py/lib/python3.11/os.py"), &p.read));
        assert!(is_below(Path::new("/usr/lib/libc.so"), &p.read));
        for secret in [
            "/etc/shadow",
            "/root/.ssh/id_rsa",
            "/tmp/x",
            "/work/repo",
            "/home/u",
        ] {
            assert!(!is_below(Path::new(secret), &p.read), "{secret}");
        }
        assert!(p.describe().contains("/opt/py"));
    }

    #[test]
    fn case_folder_rights_never_exceed_the_target_abi() {
        assert_eq!(case_folder_rights(ABI::V7), handled_fs(TARGET_ABI).bits());
        assert_eq!(case_folder_rights(ABI::V1), handled_fs(ABI::V1).bits());
    }
}
