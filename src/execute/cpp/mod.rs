//! C++ questions: the candidate source (assemble.rs), compiled in the
//! sandbox by g++ under the compiler's limits, then run in the sandbox
//! under `[sandbox]`'s:
//!
//! - a ParEval question builds the problem's `cpu.cc` with the candidate
//!   where it includes `generated-code.hpp`, linked with the project's
//!   driver `main` (driver.cc), and runs it once per thread count, as
//!   ParEval's `drivers/run-all.py` does: `validate()`, then ParEval's
//!   timing loops, in one process under ParEval's run limit (`[cpp]
//!   pareval_run_timeout_secs`, its 120 s). Correct only when, at every
//!   thread count, `validate()` returned true and both timing loops ended
//!   in time, each proven by the driver's records (never by what the
//!   program prints); the timings are those same processes' (speed.rs);
//! - any other C++ question is a whole program, judged by its stdout as a
//!   Python program's is.

pub mod assemble;
mod builds;
mod guard;
mod judged;
mod speed;
mod toolchain;
mod verdict;

use std::ffi::OsString;
use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use crate::case::{ExecutionRecord, Speed, Verdict};
use crate::config::CppConfig;
use crate::sandbox::{CaseFile, Launch, LaunchLimits, Sandbox, SandboxError};
use crate::suite::{ParEvalCheck, ParallelModel, Question};

use crate::judge::{Judgement, Ran};
pub use toolchain::Toolchain;
use verdict::{ThreadRun, compile_failure, thread_verdict};

/// The C++ side of a run: its settings and the toolchain, prepared when
/// the first C++ case needs it.
pub struct Cpp {
    config: CppConfig,
    /// The suite's `settings.threads`.
    suite_threads: Option<Vec<u32>>,
    toolchain: OnceLock<Result<Toolchain, String>>,
    builds: builds::Builds,
    judged: judged::Judged,
}

/// The program's name in its case folder.
const PROGRAM: &str = "prog";

impl Cpp {
    pub fn new(config: CppConfig, suite_threads: Option<Vec<u32>>) -> Cpp {
        Cpp {
            config,
            suite_threads,
            toolchain: OnceLock::new(),
            builds: builds::Builds::default(),
            judged: judged::Judged::default(),
        }
    }

    /// The toolchain, prepared on first use; why not, when it cannot be.
    pub fn toolchain(&self) -> Result<&Toolchain, SandboxError> {
        self.toolchain
            .get_or_init(|| Toolchain::prepare(&self.config.compiler))
            .as_ref()
            .map_err(|why| SandboxError {
                message: why.clone(),
            })
    }

    /// The thread counts `check` runs at (serial: once).
    pub fn threads(&self, check: &ParEvalCheck) -> Vec<u32> {
        match check.parallelism_model {
            ParallelModel::Serial => vec![1],
            ParallelModel::Omp => check
                .threads
                .clone()
                .or_else(|| self.suite_threads.clone())
                .unwrap_or_else(|| self.config.threads.clone()),
        }
    }

