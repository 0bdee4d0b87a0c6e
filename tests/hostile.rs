//! Hostile programs against the sandbox: each ends with the expected record
//! and leaves the host unharmed. One sandbox is shared, as in a real run.
//!
//! The tests that check what only full isolation guarantees are reported
//! ignored with the sandbox's warnings when it is not fully isolated here (a
//! failure under CI=true); see support/trials.rs.

#[path = "support/trials.rs"]
mod trials;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::Duration;

use libtest_mimic::Arguments;

use prompteval::case::ExecutionRecord;
use prompteval::config::SandboxConfig;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;

const TIMEOUT_SECS: f64 = 3.0;

/// How cases start: each hostile program runs against both.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Start {
    /// A fresh interpreter per case (`[sandbox] warm = false`).
    Fresh,
    /// Forked from the slot's warm interpreter (`[sandbox] warm = true`).
    Warm,
}

thread_local! {
    /// The mode of the trial running on this thread.
    static START: std::cell::Cell<Start> = const { std::cell::Cell::new(Start::Fresh) };
}

/// The shared sandbox of the current trial's mode.
fn sandbox() -> &'static Sandbox {
    static FRESH: OnceLock<Sandbox> = OnceLock::new();
    static WARM: OnceLock<Sandbox> = OnceLock::new();
    let start = START.with(|s| s.get());
    let cell = match start {
        Start::Fresh => &FRESH,
        Start::Warm => &WARM,
    };
    cell.get_or_init(|| {
        let config = SandboxConfig {
            timeout_secs: TIMEOUT_SECS,
            output_limit_bytes: 64 * 1024,
            memory_mb: 512,
            max_file_mb: 16,
            warm: start == Start::Warm,
            ..SandboxConfig::default()
        };
        Sandbox::new(&config, &RUNTIME).expect("sandbox")
    })
}

fn run(code: &str) -> ExecutionRecord {
    let r = sandbox().run(code).expect("run");
    assert!(
        r.duration_secs < TIMEOUT_SECS + 6.0,
        "run took {}s: {r:?}",
        r.duration_secs
    );
    r
}

/// The host still runs programs normally.
fn assert_host_fine() {
    let r = sandbox().run("print(sum(range(10)))").expect("run");
    assert_eq!(r.stdout, "45\n", "{r:?}");
    assert_eq!(r.exit_code, Some(0));
}

/// Proof that the sandbox enforces everything it can (no isolation warning):
/// the tests that take it check what only full isolation guarantees.
#[derive(Clone)]
struct FullIsolation;

fn full_isolation(start: Start) -> Result<FullIsolation, String> {
    START.with(|s| s.set(start));
    let warnings = &sandbox().isolation().warnings;
    if !warnings.is_empty() {
        return Err(format!(
            "the sandbox is not fully isolated on this machine: {}",
            warnings.join("; ")
        ));
    }
    if start == Start::Warm && !sandbox().warm() {
        return Err(format!(
            "the warm interpreter does not work here: {}",
            sandbox().isolation().environment
        ));
    }
    Ok(FullIsolation)
}

/// The warm interpreter is in use (a fallback to fresh starts would make
/// the warm trials test the fresh path twice).
#[derive(Clone)]
struct Warm;

fn warm_in_use() -> Result<Warm, String> {
    START.with(|s| s.set(Start::Warm));
    if sandbox().warm() {
        Ok(Warm)
    } else {
        Err(format!(
            "the warm interpreter does not work here: {}",
            sandbox().isolation().environment
        ))
    }
}

