//! quick_view.html in a real headless Chromium: nothing the model or the
//! suite says may execute. The run goes through the real harness against a
//! stub model whose replies (and a suite whose question) carry script
//! injections; each payload would set the page title to a marker built at run
//! time, so the marker can only appear in the DOM if a payload ran.
//!
//! Without Chromium the test is reported ignored with the reason (a failure
//! under CI=true); see support/trials.rs.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;
#[path = "support/trials.rs"]
mod trials;

use std::path::Path;
use std::process::{Command, ExitCode};

use libtest_mimic::Arguments;

use prompts_cli::Scratch;
use stub_server::{Behaviour, STUB_MODEL, StubServer};

const HOSTILE_REPLY: &str = r#"<img src=x onerror="document.title='XSS'+'FIRED'">
</script><script>document.title='XSS'+'FIRED'</script>
[click me](javascript:document.title='XSS'+'FIRED') <a href="javascript:document.title='XSS'+'FIRED'">link</a>
<iframe src="javascript:parent.document.title='XSS'+'FIRED'"></iframe>
```python
print('</script><script>document.title="XSS"+"FIRED"</script>')
```"#;

const CHROMIUM: [&str; 3] = [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
];

fn chromium() -> Result<&'static str, String> {
    CHROMIUM
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or_else(|| {
            format!(
                "no Chromium at {}; install it: apt-get install chromium",
                CHROMIUM.join(" or ")
            )
        })
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let browser = chromium();
    let trials = trials::needing_trials![&args, &browser;
        hostile_replies_and_questions_render_as_inert_text,
        the_overview_and_the_matrix_show_summary_json,
    ];
    trials::run(&args, trials)
}

fn dump_dom(browser: &str, page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium starts");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn hostile_replies_and_questions_render_as_inert_text(browser: &'static str) {
    let server = StubServer::start(|req| match req.path.as_str() {
        "/api/chat" => Behaviour::Reply(HOSTILE_REPLY.into()),
        _ => Behaviour::Default,
    });
    let s = Scratch::new(&format!("model = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n"));
    let suite = s.write(
        "suite.json",
        r#"{"plain": "Solve: {question}",
            "questions": [{"id": "inject", "question": "Print <b>bold</b> <script>document.title='XSS'+'FIRED'</script>", "answer": "x"}]}"#,
    );
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_SUITE", suite.to_str().unwrap()),
        ],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    // Control: the same payload unescaped does fire in this browser, so the
    // absence of the marker below means escaping worked, not a dead browser.
    let control = s.write(
        "control.html",
        "<html><body><script>document.title='XSS'+'FIRED'</script></body></html>",
    );
    assert!(
        dump_dom(browser, &control).contains("XSSFIRED"),
        "the control payload did not run"
    );

    let page = s.run_dir().join("quick_view.html");
    let dom = dump_dom(browser, &page);

    assert!(!dom.contains("XSSFIRED"), "a payload executed:\n{dom}");
    assert!(
        !dom.contains("<script"),
        "a script element made it into the DOM"
    );
    assert!(!dom.contains("<iframe"), "an iframe made it into the DOM");
    assert!(!dom.contains("<img"), "an img element made it into the DOM");
    // Serialised text escapes `<` but not quotes, so only a real element
    // shows up as `<a ... href="javascript:`.
    let js_link = regex::Regex::new(r#"<a\b[^>]*href="javascript:"#).unwrap();
    assert!(!js_link.is_match(&dom), "a javascript: link became a link");
    // The payloads are there, as text the user can read.
    assert!(
        dom.contains("&lt;script&gt;document.title='XSS'+'FIRED'&lt;/script&gt;"),
        "{dom}"
    );
    assert!(dom.contains("&lt;b&gt;bold&lt;/b&gt;"), "{dom}");
    assert!(dom.contains("plain"), "the prompt's section is missing");
}

/// The recorded replay of benches-data/python-basics.json (4 prompts, 27
/// questions) opened in Chromium: the overview's bars and verdict segments
/// and the matrix equal summary.json and the cases; a screenshot is kept in
/// target/test-output/.
fn the_overview_and_the_matrix_show_summary_json(browser: &'static str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // auto with no Ollama: replays what was recorded (the 8 unrecorded terse
    // cases are not evaluated).
    let s = Scratch::recorded(
        "benches-data/python-basics.json",
        "backend = \"auto\"\n[ollama]\nhost = \"http://127.0.0.1:9\"",
    );
    let run = s.prompts(&[], &[]);
    assert!(run.status.is_some(), "{}", run.both());
    let page = s.run_dir().join("quick_view.html");
    let dom = dump_dom(browser, &page);
    let summary = s.summary();
    for (prompt, r) in summary["prompt_results"].as_object().unwrap() {
        let row = format!(
            "data-prompt=\"{prompt}\" data-accuracy=\"{}\"",
            r["accuracy"]
        );
        assert!(dom.contains(&row), "overview row {row} in the page");
        let mut shown = 0;
        for (verdict, count) in
            std::iter::once(("correct".to_string(), r["correct_answers"].clone())).chain(
                r["error_breakdown"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone())),
            )
        {
            let seg = format!("data-verdict=\"{verdict}\" data-count=\"{count}\"");
            assert!(dom.contains(&seg), "{prompt}: {seg}");
            shown += count.as_u64().unwrap();
        }
        assert_eq!(shown, r["total_questions"].as_u64().unwrap(), "{prompt}");
    }
    // One matrix row per question, disagreements first.
    let rows = dom.matches("data-question=").count();
    assert_eq!(rows, 27, "matrix rows");
    let first = dom.find("data-question=").unwrap();
    assert!(
        dom[first - 40..first].contains("disagree"),
        "disagreements first"
    );
    assert!(
        dom.contains("<details class=\"meta isolation\">"),
        "isolation collapsed"
    );
    let out_dir = root.join("target/test-output");
    std::fs::create_dir_all(&out_dir).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let shot = out_dir.join("quick_view_python_basics.png");
    let status = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1300,1500",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium starts");
    assert!(status.status.success() && shot.is_file(), "screenshot");
}
