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
        the_overview_matrix_and_filters_show_the_run,
        a_thousand_case_report_opens_in_under_two_seconds,
    ];
    trials::run(&args, trials)
}

/// The page's DOM as the browser built it, half a second after its load
/// event (time for an injected handler to fire, were one to run).
fn dump_dom(browser: &str, page: &Path) -> String {
    let wait = "new Promise(r => setTimeout(() => r(document.documentElement.outerHTML), 500))";
    let url = format!("file://{}", page.display());
    let v = in_browser(browser, &url, &[wait.to_string()], None);
    v[0].as_str().unwrap().to_string()
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
    assert_eq!(
        dom.matches("<script").count(),
        1,
        "a script element other than the page's own made it into the DOM"
    );
    assert!(
        dom.contains("1 of 1 cases shown"),
        "the page's own script ran (the CSP lets it, by its hash)"
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

/// Evaluates `steps` (JavaScript expressions) in order in `page` loaded in
/// the real Chromium, driven over the DevTools protocol by
/// support/cdp.py; returns their values. A screenshot is taken at the end
/// when `screenshot` is given.
fn in_browser(
    browser: &str,
    page: &str,
    steps: &[String],
    screenshot: Option<&Path>,
) -> Vec<serde_json::Value> {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/cdp.py");
    let job = serde_json::json!({"url": page, "steps": steps, "screenshot": screenshot});
    let mut child = Command::new("python3")
        .arg(driver)
        .arg(browser)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "cdp.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let values: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    for (step, v) in steps.iter().zip(&values) {
        assert!(v.get("error").is_none(), "{step}: {v}");
    }
    values
}

/// JavaScript that sets the case filters as a user would (each field set,
/// then the input event it would fire) and returns the count the page shows
/// with the visible cases' names.
fn filter(fields: &[(&str, &str)]) -> String {
    let sets: String = fields
        .iter()
        .map(|(name, value)| {
            format!(
                "f.elements[{name:?}].value = {value:?}; f.elements[{name:?}].dispatchEvent(new Event('input', {{bubbles: true}}));"
            )
        })
        .collect();
    format!(
        "(() => {{ const f = document.getElementById('filters'); \
         for (const e of f.elements) if (e.name) e.value = ''; {sets} }})(); {}",
        shown_cases()
    )
}

/// report/cases.csv as (case name, prompt, question id, round, verdict).
fn csv_cases(run_dir: &Path) -> Vec<[String; 5]> {
    let mut reader = csv::Reader::from_path(run_dir.join("report/cases.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (p, q, r, v) = (
        col("prompt"),
        col("question_id"),
        col("round"),
        col("verdict"),
    );
    reader
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            [
                format!("{}::{}::r{}", &rec[p], &rec[q], &rec[r]),
                rec[p].to_string(),
                rec[q].to_string(),
                rec[r].to_string(),
                rec[v].to_string(),
            ]
        })
        .collect()
}

fn names_where(cases: &[[String; 5]], keep: impl Fn(&[String; 5]) -> bool) -> Vec<String> {
    let mut v: Vec<String> = cases
        .iter()
        .filter(|c| keep(c))
        .map(|c| c[0].clone())
        .collect();
    v.sort();
    v
}