/// A test function and its name.
type Named<F> = (&'static str, F);

/// `(name, test)` pairs named after the functions.
macro_rules! named {
    ($($test:ident),* $(,)?) => {
        vec![$((stringify!($test), $test as _)),*]
    };
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let plain: Vec<Named<fn()>> = named![
        fork_bomb_is_bounded_and_ends,
        memory_bomb_gets_memory_error,
        growing_memory_bomb_is_stopped,
        infinite_print_to_stdout_is_truncated,
        infinite_print_to_stderr_is_truncated,
        busy_loop_times_out,
        long_sleep_times_out,
        daemonised_grandchild_dies_with_the_case,
        daemonised_grandchild_dies_on_timeout_too,
        the_marker_helper_can_see_a_live_process,
        the_parents_environment_cannot_be_read,
        no_network_loopback_or_remote,
        killing_the_parent_or_the_group_does_not_hurt_the_harness,
        reading_stdin_gets_eof,
        deep_recursion_is_an_error_not_a_hang,
        binary_garbage_on_stdout_is_kept_lossily,
        non_utf8_text_output,
        closing_stdout_early,
        concurrent_runs_do_not_interfere,
        nothing_a_case_changes_reaches_the_next,
        the_interpreters_start_up_is_not_visible,
    ];
    let isolated: Vec<Named<fn(FullIsolation)>> = named![
        fork_count_is_capped_at_max_processes,
        writes_outside_the_case_folder_fail,
        secrets_in_home_and_the_repo_cannot_be_read,
        disk_fill_is_bounded,
        mounts_cannot_be_changed,
        every_case_starts_from_a_clean_folder,
        the_network_namespace_is_left_as_found,
        the_warm_server_cannot_be_reached,
    ];
    let warm = if args.list { Ok(Warm) } else { warm_in_use() };
    let mut trials = Vec::new();
    for start in [Start::Fresh, Start::Warm] {
        let prefix = format!("{start:?}").to_lowercase();
        for (name, test) in plain.iter().copied() {
            let name = format!("{prefix}::{name}");
            let with_mode = move || {
                START.with(|s| s.set(start));
                test()
            };
            trials.push(match start {
                Start::Fresh => trials::plain(&name, with_mode),
                Start::Warm => trials::needing(&args, &warm, &name, move |_: Warm| with_mode()),
            });
        }
        let isolated_here = if args.list {
            Ok(FullIsolation)
        } else {
            full_isolation(start)
        };
        for (name, test) in isolated.iter().copied() {
            let name = format!("{prefix}::{name}");
            trials.push(trials::needing(&args, &isolated_here, &name, move |part| {
                START.with(|s| s.set(start));
                test(part)
            }));
        }
    }
    trials::run(&args, trials)
}

/// A folder of this test under $HOME (removed on drop), like a user's data.
fn home_dir() -> tempfile::TempDir {
    let home = std::env::var_os("HOME").map(PathBuf::from).expect("HOME");
    tempfile::Builder::new()
        .prefix(".prompteval-hostile-")
        .tempdir_in(home)
        .expect("temp dir in HOME")
}

/// Makes the program re-exec itself with `mark` in its command line, which
/// every process it forks inherits: the host can then find survivors.
fn marked(mark: &str, code: &str) -> String {
    format!(
        "import os, sys\nif sys.argv[1:] != [{mark:?}]:\n    os.execv(sys.executable, [sys.executable, '-s', '-B', sys.argv[0], {mark:?}])\n{code}"
    )
}

/// Live (non-zombie) processes of the host whose command line holds `mark`.
fn survivors(mark: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let pid = e.file_name().to_str().and_then(|p| p.parse().ok());
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            pid.is_some_and(pid_alive) && cmdline.split(|b| *b == 0).any(|a| a == mark.as_bytes())
        })
        .count()
}