    /// Builds and runs `code` (the reply's) for `question`; an error only
    /// when the harness could not do its part.
    pub fn run(
        &self,
        question: &Question,
        code: &str,
        sandbox: &Sandbox,
    ) -> Result<Ran, SandboxError> {
        let toolchain = self.toolchain()?;
        let shown = assemble::candidate(question, code);
        if let Some(check) = &question.pareval {
            let prompt = assemble::patch_signature(question.question.trim_end());
            let reply = shown.get(prompt.len()..).unwrap_or_default();
            let texts = [
                check.driver.as_str(),
                check.baseline.as_str(),
                toolchain::UTILITIES,
            ];
            if let Some(name) = guard::redefined_name(reply, &texts) {
                return Ok(Ran {
                    shown,
                    execution: ExecutionRecord::default(),
                    speed: None,
                    judgement: Judgement {
                        verdict: Verdict::WrongAnswer,
                        actual: String::new(),
                        detail: Some(format!(
                            "the reply redefines `{name}`, a name ParEval's check uses (a macro, \
                             or a definition after the function): the check would no longer be \
                             ParEval's; not run, not counted as a pass"
                        )),
                    },
                });
            }
        }
        let source_name = format!("question_{}.cpp", question.index);
        let built = self.compile(toolchain, question, &source_name, &shown, sandbox)?;
        let (program, compiled) = match built {
            Build::Built { program, execution } => (program, execution),
            Build::Failed(execution) => {
                let judgement = compile_failure(&execution, &self.config);
                return Ok(Ran {
                    shown,
                    execution,
                    judgement,
                    speed: None,
                });
            }
        };
        let (execution, judgement, speed) = match &question.pareval {
            Some(check) => self.validate(check, &program, sandbox)?,
            None => {
                let execution = run_program(sandbox, &program, &[], None, LaunchLimits::default())?;
                let judgement = crate::judge::judge_output(&execution, question);
                (execution, judgement, None)
            }
        };
        let execution = ExecutionRecord {
            duration_secs: compiled.duration_secs + execution.duration_secs,
            ..execution
        };
        Ok(Ran {
            shown,
            execution,
            judgement,
            speed,
        })
    }

    /// [`Cpp::run`], with a ParEval defect of the problem named in the
    /// detail of a case that did not pass: the report then says that even a
    /// correct reply may fail here.
    pub fn run_noting_defects(
        &self,
        question: &Question,
        code: &str,
        sandbox: &Sandbox,
    ) -> Result<Ran, SandboxError> {
        let mut ran = self.run(question, code, sandbox)?;
        let defect = question.pareval.as_ref().and_then(|c| c.defect.as_deref());
        if let Some(defect) = defect
            && ran.judgement.verdict != Verdict::Correct
        {
            let detail = ran.judgement.detail.take().unwrap_or_default();
            ran.judgement.detail = Some(format!("{detail} (ParEval's own defect: {defect})"));
        }
        Ok(ran)
    }

    /// Compiles the case in the sandbox: the program's bytes, or how the
    /// compiler failed.
    fn compile(
        &self,
        toolchain: &Toolchain,
        question: &Question,
        source_name: &str,
        candidate: &str,
        sandbox: &Sandbox,
    ) -> Result<Build, SandboxError> {
        let generated = format!("#include \"{source_name}\"\n");
        let mut files = vec![CaseFile {
            name: source_name,
            bytes: candidate.as_bytes(),
            executable: false,
        }];
        let mut args: Vec<OsString> = Vec::new();
        match &question.pareval {
            Some(check) => {
                files.push(CaseFile {
                    name: "generated-code.hpp",
                    bytes: generated.as_bytes(),
                    executable: false,
                });
                files.push(CaseFile {
                    name: "baseline.hpp",
                    bytes: check.baseline.as_bytes(),
                    executable: false,
                });
                files.push(CaseFile {
                    name: "cpu.cc",
                    bytes: check.driver.as_bytes(),
                    executable: false,
                });
                args.extend(
                    toolchain::model_flags(check.parallelism_model)
                        .iter()
                        .map(OsString::from),
                );
                args.push(format!("-DDRIVER_PROBLEM_SIZE={}", check.problem_size).into());
                args.push("-include".into());
                args.push(toolchain.common_header(check.parallelism_model).into());
                args.push("-I.".into());
                args.push(format!("-I{}", toolchain.folder().display()).into());
                args.push("-pipe".into());
                // The driver first: its .preinit_array entry runs before
                // anything of the problem's object (driver.cc).
                args.push(toolchain.driver_object(check.parallelism_model).into());
                args.push("cpu.cc".into());
            }
            None => {
                args.extend(["-std=c++17", "-O2", "-fopenmp", "-pipe"].map(OsString::from));
                args.push(source_name.into());
            }
        }
        args.push("-o".into());
        args.push(PROGRAM.into());
        let key = builds::BuildKey::of(&toolchain.compiler, &toolchain.version, &args, &files);
        if let Some(mut build) = self.builds.get(key) {
            // No compiler ran for this case: its record says so in time.
            match &mut build {
                Build::Built { execution, .. } | Build::Failed(execution) => {
                    execution.duration_secs = 0.0
                }
            }
            return Ok(build);
        }
        let timeout = Duration::from_secs_f64(self.config.compile_timeout_secs);
        let launched = sandbox.launch(&Launch {
            executable: &toolchain.compiler,
            args: &args,
            files: &files,
            read: &[toolchain.folder().to_path_buf()],
            stdin: None,
            limits: LaunchLimits {
                timeout: Some(timeout),
                memory_mb: Some(self.config.compile_memory_mb),
                cpu_secs: Some(timeout.as_secs().saturating_add(1)),
            },
            keep_folder: true,
            env: &[],
        })?;
        let execution = launched.execution;
        let built = launched
            .folder
            .as_ref()
            .map(|f| f.path().join(PROGRAM))
            .filter(|_| execution.exit_code == Some(0) && !execution.timed_out);
        let build = match built.map(std::fs::read) {
            Some(Ok(program)) => Build::Built { program, execution },
            Some(Err(e)) => {
                return Err(SandboxError {
                    message: format!("the compiler exited 0 but its program cannot be read: {e}"),
                });
            }
            None => Build::Failed(execution),
        };
        self.builds.keep(key, &build);
        Ok(build)
    }

