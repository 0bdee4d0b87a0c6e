//! What a case gets, described once: its namespaces, its mounts and its
//! rlimits. The three ways a case starts apply this one description: the
//! per-case fork from the harness (isolate.rs), the Rust fork server
//! (zygote.rs `run_case`) and the warm interpreter (warm_server.py, which
//! gets the steps as data in its start message and applies them in order,
//! knowing none of them). The Landlock rules are `filesystem.rs`'s, built
//! once per slot, and the pids limit is the slot's cgroup (`cgroup.rs`).

use std::ffi::{CStr, CString};

use rustix::process::Resource;

use super::limits::Limits;

/// The namespaces a case enters, by how it starts: a case forked from the
/// harness makes all of its own; a fork server's case shares the slot's
/// empty network namespace; a warm case shares the slot's pid namespace
/// too, whose pid 1 is its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    Fresh,
    Forked,
    Warm,
}

impl Start {
    pub fn namespaces(self) -> libc::c_int {
        let common = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
        match self {
            Start::Fresh => common | libc::CLONE_NEWPID | libc::CLONE_NEWNET,
            Start::Forked => common | libc::CLONE_NEWPID,
            Start::Warm => common,
        }
    }
}

/// One mount(2) call, with the setup stage a failure is reported as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MountStep {
    pub source: Option<CString>,
    pub target: CString,
    pub fstype: Option<CString>,
    /// mount(2)'s flags (rustix splits them by operation; the steps mix them).
    pub flags: libc::c_ulong,
    pub data: Option<CString>,
    pub stage: i32,
}

impl MountStep {
    pub fn apply(&self) -> std::io::Result<()> {
        let source = self.source.as_deref();
        let fstype = self.fstype.as_deref();
        let data = self.data.as_deref();
        // SAFETY: NUL-terminated strings that outlive the call; mount(2)
        // reads them only.
        let r = unsafe {
            libc::mount(
                source.map_or(std::ptr::null(), CStr::as_ptr),
                self.target.as_ptr(),
                fstype.map_or(std::ptr::null(), CStr::as_ptr),
                self.flags,
                data.map_or(std::ptr::null(), |d| d.as_ptr().cast()),
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// The stages mounts are reported as (setup_stage.rs `STAGES`).
#[derive(Debug, Clone, Copy)]
pub(super) struct MountStages {
    pub namespaces: i32,
    pub bind_slot: i32,
    pub tmpfs: i32,
}

impl MountStages {
    /// For a path whose failures are returned as errors, not reported.
    pub const UNREPORTED: MountStages = MountStages {
        namespaces: -1,
        bind_slot: -1,
        tmpfs: -1,
    };
}

/// A case's mounts, in order: its mount namespace made private (nothing
/// propagates to the host); on a fork server, the slot folder bound
/// read-only with the flags a user namespace may not clear (`locked`); a
/// fresh size-capped tmpfs on its case folder, when `tmpfs` is set.
pub(super) fn mounts(
    slot: Option<(&CStr, libc::c_ulong)>,
    folder: &CStr,
    tmpfs: Option<&CStr>,
    stages: MountStages,
) -> Vec<MountStep> {
    let step = |source: Option<&CStr>,
                target: &CStr,
                fstype: Option<&CStr>,
                flags,
                data: Option<&CStr>,
                stage| MountStep {
        source: source.map(CStr::to_owned),
        target: target.to_owned(),
        fstype: fstype.map(CStr::to_owned),
        flags,
        data: data.map(CStr::to_owned),
        stage,
    };
    let mut steps = vec![step(
        None,
        c"/",
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
        stages.namespaces,
    )];
    if let Some((slot, locked)) = slot {
        steps.push(step(
            Some(slot),
            slot,
            None,
            libc::MS_BIND,
            None,
            stages.bind_slot,
        ));
        steps.push(step(
            None,
            slot,
            None,
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | locked,
            Some(c""),
            stages.bind_slot,
        ));
    }
    if let Some(options) = tmpfs {
        steps.push(step(
            Some(c"prompteval-case"),
            folder,
            Some(c"tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(options),
            stages.tmpfs,
        ));
    }
    steps
}

/// One setrlimit(2) call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RlimitStep {
    pub resource: Resource,
    pub soft: u64,
    pub hard: u64,
}

/// A case's rlimits: address space, CPU (hard one second above soft, so the
/// soft limit's SIGXCPU comes first), file size, open files, no core dumps,
/// processes (RLIMIT_NPROC; the slot's pids cgroup is the binding bound).
pub(super) fn rlimits(l: &Limits) -> Vec<RlimitStep> {
    let both = |resource, v| RlimitStep {
        resource,
        soft: v,
        hard: v,
    };
    vec![
        both(Resource::As, l.address_space),
        RlimitStep {
            resource: Resource::Cpu,
            soft: l.cpu_secs,
            hard: l.cpu_secs.saturating_add(1),
        },
        both(Resource::Fsize, l.file_size),
        both(Resource::Nofile, l.open_files),
        both(Resource::Core, 0),
        both(Resource::Nproc, l.processes),
    ]
}

pub(super) fn apply_rlimits(steps: &[RlimitStep]) -> std::io::Result<()> {
    for s in steps {
        rustix::process::setrlimit(
            s.resource,
            rustix::process::Rlimit {
                current: Some(s.soft),
                maximum: Some(s.hard),
            },
        )?;
    }
    Ok(())
}

/// The steps as the warm interpreter reads them from its start message:
/// one step per line, fields separated by the unit separator (0x1f), an
/// absent field empty (a mount's data can be empty but present: "=").
pub(super) fn mounts_message(steps: &[MountStep]) -> Vec<u8> {
    let mut out = Vec::new();
    for s in steps {
        let field = |v: &Option<CString>| -> Vec<u8> {
            match v {
                Some(c) => [b"=".as_slice(), c.as_bytes()].concat(),
                None => Vec::new(),
            }
        };
        let fields = [
            field(&s.source),
            s.target.as_bytes().to_vec(),
            field(&s.fstype),
            s.flags.to_string().into_bytes(),
            field(&s.data),
            s.stage.to_string().into_bytes(),
        ];
        out.extend(fields.join(&0x1f));
        out.push(b'\n');
    }
    out
}

/// `resource:soft:hard` per step, comma-separated, resources by number.
pub(super) fn rlimits_message(steps: &[RlimitStep]) -> String {
    steps
        .iter()
        .map(|s| format!("{}:{}:{}", s.resource as i32, s.soft, s.hard))
        .collect::<Vec<_>>()
        .join(",")
}