fn pid_alive(pid: i32) -> bool {
    // Zombies are dead for our purpose; /proc/<pid>/stat says which.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

fn fork_bomb_is_bounded_and_ends() {
    let mark = "hostile-fork-bomb";
    let r = run(&marked(
        mark,
        "while True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    ));
    // Bounded: forks fail (EAGAIN) and the loop spins until the timeout.
    assert!(r.timed_out, "{r:?}");
    assert_eq!(survivors(mark), 0, "fork bomb processes survived");
    assert_host_fine();
}

fn fork_count_is_capped_at_max_processes(_: FullIsolation) {
    let r = run(
        "import os, time\nn = 0\nfor _ in range(500):\n    try:\n        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n        n += 1\n    except OSError:\n        break\nprint(n)\n",
    );
    let n: u64 = r.stdout.trim().parse().unwrap_or(u64::MAX);
    assert!(n < 64, "{n} forks succeeded: {r:?}");
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert_host_fine();
}

fn memory_bomb_gets_memory_error() {
    let r = run("x = bytearray(4 * 1024 * 1024 * 1024)\nprint('allocated')");
    assert_eq!(r.exit_code, Some(1), "{r:?}");
    assert!(r.stderr.contains("MemoryError"), "{r:?}");
    assert!(!r.stdout.contains("allocated"));
    assert_host_fine();
}

fn growing_memory_bomb_is_stopped() {
    let r = run("a = []\nwhile True:\n    a.append(' ' * 10**7)\n");
    assert!(r.stderr.contains("MemoryError"), "{r:?}");
    assert!(!r.timed_out, "{r:?}");
}

fn infinite_print_to_stdout_is_truncated() {
    let r = run("while True:\n    print('spam' * 100)\n");
    assert!(r.stdout_truncated, "{r:?}");
    assert_eq!(r.stdout.len(), 64 * 1024);
    assert!(r.stdout.starts_with("spamspam"));
    // It ends by the file-size limit (EFBIG) or the timeout, never hangs.
    assert!(r.timed_out || r.exit_code.is_some_and(|c| c != 0), "{r:?}");
    assert_host_fine();
}

fn infinite_print_to_stderr_is_truncated() {
    let r = run("import sys\nwhile True:\n    sys.stderr.write('eggs' * 100)\n");
    assert!(r.stderr_truncated, "{r:?}");
    assert!(r.stderr.len() <= 64 * 1024);
    assert!(!r.stdout_truncated);
}

fn busy_loop_times_out() {
    let r = run("while True:\n    pass\n");
    assert!(r.timed_out, "{r:?}");
    assert_eq!((r.exit_code, r.signal), (None, Some(9)));
    assert!(r.duration_secs >= TIMEOUT_SECS && r.duration_secs < TIMEOUT_SECS + 2.0);
}

fn long_sleep_times_out() {
    let r = run("import time\nprint('before', flush=True)\ntime.sleep(60)\nprint('after')");
    assert!(r.timed_out, "{r:?}");
    assert_eq!(r.stdout, "before\n");
}

fn daemonised_grandchild_dies_with_the_case() {
    let mark = "hostile-daemon-exit";
    let code = r#"
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    os._exit(0)
time.sleep(0.3)
print("parent done")
"#;
    let r = run(&marked(mark, code));
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert_eq!(r.stdout, "parent done\n", "{r:?}");
    assert_eq!(survivors(mark), 0, "the daemonised grandchild survived");
}

fn daemonised_grandchild_dies_on_timeout_too() {
    let mark = "hostile-daemon-timeout";
    let code = r#"
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
time.sleep(60)
"#;
    let r = run(&marked(mark, code));
    assert!(r.timed_out, "{r:?}");
    assert_eq!(
        survivors(mark),
        0,
        "a process of the case survived the timeout"
    );
}

fn the_marker_helper_can_see_a_live_process() {
    // Guards the two tests above against a `survivors` that finds nothing.
    let mark = "hostile-visible-marker";
    let mut child = std::process::Command::new("sh")
        .args(["-c", "sleep 5; true", mark])
        // Not the test's own stdout: the orphaned `sleep` would hold it open.
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("sleep");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(survivors(mark), 1);
    child.kill().ok();
    child.wait().ok();
    assert_eq!(survivors(mark), 0);
}

fn writes_outside_the_case_folder_fail(_: FullIsolation) {
    let home = home_dir();
    let in_home = home.path().join("written");
    let in_tmp = std::env::temp_dir().join(format!("prompteval-hostile-{}", std::process::id()));
    let in_repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("hostile-was-here");
    let code = format!(
        "import os\nfor p in [{:?}, {:?}, {:?}, os.path.expanduser('~/../escaped')]:\n    try:\n        open(p, 'w').write('x')\n        print('wrote', p)\n    except OSError as e:\n        print('denied', p, e.errno)\n",
        in_home, in_tmp, in_repo
    );
    let r = run(&code);
    for p in [&in_home, &in_tmp, &in_repo] {
        let existed = p.exists();
        let _ = std::fs::remove_file(p);
        assert!(!existed, "{} was written: {r:?}", p.display());
    }
    assert!(!r.stdout.contains("wrote"), "{r:?}");
    assert_eq!(r.stdout.matches("denied").count(), 4, "{r:?}");
}

/// The program is root in its user namespace: only Landlock stops it from
/// unmounting its size-capped tmpfs or making the slot folder writable.
fn mounts_cannot_be_changed(_: FullIsolation) {
    let code = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096
def attempt(name, rc):
    print(name, 'ok' if rc == 0 else 'denied', ctypes.get_errno())
attempt('umount', libc.umount2(os.getcwd().encode(), 2))
attempt('remount', libc.mount(None, b'..', None, MS_REMOUNT | MS_BIND, None))
attempt('mount', libc.mount(b'x', b'..', b'tmpfs', 0, None))
try:
    open('../outside', 'w').write('x')
    print('slot ok')
except OSError as e:
    print('slot denied', e.errno)
"#;
    let r = run(code);
    for step in ["umount", "remount", "mount", "slot"] {
        assert!(
            r.stdout.contains(&format!("{step} denied")),
            "{step} was allowed: {r:?}"
        );
    }
}

/// Cases fork from a long-lived server per slot: what one case leaves in its
/// folder, or tries to leave beside it, must never reach the next.
fn every_case_starts_from_a_clean_folder(_: FullIsolation) {
    let dirty = r#"
import os
open('leftover', 'w').write('x')
os.mkdir('leftover-dir')
for p in ['../leftover', '/tmp/leftover']:
    try:
        open(p, 'w').write('x')
    except OSError:
        pass
print('dirtied', os.getcwd())
"#;
    // Forked per case (no fork server), the parent folder is unreadable.
    let look = r#"
import os
try:
    up = sorted(os.listdir('..'))
except PermissionError:
    up = ['case']
print(sorted(os.listdir('.')), up)
"#;
    for _ in 0..4 {
        let r = run(dirty);
        assert!(r.stdout.starts_with("dirtied"), "{r:?}");
        let r = run(look);
        assert_eq!(r.stdout, "['main.py'] ['case']\n", "{r:?}");
    }
}

/// The cases of a slot share its fork server's empty network namespace:
/// none may bring its loopback up or leave a listener for the next case.
fn the_network_namespace_is_left_as_found(_: FullIsolation) {
    let meddle = r#"
import fcntl, os, socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    # SIOCSIFFLAGS on lo with IFF_UP | IFF_LOOPBACK | IFF_RUNNING
    fcntl.ioctl(s, 0x8914, struct.pack('16sH', b'lo', 0x1 | 0x8 | 0x40))
    print('lo up')
except OSError as e:
    print('lo refused', e.errno)
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.bind('\0prompteval-left-behind')
u.listen(1)
if os.fork() == 0:
    os.setsid()
    time.sleep(30)
print('listening')
"#;
    let probe = r#"
import socket
try:
    socket.socket().bind(('127.0.0.1', 0))
    print('loopback usable')
except OSError as e:
    print('loopback down', e.errno)
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    u.connect('\0prompteval-left-behind')
    print('reached the last case')
except OSError as e:
    print('nobody there', e.errno)
"#;
    for _ in 0..3 {
        let r = run(meddle);
        assert!(r.stdout.contains("lo refused"), "{r:?}");
        assert!(r.stdout.contains("listening"), "{r:?}");
        let r = run(probe);
        assert!(r.stdout.contains("loopback down"), "{r:?}");
        assert!(r.stdout.contains("nobody there"), "{r:?}");
    }
}

fn secrets_in_home_and_the_repo_cannot_be_read(_: FullIsolation) {
    let home = home_dir();
    let ssh = home.path().join(".ssh");
    std::fs::create_dir(&ssh).unwrap();
    let key = ssh.join("id_ed25519");
    std::fs::write(&key, "SECRET-KEY-MATERIAL").unwrap();
    let cargo_toml = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let code = format!(
        "for p in [{:?}, {:?}, '/etc/shadow']:\n    try:\n        print(open(p).read())\n    except OSError as e:\n        print('denied', e.errno)\nimport os\ntry:\n    print(os.listdir({:?}))\nexcept OSError as e:\n    print('denied', e.errno)\n",
        key,
        cargo_toml,
        env!("CARGO_MANIFEST_DIR")
    );
    let r = run(&code);
    assert!(!r.stdout.contains("SECRET-KEY-MATERIAL"), "{r:?}");
    assert!(!r.stdout.contains("[package]"), "{r:?}");
    assert!(!r.stdout.contains("Cargo.toml"), "{r:?}");
    assert_eq!(r.stdout.matches("denied 13").count(), 4, "{r:?}");
}

fn the_parents_environment_cannot_be_read() {
    // SAFETY: no other thread of this test binary reads this variable.
    unsafe { std::env::set_var("PROMPTEVAL_HOSTILE_CANARY", "canary-4b1d") };
    let harness = std::process::id();
    let code = format!(
        r#"import os
print(os.environ.get("PROMPTEVAL_HOSTILE_CANARY"))
pids = ["1", "self", str(os.getppid()), "{harness}"]
try:
    pids += [p for p in os.listdir("/proc") if p.isdigit()]
except OSError:
    pass
for pid in pids:
    try:
        print(open(f"/proc/{{pid}}/environ", "rb").read().decode(errors="replace"))
    except OSError:
        pass
"#
    );
    let r = run(&code);
    assert!(r.stdout.starts_with("None\n"), "{r:?}");
    assert!(!r.stdout.contains("canary-4b1d"), "{r:?}");
}

fn no_network_loopback_or_remote() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\nfor host in ['127.0.0.1', '10.0.0.1']:\n    try:\n        socket.create_connection((host, {port}), timeout=1)\n        print('connected', host)\n    except OSError as e:\n        print('failed', host, e.errno)\n"
    );
    let r = run(&code);
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept().is_ok();
    assert!(!accepted, "the listener received a connection: {r:?}");
    assert!(!r.stdout.contains("connected"), "{r:?}");
    assert_eq!(r.stdout.matches("failed").count(), 2, "{r:?}");
}

fn killing_the_parent_or_the_group_does_not_hurt_the_harness() {
    for code in [
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('alive')",
        "import os, signal\nos.killpg(os.getpgid(0), signal.SIGKILL)\nprint('alive')",
        "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as e:\n    print(e)\nprint('alive')",
        "import os, signal\nos.kill(0, signal.SIGTERM)\nprint('alive')",
    ] {
        let r = run(code);
        // The harness (this process) is still here to check, and the record
        // is sensible: the program survived, killed itself, or was refused.
        assert!(
            r.stdout.contains("alive")
                || r.signal.is_some()
                || r.stderr.contains("PermissionError"),
            "{code}: {r:?}"
        );
        assert!(!r.timed_out, "{code}: {r:?}");
    }
    assert_host_fine();
}

fn reading_stdin_gets_eof() {
    let r = run("import sys\ndata = sys.stdin.read()\nprint(repr(data))\ninput()");
    assert!(r.stdout.starts_with("''\n"), "{r:?}");
    assert!(r.stderr.contains("EOFError"), "{r:?}");
    assert!(!r.timed_out);
}

fn deep_recursion_is_an_error_not_a_hang() {
    let r = run("def f(n):\n    return f(n + 1)\nf(0)");
    assert_eq!(r.exit_code, Some(1), "{r:?}");
    assert!(r.stderr.contains("RecursionError"), "{r:?}");
    // With the limit lifted, frames pile up until memory or time runs out
    // (or the C stack overflows): it ends unsuccessfully either way.
    let r = run("import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1)\nf(0)");
    assert!(
        r.timed_out || r.signal.is_some() || r.exit_code.is_some_and(|c| c != 0),
        "{r:?}"
    );
    assert_host_fine();
}

fn disk_fill_is_bounded(_: FullIsolation) {
    let code = r#"
import os
total = 0
try:
    for i in range(10**6):
        with open(f"fill{i}", "wb") as f:
            for _ in range(64):
                f.write(b"\0" * 1024 * 1024)
                total += 1024 * 1024
except OSError as e:
    print("stopped", e.errno)
print(total // (1024 * 1024))
"#;
    let before = free_bytes(&std::env::temp_dir());
    let r = run(code);
    let written_mib: u64 = r
        .stdout
        .lines()
        .last()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    assert!(r.stdout.contains("stopped") || r.timed_out, "{r:?}");
    // The case folder is a tmpfs of max_file_mb (16 MiB here).
    assert!(written_mib <= 16, "{written_mib} MiB written: {r:?}");
    let after = free_bytes(&std::env::temp_dir());
    assert!(after + (64 << 20) >= before, "disk space not given back");
}

fn free_bytes(p: &Path) -> u64 {
    rustix::fs::statvfs(p)
        .map(|s| s.f_bavail * s.f_frsize)
        .unwrap_or(0)
}

fn binary_garbage_on_stdout_is_kept_lossily() {
    let r = run(
        "import sys, os\nsys.stdout.buffer.write(bytes(range(256)) * 4)\nsys.stdout.flush()\nos.write(2, b'\\xff\\xfe\\x00err')",
    );
    assert_eq!(r.exit_code, Some(0), "{r:?}");
    assert!(r.stdout.contains('\u{fffd}'));
    assert!(r.stdout.starts_with("\0\u{1}\u{2}"));
    assert_eq!(r.stderr, "\u{fffd}\u{fffd}\0err");
}

fn non_utf8_text_output() {
    let r = run(
        "import sys\nsys.stdout.buffer.write('caf\\u00e9\\n'.encode('latin-1'))\nprint('\\u6f22\\u5b57')",
    );
    assert_eq!(r.stdout, "caf\u{fffd}\n\u{6f22}\u{5b57}\n", "{r:?}");
}

fn closing_stdout_early() {
    let r = run("import os, sys\nprint('first', flush=True)\nos.close(1)\nprint('second')\n");
    assert_eq!(r.stdout, "first\n", "{r:?}");
    assert!(!r.timed_out);
    assert!(r.exit_code.is_some(), "{r:?}");
    assert_host_fine();
}

fn concurrent_runs_do_not_interfere() {
    // The trial's mode is this thread's: the sandbox is taken here.
    let sandbox = sandbox();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let code = format!("import os\nopen('mine', 'w').write('{i}')\nprint(sorted(os.listdir('.')), open('mine').read())");
                sandbox.run(&code).expect("run")
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let r = h.join().expect("thread");
        assert_eq!(r.stdout, format!("['main.py', 'mine'] {i}\n"), "{r:?}");
    }
}

/// What one case changes in its interpreter (modules, their attributes,
/// sys.path, the environment, signal handlers and mask, atexit, limits,
/// files beside it) never reaches the next: against a warm interpreter,
/// each case is a fork of a server that never ran case code.
fn nothing_a_case_changes_reaches_the_next() {
    let meddle = r#"
import os, sys, signal, atexit, builtins, json, decimal, resource
os.LEFTOVER = sys.LEFTOVER = builtins.LEFTOVER = json.LEFTOVER = 1
sys.modules['leftover_module'] = json
sys.path.insert(0, '/leftover')
sys.setrecursionlimit(50)
os.environ['LEFTOVER'] = '1'
os.putenv('LEFTOVER_C', '1')
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
atexit.register(print, 'leftover atexit')
resource.setrlimit(resource.RLIMIT_NOFILE, (20, 20))
os.umask(0o077)
sys.stdout.write('buffered, never flushed by a leftover')
os._exit(0)
"#;
    let look = r#"
import os, sys, signal, atexit, builtins, resource
print('json' in sys.modules, 'decimal' in sys.modules, 'leftover_module' in sys.modules)
print([hasattr(m, 'LEFTOVER') for m in (os, sys, builtins)])
print('/leftover' in sys.path, sys.getrecursionlimit())
print(os.environ.get('LEFTOVER'), os.getenv('LEFTOVER_C'))
print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, signal.getsignal(signal.SIGINT) == signal.default_int_handler)
print(signal.pthread_sigmask(signal.SIG_BLOCK, []) == set(), atexit._ncallbacks())
print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] > 20, os.umask(0) != 0o077)
"#;
    // atexit callbacks of the installation's own start-up (.pth files) count.
    let clean = run(look).stdout;
    assert!(
        clean.starts_with(
            "False False False\n[False, False, False]\nFalse 1000\nNone None\nTrue True\nTrue "
        ),
        "{clean}"
    );
    for _ in 0..3 {
        let r = run(meddle);
        assert_eq!((r.exit_code, r.stdout.as_str()), (Some(0), ""), "{r:?}");
        let r = run(look);
        assert_eq!(r.stdout, clean, "{r:?}");
    }
}

