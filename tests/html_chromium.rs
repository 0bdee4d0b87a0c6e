//! quick_view.html in a real headless Chromium: nothing the model or the
//! suite says may execute. The run goes through the real harness against a
//! stub model whose replies (and a suite whose question) carry script
//! injections; each payload would set the page title to a marker built at run
//! time, so the marker can only appear in the DOM if a payload ran.
//!
//! The quick view stays small at any size: its cases are on pages beside it
//! (report/cases/), which it links per prompt and verdict; a 20,000-case run
//! is opened, and a case found through the filters and a page's link.
//!
//! Without Chromium the tests are reported ignored with the reason (a
//! failure under CI=true); see support/trials.rs. The check that the zh
//! labels are drawn as glyphs also needs a CJK font (fonts-noto-cjk).

#[path = "support/case_pages.rs"]
mod case_pages;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;
#[path = "support/trials.rs"]
mod trials;

use std::path::{Path, PathBuf};
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
    let mut trials = trials::needing_trials![&args, &browser;
        hostile_replies_and_questions_render_as_inert_text,
        the_overview_matrix_and_filters_show_the_run,
        a_thousand_case_report_opens_in_under_two_seconds,
        a_twenty_thousand_case_report_stays_small_and_reaches_every_case,
        the_theme_charts_draw_the_summarys_shares,
    ];
    let with_cjk = browser.clone().and_then(|b| cjk_font().map(|()| b));
    trials.extend(trials::needing_trials![&args, &with_cjk;
        zh_labels_are_drawn_as_glyphs_not_boxes,
    ]);
    trials::run(&args, trials)
}

/// Whether a CJK font is installed: without one Chromium draws the zh
/// labels as boxes.
fn cjk_font() -> Result<(), String> {
    let absent =
        "no CJK font (fc-list lists no Noto Sans CJK); install it: apt-get install fonts-noto-cjk";
    let listed = Command::new("fc-list")
        .output()
        .map_err(|_| absent.to_string())?;
    let fonts = String::from_utf8_lossy(&listed.stdout).to_lowercase();
    match fonts.contains("noto sans cjk") {
        true => Ok(()),
        false => Err(absent.to_string()),
    }
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

    // The quick view, and the case's page it links to.
    let (case_page, _) = case_pages::page_of(&s.run_dir(), "plain::inject::r1");
    let quick_view = dump_dom(browser, &s.run_dir().join("quick_view.html"));
    assert!(
        quick_view.contains("plain"),
        "the prompt's section is missing"
    );
    let dom = dump_dom(browser, &case_page);
    // Serialised text escapes `<` but not quotes, so only a real element
    // shows up as `<a ... href="javascript:`.
    let js_link = regex::Regex::new(r#"<a\b[^>]*href="javascript:"#).unwrap();
    for dom in [&quick_view, &dom] {
        assert!(!dom.contains("XSSFIRED"), "a payload executed:\n{dom}");
        assert_eq!(
            dom.matches("<script").count(),
            1,
            "a script element other than the page's own made it into the DOM"
        );
        assert!(
            dom.contains("顯示 1 / 1 個案例"),
            "the page's own script ran (the CSP lets it, by its hash)"
        );
        assert!(!dom.contains("<iframe"), "an iframe made it into the DOM");
        assert!(!dom.contains("<img"), "an img element made it into the DOM");
        assert!(!js_link.is_match(dom), "a javascript: link became a link");
    }
    // The payloads are there, as text the user can read.
    assert!(
        dom.contains("&lt;script&gt;document.title='XSS'+'FIRED'&lt;/script&gt;"),
        "{dom}"
    );
    assert!(dom.contains("&lt;b&gt;bold&lt;/b&gt;"), "{dom}");
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

/// JavaScript that sets a page's filters as a user would: every field
/// cleared, then each of `fields` set with the input event it would fire.
fn set_filters(fields: &[(&str, &str)]) -> String {
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
         for (const e of f.elements) if (e.name) e.value = ''; {sets} }})();"
    )
}

/// On a case page: sets its filters, then the count it shows and the
/// visible cases' names.
fn filter(fields: &[(&str, &str)]) -> String {
    format!("{} {}", set_filters(fields), shown_cases())
}

