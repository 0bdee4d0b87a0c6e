//! The builds this run has made, by everything the compiler was given.
//!
//! Greedy decoding gives the same reply in every round and often for
//! several variants of one problem, and a `-O3` build of a ParEval program
//! takes seconds: a build whose compiler, arguments and files are byte for
//! byte those of an earlier one is that build again. Only the build is
//! reused; the program still runs, and is judged, in every case.
//!
//! Kept in memory for the run only, up to [`BUDGET_BYTES`] of programs
//! (the oldest go first). A compiler stopped by its time or memory limit
//! is never kept: that outcome depends on the machine's load, not on the
//! source, so the next case compiles again.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;
use std::sync::Mutex;

use crate::sandbox::CaseFile;

use super::Build;

/// The programs' bytes kept at most (about 500 ParEval programs).
const BUDGET_BYTES: usize = 128 << 20;

/// What identifies a build: a hash of every input of the compiler.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BuildKey(blake3::Hash);

impl BuildKey {
    /// The key of running `compiler` (whose `--version` said `version`)
    /// with `args` on `files`. Lengths are hashed before each part, so no
    /// two different inputs run together into the same bytes.
    pub fn of(compiler: &Path, version: &str, args: &[OsString], files: &[CaseFile]) -> BuildKey {
        let mut hasher = blake3::Hasher::new();
        let mut part = |bytes: &[u8]| {
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        part(compiler.as_os_str().as_bytes());
        part(version.as_bytes());
        part(&(args.len() as u64).to_le_bytes());
        for arg in args {
            part(arg.as_bytes());
        }
        part(&(files.len() as u64).to_le_bytes());
        for file in files {
            part(file.name.as_bytes());
            part(file.bytes);
            part(&[u8::from(file.executable)]);
        }
        BuildKey(hasher.finalize())
    }
}

/// The run's builds, oldest first.
#[derive(Default)]
pub struct Builds {
    kept: Mutex<VecDeque<(BuildKey, Build)>>,
}

impl Builds {
    /// The build made earlier with `key`, if it is still kept.
    pub fn get(&self, key: BuildKey) -> Option<Build> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().find(|(k, _)| *k == key).map(|(_, b)| b.clone())
    }

    /// Keeps `build` for later cases with the same inputs, unless its
    /// outcome could depend on the machine rather than the inputs.
    pub fn keep(&self, key: BuildKey, build: &Build) {
        if !deterministic(build) {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.iter().any(|(k, _)| *k == key) {
            return;
        }
        kept.push_back((key, build.clone()));
        let mut total: usize = kept.iter().map(|(_, b)| size(b)).sum();
        while total > BUDGET_BYTES && kept.len() > 1 {
            if let Some((_, old)) = kept.pop_front() {
                total -= size(&old);
            }
        }
    }
}

/// A program built, or a compiler that stopped by itself with an error
/// (a compile error): not one killed by a limit or a signal.
fn deterministic(build: &Build) -> bool {
    let execution = match build {
        Build::Built { execution, .. } | Build::Failed(execution) => execution,
    };
    !execution.timed_out && execution.signal.is_none() && execution.exit_code.is_some()
}

fn size(build: &Build) -> usize {
    match build {
        Build::Built { program, execution } => {
            program.len() + execution.stdout.len() + execution.stderr.len()
        }
        Build::Failed(execution) => execution.stdout.len() + execution.stderr.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::ExecutionRecord;

    fn files(source: &str) -> Vec<CaseFile<'_>> {
        vec![CaseFile {
            name: "question_1.cpp",
            bytes: source.as_bytes(),
            executable: false,
        }]
    }

    fn key(args: &[&str], source: &str) -> BuildKey {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        BuildKey::of(Path::new("/usr/bin/g++"), "g++ 12.2", &args, &files(source))
    }

    fn built(exit: i32) -> Build {
        Build::Built {
            program: vec![7; 10],
            execution: ExecutionRecord {
                exit_code: Some(exit),
                ..ExecutionRecord::default()
            },
        }
    }

    #[test]
    fn every_input_is_part_of_the_key() {
        let base = key(&["-O3", "-DUSE_OMP"], "int f();");
        assert_eq!(base, key(&["-O3", "-DUSE_OMP"], "int f();"));
        assert_ne!(base, key(&["-O3", "-DUSE_SERIAL"], "int f();"));
        assert_ne!(base, key(&["-O3"], "int f();"));
        assert_ne!(base, key(&["-O3", "-DUSE_OMP"], "int f(); "));
        // Arguments do not run together: ["-O", "3"] is not ["-O3"].
        assert_ne!(key(&["-O", "3"], "x"), key(&["-O3"], "x"));
        let args = [OsString::from("-O3")];
        let other = BuildKey::of(Path::new("/usr/bin/g++"), "g++ 13.1", &args, &files("x"));
        assert_ne!(key(&["-O3"], "x"), other);
    }

    #[test]
    fn a_build_stopped_by_a_limit_is_never_kept() {
        let builds = Builds::default();
        let k = key(&[], "slow");
        let stopped = Build::Failed(ExecutionRecord {
            timed_out: true,
            signal: Some(9),
            ..ExecutionRecord::default()
        });
        builds.keep(k, &stopped);
        assert!(builds.get(k).is_none());
        let error = Build::Failed(ExecutionRecord {
            exit_code: Some(1),
            stderr: "error: expected ';'".into(),
            ..ExecutionRecord::default()
        });
        builds.keep(k, &error);
        assert!(matches!(builds.get(k), Some(Build::Failed(e)) if e.stderr.contains("expected")));
    }

    #[test]
    fn the_oldest_builds_go_first_beyond_the_budget() {
        let builds = Builds::default();
        let big = |n: u8| Build::Built {
            program: vec![n; BUDGET_BYTES / 3],
            execution: ExecutionRecord {
                exit_code: Some(0),
                ..ExecutionRecord::default()
            },
        };
        let keys: Vec<BuildKey> = (0..4).map(|n| key(&[], &n.to_string())).collect();
        for (n, k) in keys.iter().enumerate() {
            builds.keep(*k, &big(n as u8));
        }
        assert!(builds.get(keys[0]).is_none());
        for k in &keys[1..] {
            assert!(builds.get(*k).is_some());
        }
        builds.keep(keys[3], &built(0));
        assert!(
            matches!(builds.get(keys[3]), Some(Build::Built { program, .. }) if program[0] == 3)
        );
    }
}
