//! The warm interpreter against a fresh one per case, program by program:
//! HumanEval's 164 canonical solutions with their tests, the recorded
//! replies of every committed suite (extracted and assembled as the
//! pipeline does), and hostile programs. Verdicts, stdout, stderr (modulo
//! the slot folder's name and object addresses, which differ between any
//! two starts) and exit status must be identical.
//!
//! Both sandboxes run with the same limits; each program runs in both at
//! the same time (one slot each), so wall-clock figures are comparable.

use std::path::{Path, PathBuf};

use prompteval::case::ExecutionRecord;
use prompteval::config::SandboxConfig;
use prompteval::execute::extract::extract;
use prompteval::execute::program::{Runnable, Shapes, runnable};
use prompteval::judge::judge_question;
use prompteval::python::RUNTIME;
use prompteval::sandbox::Sandbox;
use prompteval::suite::{CodeLanguage, Question, Suite};

fn sandboxes() -> (Sandbox, Sandbox) {
    let config = |warm| SandboxConfig {
        timeout_secs: 10.0,
        warm,
        ..SandboxConfig::default()
    };
    let warm = Sandbox::new(&config(true), &RUNTIME).expect("warm sandbox");
    let fresh = Sandbox::new(&config(false), &RUNTIME).expect("fresh sandbox");
    // A fallback to fresh starts would compare the fresh path with itself.
    assert!(
        warm.warm(),
        "the warm interpreter does not work here: {}",
        warm.isolation().environment
    );
    assert!(!fresh.warm());
    // Every fast path on (this project's machines are glibc CPython
    // 3.11-3.13): a differential test of the long way alone would not
    // test the shortcut at all.
    let environment = &warm.isolation().environment;
    assert!(
        environment.contains("a shorter way out after the atexit functions"),
        "the warm interpreter's shortcut is off here: {environment}"
    );
    (warm, fresh)
}

/// What must be equal, with what differs between any two starts removed.
fn observed(r: &ExecutionRecord) -> String {
    let slot =
        regex::Regex::new(r"prompteval-sandbox-[0-9]+-[A-Za-z0-9]+/slot-[A-Za-z0-9]+").unwrap();
    let address = regex::Regex::new(r" at 0x[0-9a-f]+").unwrap();
    let clean = |s: &str| {
        let s = slot.replace_all(s, "SLOT");
        address.replace_all(&s, " at ADDRESS").into_owned()
    };
    format!(
        "exit {:?} signal {:?} timed out {} truncated {}/{} tests {:?}\n--- stdout\n{}\n--- stderr\n{}",
        r.exit_code,
        r.signal,
        r.timed_out,
        r.stdout_truncated,
        r.stderr_truncated,
        r.tests,
        clean(&r.stdout),
        clean(&r.stderr)
    )
}

