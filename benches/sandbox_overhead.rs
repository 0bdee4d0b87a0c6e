//! What the sandbox costs per case, as ratios against baselines measured in
//! the same process: the bare resolved interpreter, and the interpreter as
//! named in the config (a pyenv shim on many machines, which the sandbox
//! avoids by resolving it once).
//!
//! The sandboxed case forks from its slot's warm interpreter
//! (src/sandbox/warm.rs, `[sandbox] warm = true`); a fresh
//! interpreter per case through the fork server (`warm = false`) and the
//! same isolation forked from the harness per case are shown too, as the
//! baselines it replaced. Then HumanEval's 164 canonical solutions with
//! their tests, judged by as many slots as there are cores, warm and fresh.
//!
//! `cargo bench --bench sandbox_overhead` (N runs each, default 30; set
//! PROMPTEVAL_BENCH_RUNS to change).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use prompteval::case::Verdict;
use prompteval::config::SandboxConfig;
use prompteval::execute::program::{Runnable, Shapes, runnable};
use prompteval::judge::judge_question;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::Suite;

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
    let sandbox = Sandbox::new(&config, &RUNTIME).expect("sandbox");
    assert!(sandbox.warm(), "{}", sandbox.isolation().environment);
    let fresh_config = SandboxConfig {
        warm: false,
        ..SandboxConfig::default()
    };
    let fresh = Sandbox::new(&fresh_config, &RUNTIME).expect("sandbox");
    let real = sandbox.python().to_path_buf();
    let named = which(&config.python);

    let bare = time(runs, || spawn(&real, &["-s", "-B", "-c", "print(1)"]));
    let as_named = time(runs, || spawn(&named, &["-c", "print(1)"]));
    let sandboxed = time(runs, || {
        let e = sandbox.run("print(1)\n").expect("runs");
        assert_eq!(e.stdout.trim(), "1");
    });
    let fresh_case = time(runs, || {
        let e = fresh.run("print(1)\n").expect("runs");
        assert_eq!(e.stdout.trim(), "1");
    });
    let per_case = Sandbox::without_fork_server(&config, &RUNTIME).expect("sandbox");
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
        "  sandboxed case (warm)     {:>8.1} ms  ratio {:.2}x vs bare, {:.2}x vs as configured",
        ms(sandboxed),
        ratio(sandboxed, bare),
        ratio(sandboxed, as_named)
    );
    println!(
        "  same, fresh per case      {:>8.1} ms  ratio {:.2}x vs bare ([sandbox] warm = false)",
        ms(fresh_case),
        ratio(fresh_case, bare)
    );
    println!(
        "  same, forked per case     {:>8.1} ms  ratio {:.2}x vs bare (no fork server: the \
         cgroup joined and the ruleset built per case)",
        ms(forked),
        ratio(forked, bare)
    );
    humaneval(&sandbox, &fresh);
}

/// HumanEval's canonical solutions with their tests, judged with one slot
/// per core, as a run does; every one must be judged correct.
fn humaneval(warm: &Sandbox, fresh: &Sandbox) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data/humaneval.json");
    let suite = Suite::load(&path).expect("suite");
    let shapes = Shapes::check(warm.python(), &suite).expect("shapes");
    let programs: Vec<Runnable> = suite
        .questions
        .iter()
        .map(|q| runnable(q, q.reference.as_deref().unwrap_or(""), &shapes))
        .collect();
    let slots = std::thread::available_parallelism().map_or(1, |n| n.get());
    warm.prepare(slots);
    fresh.prepare(slots);
    let judge_all = |sandbox: &Sandbox| {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let started = Instant::now();
        let correct = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..slots {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(program) = programs.get(i) else {
                            return;
                        };
                        let e = program.run(sandbox).expect("runs");
                        if judge_question(&e, &suite.questions[i]).verdict == Verdict::Correct {
                            correct.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        (started.elapsed(), correct.into_inner())
    };
    let (warm_wall, warm_ok) = judge_all(warm);
    let (fresh_wall, fresh_ok) = judge_all(fresh);
    println!("HumanEval: 164 canonical solutions with their tests, {slots} slots");
    println!(
        "  warm                      {:>8.2} s  {warm_ok}/164 correct  (target: under 2 s)",
        warm_wall.as_secs_f64()
    );
    println!(
        "  fresh per case            {:>8.2} s  {fresh_ok}/164 correct  warm/fresh {:.2}x",
        fresh_wall.as_secs_f64(),
        ratio(warm_wall, fresh_wall)
    );
    println!(
        "  (EvalPlus, docs/execution.md: one greedy sample per task \"a few seconds\"; 200 samples \
         x 164 tasks x ~700+ HumanEval+ tests \"around 2-10 minutes\" with --parallel 64)"
    );
    assert_eq!((warm_ok, fresh_ok), (164, 164));
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
