//! Proof that a question's hidden tests ran to their end.
//!
//! Exit status 0 proves nothing: the tests run after the program in the
//! same process, so a program that leaves early (`sys.exit(0)`,
//! `os._exit(0)`, an atexit or excepthook that exits 0, a fork whose parent
//! exits 0, a candidate that raises `SystemExit`) would pass untested.
//!
//! So main.py of a tests case is the program, a start marker, the tests and
//! an end marker ([`ProofMarks::program`]); the case gets on stdin a memfd
//! holding a per-case secret and the markers' lines ([`ProofFile`]); and
//! the runtime's tests prelude (`tests_proof.py`), run before main.py on every path (as `sitecustomize`
//! on the fresh ones, from the warm interpreter's hand-over), takes the
//! secret off stdin and installs an audit hook. The hook writes the secret
//! back only when the end marker runs in main.py's own module code, at its
//! line: every statement before it, the tests included, completed. The
//! program never sees the secret (not in main.py, its environment or any
//! file it can read), so it cannot write the proof itself; what the hook
//! saw on the way ([`TestsRun`]) names how a program that left early left.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::case::TestsRun;

use super::error::{SandboxError, error};

/// The module name the warm interpreter imports the prelude by; the
/// prelude is [`Runtime::tests_prelude`](super::Runtime::tests_prelude).
pub(super) const WARM_MODULE_FILE: &str = "prompteval_proof.py";

/// The markers: one statement each, on a line of its own.
const START_MARKER: &str = "__import__(\"sys\").audit(\"prompteval.tests\", \"start\")";
const END_MARKER: &str = "__import__(\"sys\").audit(\"prompteval.tests\", \"end\")";

/// Where the records sit in the proof file (as `tests_proof.py`'s).
const DONE: usize = 0;
const STARTED: usize = 64;
const EXITING: usize = 96;
const TRACED: usize = 128;
const RAISED: usize = 160;
const SUSPECT: usize = 320;
const SIZE: usize = 1024;

/// main.py of a tests case, and the lines of its markers (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofMarks {
    pub program: String,
    pub start_line: usize,
    pub end_line: usize,
}

impl ProofMarks {
    /// The program the report shows (`program::assemble`: the code, then a
    /// blank line starting at byte `blank_at`, then the tests), with the
    /// start marker on that blank line and the end marker after the tests:
    /// every other line keeps its number, so tracebacks name the lines the
    /// report shows.
    pub fn around(shown: &str, blank_at: usize) -> ProofMarks {
        let (program, rest) = shown.split_at(blank_at);
        let start_line = program.matches('\n').count() + 1;
        let mut text = format!("{program}{START_MARKER}{rest}");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let end_line = text.matches('\n').count() + 1;
        text.push_str(END_MARKER);
        text.push('\n');
        ProofMarks {
            program: text,
            start_line,
            end_line,
        }
    }
}

/// The memfd a tests case gets on stdin: the header with its secret, then
/// (written by the prelude in the case) the records.
pub(super) struct ProofFile {
    file: File,
    secret: String,
}

