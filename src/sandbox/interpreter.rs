//! Finds the real Python behind `config.python`, once per run.
//!
//! `python3` is often a pyenv shim (a shell script that costs ~100 ms per
//! start); asking the interpreter for `sys.executable` gives the binary behind
//! it, and its prefixes tell the filesystem rules what it needs to read.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::SandboxError;

/// The interpreter every case runs, and the directories it reads at start.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Interpreter {
    pub executable: PathBuf,
    /// `sys.prefix`, `sys.base_prefix`, `sys.exec_prefix`... and the folder of
    /// the executable, canonical and without duplicates.
    pub prefixes: Vec<PathBuf>,
    /// Python 3.11+ knows `-P` (no script folder on sys.path).
    pub has_safe_path_flag: bool,
}

/// Prints the facts we need, one per line: 1 when `-P` exists, then the
/// executable, then the prefixes.
const QUERY: &str = "import sys\nprint(int(sys.version_info >= (3, 11)))\n\
                     for p in (sys.executable, sys.prefix, sys.base_prefix, \
                     sys.exec_prefix, sys.base_exec_prefix): print(p)\n";

pub(super) fn resolve(configured: &str) -> Result<Interpreter, SandboxError> {
    let found = find_on_path(configured, std::env::var_os("PATH").as_deref())
        .ok_or_else(|| not_found(configured, "not found on PATH"))?;
    let output = Command::new(&found)
        .args(["-I", "-c", QUERY])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| {
            not_found(
                configured,
                &format!("cannot start {}: {e}", found.display()),
            )
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = format!(
            "{} exited with {}: {}",
            found.display(),
            output.status,
            stderr.trim()
        );
        return Err(not_found(configured, &why));
    }
    parse_query_output(&String::from_utf8_lossy(&output.stdout))
        .ok_or_else(|| not_found(configured, "it did not report sys.executable"))
}

/// A name without a slash is looked up on PATH like a shell would; anything
/// else is a path.
pub(super) fn find_on_path(name: &str, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.contains('/') {
        let p = PathBuf::from(name);
        return is_executable(&p).then_some(p);
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The output of [`QUERY`].
pub(super) fn parse_query_output(stdout: &str) -> Option<Interpreter> {
    let mut lines = stdout.lines().map(str::trim).filter(|l| !l.is_empty());
    let has_safe_path_flag = lines.next()? == "1";
    let executable = std::fs::canonicalize(lines.next()?).ok()?;
    let mut prefixes: Vec<PathBuf> = Vec::new();
    let exe_dir = executable.parent().map(Path::to_path_buf);
    for p in lines.map(PathBuf::from).chain(exe_dir) {
        // A prefix that does not exist cannot be read anyway.
        if let Ok(p) = std::fs::canonicalize(&p)
            && !prefixes.contains(&p)
        {
            prefixes.push(p);
        }
    }
    Some(Interpreter {
        executable,
        prefixes,
        has_safe_path_flag,
    })
}

fn not_found(configured: &str, why: &str) -> SandboxError {
    SandboxError {
        message: format!(
            "cannot use the Python interpreter `{configured}` ({why}); install it or set \
             `[sandbox] python = \"/path/to/python3\"` in harness.toml"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_name_is_not_found_and_the_error_names_the_fix() {
        assert_eq!(
            find_on_path("no-such-python-xyz", Some("/usr/bin:/bin".as_ref())),
            None
        );
        let e = resolve("no-such-python-xyz").unwrap_err();
        assert!(e.message.contains("no-such-python-xyz"), "{e}");
        assert!(e.message.contains("[sandbox] python"), "{e}");
    }

    #[test]
    fn a_name_is_searched_on_path_and_a_path_is_taken_as_is() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("py");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path_var = std::env::join_paths(["/nonexistent".as_ref(), dir.path()]).unwrap();
        assert_eq!(find_on_path("py", Some(&path_var)), Some(exe.clone()));
        assert_eq!(find_on_path(exe.to_str().unwrap(), None), Some(exe));
        // Not executable: skipped.
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        assert_eq!(find_on_path("plain", Some(&path_var)), None);
    }

    #[test]
    fn query_output_gives_canonical_executable_and_unique_prefixes() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/python3.11"), "").unwrap();
        std::os::unix::fs::symlink("python3.11", root.join("bin/python3")).unwrap();
        let out = format!(
            "1\n{r}/bin/python3\n{r}\n{r}\n{r}\n/nonexistent-prefix\n",
            r = root.display()
        );
        let i = parse_query_output(&out).unwrap();
        assert_eq!(i.executable, root.join("bin/python3.11"));
        assert_eq!(i.prefixes, vec![root.clone(), root.join("bin")]);
        assert!(i.has_safe_path_flag);
        assert_eq!(parse_query_output(""), None);
    }

    #[test]
    fn the_configured_python_resolves_to_a_real_binary_not_a_shim() {
        let i = resolve("python3").unwrap();
        // A shim is a shell script; the real interpreter is an ELF binary.
        let head = std::fs::read(&i.executable).unwrap();
        assert_eq!(&head[..4], b"\x7fELF", "{}", i.executable.display());
        assert!(!i.executable.to_string_lossy().contains("/shims/"));
    }
}
