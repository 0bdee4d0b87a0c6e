//! Throughput and scale of the whole harness (`cargo test --test prompts`,
//! default test profile) against baselines measured in the same run, with a
//! scripted Ollama stand-in in this process:
//!
//! - overhead: N cases answered instantly (a cached rerun: no model call)
//!   against spawning the same programs directly with the same parallelism;
//! - saturation: a server with 4 slots and 200 ms per reply, 8 chains with
//!   the history on: wall time against the ideal (cases x 0.2 s / 4), and
//!   the peak number of requests in flight;
//! - scale: wall time and peak RSS at several sizes (history off, cached);
//! - list: `--list` at the largest size;
//! - rerun: model calls made by a rerun of an unchanged suite (must be 0).
//!
//! `cargo bench --bench scale`; PROMPTEVAL_BENCH_SIZES (default
//! "1000,3000,10000") and PROMPTEVAL_BENCH_OVERHEAD (default 1000) set the
//! sizes. Ratios, not absolute times, are what compare across machines.

#[path = "../tests/support/prompts_cli.rs"]
mod prompts_cli;
#[path = "../tests/support/stub_server.rs"]
mod stub_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use prompts_cli::{Scratch, prompts_binary};
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

/// Answers "Print the number N" with a program that prints N, after `delay`,
/// counting the requests in flight.
fn numbers_server(delay: Duration) -> (StubServer, Arc<AtomicUsize>) {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (now, top) = (in_flight.clone(), peak.clone());
    let server = StubServer::start(move |req: &Request| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        top.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(delay);
        now.fetch_sub(1, Ordering::SeqCst);
        let question = req.current_question();
        let number = question
            .rsplit("Print the number ")
            .next()
            .and_then(|t| t.split_whitespace().next())
            .unwrap_or("0")
            .to_string();
        Behaviour::Reply(format!("```python\nprint({number})\n```"))
    });
    (server, peak)
}

fn suite(dir: &Path, name: &str, prompts: usize, questions: usize) -> PathBuf {
    let mut map = serde_json::Map::new();
    for p in 0..prompts {
        map.insert(format!("p{p}"), format!("Variant {p}: {{question}}").into());
    }
    let qs: Vec<serde_json::Value> = (0..questions)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "question": format!("Print the number {i}"), "answer": i.to_string()}))
        .collect();
    map.insert("questions".into(), qs.into());
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&map).unwrap()).unwrap();
    path
}

/// Wall time and peak RSS (MB) of one harness run. The peak is the
/// child's own VmHWM, polled from /proc until it exits: `wait4`'s maxrss
/// would also count the pages the child shared with this (large) process
/// before its exec.
fn run(s: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Duration, f64) {
    let (wall, rss, _) = run_reporting(s, args, env);
    (wall, rss)
}

/// As [`run`], with the report step's time, as the run logs it.
fn run_reporting(s: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Duration, f64, Option<f64>) {
    let mut env = env.to_vec();
    env.push(("PROMPTEVAL_LOG", "info,prompteval::report_time=debug"));
    let started = Instant::now();
    let mut child = s.spawn_prompts(args, &env);
    let status_file = format!("/proc/{}/status", child.id());
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = r.read_to_end(&mut sink);
            sink
        })
    };
    let (a, b) = (drain(Box::new(out)), drain(Box::new(err)));
    let mut peak_kb = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            if let Some(kb) = hwm {
                peak_kb = peak_kb.max(kb);
            }
        }
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let wall = started.elapsed();
    let (_, err) = (a.join(), b.join().unwrap_or_default());
    let report = String::from_utf8_lossy(&err)
        .lines()
        .find_map(|l| l.split("report written in ").nth(1))
        .and_then(|rest| rest.trim_end_matches(" s").trim().parse().ok());
    (wall, peak_kb as f64 / 1024.0, report)
}

/// CPU seconds the whole machine has spent busy (all cores, user and
/// kernel, including kernel threads): a run's CPU cost is the difference,
/// less noisy than wall time on a 2-core machine.
fn busy_cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal ...
    let busy: f64 = ticks
        .iter()
        .enumerate()
        .filter(|(i, _)| ![3, 4].contains(i) && *i < 8)
        .map(|(_, t)| t)
        .sum();
    busy / 100.0
}