/// On the quick view: sets its filters, then the count it shows and the
/// links of the case pages it keeps in view.
fn filter_pages(fields: &[(&str, &str)]) -> String {
    format!(
        "{} (() => {{ const rows = [...document.querySelectorAll('#case-pages tbody.verdicts tr')].filter(r => r.offsetParent !== null); \
           return {{ said: document.getElementById('shown').textContent, \
                    hrefs: rows.flatMap(r => [...r.querySelectorAll('a')].map(a => a.href)) }}; }})()",
        set_filters(fields)
    )
}

/// A `file://` URL (as `a.href` gives it) as a path and its decoded
/// fragment.
fn file_of(url: &str) -> (PathBuf, String) {
    let rest = url.strip_prefix("file://").expect("a file URL");
    let (path, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let path = path.split('?').next().unwrap();
    (
        PathBuf::from(case_pages::decoded(path)),
        case_pages::decoded(fragment),
    )
}

/// The cases on the pages behind the links a filter kept in view, sorted.
fn cases_behind(shown: &serde_json::Value) -> Vec<String> {
    let name = regex::Regex::new(r#"<code class="case-name">([^<]*)</code>"#).unwrap();
    let mut names: Vec<String> = shown["hrefs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|href| {
            let page = std::fs::read_to_string(file_of(href.as_str().unwrap()).0).unwrap();
            name.captures_iter(&page)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names
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

/// JavaScript for the count a case page shows and its visible cases' names.
fn shown_cases() -> String {
    "(() => { const shown = [...document.querySelectorAll('tbody.case')].filter(c => c.offsetParent !== null); \
       return { said: document.getElementById('shown').textContent, \
                names: shown.map(c => c.querySelector('code.case-name').textContent) }; })()"
        .to_string()
}

/// The recorded replay of benches-data/python-basics.json (4 prompts, 27
/// questions) opened in Chromium: the overview's bars and verdict segments
/// and the matrix equal summary.json; the filters lead to exactly the cases
/// of report/cases.csv they select, and a page's own filters show exactly
/// its cases they select; the matrix sorts and a cell opens its case; a
/// screenshot is kept in target/test-output/.
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

    let out_dir = root.join("target/test-output");
    std::fs::create_dir_all(&out_dir).unwrap();
    let shot = out_dir.join("quick_view_python_basics.png");
    let steps = vec![
        "document.documentElement.outerHTML".to_string(),
        // The matrix's rows, in the order shown, with each cell's share.
        "[...document.querySelectorAll('table.matrix tbody tr')].map(r => [r.dataset.question, ...[...r.cells].slice(2).map(c => Number(c.dataset.sort))])".to_string(),
        filter_pages(&[]),
        filter_pages(&[("prompt", p0)]),
        filter_pages(&[("prompt", p1), ("status", "failed")]),
        filter_pages(&[("status", "correct")]),
        // Sort the matrix by the first prompt's column, twice (descending,
        // then ascending), reading the column after each click.
        "(() => { const b = document.querySelectorAll('table.matrix th button.sort')[2]; b.click(); \
           const down = [...document.querySelectorAll('table.matrix tbody tr')].map(r => Number(r.cells[2].dataset.sort)); \
           b.click(); \
           const up = [...document.querySelectorAll('table.matrix tbody tr')].map(r => Number(r.cells[2].dataset.sort)); \
           return [down, up]; })()".to_string(),
        // Every cell's link, as the browser resolves it.
        "[...document.querySelectorAll('table.matrix a')].map(a => a.href)".to_string(),
        // The filters are in the address: a reload keeps them.
        format!("{} location.search", set_filters(&[("prompt", p1), ("status", "failed")])),
        // Back at the top, unfiltered, for the screenshot.
        "(() => { document.getElementById('clear-filters').click(); window.scrollTo(0, 0); return true; })()".to_string(),
    ];
    let v = in_browser(browser, &url, &steps, Some(&shot));
    assert!(shot.is_file(), "screenshot");
    overview_equals_the_summary(v[0].as_str().unwrap(), &summary);
    matrix_equals_the_cases(&v[1], &prompts, &cases);
    matrix_sorts(&v[6]);

    filters_lead_to_their_cases(browser, &url, &v, &cases, (p0, p1));
    a_page_filters_its_cases(browser, &v[3], &cases, p0);
    every_cell_opens_its_case(browser, &v[7]);
}

/// The quick view's filters (steps 2 to 5 and 8 of the run above) keep in
/// view exactly the links to the pages of the cases they select.
fn filters_lead_to_their_cases(
    browser: &str,
    url: &str,
    v: &[serde_json::Value],
    cases: &[[String; 5]],
    (p0, p1): (&str, &str),
) {
    // The filters lead to exactly the cases they select.
    let all = names_where(cases, |_| true);
    assert_eq!(cases_behind(&v[2]), all, "no filter: every case");
    assert_eq!(
        v[2]["said"].as_str().unwrap(),
        format!("顯示 {} / {} 個案例", all.len(), all.len())
    );
    assert_eq!(cases_behind(&v[3]), names_where(cases, |c| c[1] == p0));
    let failed = names_where(cases, |c| c[1] == p1 && c[4] != "correct");
    assert!(!failed.is_empty());
    assert_eq!(cases_behind(&v[4]), failed, "{p1} not correct");
    assert_eq!(
        v[4]["said"].as_str().unwrap(),
        format!("顯示 {} / {} 個案例", failed.len(), all.len())
    );
    let correct = names_where(cases, |c| c[4] == "correct");
    assert_eq!(cases_behind(&v[5]), correct);
    assert_eq!(
        v[8].as_str().unwrap(),
        format!("?prompt={p1}&status=failed")
    );
    let again = in_browser(
        browser,
        &format!("{url}?prompt={p1}&status=failed"),
        &[filter_pages_as_shown()],
        None,
    );
    assert_eq!(
        cases_behind(&again[0]),
        failed,
        "the address restores the filters"
    );
}

/// The quick view's filters as they are, without setting any.
fn filter_pages_as_shown() -> String {
    filter_pages(&[]).replace("for (const e of f.elements) if (e.name) e.value = '';", "")
}

/// The overview's bars and verdict segments equal summary.json.
fn overview_equals_the_summary(dom: &str, summary: &serde_json::Value) {
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
}

/// The matrix: one row per question; each cell the share of that
/// question's cases passed under that prompt; the widest spread first.
fn matrix_equals_the_cases(matrix: &serde_json::Value, prompts: &[&String], cases: &[[String; 5]]) {
    let matrix = matrix.as_array().unwrap();
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
}

/// Sorting: descending, then ascending.
fn matrix_sorts(sorted: &serde_json::Value) {
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
}

/// A page of `prompt`'s correct cases (a link `shown` kept in view): its
/// own filters show exactly its cases they select.
fn a_page_filters_its_cases(
    browser: &str,
    shown: &serde_json::Value,
    cases: &[[String; 5]],
    prompt: &str,
) {
    let href = shown["hrefs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .find(|h| h.contains("/correct-1.html"))
        .expect("a page of correct cases");
    let on_page = names_where(cases, |c| c[1] == prompt && c[4] == "correct");
    let (question, name) = {
        let c = cases.iter().find(|c| c[0] == on_page[0]).unwrap();
        (c[2].clone(), c[0].clone())
    };
    let v = in_browser(
        browser,
        href,
        &[
            filter(&[]),
            filter(&[("question", &question)]),
            filter(&[("round", "1")]),
            filter(&[("text", &name)]),
        ],
        None,
    );
    assert_eq!(shown_names(&v[0]), on_page, "no filter: the page's cases");
    assert_eq!(
        v[0]["said"].as_str().unwrap(),
        format!("顯示 {} / {} 個案例", on_page.len(), on_page.len())
    );
    assert_eq!(
        shown_names(&v[1]),
        names_where(cases, |c| c[1] == prompt
            && c[4] == "correct"
            && c[2] == question)
    );
    assert_eq!(shown_names(&v[2]), on_page, "one round");
    assert_eq!(shown_names(&v[3]), [name], "the text is searched");
}

/// Every matrix cell's link leads to its case's page; opened there with a
/// filter that hides every case, the case is still shown and unfolded.
fn every_cell_opens_its_case(browser: &str, links: &serde_json::Value) {
    let links = links.as_array().unwrap();
    assert!(!links.is_empty());
    for href in links {
        let (page, id) = file_of(href.as_str().unwrap());
        let html = std::fs::read_to_string(&page).unwrap_or_else(|_| panic!("{href}"));
        assert!(id.starts_with("case-"), "{href}");
        assert!(html.contains(&format!("id=\"{id}\"")), "{href} on its page");
    }
    let first = links[0].as_str().unwrap();
    let (path, fragment) = first.split_once('#').unwrap();
    let opened = in_browser(
        browser,
        &format!("{path}?text=no-such-text#{fragment}"),
        &["(() => { const c = document.getElementById(decodeURIComponent(location.hash.slice(1))); \
             return [c.offsetParent !== null, c.querySelector('details.case-detail').open]; })()"
            .to_string()],
        None,
    );
    assert_eq!(
        opened[0],
        serde_json::json!([true, true]),
        "shown and unfolded"
    );
}

/// A run of the real harness against a stub model that answers "Print the
/// number N" with N, except that prompt p1 gets every seventh wrong:
/// `prompts` x `questions` x `rounds` cases, the learning history as
/// given. Its scratch folder.
fn numbers_run(prompts: usize, questions: usize, rounds: u32, history: bool) -> Scratch {
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
    suite.insert(
        "settings".into(),
        serde_json::json!({"history": history, "rounds": rounds}),
    );
    for p in 0..prompts {
        suite.insert(format!("p{p}"), format!("Variant {p}: {{question}}").into());
    }
    let questions: Vec<serde_json::Value> = (0..questions)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "question": format!("Print the number {i}"), "answer": i.to_string()}))
        .collect();
    suite.insert("questions".into(), questions.into());
    let s = Scratch::new(&format!("model = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n"));
    let path = s.write(
        "numbers.json",
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
    s
}

/// A 1,000-case run (4 prompts x 250 questions, the learning history on) of
/// the real harness against a stub model: its page loads in Chromium in
/// under 2 s (the navigation's load event, as the browser timed it) and its
/// filters answer on it.
fn a_thousand_case_report_opens_in_under_two_seconds(browser: &'static str) {
    let s = numbers_run(4, 250, 1, true);
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
            filter_pages(&[("prompt", "p1"), ("status", "wrong_answer")]),
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
        cases_behind(&v[1]),
        names_where(&cases, |c| c[1] == "p1" && c[4] == "wrong_answer")
    );
    assert_eq!(cases_behind(&v[1]).len(), 36, "250 / 7, rounded up");
    // The text is searched in everything a case shows (its prompt's
    // history too): "return 249" is only in the last question's code.
    let (last, _) = case_pages::page_of(&s.run_dir(), "p0::q249::r1");
    let on_page = in_browser(
        browser,
        &format!("file://{}?text=return%20249", last.display()),
        &[shown_cases()],
        None,
    );
    assert_eq!(shown_names(&on_page[0]), ["p0::q249::r1"]);
}

/// A 20,000-case run (4 prompts x 2,500 questions x 2 rounds): the quick
/// view stays under 3 MB and each page of cases bounded, and a case is
/// found as a reader would, through the filters and a page's link, with
/// its details. The quick view's first draw is printed, not asserted.
fn a_twenty_thousand_case_report_stays_small_and_reaches_every_case(browser: &'static str) {
    let s = numbers_run(4, 2500, 2, false);
    let run_dir = s.run_dir();
    assert_eq!(csv_cases(&run_dir).len(), 20_000);
    let quick_view = run_dir.join("quick_view.html");
    let size = std::fs::metadata(&quick_view).unwrap().len();
    assert!(size < 3_000_000, "quick_view.html is {size} bytes");
    let pages = case_pages::linked_pages(&run_dir);
    let largest = pages
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .max()
        .unwrap();
    assert!(largest < 2_100_000, "a page of {largest} bytes");
    let on_pages: usize = pages
        .iter()
        .map(|p| {
            let n = std::fs::read_to_string(p)
                .unwrap()
                .matches("<tbody class=\"case ")
                .count();
            assert!(n <= 200, "{}: {n} cases", p.display());
            n
        })
        .sum();
    assert_eq!(
        on_pages, 20_000,
        "every case on a page the quick view links"
    );

    let url = format!("file://{}", quick_view.display());
    let v = in_browser(
        browser,
        &url,
        &[
            // Headless Chromium records the first paint after the load
            // event: waited for, up to 10 s (then null).
            "new Promise(r => { new PerformanceObserver(l => { const e = l.getEntries().find(e => e.name === 'first-contentful-paint'); if (e) r(e.startTime); }).observe({type: 'paint', buffered: true}); setTimeout(() => r(null), 10000); })".to_string(),
            "performance.getEntriesByType('navigation')[0].loadEventEnd".to_string(),
            filter_pages(&[("prompt", "p1"), ("status", "wrong_answer")]),
        ],
        None,
    );
    eprintln!(
        "20,000-case quick_view.html ({size} bytes; {} pages of cases, the largest {largest} bytes): first draw at {} ms, load event at {:.0} ms",
        pages.len(),
        v[0].as_f64()
            .map_or("(not reported)".into(), |ms| format!("{ms:.0}")),
        v[1].as_f64().unwrap()
    );
    // p1 gets every seventh question wrong: q2499 in round 2 among them.
    a_case_is_found_through_the_filters(browser, &v[2], "p1::q2499::r2");
}

/// Case `name` (a wrong answer of question 2499, printed 2500) is on a page
/// behind one of the links the filters kept in view (`shown`); opened
/// from that link, the page shows it by its full name with its details.
fn a_case_is_found_through_the_filters(browser: &str, shown: &serde_json::Value, name: &str) {
    let href = shown["hrefs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .find(|h| {
            let page = std::fs::read_to_string(file_of(h).0).unwrap();
            page.contains(&format!("<code class=\"case-name\">{name}</code>"))
        })
        .expect("a page the filter keeps in view holds the case");
    let at = format!("{href}#case-{}", name.replace(':', "%3A"));
    let dom = in_browser(
        browser,
        &at,
        &[
            "new Promise(r => setTimeout(() => r(document.documentElement.outerHTML), 200))"
                .to_string(),
            "document.getElementById(decodeURIComponent(location.hash.slice(1))).querySelector('details.case-detail').open".to_string(),
        ],
        None,
    );
    let html = dom[0].as_str().unwrap();
    let case = &html[html.find(&format!("id=\"case-{name}\"")).expect("the case")..];
    // Up to the next case (its own nested table has a tbody of its own).
    let case = &case[..case[1..]
        .find("<tbody class=\"case ")
        .map_or(case.len(), |i| i + 1)];
    assert!(case.contains(&format!("<code class=\"case-name\">{name}</code>")));
    assert!(case.contains("❌ wrong_answer"), "its verdict");
    assert!(case.contains("Print the number 2499"), "its question");
    assert!(case.contains(">2500"), "its code's answer");
    assert_eq!(dom[1], true, "its details unfolded");
}

