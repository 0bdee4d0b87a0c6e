//! The languages MultiPL-E translates HumanEval into, run as MultiPL-E
//! runs them: the prompt, the model's completion and the tests, as one
//! program (assemble.rs), built and run with the language's commands
//! (each language's folder under `crate::execute` holds its [`Spec`]) in
//! the sandbox, under the same namespaces, pids cgroup, rlimits and
//! Landlock rules as every case.
//!
//! A pass is what MultiPL-E's evaluator counts as one (exit status 0, and
//! for Racket nothing on stderr), and, beyond it, proof that the tests ran
//! to their end: the tests write a secret of the case's after the last of
//! them passed (spec.rs's [`spec::Proof`]), so a program that exits 0
//! before them (`os.exit(0)`, `process.exit(0)`, `quit(status = 0)`,
//! `(exit 0)`, `System.exit(0)`) is never correct. The documented limit,
//! as for Python and C++: a program written to find the secret in its own
//! file and print it is not caught.

pub mod assemble;
pub mod import;
pub mod spec;
pub mod toolchain;
mod verdict;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::case::ExecutionRecord;
use crate::config::CppConfig;
use crate::sandbox::{CaseFile, Launch, LaunchLimits, Sandbox, SandboxError};
use crate::suite::{CodeLanguage, Question};

use crate::judge::Ran;
pub use spec::Spec;
pub use toolchain::Toolchain;

/// The MultiPL-E side of a run: each language's toolchain, found when its
/// first case (or the run's announcement) needs it.
pub struct MultiplE {
    /// Compiles run under `[cpp]`'s compiler limits, as g++ does.
    compile: CppConfig,
    toolchains: Mutex<HashMap<CodeLanguage, Arc<Result<Toolchain, String>>>>,
}

