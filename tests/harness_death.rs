//! A harness killed in the middle of a case leaves nothing behind: not the
//! program, not what it started, not the slot's servers, warm or fresh.
//!
//! The test runs itself again as the "harness" (an environment variable
//! selects that role): it starts a sandbox and a case that sleeps for a
//! minute after starting a grandchild of its own. The test waits until the
//! program runs, notes every process descending from the harness, kills
//! the harness with SIGKILL, and requires every one of them to be gone
//! within a few seconds.

use std::collections::{BTreeSet, HashMap};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use prompteval::config::SandboxConfig;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;

const ROLE: &str = "PROMPTEVAL_TEST_HARNESS_ROLE";

/// A program that forks a sleeping grandchild, says it is running, sleeps.
const PROGRAM: &str = "import os, sys, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\nprint('running', flush=True)\ntime.sleep(60)\n";

fn harness(warm: bool) {
    let sandbox = Sandbox::new(
        &SandboxConfig {
            timeout_secs: 120.0,
            warm,
            ..SandboxConfig::default()
        },
        &RUNTIME,
    )
    .expect("sandbox");
    assert_eq!(sandbox.warm(), warm, "{:?}", sandbox.isolation());
    // The test reads this line, then kills us while the case runs.
    println!("ready");
    let _ = sandbox.run(PROGRAM);
    panic!("the case ended before the harness was killed");
}

/// Every process whose parent chain reaches `root` (itself excluded).
fn descendants(root: u32) -> BTreeSet<u32> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so after ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            parent.insert(pid, ppid);
        }
    }
    parent
        .keys()
        .copied()
        .filter(|&pid| {
            let mut at = pid;
            for _ in 0..64 {
                match parent.get(&at) {
                    Some(&p) if p == root => return true,
                    Some(&p) if p > 1 => at = p,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purpose: it runs nothing and holds nothing.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

fn killed_harness_leaves_nothing(warm: bool) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            if warm {
                "harness_warm"
            } else {
                "harness_fresh"
            },
            "--exact",
            "--nocapture",
            "--include-ignored",
        ])
        .env(ROLE, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the harness starts");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        let n = std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        assert!(n > 0, "the harness ended before it was ready");
    }
    // The program, its grandchild and the servers: wait until the case's
    // processes exist (the program prints nowhere we can read, so count).
    let started = Instant::now();
    let mut seen = descendants(child.id());
    while seen.len() < 4 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        seen = descendants(child.id());
    }
    std::thread::sleep(Duration::from_millis(300));
    seen.extend(descendants(child.id()));
    assert!(seen.len() >= 4, "the case never ran: {seen:?}");
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut left: Vec<u32> = seen.iter().copied().filter(|&p| alive(p)).collect();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        left.retain(|&p| alive(p));
    }
    let names: Vec<String> = left
        .iter()
        .map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).unwrap_or_default())
        .collect();
    assert!(
        left.is_empty(),
        "left running after the harness died: {left:?} {names:?}"
    );
}

#[test]
fn a_killed_harness_leaves_no_warm_case_running() {
    if std::env::var(ROLE).is_err() {
        killed_harness_leaves_nothing(true);
    }
}

#[test]
fn a_killed_harness_leaves_no_fresh_case_running() {
    if std::env::var(ROLE).is_err() {
        killed_harness_leaves_nothing(false);
    }
}

/// The harness's role (run by the tests above, never on its own).
#[test]
#[ignore = "the harness role of the tests above, run by them"]
fn harness_warm() {
    if std::env::var(ROLE).is_ok() {
        harness(true);
    }
}

#[test]
#[ignore = "the harness role of the tests above, run by them"]
fn harness_fresh() {
    if std::env::var(ROLE).is_ok() {
        harness(false);
    }
}