    /// Runs a ParEval program at each thread count, in order, stopping at
    /// the first that does not pass (as ParEval's early exit does): each
    /// run validates, then times `compute` and `best` (speed.rs), under
    /// ParEval's run limit. The figures of a correct case are its largest
    /// thread count's. A program judged earlier in the run is that
    /// judgement again (judged.rs).
    fn validate(
        &self,
        check: &ParEvalCheck,
        program: &[u8],
        sandbox: &Sandbox,
    ) -> Result<judged::Outcome, SandboxError> {
        let threads = self.threads(check);
        let key = judged::JudgedKey::of(program, &threads, self.config.pareval_run_timeout_secs);
        if let Some(outcome) = self.judged.get(key) {
            return Ok(outcome);
        }
        let outcome = self.judge_runs(check, &threads, program, sandbox)?;
        self.judged.keep(key, &outcome);
        Ok(outcome)
    }

    /// [`Cpp::validate`]'s runs, one process per thread count.
    fn judge_runs(
        &self,
        check: &ParEvalCheck,
        threads: &[u32],
        program: &[u8],
        sandbox: &Sandbox,
    ) -> Result<judged::Outcome, SandboxError> {
        let limit = Duration::from_secs_f64(self.config.pareval_run_timeout_secs);
        // CPU time counts every thread: as much as the wall time on each core.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        let limits = LaunchLimits {
            timeout: Some(limit),
            memory_mb: None,
            cpu_secs: Some(limit.as_secs().saturating_add(1).saturating_mul(cores)),
        };
        let mut total = 0.0;
        let mut ended = None;
        let mut speed: Option<Speed> = None;
        for &t in threads {
            let proof = ProofFile::new()?;
            let args = [OsString::from(t.to_string()), OsString::from("time")];
            let execution = run_program(sandbox, program, &args, Some(&proof.file), limits)?;
            total += execution.duration_secs;
            let timed = speed::timing_record(&proof)?;
            let run = ThreadRun {
                threads: t,
                record: proof.record()?,
                timed: timed.is_some(),
                limit_secs: self.config.pareval_run_timeout_secs,
                execution: &execution,
                serial: check.parallelism_model == ParallelModel::Serial,
            };
            let failed = thread_verdict(&run);
            let stop = failed.is_some();
            if let Some((time, best)) = timed
                && speed.as_ref().is_none_or(|s| s.threads < t)
            {
                speed = Some(Speed {
                    threads: t,
                    problem: Some(check.name.clone()),
                    problem_type: Some(check.problem_type.clone()),
                    time_secs: Some(time),
                    best_secs: Some(best),
                    failed: None,
                });
            }
            ended = Some((execution, failed));
            if stop {
                break;
            }
        }
        let (execution, failed) = ended.ok_or_else(|| SandboxError {
            message: "no thread count to run at ([cpp] threads is empty)".into(),
        })?;
        let speed = if failed.is_none() { speed } else { None };
        let judgement = failed.unwrap_or_else(|| Judgement {
            verdict: Verdict::Correct,
            actual: crate::judge::normalise(&execution.stdout),
            detail: None,
        });
        let execution = ExecutionRecord {
            duration_secs: total,
            ..execution
        };
        Ok((execution, judgement, speed))
    }
}