/// The zh labels (the default language) in a real Chromium are drawn as
/// glyphs, not as the boxes of a missing font: each CJK character of the
/// quick view and of a case page is drawn on a canvas in the page's own
/// font and compared with the drawing of an unassigned code point (a box).
/// A screenshot is kept in target/test-output/.
fn zh_labels_are_drawn_as_glyphs_not_boxes(browser: &'static str) {
    let s = numbers_run(2, 1, 1, false);
    let run_dir = s.run_dir();
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-output/quick_view_zh.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let boxes = "(() => { const el = document.querySelector('h1'); const st = getComputedStyle(el); \
        const font = st.fontWeight + ' ' + st.fontSize + ' ' + st.fontFamily; \
        const draw = t => { const c = document.createElement('canvas'); c.width = 96; c.height = 96; \
          const g = c.getContext('2d'); g.font = font; g.textBaseline = 'top'; g.fillText(t, 8, 8); return c.toDataURL(); }; \
        const box = draw('\\u0378'); \
        const chars = [...new Set([...document.body.innerText].filter(ch => /\\p{Script=Han}/u.test(ch)))]; \
        return { chars: chars.join(''), boxes: chars.filter(ch => draw(ch) === box).join('') }; })()";
    let (case_page, _) = case_pages::page_of(&run_dir, "p0::q0::r1");
    for (page, screenshot) in [
        (run_dir.join("quick_view.html"), Some(shot.as_path())),
        (case_page, None),
    ] {
        let url = format!("file://{}", page.display());
        let v = in_browser(browser, &url, &[boxes.to_string()], screenshot);
        let chars = v[0]["chars"].as_str().unwrap();
        assert!(
            chars.chars().count() > 5,
            "{}: zh labels {chars}",
            page.display()
        );
        assert_eq!(
            v[0]["boxes"].as_str().unwrap(),
            "",
            "{}: drawn as boxes, of {chars}",
            page.display()
        );
    }
}

