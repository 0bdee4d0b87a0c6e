//! The live progress line on a real pseudo-terminal, rendered by pyte (a
//! VT100 emulator) as the user's terminal would show it: the status sits on
//! the last row below libtest's lines, never inside one, and leaves nothing
//! behind when the run ends.
//!
//! Without pyte the test is reported ignored with the reason (a failure
//! under CI=true); see support/trials.rs.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;
#[path = "support/trials.rs"]
mod trials;

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use libtest_mimic::Arguments;

use prompts_cli::{Scratch, example_suite, prompts_binary};
use stub_server::{Behaviour, STUB_MODEL, StubServer};

fn pyte() -> Result<(), String> {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import pyte"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("python3 cannot import pyte (the terminal emulator the test renders with); install it: pip install pyte==0.8.2".into())
    }
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let part = pyte();
    let trials = trials::needing_trials![&args, &part;
        the_live_line_stays_below_libtests_lines_and_leaves_nothing_behind,
    ];
    trials::run(&args, trials)
}

const PRINT_ANSWER: &str = "```python\nprint('x')\n```";

fn the_live_line_stays_below_libtests_lines_and_leaves_nothing_behind((): ()) {
    // Slow enough replies that the line is redrawn several times.
    let server = StubServer::start(|req| match req.path.as_str() {
        "/api/chat" => Behaviour::Queued(Duration::from_millis(400), PRINT_ANSWER.into()),
        _ => Behaviour::Default,
    });
    let s = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n",
        example_suite().display()
    ));
    let (rows, cols) = (24, 120);
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/pty_run.py");
    let mut cmd = s.command(
        Path::new("python3"),
        &[("OLLAMA_HOST", &server.url()), ("TERM", "xterm")],
    );
    cmd.arg(driver)
        .arg(rows.to_string())
        .arg(cols.to_string())
        .arg(prompts_binary());
    let out = cmd.output().expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let raw = shown["raw"].as_str().unwrap();
    let lines: Vec<&str> = shown["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(shown["status"], 101, "{}", lines.join("\n"));

    // The region is every row but the last; the status is drawn on the
    // last, more than once; the region is given back.
    assert!(raw.contains(&format!("\x1b[1;{}r", rows - 1)), "{raw:?}");
    let draws = raw
        .matches(&format!("\x1b[{rows};1H\x1b[2Kprogress: "))
        .count();
    assert!(draws >= 2, "{draws} draws: {raw:?}");
    assert!(raw.contains("\x1b[r"), "the region is reset");
    assert_eq!(
        shown["margins"],
        serde_json::Value::Null,
        "no region left set"
    );

    // As the terminal shows it: every case's libtest line whole, none with
    // the status inside, and no status left anywhere.
    let case_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("test prompt"))
        .collect();
    assert_eq!(case_lines.len(), 9, "{}", lines.join("\n"));
    for l in &case_lines {
        assert!(
            l.ends_with(" ok") || l.ends_with(" FAILED"),
            "a case line was cut: {l:?}\n{}",
            lines.join("\n")
        );
    }
    assert!(
        !lines.iter().any(|l| l.contains("progress:")),
        "the status line was left behind:\n{}",
        lines.join("\n")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("test result: FAILED. 0 passed; 9 failed")),
        "{}",
        lines.join("\n")
    );
}