impl ProofFile {
    pub fn new(marks: &ProofMarks) -> Result<ProofFile, SandboxError> {
        let mut bytes = [0u8; 16];
        rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty())
            .map_err(|e| error(format!("no random bytes for the tests' proof: {e}")))?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut file = File::from(
            rustix::fs::memfd_create("prompteval-proof", rustix::fs::MemfdFlags::CLOEXEC)
                .map_err(|e| error(format!("cannot create the tests' proof file: {e}")))?,
        );
        writeln!(
            file,
            "prompteval-proof {secret} {} {}",
            marks.start_line, marks.end_line
        )
        .map_err(|e| error(format!("cannot write the tests' proof file: {e}")))?;
        Ok(ProofFile { file, secret })
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// What the case's prelude recorded; an error when it never took the
    /// secret (the header is still there): then nothing proves or disproves
    /// the tests, and that is the harness's failure, not the program's.
    pub fn read(&self) -> Result<TestsRun, SandboxError> {
        let mut buf = vec![0u8; SIZE];
        let n = self
            .file
            .read_at(&mut buf, 0)
            .map_err(|e| error(format!("cannot read the tests' proof file: {e}")))?;
        buf.truncate(n);
        // With our secret: a program cannot write it, so it cannot make its
        // own case look unrun (and leave every accuracy) this way.
        if buf.starts_with(format!("prompteval-proof {} ", self.secret).as_bytes()) {
            return Err(error(
                "the tests' prelude never ran in the case, so nothing proves whether the tests \
                 ran; check that the interpreter honours PYTHONPATH and sitecustomize",
            ));
        }
        let record = |at: usize, until: usize| -> String {
            let end = until.min(buf.len());
            if at >= end {
                return String::new();
            }
            let slot = &buf[at..end];
            let line = slot.split(|&b| b == b'\n' || b == 0).next().unwrap_or(&[]);
            String::from_utf8_lossy(line).into_owned()
        };
        let word = |at: usize, until: usize, key: &str| -> Option<String> {
            record(at, until)
                .strip_prefix(key)
                .and_then(|rest| rest.strip_prefix(' '))
                .map(str::to_string)
        };
        Ok(TestsRun {
            completed: word(DONE, STARTED, "done").is_some_and(|s| s == self.secret),
            started: record(STARTED, EXITING) == "started",
            exiting: record(EXITING, TRACED) == "exiting",
            traced: record(TRACED, RAISED) == "traced",
            raised: word(RAISED, SUSPECT, "raised"),
            suspect: word(SUSPECT, SIZE, "suspect")
                .map(|s| s.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
        })
    }
}

/// Writes `prelude` as `<cases>/prelude/sitecustomize.py`; returns that
/// folder, which the fresh paths' interpreters get as `PYTHONPATH`.
pub(super) fn install(cases: &Path, prelude: &str) -> std::io::Result<PathBuf> {
    let dir = cases.join("prelude");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("sitecustomize.py"), prelude)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_keep_the_shown_line_numbers() {
        let code = "def add(a, b):\n    return a + b\n";
        let shown = format!("{code}\n\nassert add(1, 2) == 3\n");
        let marks = ProofMarks::around(&shown, code.len());
        let lines: Vec<&str> = marks.program.lines().collect();
        assert_eq!(lines[marks.start_line - 1], START_MARKER);
        assert_eq!(lines[marks.end_line - 1], END_MARKER);
        // Every other line where the report shows it.
        assert_eq!(lines[4], "assert add(1, 2) == 3");
        assert_eq!(shown.lines().nth(4), Some("assert add(1, 2) == 3"));
        assert_eq!(
            lines[..marks.start_line - 1],
            shown.lines().collect::<Vec<_>>()[..marks.start_line - 1]
        );
    }

    #[test]
    fn records_are_read_from_their_slots_and_done_needs_the_secret() {
        let marks = ProofMarks::around("x = 1\n\n\nassert x == 1\n", "x = 1\n".len());
        let proof = ProofFile::new(&marks).unwrap();
        assert!(
            proof.read().is_err(),
            "the header untouched: the prelude never ran"
        );
        proof.file.set_len(0).unwrap();
        proof.file.write_at(b"started\n", STARTED as u64).unwrap();
        proof
            .file
            .write_at(b"raised AssertionError\n", RAISED as u64)
            .unwrap();
        proof
            .file
            .write_at(b"suspect Always Eq\n", SUSPECT as u64)
            .unwrap();
        proof.file.write_at(b"done 0123\n", DONE as u64).unwrap();
        let run = proof.read().unwrap();
        assert!(!run.completed, "a wrong secret is no proof");
        assert!(run.started && !run.exiting && !run.traced);
        assert_eq!(run.raised.as_deref(), Some("AssertionError"));
        assert_eq!(run.suspect, ["Always", "Eq"]);
        let done = format!("done {}\n", proof.secret);
        proof.file.write_at(done.as_bytes(), DONE as u64).unwrap();
        assert!(proof.read().unwrap().completed);
    }
}