#[derive(Clone)]
enum Build {
    Built {
        program: Vec<u8>,
        execution: ExecutionRecord,
    },
    Failed(ExecutionRecord),
}

/// Runs the compiled program in a case folder of its own.
fn run_program(
    sandbox: &Sandbox,
    program: &[u8],
    args: &[OsString],
    stdin: Option<&File>,
    limits: LaunchLimits,
) -> Result<ExecutionRecord, SandboxError> {
    let executable = PathBuf::from(format!("./{PROGRAM}"));
    let launched = sandbox.launch(&Launch {
        executable: &executable,
        args,
        files: &[CaseFile {
            name: PROGRAM,
            bytes: program,
            executable: true,
        }],
        read: &[],
        stdin,
        limits,
        keep_folder: false,
        env: &[],
    })?;
    Ok(launched.execution)
}

/// The driver's proof file (driver.cc): a secret the driver takes at its
/// start, and where it writes its record once `validate()` has returned.
struct ProofFile {
    file: File,
    secret: [u8; SECRET],
}

const SECRET: usize = 32;
const RECORD_AT: u64 = 64;
const RECORD: usize = 48;

/// What the driver recorded after `validate()` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverRecord {
    pub valid: bool,
    pub threads: u32,
}

impl ProofFile {
    fn new() -> Result<ProofFile, SandboxError> {
        let fail = |e: std::io::Error| SandboxError {
            message: format!("cannot make the driver's proof file: {e}"),
        };
        let mut secret = [0u8; SECRET];
        rustix::rand::getrandom(&mut secret, rustix::rand::GetRandomFlags::empty())
            .map_err(|e| fail(e.into()))?;
        let mut file = File::from(
            rustix::fs::memfd_create("prompteval-proof", rustix::fs::MemfdFlags::CLOEXEC)
                .map_err(|e| fail(e.into()))?,
        );
        file.write_all(&secret).map_err(fail)?;
        // Room for the validity record (at 64) and the timing record (speed.rs).
        file.write_all(&[0u8; 256 - SECRET]).map_err(fail)?;
        Ok(ProofFile { file, secret })
    }

    /// The `N` bytes the driver wrote at `at` after the secret and `tag`,
    /// when they are there with this file's secret.
    fn read_record<const N: usize>(
        &self,
        at: u64,
        tag: &[u8; 4],
    ) -> Result<Option<[u8; N]>, SandboxError> {
        let mut record = [0u8; N];
        self.file
            .read_exact_at(&mut record, at)
            .map_err(|e| SandboxError {
                message: format!("cannot read the driver's proof file: {e}"),
            })?;
        let proven = record[..SECRET] == self.secret && record[SECRET..SECRET + 4] == *tag;
        Ok(proven.then_some(record))
    }

    /// The driver's record, when one with this file's secret is there.
    fn record(&self) -> Result<Option<DriverRecord>, SandboxError> {
        let Some(record) = self.read_record::<RECORD>(RECORD_AT, b"PEV1")? else {
            return Ok(None);
        };
        Ok(Some(DriverRecord {
            valid: record[36] == 1,
            threads: u32::from_ne_bytes([record[40], record[41], record[42], record[43]]),
        }))
    }
}

/// The compiler a run uses, for the report.
pub fn describe(toolchain: &Toolchain) -> String {
    format!("{} ({})", toolchain.compiler.display(), toolchain.version)
}