/// What the harness does before the program (the warm server's imports,
/// its folder on PYTHONPATH, its descriptors) is not visible to it.
fn the_interpreters_start_up_is_not_visible() {
    let code = r#"
import os, sys, gc
print([m for m in ('ctypes', '_ctypes', '_socket', 'resource', 'sitecustomize') if m in sys.modules])
print([p for p in sys.path if 'prompteval' in p], [p for p in sys.path_importer_cache if 'prompteval' in p and not p.endswith('main.py')])
print('PYTHONPATH' in os.environ, os.getenv('PYTHONPATH'))
fds = []
for fd in range(3, 1024):
    try:
        os.fstat(fd)
        fds.append(fd)
    except OSError:
        pass
print(fds)
print(sys._getframe().f_back, len([f for f in gc.get_objects() if type(f).__name__ == 'function' and f.__module__ == 'sitecustomize']))
"#;
    let r = run(code);
    assert_eq!(r.stdout, "[]\n[] []\nFalse None\n[]\nNone 0\n", "{r:?}");
    assert_eq!(r.stderr, "", "{r:?}");
}

/// The warm server's socket and the slot's ruleset are closed before the
/// program starts, and its folder cannot be read or written: a case can
/// neither talk to the server nor change what the next case runs.
fn the_warm_server_cannot_be_reached(_: FullIsolation) {
    let code = r#"
import os, socket, glob
for fd in (3, 4):
    try:
        socket.socket(fileno=fd).send(b'case')
        print('reached', fd)
    except OSError as e:
        print('closed', fd, e.errno)
tmp = os.path.dirname(os.path.dirname(os.getcwd()))
for p in [os.path.join(tmp, 'warm', 'sitecustomize.py'), os.path.join(tmp, 'warm')]:
    try:
        open(p, 'a').write('print("hijacked")')
        print('wrote', p)
    except OSError as e:
        print('denied', e.errno)
try:
    os.kill(1, 9)
except OSError as e:
    print('reaper', e.errno)
"#;
    for _ in 0..2 {
        let r = run(code);
        assert!(r.stdout.contains("closed 3 9\nclosed 4 9\n"), "{r:?}");
        assert_eq!(r.stdout.matches("denied").count(), 2, "{r:?}");
        assert!(
            !r.stdout.contains("wrote") && !r.stdout.contains("reached"),
            "{r:?}"
        );
        assert_host_fine();
        let r = run("print('next')");
        assert_eq!(r.stdout, "next\n", "{r:?}");
    }
}