fn shown_names(v: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = v["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The recorded replay of benches-data/python-basics.json (4 prompts, 27
/// questions) opened in Chromium: the overview's bars and verdict segments
/// and the matrix equal summary.json; the filters show exactly the cases of
/// report/cases.csv they select; the matrix sorts and a cell opens its
/// case; a screenshot is kept in target/test-output/.
fn the_overview_matrix_and_filters_show_the_run(browser: &'static str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // auto with no Ollama: replays what was recorded (all 108 cases).
    let s = Scratch::recorded(
        "benches-data/python-basics.json",
        "backend = \"auto\"\n[ollama]\nhost = \"http://127.0.0.1:9\"",
    );
    let run = s.prompts(&[], &[]);
    assert!(run.status.is_some(), "{}", run.both());
    let page = s.run_dir().join("quick_view.html");
    let url = format!("file://{}", page.display());
    let summary = s.summary();
    let cases = csv_cases(&s.run_dir());
    let prompts: Vec<&String> = summary["prompt_results"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    let (p0, p1) = (prompts[0].as_str(), prompts[1].as_str());
    let question = cases[0][2].clone();
    let wrong_text = "def ";

    let out_dir = root.join("target/test-output");
    std::fs::create_dir_all(&out_dir).unwrap();
    let shot = out_dir.join("quick_view_python_basics.png");
    let steps = vec![
        "document.documentElement.outerHTML".to_string(),
        // The matrix's rows, in the order shown, with each cell's share.
        "[...document.querySelectorAll('table.matrix tbody tr')].map(r => [r.dataset.question, ...[...r.cells].slice(2).map(c => Number(c.dataset.sort))])".to_string(),
        filter(&[]),
        filter(&[("prompt", p0)]),
        filter(&[("prompt", p1), ("status", "failed")]),
        filter(&[("question", &question)]),
        filter(&[("status", "correct"), ("round", "1")]),
        filter(&[("text", wrong_text)]),
        // Sort the matrix by the first prompt's column, twice (descending,
        // then ascending), reading the column after each click.
        "(() => { const b = document.querySelectorAll('table.matrix th button.sort')[2]; b.click(); \
           const down = [...document.querySelectorAll('table.matrix tbody tr')].map(r => Number(r.cells[2].dataset.sort)); \
           b.click(); \
           const up = [...document.querySelectorAll('table.matrix tbody tr')].map(r => Number(r.cells[2].dataset.sort)); \
           return [down, up]; })()".to_string(),
        // With a filter that hides it, a matrix cell still opens its case.
        format!("{}; (async () => {{ const a = document.querySelector('table.matrix tbody tr td.cell a'); a.click(); \
           await new Promise(r => setTimeout(r, 100)); \
           const c = document.getElementById(decodeURIComponent(location.hash.slice(1))); \
           return [a.getAttribute('href'), c.offsetParent !== null, c.querySelector('details.case-detail').open]; }})()",
           filter(&[("status", "no_such_status")])),
        // Every cell's link leads to a case in the page.
        "[...document.querySelectorAll('table.matrix a')].filter(a => !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)))).map(a => a.getAttribute('href'))".to_string(),
        // The filters are in the address: a reload keeps them.
        format!("{}; location.search", filter(&[("prompt", p1), ("status", "failed")])),
        // Back at the top, unfiltered, for the screenshot.
        "(() => { for (const e of document.getElementById('filters').elements) if (e.name) e.value = ''; \
           document.getElementById('clear-filters').click(); window.scrollTo(0, 0); return true; })()".to_string(),
    ];
    let v = in_browser(browser, &url, &steps, Some(&shot));
    assert!(shot.is_file(), "screenshot");

    // The overview equals summary.json.
    let dom = v[0].as_str().unwrap();
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
    assert!(
        dom.contains("<details class=\"meta isolation\">"),
        "isolation collapsed"
    );

    // The matrix: one row per question; each cell the share of that
    // question's cases passed under that prompt; the widest spread first.
    let matrix = v[1].as_array().unwrap();
    assert_eq!(matrix.len(), 27, "matrix rows");
    let spread = |row: &serde_json::Value| {
        let shares: Vec<f64> = row.as_array().unwrap()[1..]
            .iter()
            .map(|s| s.as_f64().unwrap())
            .filter(|s| *s >= 0.0)
            .collect();
        shares.iter().cloned().fold(0.0, f64::max) - shares.iter().cloned().fold(1.0, f64::min)
    };
    assert!(spread(&matrix[0]) > 0.0, "a disagreement comes first");
    for pair in matrix.windows(2) {
        assert!(spread(&pair[0]) >= spread(&pair[1]), "ordered by spread");
    }
    for row in matrix {
        let q = row[0].as_str().unwrap();
        for (i, prompt) in prompts.iter().enumerate() {
            let of: Vec<&[String; 5]> = cases
                .iter()
                .filter(|c| &c[1] == *prompt && c[2] == q && c[4] != "api_error")
                .collect();
            let want = if of.is_empty() {
                -1.0
            } else {
                of.iter().filter(|c| c[4] == "correct").count() as f64 / of.len() as f64
            };
            assert!(
                (row[i + 1].as_f64().unwrap() - want).abs() < 1e-9,
                "{q} under {prompt}: {row}"
            );
        }
    }

    // The filters show exactly the cases they select.
    let all = names_where(&cases, |_| true);
    assert_eq!(shown_names(&v[2]), all, "no filter: every case");
    assert_eq!(
        v[2]["said"].as_str().unwrap(),
        format!("{} of {} cases shown", all.len(), all.len())
    );
    assert_eq!(shown_names(&v[3]), names_where(&cases, |c| c[1] == p0));
    let failed = names_where(&cases, |c| c[1] == p1 && c[4] != "correct");
    assert!(!failed.is_empty());
    assert_eq!(shown_names(&v[4]), failed, "{p1} not correct");
    assert_eq!(
        v[4]["said"].as_str().unwrap(),
        format!("{} of {} cases shown", failed.len(), all.len())
    );
    assert_eq!(
        shown_names(&v[5]),
        names_where(&cases, |c| c[2] == question)
    );
    assert_eq!(
        shown_names(&v[6]),
        names_where(&cases, |c| c[4] == "correct" && c[3] == "1")
    );
    let with_text = shown_names(&v[7]);
    assert!(
        !with_text.is_empty() && with_text.len() < all.len(),
        "{with_text:?}"
    );

    // Sorting: descending, then ascending.
    let sorted = v[8].as_array().unwrap();
    let column = |i: usize| -> Vec<f64> {
        sorted[i]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert!(
        column(0).windows(2).all(|w| w[0] >= w[1]),
        "{:?}",
        column(0)
    );
    assert!(
        column(1).windows(2).all(|w| w[0] <= w[1]),
        "{:?}",
        column(1)
    );

    // A cell opened its case although the filter had hidden every case.
    let opened = v[9].as_array().unwrap();
    assert!(
        opened[0].as_str().unwrap().starts_with("#case-"),
        "{opened:?}"
    );
    assert_eq!(opened[1], true, "the case is shown");
    assert_eq!(opened[2], true, "its details are open");

    assert_eq!(v[10], serde_json::json!([]), "links to no case");
    assert_eq!(
        v[11].as_str().unwrap(),
        format!("?prompt={p1}&status=failed")
    );
    let again = in_browser(
        browser,
        &format!("{url}?prompt={p1}&status=failed"),
        &[shown_cases()],
        None,
    );
    assert_eq!(
        shown_names(&again[0]),
        failed,
        "the address restores the filters"
    );
}

/// JavaScript for the count the page shows and the visible cases' names.
fn shown_cases() -> String {
    "(() => { const shown = [...document.querySelectorAll('tbody.case')].filter(c => c.offsetParent !== null); \
       return { said: document.getElementById('shown').textContent, \
                names: shown.map(c => c.querySelector('code.case-name').textContent) }; })()"
        .to_string()
}

/// A 1,000-case run (4 prompts x 250 questions, the learning history on) of
/// the real harness against a stub model: its page loads in Chromium in
/// under 2 s (the navigation's load event, as the browser timed it) and its
/// filters answer on it.
fn a_thousand_case_report_opens_in_under_two_seconds(browser: &'static str) {
    let server = StubServer::start(|req| {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let q = req.current_question();
        let n: u64 = q
            .rsplit("number ")
            .next()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        let prompt = req.last_user_message().unwrap_or("").contains("Variant 1");
        // Variant 1 gets every seventh question wrong: the prompts disagree.
        let printed = if prompt && n % 7 == 0 { n + 1 } else { n };
        Behaviour::Reply(format!(
            "Here:\n```python\ndef answer():\n    # the number asked for\n    return {printed}\n\nprint(answer())\n```"
        ))
    });
    let mut suite = serde_json::Map::new();
    for p in 0..4 {
        suite.insert(format!("p{p}"), format!("Variant {p}: {{question}}").into());
    }
    let questions: Vec<serde_json::Value> = (0..250)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "question": format!("Print the number {i}"), "answer": i.to_string()}))
        .collect();
    suite.insert("questions".into(), questions.into());
    let s = Scratch::new(&format!("model = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n"));
    let path = s.write(
        "thousand.json",
        &serde_json::Value::Object(suite).to_string(),
    );
    let run = s.prompts(
        &[],
        &[
            ("OLLAMA_HOST", &server.url()),
            ("PROMPTEVAL_SUITE", path.to_str().unwrap()),
        ],
    );
    assert!(run.status.is_some(), "{}", run.both());
    let cases = csv_cases(&s.run_dir());
    assert_eq!(cases.len(), 1000);
    let page = s.run_dir().join("quick_view.html");
    let size = std::fs::metadata(&page).unwrap().len();
    let url = format!("file://{}", page.display());
    let v = in_browser(
        browser,
        &url,
        &[
            "performance.getEntriesByType('navigation')[0].loadEventEnd".to_string(),
            filter(&[("prompt", "p1"), ("status", "wrong_answer")]),
            filter(&[("text", "return 249")]),
        ],
        None,
    );
    let load_ms = v[0].as_f64().unwrap();
    eprintln!(
        "1,000-case quick_view.html ({:.1} MB): load event at {load_ms:.0} ms",
        size as f64 / 1e6
    );
    assert!(load_ms < 2000.0, "the page took {load_ms:.0} ms to load");
    assert_eq!(
        shown_names(&v[1]),
        names_where(&cases, |c| c[1] == "p1" && c[4] == "wrong_answer")
    );
    assert_eq!(shown_names(&v[1]).len(), 36, "250 / 7, rounded up");
    // The text is searched in everything a case shows (its prompt's
    // history too): "return 249" is only in the last question's code.
    assert_eq!(
        shown_names(&v[2]),
        [
            "p0::q249::r1",
            "p1::q249::r1",
            "p2::q249::r1",
            "p3::q249::r1"
        ]
    );
}
