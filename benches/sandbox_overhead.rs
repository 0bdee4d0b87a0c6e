//! What the sandbox costs per case, as ratios against baselines measured in
//! the same process: the bare resolved interpreter, and the interpreter as
//! named in the config (a pyenv shim on many machines, which the sandbox
//! avoids by resolving it once).
//!
//! The sandboxed case runs through a per-slot fork server
//! (src/execute/sandbox/zygote.rs); the same isolation forked from the harness per case is shown
//! too, as the baseline the fork server replaced.
//!
//! `cargo bench --bench sandbox_overhead` (N runs each, default 30; set
//! PROMPTEVAL_BENCH_RUNS to change).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use prompteval::config::SandboxConfig;
use prompteval::execute::sandbox::Sandbox;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm the page cache
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn spawn(program: &std::path::Path, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("interpreter runs");
    assert!(status.success());
}

fn main() {
    let runs: usize = std::env::var("PROMPTEVAL_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let config = SandboxConfig::default();
    let sandbox = Sandbox::new(&config).expect("sandbox");
    let real = sandbox.python().to_path_buf();
    let named = which(&config.python);

    let bare = time(runs, || spawn(&real, &["-s", "-B", "-c", "print(1)"]));
    let as_named = time(runs, || spawn(&named, &["-c", "print(1)"]));
    let sandboxed = time(runs, || {
        let e = sandbox.run("print(1)\n").expect("runs");
        assert_eq!(e.stdout.trim(), "1");
    });
    let per_case = Sandbox::without_fork_server(&config).expect("sandbox");
    let forked = time(runs, || {
        let e = per_case.run("print(1)\n").expect("runs");
        assert_eq!(e.stdout.trim(), "1");
    });

    println!("print(1), median of {runs} runs");
    println!(
        "  bare resolved interpreter {:>8.1} ms  ({})",
        ms(bare),
        real.display()
    );
    println!(
        "  interpreter as configured {:>8.1} ms  ({})  ratio {:.2}x",
        ms(as_named),
        named.display(),
        ratio(as_named, bare)
    );
    println!(
        "  sandboxed case            {:>8.1} ms  ratio {:.2}x vs bare, {:.2}x vs as configured",
        ms(sandboxed),
        ratio(sandboxed, bare),
        ratio(sandboxed, as_named)
    );
    println!(
        "  same, forked per case     {:>8.1} ms  ratio {:.2}x vs bare (no fork server: the \
         cgroup joined and the ruleset built per case)",
        ms(forked),
        ratio(forked, bare)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn which(name: &str) -> std::path::PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| name.into())
}
