//! Unit tests of the pieces of `run` that need no interpreter, and a few
//! that do (the sandbox is the unit).

use super::*;
// The tests run Python, so they take Python's runtime from the stage below.
use crate::python::RUNTIME;

mod case_steps;
mod warm_message;

#[test]
fn output_beyond_the_limit_is_cut_and_flagged() {
    let mut f = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut f, b"hello world").unwrap();
    assert_eq!(read_capped(&f, 5).unwrap(), ("hello".to_string(), true));
    assert_eq!(
        read_capped(&f, 11).unwrap(),
        ("hello world".to_string(), false)
    );
}

#[test]
fn invalid_utf8_output_is_decoded_lossily() {
    let mut f = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut f, b"a\xff\xfeb").unwrap();
    let (text, truncated) = read_capped(&f, 100).unwrap();
    assert_eq!(text, "a\u{fffd}\u{fffd}b");
    assert!(!truncated);
}

#[test]
fn the_program_status_wins_over_the_intermediate() {
    // Intermediate exited 0, the program was killed by SIGSEGV (raw status 11).
    let o = Outcome::new(ExitStatus::from_raw(0), Some(11), false);
    assert_eq!((o.exit_code, o.signal), (None, Some(11)));
    // Exit code 3 is raw status 3 << 8.
    let o = Outcome::new(ExitStatus::from_raw(0), Some(3 << 8), false);
    assert_eq!((o.exit_code, o.signal), (Some(3), None));
    // A timeout without a report is a SIGKILL.
    let o = Outcome::new(ExitStatus::from_raw(libc::SIGKILL), None, true);
    assert_eq!((o.exit_code, o.signal, o.timed_out), (None, Some(9), true));
}

#[test]
fn modes_get_weaker_one_mechanism_at_a_time_and_end() {
    let mut m = Mode {
        namespaces: true,
        tmpfs: true,
        landlock: Some(landlock::ABI::V6),
        cgroup: true,
    };
    let mut steps = 0;
    while let Some((weaker, _)) = m.weaker() {
        assert_ne!(weaker, m);
        m = weaker;
        steps += 1;
    }
    assert_eq!(steps, 4);
    assert!(!m.namespaces && !m.tmpfs && !m.cgroup && m.landlock.is_none());
}

fn sandbox() -> Sandbox {
    let config = SandboxConfig {
        timeout_secs: 5.0,
        ..SandboxConfig::default()
    };
    Sandbox::new(&config, &RUNTIME).unwrap()
}

#[test]
fn a_missing_interpreter_is_an_error_naming_it_and_the_fix() {
    let config = SandboxConfig {
        python: "/nonexistent/python9".into(),
        ..SandboxConfig::default()
    };
    let e = Sandbox::new(&config, &RUNTIME).err().unwrap();
    assert!(e.to_string().contains("/nonexistent/python9"), "{e}");
    assert!(e.to_string().contains("[sandbox] python"), "{e}");
}

#[test]
fn a_trivial_program_prints_and_exits_zero() {
    let s = sandbox();
    let r = s.run("print(sum(range(10)))").unwrap();
    assert_eq!(r.stdout, "45\n", "{r:?}");
    assert_eq!(
        (r.exit_code, r.signal, r.timed_out),
        (Some(0), None, false),
        "{r:?}"
    );
}

#[test]
fn exit_codes_and_signals_are_the_programs_own() {
    let s = sandbox();
    let r = s.run("import sys; sys.exit(3)").unwrap();
    assert_eq!((r.exit_code, r.signal), (Some(3), None), "{r:?}");
    let r = s
        .run("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
        .unwrap();
    assert_eq!(
        (r.exit_code, r.signal),
        (None, Some(libc::SIGTERM)),
        "{r:?}"
    );
    let r = s.run("raise ValueError('boom')").unwrap();
    assert_eq!(r.exit_code, Some(1));
    assert!(r.stderr.contains("ValueError: boom"), "{r:?}");
}

#[test]
fn the_environment_is_scrubbed_and_hashing_is_deterministic() {
    let s = sandbox();
    let code = "import os, sys; print(sorted(os.environ)); print(hash('abc')); \
                print(os.getcwd() == os.environ['HOME'] == os.environ['TMPDIR'])";
    let a = s.run(code).unwrap();
    let b = s.run(code).unwrap();
    let lines: Vec<&str> = a.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "['HOME', 'LANG', 'LC_ALL', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED', \
         'PYTHONIOENCODING', 'TMPDIR']",
        "{a:?}"
    );
    assert_eq!(lines[2], "True");
    assert_eq!(
        a.stdout, b.stdout,
        "hash('abc') must not change between runs"
    );
}

#[test]
fn isolation_reports_what_the_probe_saw() {
    let s = sandbox();
    let i = s.isolation();
    assert!(!i.network.is_empty() && !i.filesystem.is_empty() && !i.processes.is_empty());
    assert!(i.limits.contains("address space 1024 MiB"), "{i:?}");
    // On this machine everything is available; elsewhere the warnings say so.
    if i.warnings.is_empty() {
        assert!(i.network.starts_with("none (network namespace"), "{i:?}");
        assert!(i.filesystem.starts_with("landlock"), "{i:?}");
        assert!(i.processes.starts_with("pid namespace"), "{i:?}");
    }
}