/// A fresh secret per case, as hex.
fn nonce() -> Result<String, SandboxError> {
    let mut bytes = [0u8; 16];
    rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty()).map_err(|e| {
        SandboxError {
            message: format!("cannot draw the tests' proof secret: {e}"),
        }
    })?;
    Ok(format!(
        "prompteval-tests-done-{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

/// `arg` with `{file}` and `{stem}` filled in.
fn fill(arg: &str, spec: &Spec) -> OsString {
    let stem = spec.file.rsplit_once('.').map_or(spec.file, |(s, _)| s);
    arg.replace("{file}", spec.file)
        .replace("{stem}", stem)
        .into()
}

impl MultiplE {
    pub fn new(compile: CppConfig) -> MultiplE {
        MultiplE {
            compile,
            toolchains: Mutex::new(HashMap::new()),
        }
    }

    /// `spec`'s toolchain, found once.
    pub fn toolchain(&self, spec: &Spec) -> Arc<Result<Toolchain, String>> {
        let mut known = self.toolchains.lock().unwrap_or_else(|p| p.into_inner());
        known
            .entry(spec.language)
            .or_insert_with(|| Arc::new(Toolchain::find(spec)))
            .clone()
    }

    /// Builds and runs the program of `code` for `question`; an error only
    /// when the harness could not do its part (a missing toolchain: the
    /// case is not evaluated, never failed).
    pub fn run(
        &self,
        spec: &Spec,
        question: &Question,
        code: &str,
        sandbox: &Sandbox,
    ) -> Result<Ran, SandboxError> {
        let toolchain = self.toolchain(spec);
        let toolchain = toolchain.as_ref().as_ref().map_err(|why| SandboxError {
            message: why.clone(),
        })?;
        let tests = question.tests.as_deref().unwrap_or_default();
        let secret = nonce()?;
        let proved = spec
            .proof
            .insert(tests, &secret)
            .ok_or_else(|| SandboxError {
                message: format!(
                    "question {}'s tests do not have the shape {}'s proof needs ({:?}); \
                 re-import the suite with `prompteval import multipl-e`",
                    question.index,
                    spec.language.name(),
                    spec.proof
                ),
            })?;
        let problem = assemble::Problem::of(question, spec);
        let program = assemble::program(&problem, code, &proved);
        let (execution, built) = self.build_and_run(spec, toolchain, &program.run, sandbox)?;
        let judgement = verdict::judge(spec, &execution, built, &secret);
        let execution = ExecutionRecord {
            stdout: verdict::without_secret(&execution.stdout, &secret),
            tests: Some(crate::case::TestsRun {
                completed: verdict::proven(&execution, &secret),
                started: false,
                exiting: false,
                traced: false,
                raised: None,
                suspect: Vec::new(),
            }),
            ..execution
        };
        Ok(Ran {
            shown: program.shown,
            execution,
            judgement,
            speed: None,
        })
    }

    /// Runs the build step, when there is one, then the program: the
    /// record of the step that decided, and whether the build passed.
    fn build_and_run(
        &self,
        spec: &Spec,
        toolchain: &Toolchain,
        source: &str,
        sandbox: &Sandbox,
    ) -> Result<(ExecutionRecord, verdict::Built), SandboxError> {
        let files = [CaseFile {
            name: spec.file,
            bytes: source.as_bytes(),
            executable: false,
        }];
        let mut read: Vec<PathBuf> = spec.read.iter().map(PathBuf::from).collect();
        read.extend(toolchain.read.iter().cloned());
        let compile_timeout = Duration::from_secs_f64(self.compile.compile_timeout_secs);
        let Some(build) = &spec.build else {
            let step = Step::of(spec, toolchain, &spec.run, None)?;
            let execution = launch(sandbox, &step, &files, &read, self.run_limits(spec))?;
            return Ok((execution, verdict::Built::NotCompiled));
        };
        let step = Step::of(spec, toolchain, build, None)?;
        let limits = LaunchLimits {
            timeout: Some(compile_timeout),
            memory_mb: Some(
                self.compile
                    .compile_memory_mb
                    .max(spec.memory_mb.unwrap_or(0)),
            ),
            cpu_secs: Some(compile_timeout.as_secs().saturating_add(1)),
        };
        let built = sandbox.launch(&Launch {
            executable: &step.executable,
            args: &step.args,
            files: &files,
            read: &read,
            stdin: None,
            limits,
            keep_folder: true,
            env: spec.env,
        })?;
        let compiled = built.execution;
        if compiled.exit_code != Some(0) || compiled.timed_out {
            return Ok((compiled, verdict::Built::Failed));
        }
        let folder = built.folder.ok_or_else(|| SandboxError {
            message: "the build's folder was not kept".into(),
        })?;
        // The run starts in a folder of its own with what the build left
        // (the program, Java's classes), as the build left it.
        let products = products(folder.path()).map_err(|e| SandboxError {
            message: format!(
                "{} exited 0 but what it wrote cannot be read: {e}",
                spec.language.info().checker
            ),
        })?;
        let program_files: Vec<CaseFile> = products
            .iter()
            .map(|(name, bytes, executable)| CaseFile {
                name,
                bytes,
                executable: *executable,
            })
            .collect();
        let step = Step::of(spec, toolchain, &spec.run, None)?;
        let execution = launch(sandbox, &step, &program_files, &read, self.run_limits(spec))?;
        let execution = ExecutionRecord {
            duration_secs: compiled.duration_secs + execution.duration_secs,
            ..execution
        };
        Ok((execution, verdict::Built::Compiled))
    }

    fn run_limits(&self, spec: &Spec) -> LaunchLimits {
        LaunchLimits {
            timeout: None,
            memory_mb: spec.memory_mb,
            cpu_secs: None,
        }
    }
}

/// The files a build left in its folder: name, bytes, executable.
fn products(dir: &std::path::Path) -> std::io::Result<Vec<(String, Vec<u8>, bool)>> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        if !meta.is_file() {
            continue;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let executable = meta.permissions().mode() & 0o111 != 0;
        out.push((name, std::fs::read(entry.path())?, executable));
    }
    out.sort();
    Ok(out)
}

/// One command ready to launch.
struct Step {
    executable: PathBuf,
    args: Vec<OsString>,
    env: &'static [(&'static str, &'static str)],
}

impl Step {
    fn of(
        spec: &Spec,
        toolchain: &Toolchain,
        step: &spec::Step,
        built: Option<&str>,
    ) -> Result<Step, SandboxError> {
        let executable = match step.program {
            spec::Program::Tool(i) => {
                toolchain
                    .paths
                    .get(i)
                    .cloned()
                    .ok_or_else(|| SandboxError {
                        message: format!("{} has no tool {i}", spec.language.name()),
                    })?
            }
            spec::Program::Built(name) => PathBuf::from(format!("./{}", built.unwrap_or(name))),
        };
        Ok(Step {
            executable,
            args: step.args.iter().map(|a| fill(a, spec)).collect(),
            env: spec.env,
        })
    }
}

fn launch(
    sandbox: &Sandbox,
    step: &Step,
    files: &[CaseFile],
    read: &[PathBuf],
    limits: LaunchLimits,
) -> Result<ExecutionRecord, SandboxError> {
    let launched = sandbox.launch(&Launch {
        executable: &step.executable,
        args: &step.args,
        files,
        read,
        stdin: None,
        limits,
        keep_folder: false,
        env: step.env,
    })?;
    Ok(launched.execution)
}

/// Runs `source` as MultiPL-E's evaluator does, outside the sandbox, in a
/// folder of its own: the build, then the program, each within 60 s.
/// Whether it passed by MultiPL-E's rule (exit status 0, and for Racket
/// nothing on stderr); None when a step could not start. For trusted
/// programs only: the tests' reference and the benchmark's floor.
pub fn run_directly(spec: &Spec, toolchain: &Toolchain, source: &str) -> Option<bool> {
    use std::process::{Command, Stdio};
    use wait_timeout::ChildExt;
    let dir = tempfile::tempdir().ok()?;
    std::fs::write(dir.path().join(spec.file), source).ok()?;
    let steps = spec.build.iter().chain(std::iter::once(&spec.run));
    for step in steps {
        let program = match step.program {
            spec::Program::Tool(i) => toolchain.paths.get(i)?.clone(),
            spec::Program::Built(name) => dir.path().join(name),
        };
        let mut command = Command::new(program);
        command
            .args(step.args.iter().map(|a| fill(a, spec)))
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in spec.env {
            command.env(k, v.replace("{dir}", &dir.path().to_string_lossy()));
        }
        let mut child = command.spawn().ok()?;
        let status = match child.wait_timeout(Duration::from_secs(60)).ok()? {
            Some(status) => status,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(false);
            }
        };
        let output = child.wait_with_output().ok()?;
        if !status.success() {
            return Some(false);
        }
        if spec.stderr_fails && !output.stderr.is_empty() {
            return Some(false);
        }
    }
    Some(true)
}
