//! Which isolation mechanisms a case runs with, and the order in which a
//! host that refuses one drops them.

/// Which mechanisms a case runs with; chosen once by probing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Mode {
    pub(super) namespaces: bool,
    /// A tmpfs on the case folder (needs the mount namespace).
    pub(super) tmpfs: bool,
    pub(super) landlock: Option<landlock::ABI>,
    pub(super) cgroup: bool,
}

impl Mode {
    /// The next weaker mode, dropping the mechanism most likely to be
    /// refused first; None when nothing is left to drop.
    pub(super) fn weaker(self) -> Option<(Mode, &'static str)> {
        let mut m = self;
        let dropped = if m.cgroup {
            m.cgroup = false;
            "the pids cgroup"
        } else if m.tmpfs {
            m.tmpfs = false;
            "the tmpfs case folder"
        } else if m.namespaces {
            m.namespaces = false;
            "namespaces (user, network, pid, mount)"
        } else if m.landlock.is_some() {
            m.landlock = None;
            "landlock"
        } else {
            return None;
        };
        Some((m, dropped))
    }
}
