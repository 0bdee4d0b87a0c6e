//! The parts every C++ case of a run shares, made once: the compiler's
//! real path, ParEval's `utilities.hpp`, the project's driver `main`
//! (driver.cc) compiled for each parallelism model, and a precompiled
//! header of the standard headers every ParEval problem includes before
//! its candidate, so that a case compiles only the problem's driver with
//! its candidate and links.
//!
//! The precompiled header changes nothing a candidate sees: it holds
//! exactly the headers that `utilities.hpp` includes and that all 60 of
//! ParEval's `cpu.cc` include (`<vector>`, `<random>`, `<numeric>`,
//! `<algorithm>`) before `generated-code.hpp`, so every one of them is
//! already there when the candidate's text starts; a header only some
//! problems include stays out. Parsing those headers was 90% of a case's
//! compile time (1.1 s of 1.2 s of CPU; 0.5 s with it).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::suite::ParallelModel;

/// ParEval's drivers/cpp/utilities.hpp (MIT), which every problem's
/// driver includes.
pub(super) const UTILITIES: &str = include_str!("pareval_utilities.hpp");
/// The project's `main` for ParEval problems (see its comment).
const DRIVER_MAIN: &str = include_str!("driver.cc");

/// The standard headers every ParEval problem includes before its
/// candidate (utilities.hpp's, and those all 60 cpu.cc include).
const COMMON_HEADERS: &[&str] = &[
    "cassert",
    "cmath",
    "climits",
    "cfloat",
    "string",
    "complex",
    "queue",
    "type_traits",
    "vector",
    "random",
    "numeric",
    "algorithm",
];

/// ParEval's flags for serial and OpenMP builds (cpp_driver_wrapper.py).
pub fn model_flags(model: ParallelModel) -> &'static [&'static str] {
    match model {
        ParallelModel::Serial => &["-std=c++17", "-O3", "-DUSE_SERIAL"],
        ParallelModel::Omp => &["-std=c++17", "-O3", "-fopenmp", "-DUSE_OMP"],
    }
}

/// What the run's C++ cases share; removed with the run.
pub struct Toolchain {
    pub compiler: PathBuf,
    /// What `g++ --version` said first.
    pub version: String,
    folder: tempfile::TempDir,
}

impl Toolchain {
    /// Resolves `compiler`, writes the shared headers and compiles the
    /// driver for both models. The sources are the project's own, so the
    /// compiler runs here outside the sandbox.
    pub fn prepare(compiler: &str) -> Result<Toolchain, String> {
        let compiler = resolve(compiler)?;
        let version = Command::new(&compiler)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run {}: {e}", compiler.display()))?;
        let version = String::from_utf8_lossy(&version.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let folder = tempfile::Builder::new()
            .prefix("prompteval-cpp-")
            .tempdir()
            .map_err(|e| format!("cannot create the C++ toolchain folder: {e}; check TMPDIR"))?;
        let write = |name: &str, text: &str| {
            std::fs::write(folder.path().join(name), text)
                .map_err(|e| format!("cannot write {name} in {}: {e}", folder.path().display()))
        };
        write("utilities.hpp", UTILITIES)?;
        write("prompteval-driver.cc", DRIVER_MAIN)?;
        for model in [ParallelModel::Serial, ParallelModel::Omp] {
            let compile = |what: &str, args: &[&std::ffi::OsStr]| {
                let out = Command::new(&compiler)
                    .args(model_flags(model))
                    .args(args)
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", compiler.display()))?;
                if out.status.success() {
                    return Ok(());
                }
                Err(format!(
                    "{} could not compile {what} ({}): {}; is OpenMP (libgomp) installed? \
                     (Debian: apt-get install g++)",
                    compiler.display(),
                    model.as_str(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            };
            let driver = folder.path().join("prompteval-driver.cc");
            let object = folder.path().join(driver_object_name(model));
            compile(
                "the ParEval driver",
                &[
                    "-c".as_ref(),
                    driver.as_os_str(),
                    "-o".as_ref(),
                    object.as_os_str(),
                ],
            )?;
            let header = folder.path().join(common_header_name(model));
            let mut text: String = COMMON_HEADERS
                .iter()
                .map(|h| format!("#include <{h}>\n"))
                .collect();
            if model == ParallelModel::Omp {
                text.push_str("#include <omp.h>\n");
            }
            write(&common_header_name(model), &text)?;
            let mut gch = header.clone().into_os_string();
            gch.push(".gch");
            compile(
                "the precompiled header",
                &[
                    "-x".as_ref(),
                    "c++-header".as_ref(),
                    header.as_os_str(),
                    "-o".as_ref(),
                    &gch,
                ],
            )?;
        }
        Ok(Toolchain {
            compiler,
            version,
            folder,
        })
    }

    /// The folder a compilation reads besides the system's.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    pub fn driver_object(&self, model: ParallelModel) -> PathBuf {
        self.folder.path().join(driver_object_name(model))
    }

    /// The header a case names with `-include`: its `.gch` beside it is
    /// what g++ reads (the text, where the `.gch` does not fit).
    pub fn common_header(&self, model: ParallelModel) -> PathBuf {
        self.folder.path().join(common_header_name(model))
    }
}

fn common_header_name(model: ParallelModel) -> String {
    format!("prompteval-common-{}.hpp", model.as_str())
}

fn driver_object_name(model: ParallelModel) -> String {
    format!("prompteval-driver-{}.o", model.as_str())
}

/// The compiler's real path: a name is looked up on PATH once, and links
/// followed, so the sandbox's read rules name the real file.
fn resolve(compiler: &str) -> Result<PathBuf, String> {
    let found = if compiler.contains('/') {
        Some(PathBuf::from(compiler))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(compiler))
                .find(|p| p.is_file())
        })
    };
    let found = found.ok_or_else(|| {
        format!(
            "the C++ compiler `{compiler}` ([cpp] compiler) is not on PATH; install it \
             (Debian: apt-get install g++) or set [cpp] compiler in harness.toml"
        )
    })?;
    std::fs::canonicalize(&found).map_err(|e| format!("{}: {e}", found.display()))
}
