//! The host-side files a case needs: the report pipe, output read back with
//! a cap, and stale folders of dead runs removed.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::{SandboxError, error};

/// Removes `<prefix><pid>-*` entries of `dir` whose process is gone.
pub(super) fn remove_stale(
    dir: &Path,
    prefix: &str,
    remove: impl Fn(&Path) -> std::io::Result<()>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = remove(&entry.path());
        }
    }
}

/// A close-on-exec pipe (std's `io::pipe` is newer than our MSRV).
pub(super) fn report_pipe() -> Result<(File, OwnedFd), SandboxError> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills both slots on success; we own them from then on.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(error(format!("cannot create a pipe: {e}")));
    }
    // SAFETY: fresh descriptors, owned by nobody else.
    unsafe {
        use std::os::fd::FromRawFd;
        Ok((File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

pub(super) fn clone_file(f: &File) -> Result<File, SandboxError> {
    f.try_clone()
        .map_err(|e| error(format!("cannot duplicate a file handle: {e}")))
}

/// The first `limit` bytes, lossily decoded, and whether there was more.
pub(super) fn read_capped(file: &File, limit: u64) -> Result<(String, bool), SandboxError> {
    let len = file
        .metadata()
        .map_err(|e| error(format!("cannot read the program's output: {e}")))?
        .len();
    let mut buf = vec![0u8; len.min(limit) as usize];
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(error(format!("cannot read the program's output: {e}"))),
        }
    }
    buf.truncate(filled);
    Ok((String::from_utf8_lossy(&buf).into_owned(), len > limit))
}