/// What a program can see of its interpreter's state, one fact per line.
const STATE_DUMP: &str = r#"
import sys, os, gc, atexit, signal, resource, threading
print(sys.argv, sys.path, __file__, __name__, __spec__, __package__, __cached__, type(__loader__).__name__)
print(sorted(globals()))
print(list(sys.modules))
print(list(sys.path_importer_cache))
print(list(os.environ.items()))
print(sys.flags, sys.orig_argv[1:], sys.executable)
for f in (sys.stdin, sys.stdout, sys.stderr):
    print(f.name, f.mode, f.encoding, f.errors, f.line_buffering, f.write_through, type(f.buffer).__name__, getattr(f.buffer, 'buffer_size', None), f.buffer.raw.name)
print(sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__, sys.stdin is sys.__stdin__)
print(sys.getrecursionlimit(), sys._getframe().f_back)
def depth(n=0):
    try:
        return depth(n + 1)
    except RecursionError:
        return n
print(depth())
print(os.getpid(), os.getppid(), os.getsid(0), os.getpgrp(), os.getcwd(), sorted(os.listdir('.')))
print([signal.getsignal(s) for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)])
print(signal.pthread_sigmask(signal.SIG_BLOCK, []))
open_fds = []
for fd in range(256):
    try:
        os.fstat(fd)
        open_fds.append(fd)
    except OSError:
        pass
print(open_fds)
print([resource.getrlimit(r) for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE, resource.RLIMIT_CORE, resource.RLIMIT_NPROC)])
print(hash('abc'), hash(b'abc'), {'b', 'a', 'c'})
print(threading.main_thread().name, threading.active_count(), threading.current_thread() is threading.main_thread())
print(os.umask(0o22), sys.getswitchinterval(), gc.isenabled(), gc.get_threshold())
print('atexit callbacks', atexit._ncallbacks())
print(sys.meta_path, sys.path_hooks, sys.warnoptions, sys._xoptions)
print(sys.exc_info(), getattr(sys, 'last_type', None))
"#;

/// The slot folder's random name, which differs between two sandboxes, and
/// object addresses, which differ between any two starts (ASLR).
fn without_slot_name(text: &str) -> String {
    let slot = regex::Regex::new(r"prompteval-sandbox-[0-9]+-[A-Za-z0-9]+/slot-[A-Za-z0-9]+");
    let address = regex::Regex::new(r" at 0x[0-9a-f]+");
    let text = slot.unwrap().replace_all(text, "SLOT").into_owned();
    address
        .unwrap()
        .replace_all(&text, " at ADDRESS")
        .into_owned()
}

#[test]
fn a_program_sees_the_same_interpreter_warm_or_fresh() {
    let warm = sandbox();
    assert!(
        warm.warm(),
        "the warm interpreter is not in use here: {:?}",
        warm.isolation()
    );
    let fresh = Sandbox::new(
        &SandboxConfig {
            timeout_secs: 5.0,
            warm: false,
            ..SandboxConfig::default()
        },
        &RUNTIME,
    )
    .unwrap();
    assert!(!fresh.warm());
    let w = warm.run(STATE_DUMP).unwrap();
    let f = fresh.run(STATE_DUMP).unwrap();
    assert_eq!(f.exit_code, Some(0), "{f:?}");
    let (w_out, f_out) = (without_slot_name(&w.stdout), without_slot_name(&f.stdout));
    // The one difference a program can see, documented in sandbox.md ("What
    // a program can still observe"): the shorter way out is one more atexit
    // function, registered before main.py so that it runs last.
    let callbacks = |out: &str| -> usize {
        out.lines()
            .find_map(|l| l.strip_prefix("atexit callbacks "))
            .and_then(|n| n.parse().ok())
            .expect("the atexit line")
    };
    assert_eq!(callbacks(&w_out), callbacks(&f_out) + 1, "{w_out}");
    let w_out = w_out.replace(
        &format!("atexit callbacks {}", callbacks(&w_out)),
        &format!("atexit callbacks {}", callbacks(&f_out)),
    );
    let differ: Vec<String> = w_out
        .lines()
        .zip(f_out.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("warm:  {a}\nfresh: {b}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert_eq!(w_out, f_out);
    assert_eq!(w.stderr, f.stderr);
}

/// A native run of one file execs from a server of its own command: the
/// second case of the same command reuses the slot's server (its case
/// folder starts empty again), and a run with another memory limit never
/// gets that server, whose limits are another language's.
#[test]
fn native_runs_of_one_command_share_a_server_and_none_of_another() {
    let s = sandbox();
    if !s.serves(s.mode) {
        eprintln!("no fork server here (namespaces or tmpfs missing): nothing to check");
        return;
    }
    let args = [OsString::from("prog.sh")];
    let script = b"ls; echo run > left; ulimit -v";
    let run = |memory_mb: Option<u64>| {
        s.launch(&Launch {
            executable: Path::new("/bin/sh"),
            args: &args,
            files: &[CaseFile {
                name: "prog.sh",
                bytes: script,
                executable: false,
            }],
            read: &[],
            stdin: None,
            limits: LaunchLimits {
                memory_mb,
                ..LaunchLimits::default()
            },
            keep_folder: false,
            env: &[],
        })
        .unwrap()
        .execution
    };
    let idle = |s: &Sandbox| s.native_servers.idle();
    let first = run(Some(512));
    assert_eq!(first.exit_code, Some(0), "{first:?}");
    assert_eq!(first.stdout, format!("prog.sh\n{}\n", 512 * 1024));
    assert_eq!(idle(&s), vec![1]);
    let second = run(Some(512));
    assert_eq!(second.stdout, first.stdout, "the folder starts empty again");
    assert_eq!(idle(&s), vec![1], "the same server served both");
    let other = run(Some(256));
    assert_eq!(other.stdout, format!("prog.sh\n{}\n", 256 * 1024));
    assert_eq!(idle(&s), vec![1, 1], "another limit, another server");
}
