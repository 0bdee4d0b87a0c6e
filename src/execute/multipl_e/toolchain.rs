//! A language's tools found on this machine, or why not: the package to
//! install. Found once per run, when the first case of the language runs
//! (or when the run's first lines list the suite's languages).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::spec::{Spec, Tool};

/// The resolved tools of one language.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// In [`Spec::tools`]' order.
    pub paths: Vec<PathBuf>,
    /// What the first tool says of its version (run_info.json).
    pub version: String,
    /// Folders outside the system's that the tools read (a rustup
    /// toolchain's sysroot).
    pub read: Vec<PathBuf>,
}

/// Why a language cannot run here, naming what to install.
pub fn missing(spec: &Spec, what: &str) -> String {
    let packages: Vec<&str> = spec
        .tools
        .iter()
        .map(|t| t.package)
        .chain(spec.requires.iter().map(|(_, p)| *p))
        .collect();
    format!(
        "{} cannot run here: {what}; install it (Debian: apt-get install {})",
        spec.language.name(),
        packages.join(" ")
    )
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The first line a command printed on stdout, else on stderr.
fn first_line(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    [&out.stdout, &out.stderr]
        .iter()
        .filter_map(|bytes| {
            String::from_utf8_lossy(bytes)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        })
        .next()
}

fn resolve(tool: &Tool, read: &mut Vec<PathBuf>) -> Option<PathBuf> {
    let found = tool.names.iter().find_map(|n| on_path(n))?;
    let Some(args) = tool.sysroot_args else {
        return std::fs::canonicalize(&found).ok();
    };
    let sysroot = PathBuf::from(first_line(&found, args)?);
    let real = sysroot.join("bin").join(found.file_name()?);
    if !sysroot.starts_with("/usr") {
        read.push(sysroot);
    }
    real.is_file().then_some(real)
}

impl Toolchain {
    pub fn find(spec: &Spec) -> Result<Toolchain, String> {
        let mut read = Vec::new();
        let mut paths = Vec::new();
        for tool in spec.tools {
            let path = resolve(tool, &mut read).ok_or_else(|| {
                missing(spec, &format!("no `{}` on PATH", tool.names.join("` or `")))
            })?;
            if !path.starts_with("/usr") && !path.starts_with("/bin") {
                if let Some(dir) = path.parent() {
                    read.push(dir.to_path_buf());
                }
            }
            paths.push(path);
        }
        for (file, _) in spec.requires {
            if !Path::new(file).exists() {
                return Err(missing(spec, &format!("{file} is not there")));
            }
        }
        let tool = &spec.tools[0];
        let version = first_line(&paths[0], tool.version_args)
            .unwrap_or_else(|| "version unknown".to_string());
        Ok(Toolchain {
            paths,
            version,
            read,
        })
    }
}