/// Runs `program` in both; a description of the difference, if any.
fn differ(
    (warm, fresh): &(Sandbox, Sandbox),
    name: &str,
    program: &Runnable,
    question: Option<&Question>,
) -> Option<String> {
    let (w, f) = std::thread::scope(|s| {
        let w = s.spawn(|| program.run(warm).expect("warm run"));
        let f = program.run(fresh).expect("fresh run");
        (w.join().expect("warm thread"), f)
    });
    let verdicts = question.map(|q| (judge_question(&w, q).verdict, judge_question(&f, q).verdict));
    let (wo, fo) = (observed(&w), observed(&f));
    let same_verdict = verdicts.as_ref().is_none_or(|(a, b)| a == b);
    (wo != fo || !same_verdict)
        .then(|| format!("{name}: verdicts {verdicts:?}\n=== warm\n{wo}\n=== fresh\n{fo}"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn suites() -> Vec<PathBuf> {
    let mut suites: Vec<PathBuf> = std::fs::read_dir(root().join("benches-data"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    suites.sort();
    suites
}

/// The suite's snapshot folder: `settings.name`, else the file's stem.
fn snapshot_stem(suite: &Path) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(suite).unwrap()).unwrap();
    match json["settings"]["name"].as_str() {
        Some(name) => name.to_string(),
        None => suite.file_stem().unwrap().to_string_lossy().into_owned(),
    }
}

/// The reply a snapshot holds: what follows its header.
fn reply_of(snapshot: &str) -> &str {
    let body = snapshot.strip_prefix("---\n").unwrap_or(snapshot);
    body.split_once("\n---\n").map_or("", |(_, reply)| reply)
}

#[test]
fn humaneval_canonical_solutions_behave_the_same_warm_or_fresh() {
    let both = sandboxes();
    let suite = Suite::load(&root().join("benches-data/humaneval.json")).unwrap();
    let shapes = Shapes::check(both.1.python(), &suite).unwrap();
    assert_eq!(suite.questions.len(), 164);
    let mut failures = Vec::new();
    for q in &suite.questions {
        let reference = q.reference.as_deref().expect("a canonical solution");
        let program = runnable(q, reference, &shapes);
        failures.extend(differ(&both, &q.id, &program, Some(q)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_recorded_reply_behaves_the_same_warm_or_fresh() {
    let both = sandboxes();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in suites() {
        let suite = Suite::load(&path).unwrap();
        let shapes = Shapes::check(both.1.python(), &suite).unwrap();
        let stem = snapshot_stem(&path);
        let Ok(models) = std::fs::read_dir(root().join("tests/snapshots").join(&stem)) else {
            continue;
        };
        // A model's folder per entry; a file beside them (a variant
        // expansion being recorded) holds no replies.
        for model in models.flatten().filter(|m| m.path().is_dir()) {
            let mut snaps: Vec<PathBuf> = std::fs::read_dir(model.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            snaps.sort();
            for snap in snaps {
                let name = snap.file_stem().unwrap().to_string_lossy().into_owned();
                let question_id = name.split("__").nth(1).unwrap_or("");
                let Some(q) = suite.questions.iter().find(|q| q.id == question_id) else {
                    continue;
                };
                // The warm interpreter is Python's; a C++ program never meets it.
                if q.code_language() != CodeLanguage::Python {
                    continue;
                }
                let reply = std::fs::read_to_string(&snap).unwrap();
                let program = runnable(q, &extract(reply_of(&reply)).code, &shapes);
                failures.extend(differ(&both, &format!("{stem}/{name}"), &program, Some(q)));
                compared += 1;
            }
        }
    }
    // example 9, humaneval 164, humaneval-po8 8 + 336 variants, python-basics 108.
    assert!(compared >= 600, "only {compared} recorded replies found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Hostile and edge-case programs whose behaviour does not depend on time.
const PROGRAMS: &[(&str, &str)] = &[
    ("exit code", "import sys\nprint('out')\nsys.exit(3)"),
    ("exit message", "import sys\nsys.exit('bye')"),
    (
        "os._exit drops buffers",
        "import os\nprint('lost')\nos._exit(4)",
    ),
    (
        "uncaught exception",
        "def f():\n    raise ValueError('boom')\nprint('before')\nf()",
    ),
    (
        "chained exception",
        "try:\n    1/0\nexcept ZeroDivisionError as e:\n    raise KeyError('k') from e",
    ),
    ("syntax error", "def f(:\n    pass"),
    ("indentation error", "if True:\nprint(1)"),
    ("keyboard interrupt", "print('x')\nraise KeyboardInterrupt"),
    (
        "signal",
        "import os, signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGTERM)",
    ),
    ("abort", "import os\nos.abort()"),
    (
        "thread exception",
        "import threading\ndef f():\n    raise RuntimeError('in thread')\nt = threading.Thread(target=f)\nt.start(); t.join()\nprint('main done')",
    ),
    (
        "non-daemon thread joined",
        "import threading, time\ndef f():\n    time.sleep(0.2)\n    print('thread done')\nthreading.Thread(target=f).start()\nprint('main done')",
    ),
    (
        "atexit",
        "import atexit\natexit.register(print, 'at exit')\nprint('main')",
    ),
    (
        "atexit after exception",
        "import atexit\natexit.register(print, 'at exit')\nraise SystemExit(2)",
    ),
    (
        "__del__ at shutdown",
        "class A:\n    def __del__(self):\n        print('deleted')\na = A()\nprint('main')",
    ),
    (
        "unflushed file object",
        "import os\nf = os.fdopen(1, 'w', closefd=False)\nf.write('written at shutdown\\n')",
    ),
    (
        "interleaving",
        "import sys\nfor i in range(3):\n    print('out', i)\n    print('err', i, file=sys.stderr)\nsys.stdout.write('partial')",
    ),
    ("large output", "for i in range(20000):\n    print(i)"),
    (
        "stdin",
        "import sys\nprint(repr(sys.stdin.read()))\ninput()",
    ),
    (
        "subprocess",
        "import subprocess, sys\nr = subprocess.run([sys.executable, '-c', 'import os, sys; print(sys.argv, sorted(os.environ))'], capture_output=True, text=True)\nprint(r.returncode, r.stdout, r.stderr)",
    ),
    (
        "subprocess shell",
        "import subprocess\nprint(subprocess.run('echo hi; exit 3', shell=True).returncode)",
    ),
    (
        "recursion depth",
        "import sys\ndef d(n=0):\n    try:\n        return d(n + 1)\n    except RecursionError:\n        return n\nprint(d(), sys.getrecursionlimit())",
    ),
    ("memory error", "x = bytearray(4 * 1024 * 1024 * 1024)"),
    ("deep recursion", "def f(n):\n    return f(n + 1)\nf(0)"),
    (
        "warnings",
        "import warnings\nwarnings.warn('careful')\nwarnings.warn('deprecated', DeprecationWarning)\nprint('after')",
    ),
    (
        "traceback module",
        "import traceback\ndef f():\n    traceback.print_stack()\nf()",
    ),
    (
        "main module",
        "import sys, __main__\nprint(__name__, __file__ == __main__.__file__, sys.argv, sys.modules['__main__'] is __main__, __builtins__)",
    ),
    (
        "pickle main",
        "import pickle\nclass P:\n    pass\nprint(type(pickle.loads(pickle.dumps(P()))).__qualname__)",
    ),
    (
        "hash",
        "print(hash('abc'), hash(1.5), {'x', 'y', 'z'}, list({'b': 1, 'a': 2}))",
    ),
    (
        "random is seeded per start",
        "import random\nprint(len(str(random.random())) > 3)",
    ),
    (
        "encoding",
        "print('\\u6f22\\u5b57 caf\\u00e9')\nimport sys\nprint(sys.stdout.encoding, sys.getfilesystemencoding(), sys.getdefaultencoding())",
    ),
    (
        "cwd and files",
        "import os\nopen('f.txt', 'w').write('x')\nprint(os.getcwd().endswith('/case'), sorted(os.listdir('.')))",
    ),
    (
        "fork",
        "import os\npid = os.fork()\nif pid == 0:\n    print('child')\n    os._exit(5)\nprint('parent', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))",
    ),
    (
        "multiprocessing",
        "import multiprocessing as mp\ndef sq(x):\n    return x * x\nif __name__ == '__main__':\n    with mp.get_context('fork').Pool(2) as p:\n        print(p.map(sq, range(5)))",
    ),
    (
        "closing stdout",
        "import os\nprint('first', flush=True)\nos.close(1)\nprint('second')",
    ),
    (
        "binary output",
        "import sys, os\nsys.stdout.buffer.write(bytes(range(256)))\nsys.stdout.flush()\nos.write(2, b'\\xff\\xfeerr')",
    ),
    (
        "kill the parent",
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('alive')",
    ),
    (
        "kill the group",
        "import os, signal\nos.killpg(os.getpgid(0), signal.SIGKILL)\nprint('alive')",
    ),
    (
        "network",
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 80), timeout=1)\nexcept OSError as e:\n    print('failed', e.errno)",
    ),
    (
        "read secrets",
        "for p in ['/etc/shadow', '/root/.ssh/id_rsa', '/proc/1/environ']:\n    try:\n        open(p).read()\n        print('read', p)\n    except OSError as e:\n        print('denied', p, e.errno)",
    ),
    (
        "write outside",
        "for p in ['/tmp/x', '../x', '/x']:\n    try:\n        open(p, 'w')\n        print('wrote', p)\n    except OSError as e:\n        print('denied', p, e.errno)",
    ),
    (
        "mounts",
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.umount2(os.getcwd().encode(), 2), ctypes.get_errno())",
    ),
    (
        "fork count",
        "import os, time\nn = 0\nfor _ in range(200):\n    try:\n        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n        n += 1\n    except OSError:\n        break\nprint(n)",
    ),
    (
        "open files limit",
        "fs = []\ntry:\n    while True:\n        fs.append(open('/dev/null'))\nexcept OSError as e:\n    print(len(fs), e.errno)",
    ),
    (
        "file size limit",
        "try:\n    open('big', 'wb').write(b'0' * (65 * 1024 * 1024))\nexcept OSError as e:\n    print('stopped', e.errno)",
    ),
    (
        "sys.modules",
        "import sys\nprint(len(sys.modules), sorted(sys.modules)[:5], 'ctypes' in sys.modules)",
    ),
    ("gc", "import gc\nprint(gc.isenabled(), gc.get_threshold())"),
    // The way out: the warm interpreter may end a program's process
    // before the interpreter's own shutdown has freed everything, so each
    // way a program can end is compared here.
    (
        "sys.exit without __file__",
        "import sys\ndel __file__, __cached__\nprint('x')\nsys.exit(3)",
    ),
    ("sys.exit(0)", "import sys\nprint('a')\nsys.exit(0)"),
    ("quit", "print('a')\nquit(5)"),
    (
        "a start-up module holds a __del__",
        "import random\nclass A:\n    def __del__(self):\n        print('A gone')\nrandom.keep = A()\nprint('main')",
    ),
    (
        "an imported module holds a __del__",
        "import json\nclass A:\n    def __del__(self):\n        print('A gone')\njson.keep = A()\nprint('main')",
    ),
    (
        "a cycle freed at shutdown",
        "class N:\n    def __del__(self):\n        print('N gone')\nn = N()\nn.me = n\nprint('main')",
    ),
    (
        "__del__ raises at shutdown",
        "class A:\n    def __del__(self):\n        raise ValueError('in del')\na = A()\nprint('main')",
    ),
    (
        "exception then atexit",
        "import atexit\natexit.register(print, 'bye')\nraise ValueError('x')",
    ),
    (
        "PYTHONINSPECT set by the program",
        "import os\nos.environ['PYTHONINSPECT'] = '1'\nprint('x')",
    ),
    (
        "daemon thread at exit",
        "import threading, time\ndef f():\n    while True:\n        time.sleep(0.01)\nthreading.Thread(target=f, daemon=True).start()\nprint('main')",
    ),
    (
        "weakref.finalize",
        "import weakref\nclass A:\n    pass\na = A()\nweakref.finalize(a, print, 'finalized')\nprint('main')",
    ),
    (
        "stdout replaced",
        "import sys, io\nsys.stdout = io.TextIOWrapper(open(1, 'wb', closefd=False))\nprint('via wrapper')",
    ),
    (
        "excepthook replaced",
        "import sys\nsys.excepthook = lambda *a: print('hooked', a[0].__name__)\nraise ValueError",
    ),
    (
        "exception in atexit",
        "import atexit\ndef f():\n    raise RuntimeError('in atexit')\natexit.register(f)\nprint('main')",
    ),
    (
        "flush fails at exit",
        "import os\nprint('buffered')\nos.close(1)",
    ),
    (
        "sys.exit in atexit",
        "import atexit, sys\natexit.register(sys.exit, 4)\nprint('main')",
    ),
    (
        "os._exit in atexit",
        "import atexit, os\natexit.register(os._exit, 6)\nprint('main')",
    ),
    (
        "C stdio at exit",
        "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.printf(b'from C\\n')\nprint('from Python')",
    ),
    (
        "SystemExit subclass",
        "class E(SystemExit):\n    pass\nraise E(7)",
    ),
    ("GeneratorExit uncaught", "print('x')\nraise GeneratorExit"),
    (
        "__main__ replaced",
        "import sys, types\nsys.modules['__main__'] = types.ModuleType('other')\nprint('x')\nraise ValueError",
    ),
    (
        "path hooks dropped",
        "import sys\nsys.path_hooks.clear()\nprint('x')",
    ),
    (
        "stdout held by a start-up module",
        "import sys, os\nos.kept = sys.stdout\nprint('x')",
    ),
    (
        "a sys attribute holds a __del__",
        "import sys, os\nclass A:\n    def __del__(self, w=os.write):\n        w(1, b'sys attribute gone\\n')\nsys.keep = A()\nprint('main')",
    ),
    (
        "a cycle freed by the last collection",
        "import os, json\nclass N:\n    def __del__(self, w=os.write):\n        w(1, b'cycle gone\\n')\nn = N()\nn.me = n\njson.keep = n\ndel n\nprint('main')",
    ),
    // The shorter way out ends the process after the atexit functions only
    // when main.py ended the normal way and nothing left could still run.
    (
        "an excepthook that exits",
        "import sys\nsys.excepthook = lambda *a: sys.exit(5)\nraise ValueError('x')",
    ),
    (
        "SystemExit caught, then a normal end",
        "import sys\ntry:\n    sys.exit(3)\nexcept SystemExit:\n    print('caught')",
    ),
    (
        "a generator suspended at exit",
        "def g():\n    try:\n        yield 1\n    finally:\n        print('closed')\nit = g()\nnext(it)\nprint('main')",
    ),
    (
        "a coroutine never awaited",
        "async def f():\n    pass\nc = f()\nprint('main')",
    ),
    (
        "an untracked instance with __del__",
        "class A:\n    __slots__ = ()\n    def __del__(self):\n        print('A gone')\na = A()\nprint('main')",
    ),
    (
        "a weak reference's callback at shutdown",
        "import sys, weakref, os\nclass A:\n    pass\na = A()\na.me = a\nsys.keep = weakref.ref(a, lambda r, w=os.write: w(1, b'callback\\n'))\ndel a\nprint('main')",
    ),
    (
        "an audit hook of the program's",
        "import sys\nsys.addaudithook(lambda e, a: e.startswith('cpython._PySys') and print('audit', e))\nprint('main')",
    ),
    (
        "an exception after sys.exit was caught",
        "import sys\ntry:\n    sys.exit(2)\nexcept SystemExit:\n    pass\nraise KeyError('k')",
    ),
    (
        "the program's own atexit run",
        "import atexit\natexit.register(print, 'once')\natexit._run_exitfuncs()\nprint('main')",
    ),
    (
        "the original stdout left unflushed",
        "import sys, io\nsys.__stdout__.write('original ')\nsys.stdout = io.StringIO()\nprint('hidden')",
    ),
];

#[test]
fn hostile_and_edge_programs_behave_the_same_warm_or_fresh() {
    let both = sandboxes();
    let failures: Vec<String> = PROGRAMS
        .iter()
        .filter_map(|(name, code)| differ(&both, name, &Runnable::plain(code), None))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
