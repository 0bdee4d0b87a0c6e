//! Runs `cargo test --test prompts` as a user would, in a scratch folder of
//! its own (config, results, snapshots), with the environment cleaned of the
//! caller's PROMPTEVAL_* and OLLAMA_* settings.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The system prompt of the committed recordings (the repository's
/// harness.toml).
pub const RECORDED_SYSTEM_PROMPT: &str = "Reply with exactly one complete, runnable Python 3 program in a single python code block and nothing else; print only the requested result.";

pub struct Scratch {
    pub dir: tempfile::TempDir,
}

pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn both(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

impl Scratch {
    /// A scratch folder with a harness.toml made of `toml` plus the paths
    /// that keep everything inside the folder.
    pub fn new(toml: &str) -> Scratch {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = format!(
            "result_dir = \"{}\"\nsnapshot_dir = \"{}\"\n{toml}",
            dir.path().join("result").display(),
            dir.path().join("snapshots").display()
        );
        std::fs::write(dir.path().join("harness.toml"), text).expect("write harness.toml");
        Scratch { dir }
    }

    /// A scratch folder replaying the repository's recordings of `suite`
    /// (a path in the repository) by qwen2.5-coder:1.5b, with the system
    /// prompt they were recorded with; `toml` adds the backend and more
    /// (top-level keys first, tables after).
    pub fn recorded(suite: &str, toml: &str) -> Scratch {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let s = Scratch::new("");
        s.write(
            "harness.toml",
            &format!(
                "suite = \"{}\"\nmodel = \"qwen2.5-coder:1.5b\"\nsnapshot_dir = \"{}\"\nresult_dir = \"{}\"\n{toml}\n[llm]\nsystem_prompt = \"{RECORDED_SYSTEM_PROMPT}\"\n",
                root.join(suite).display(),
                root.join("tests/snapshots").display(),
                s.path().join("result").display()
            ),
        );
        s
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write scratch file");
        p
    }

    /// The one run folder the harness created.
    pub fn run_dir(&self) -> PathBuf {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.path().join("result"))
            .expect("result folder exists")
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        dirs.pop().expect("a run folder")
    }

    pub fn run_dirs(&self) -> usize {
        std::fs::read_dir(self.path().join("result"))
            .map(|rd| rd.count())
            .unwrap_or(0)
    }

    pub fn summary(&self) -> serde_json::Value {
        let text =
            std::fs::read_to_string(self.run_dir().join("summary.json")).expect("summary.json");
        serde_json::from_str(&text).expect("summary.json is JSON")
    }

    /// `cargo test --test prompts -- <args>` with `env` on top of a clean
    /// environment.
    pub fn prompts(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(env!("CARGO").as_ref(), env);
        cmd.args(["test", "--quiet", "--test", "prompts", "--"])
            .args(args);
        let Output {
            status,
            stdout,
            stderr,
        } = cmd.output().expect("cargo runs");
        Run {
            status: status.code(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

/// The spec §2.1 example suite of the repository.
pub fn example_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data/example.json")
}

/// The built `prompts` test binary, for tests that must signal the harness
/// process itself (signals sent to `cargo` would not reach it reliably).
pub fn prompts_binary() -> PathBuf {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        let mut cmd = Command::new(env!("CARGO"));
        without_test_runner_env(&mut cmd);
        let out = cmd
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "test",
                "--test",
                "prompts",
                "--no-run",
                "--message-format=json",
            ])
            .output()
            .expect("cargo runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|m| m["target"]["name"] == "prompts")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the prompts test executable")
    })
    .clone()
}

impl Scratch {
    /// `program` in the package root with this scratch folder's harness.toml,
    /// the caller's PROMPTEVAL_*/OLLAMA_*/INSTA_* settings and the test
    /// runner's variables removed, CI mode (insta never writes pending
    /// snapshots into the repo), the response cache off and in the scratch
    /// folder, and `env` on top.
    pub fn command(&self, program: &Path, env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(program);
        without_test_runner_env(&mut cmd);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        for (k, _) in std::env::vars() {
            if k.starts_with("PROMPTEVAL_")
                || k.starts_with("OLLAMA_")
                || k.starts_with("INSTA_")
                || k == "OPENAI_API_KEY"
            {
                cmd.env_remove(k);
            }
        }
        // The response cache is per scratch folder and off unless a test
        // asks for it: a test that runs twice must reach its server twice.
        cmd.env("PROMPTEVAL_CONFIG", self.path().join("harness.toml"))
            .env("CI", "true")
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env("PROMPTEVAL_CACHE", "off");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// The harness binary as a child process (not waited for).
    pub fn spawn_prompts(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        let mut cmd = self.command(&prompts_binary(), env);
        cmd.args(args);
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().expect("the prompts binary starts")
    }

    /// Lines in the run folder's journal (0 when there is none yet).
    pub fn journal_lines(&self) -> usize {
        let Ok(rd) = std::fs::read_dir(self.path().join("result")) else {
            return 0;
        };
        rd.filter_map(Result::ok)
            .map(|e| {
                std::fs::read_to_string(e.path().join("journal.jsonl"))
                    .unwrap_or_default()
                    .lines()
                    .count()
            })
            .sum()
    }
}

/// Removes what the test runner set for this test process: cargo-nextest's
/// `NEXTEST`, `NEXTEST_*`, `__NEXTEST_*` (the harness child must behave as
/// when a user runs `cargo test --test prompts`, and the harness refuses to
/// run under nextest), and the variables cargo sets for the package under
/// test (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, ...). A cargo started by a test
/// must not inherit those: build scripts that read them declare them with
/// `rerun-if-env-changed` (ring's does), and cargo compares them with its
/// own environment, so the child would rebuild ring and everything above it
/// (prompteval included), and the next plain `cargo test` all of it again.
pub fn without_test_runner_env(cmd: &mut Command) {
    const PACKAGE: [&str; 9] = [
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_MANIFEST_LINKS",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "CARGO_RUSTC_CURRENT_DIR",
        "OUT_DIR",
    ];
    for (k, _) in std::env::vars_os() {
        let name = k.to_string_lossy();
        if name.trim_start_matches('_').starts_with("NEXTEST")
            || name.starts_with("CARGO_PKG_")
            || PACKAGE.contains(&name.as_ref())
        {
            cmd.env_remove(&k);
        }
    }
}

/// Polls `cond` every 50 ms for up to `secs` seconds.
pub fn wait_until(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    cond()
}