/// The same programs the harness ran, spawned directly, `parallel` at a time.
fn direct(python: &Path, n: usize, parallel: usize) -> Duration {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..parallel)
        .map(|_| {
            let next = next.clone();
            let python = python.to_path_buf();
            std::thread::spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        return;
                    }
                    let dir = tempfile::tempdir().unwrap();
                    std::fs::write(dir.path().join("main.py"), format!("print({i})\n")).unwrap();
                    let status = Command::new(&python)
                        .args(["-s", "-B", "-P", "main.py"])
                        .current_dir(dir.path())
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .status()
                        .unwrap();
                    assert!(status.success());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    started.elapsed()
}

/// `[(name, owned value)]` as the `&str` pairs `Scratch` takes.
fn borrowed<'a>(env: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn resolved_python() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn sizes() -> Vec<usize> {
    std::env::var("PROMPTEVAL_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,3000,10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

fn scratch(suite: &Path, extra: &str) -> Scratch {
    Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n{extra}",
        suite.display()
    ))
}

/// A run answered by `server` and, once it has answered, by the cache.
fn cached_run_env(server: &StubServer) -> [(&'static str, String); 3] {
    [
        ("OLLAMA_HOST", server.url()),
        ("PROMPTEVAL_CACHE", "on".to_string()),
        ("INSTA_UPDATE", "no".to_string()),
    ]
}

/// Where the bench's scratch folders go: TMPDIR if the caller set it, else
/// /dev/shm when it is a writable tmpfs. Measured on this machine's ext4
/// (no journal): a file created within a minute of mass deletions (an
/// earlier bench's scratch, the baseline's own folders) makes the kernel
/// scan past every recently deleted inode (`recently_deleted`), which took
/// the report of 1,000 cases from 0.07 s to 0.4-0.6 s, and the ratio with
/// it. The harness's report writes the same files either way.
fn scratch_root() -> String {
    if let Some(dir) = std::env::var_os("TMPDIR") {
        return format!("{} (TMPDIR)", dir.to_string_lossy());
    }
    let shm = Path::new("/dev/shm");
    if tempfile::tempdir_in(shm).is_ok() {
        // SAFETY: the first thing main does, before any thread is started.
        unsafe { std::env::set_var("TMPDIR", shm) };
        return "/dev/shm (tmpfs; set TMPDIR to measure another file system)".into();
    }
    std::env::temp_dir().display().to_string()
}

fn main() {
    let scratch_at = scratch_root();
    // `cargo bench` passes --bench; this target takes no other arguments.
    let _ = prompts_binary();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let data = tempfile::tempdir().unwrap();
    println!(
        "prompteval scale bench ({cores} cores; default test profile; scratch in {scratch_at})"
    );
    println!(
        "{:<34} {:>12} {:>22} {:>8}",
        "scenario", "measured", "baseline", "ratio"
    );

    // Overhead: a cached rerun answers every case instantly.
    let n: usize = std::env::var("PROMPTEVAL_BENCH_OVERHEAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let (server, _) = numbers_server(Duration::ZERO);
    let path = suite(data.path(), "overhead.json", 1, n);
    let s = scratch(&path, "[history]\nenabled = false\n");
    let env = cached_run_env(&server);
    let env = borrowed(&env);
    run(&s, &[], &env);
    let calls = server.requests_to("/api/chat").len();
    let cpu = busy_cpu_secs();
    let (wall, _, report) = run_reporting(&s, &[], &env);
    let cpu = busy_cpu_secs() - cpu;
    let rerun_calls = server.requests_to("/api/chat").len() - calls;
    let floor_cpu = busy_cpu_secs();
    let floor = direct(&resolved_python(), n, cores);
    let floor_cpu = busy_cpu_secs() - floor_cpu;
    println!(
        "{:<34} {:>10.2} s {:>20.2} s {:>7.2}x   cpu {:.1} s vs {:.1} s = {:.2}x (target <= 0.25x)",
        format!("overhead: {n} cases, cached"),
        wall.as_secs_f64(),
        floor.as_secs_f64(),
        wall.as_secs_f64() / floor.as_secs_f64(),
        cpu,
        floor_cpu,
        cpu / floor_cpu
    );
    if let Some(secs) = report {
        println!(
            "{:<34} {:>10.2} s {:>20.2} s {:>7.2}x   the report's share of the cached run",
            format!("report: {n} cases"),
            secs,
            wall.as_secs_f64(),
            secs / wall.as_secs_f64()
        );
    }
    println!(
        "{:<34} {:>12} {:>22} {:>8}",
        "rerun: model calls",
        rerun_calls,
        "0 expected",
        if rerun_calls == 0 { "ok" } else { "FAIL" }
    );
    drop(server);

    // Saturation: 4 slots, 200 ms per reply, 8 chains with history.
    let (server, peak) = numbers_server(Duration::from_millis(200));
    let questions = 25;
    let path = suite(data.path(), "saturation.json", 2, questions);
    let s = scratch(&path, "concurrency = 4\nrounds = 4\n");
    let cases = 2 * 4 * questions;
    let env = [
        ("OLLAMA_HOST", server.url()),
        ("INSTA_UPDATE", "no".to_string()),
    ];
    let env = borrowed(&env);
    let (wall, _) = run(&s, &[], &env);
    let ideal = cases as f64 * 0.2 / 4.0;
    println!(
        "{:<34} {:>10.2} s {:>20.2} s {:>7.2}x   peak in flight {}/4",
        format!("saturation: {cases} cases, 8 chains"),
        wall.as_secs_f64(),
        ideal,
        wall.as_secs_f64() / ideal,
        peak.load(Ordering::SeqCst)
    );
    drop(server);

    // Scale: wall time and peak RSS, history off, answered from the cache.
    let (server, _) = numbers_server(Duration::ZERO);
    let mut largest = None;
    let mut per_case_at: Vec<(usize, f64, f64)> = Vec::new();
    for &size in &sizes() {
        let path = suite(data.path(), &format!("scale{size}.json"), 1, size);
        let s = scratch(&path, "[history]\nenabled = false\n");
        let env = cached_run_env(&server);
        let env = borrowed(&env);
        run(&s, &[], &env);
        let (wall, rss, report) = run_reporting(&s, &[], &env);
        let per_case = wall.as_secs_f64() * 1000.0 / size as f64;
        let share = report.map_or_else(
            || "report share unknown".to_string(),
            |r| {
                format!(
                    "report {:.2} s = {:.0}% of wall",
                    r,
                    r * 100.0 / wall.as_secs_f64()
                )
            },
        );
        println!(
            "{:<34} {:>10.2} s {:>17.1} MB RSS {:>7.2} ms/case  {share}",
            format!("scale: {size} cases"),
            wall.as_secs_f64(),
            rss,
            per_case
        );
        per_case_at.push((size, per_case, rss));
        largest = Some((size, path));
    }
    // Linear time: ms per case at the largest size against the smallest
    // (target within 1.2x), and bounded memory (target under 150 MB).
    if let (Some(first), Some(last)) = (per_case_at.first(), per_case_at.last())
        && first.0 != last.0
    {
        println!(
            "scale: ms/case at {} cases / at {} cases = {:.2}x (target <= 1.2x); peak RSS {:.1} MB at {} (target < 150 MB)",
            last.0,
            first.0,
            last.1 / first.1,
            last.2,
            last.0
        );
    }
    println!(
        "(targets: 10000 cases under 30 s; EvalPlus quotes \"around 2-10 minutes\" for 200 \
         samples x 164 tasks with --parallel 64, docs/execution.md)"
    );

    if let Some((size, path)) = largest {
        let s = scratch(&path, "");
        let (wall, _) = run(&s, &["--list"], &[]);
        println!(
            "{:<34} {:>10.3} s",
            format!("list: {size} cases"),
            wall.as_secs_f64(),
        );
    }
}