/// The committed labeled expansion replayed: each radar of the quick view
/// (the paper's Figure 5) draws, as the browser lays it out, one line per
/// detail level whose distance from the centre on each axis is the
/// share summary.json gives that level and theme.
fn the_theme_charts_draw_the_summarys_shares(browser: &'static str) {
    let s = Scratch::recorded(
        "benches-data/humaneval-po8-variants.json",
        "backend = \"replay\"\n[history]\nenabled = false",
    );
    // The p_top cases alone (8, two of them failing): the shares count the
    // labeled descriptions of the problems asked, and a light run keeps
    // the timed trials beside this one on a quiet machine.
    let run = s.prompts(&["p_top"], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    assert_eq!(summary["finished_cases"], 8, "{summary}");
    let t = &summary["themes"]["appendix_c"];
    let read = "new Promise(r => setTimeout(() => r(JSON.stringify([...document.querySelectorAll('figure.radar')].map(f => { \
        const svg = f.querySelector('svg'); \
        return { strategy: f.dataset.strategy, size: svg.viewBox.baseVal.width, \
          drawn: svg.getBoundingClientRect().width, \
          axes: [...f.querySelectorAll('text[data-theme]')].map(a => a.dataset.theme), \
          lines: [...f.querySelectorAll('polygon.level')].map(p => ({ level: p.dataset.level, \
            points: [...p.points].map(q => [q.x, q.y]), drawn: p.getBoundingClientRect().width })) }; }))), 300))";
    let v = in_browser(
        browser,
        &format!("file://{}", s.run_dir().join("quick_view.html").display()),
        &[read.to_string()],
        None,
    );
    let charts: serde_json::Value = serde_json::from_str(v[0].as_str().unwrap()).unwrap();
    let charts = charts.as_array().unwrap();
    let strategies: Vec<&str> = charts
        .iter()
        .map(|c| c["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(strategies, ["summary", "paragraph", "masking"]);
    let top: Vec<&str> = t["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for chart in charts {
        assert!(chart["drawn"].as_f64().unwrap() > 100.0, "{chart}");
        let axes: Vec<&str> = chart["axes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(axes, top);
        let centre = chart["size"].as_f64().unwrap() / 2.0;
        let lines = chart["lines"].as_array().unwrap();
        assert_eq!(lines.last().unwrap()["level"], "p_top");
        let strategy = chart["strategy"].as_str().unwrap();
        let levels = t["shares"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|l| l.starts_with(&format!("{strategy}_")))
            .count();
        assert_eq!(
            lines.len(),
            levels + 1,
            "{strategy}: a line per level and p_top"
        );
        for line in lines {
            let level = line["level"].as_str().unwrap();
            for (axis, point) in top.iter().zip(line["points"].as_array().unwrap()) {
                let (x, y) = (
                    point[0].as_f64().unwrap() - centre,
                    point[1].as_f64().unwrap() - centre,
                );
                let drawn = (x * x + y * y).sqrt() / 120.0;
                let share = t["shares"][level][*axis].as_f64().unwrap();
                assert!(
                    (drawn - share).abs() < 0.01,
                    "{strategy} {level} {axis}: drawn at {drawn}, summary.json {share}"
                );
            }
        }
    }
}
