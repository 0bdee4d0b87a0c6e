//! Unit tests of the pieces of `run` that need no interpreter, and a few
//! that do (the sandbox is the unit).

use super::*;

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
    Sandbox::new(&config).unwrap()
}

#[test]
fn a_missing_interpreter_is_an_error_naming_it_and_the_fix() {
    let config = SandboxConfig {
        python: "/nonexistent/python9".into(),
        ..SandboxConfig::default()
    };
    let e = Sandbox::new(&config).err().unwrap();
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
