//! The report as its files: what `prompteval::publish::write_all` writes
//! from records (the spec's three questions under three prompts, from
//! `prompteval::results::fixtures`), read back as a person or a tool reads
//! them: summary.json, detailed_report.json, the CSVs, each case's `.py`
//! or `.cpp` file, the terminal table, and the pages (the quick view, its
//! pages of cases and of the matrix), followed link by link.

#[path = "support/case_pages.rs"]
mod case_pages;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use prompteval::case::CaseRecord;
use prompteval::case::Verdict::*;
use prompteval::config::Language;
use prompteval::publish::write_all;
use prompteval::report::{Labels, RunInfo, RunSummary, terminal_table};
use prompteval::results::fixtures::{HOSTILE, info, numbered, record, three_by_three};
use prompteval::results::{BestPrompt, PromptResult, RoundStats, Summary};
use prompteval::suite::CodeLanguage;
use unicode_width::UnicodeWidthStr;

/// Writes the report of `records` into a new folder; the folder.
fn report(info: &RunInfo, records: &[CaseRecord]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write_all(dir.path(), info, records).expect("written");
    dir
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// --- summary.json, detailed_report.json, the CSVs ---------------------------

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).expect("csv opens");
    let header = reader
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("row").iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn write_all_writes_the_spec_layout_beside_the_journal() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("journal.jsonl"), "{}\n").expect("journal");
    let (summary, written) = write_all(dir.path(), &info(1), &three_by_three()).expect("written");
    if let Ok(keep) = std::env::var("PROMPTEVAL_KEEP_REPORT") {
        // A sample report to look at: its folder, and its table printed.
        let _ = std::fs::remove_dir_all(&keep);
        let _ = std::process::Command::new("cp")
            .arg("-r")
            .arg(dir.path())
            .arg(&keep)
            .status();
        let labels = Labels::of(info(1).language);
        println!("{}", terminal_table(&RunSummary::OneModel(summary), labels));
    }
    for rel in [
        "summary.json",
        "quick_view.html",
        "report/detailed_report.json",
        "report/summary.csv",
        "report/cases.csv",
        "prompt1/question_1.py",
        "prompt3/question_3.py",
    ] {
        assert!(dir.path().join(rel).is_file(), "{rel} missing");
    }
    assert_eq!(written.case_files, 9);
    assert_eq!(written.summary_json, dir.path().join("summary.json"));
    let leftovers = std::fs::read_dir(dir.path().join("report"))
        .expect("report dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"));
    assert_eq!(leftovers.count(), 0, "temp files left behind");
    assert_eq!(
        read(dir.path(), "journal.jsonl"),
        "{}\n",
        "the journal is left alone"
    );
}

#[test]
fn summary_json_has_the_spec_fields_and_values() {
    let dir = report(&info(1), &three_by_three());
    let json: serde_json::Value =
        serde_json::from_str(&read(dir.path(), "summary.json")).expect("valid json");
    let keys: Vec<&str> = json
        .as_object()
        .expect("object")
        .keys()
        .map(|k| k.as_str())
        .collect();
    let spec_keys = [
        "test_id",
        "timestamp",
        "total_execution_time",
        "prompt_count",
        "best_prompt",
        "prompt_results",
    ];
    assert_eq!(&keys[..6], spec_keys);
    assert_eq!(json["test_id"], "test_20250814_012345");
    assert_eq!(json["total_execution_time"], 45.67);
    assert_eq!(json["best_prompt"]["name"], "prompt2");
    assert_eq!(json["best_prompt"]["accuracy"], 100.0);
    assert_eq!(
        json["best_prompt"]["versus_runner_up"]["runner_up"],
        "prompt1"
    );
    assert_eq!(
        json["prompt_results"]["prompt1"],
        serde_json::json!({
            "accuracy": 66.7,
            "accuracy_interval": [20.8, 93.9],
            "pass_at_k": {"pass@1": 0.6667},
            // Three questions: the bootstrap can only say 0 to 1.
            "pass_at_k_interval": {"pass@1": [0.0, 1.0]},
            "correct_answers": 2,
            "total_questions": 3,
            "avg_execution_time": 0.03,
            "error_breakdown": {"wrong_answer": 1},
            "not_evaluated": 0,
            "unstable_questions": [],
            "tokens": {"prompt": 0, "completion": 0, "reasoning": 0},
            "truncated_replies": 0,
            "suspect_cases": 0,
            "truncated_prompts": 0
        })
    );
    assert_eq!(json["complete"], true);
    assert_eq!(json["isolation"]["network"], "none (user+net namespace)");
}

#[test]
fn detailed_report_groups_by_prompt_and_orders_by_round_then_question() {
    let records = vec![
        record("prompt2", 2, 2, Correct),
        record("prompt2", 1, 2, Correct),
        record("prompt2", 2, 1, WrongAnswer),
        record("prompt1", 1, 1, Correct),
    ];
    let dir = report(&info(2), &records);
    let text = read(dir.path(), "report/detailed_report.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid json");
    assert_eq!(json["run"]["model"], "gpt-oss:20b");
    let prompts = json["prompts"].as_array().expect("prompts");
    let names: Vec<&str> = prompts.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["prompt1", "prompt2"]);
    let order: Vec<(u64, u64)> = prompts[1]["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| {
            Some((
                c["case"]["round"].as_u64()?,
                c["case"]["question"].as_u64()?,
            ))
        })
        .collect();
    assert_eq!(order, [(1, 2), (2, 1), (2, 2)]);
    assert_eq!(prompts[1]["cases"][0]["verdict"], "wrong_answer");
    assert!(prompts[1]["cases"][0]["execution"]["stdout"].is_string());
}

#[test]
fn summary_csv_has_one_row_per_prompt_with_verdict_counts() {
    let dir = report(&info(1), &three_by_three());
    let (header, rows) = read_csv(&dir.path().join("report/summary.csv"));
    assert_eq!(
        header.join(","),
        "prompt,accuracy,correct,total,avg_execution_time,\
         wrong_answer,syntax_error,runtime_error,timeout,api_error"
    );
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        ["prompt1", "66.7", "2", "3", "0.03", "1", "0", "0", "0", "0"]
    );
    // prompt3's api_error never ran a program: its time is the mean of
    // the two programs that ran (0.02 and 0.04 s), not of all three.
    assert_eq!(
        rows[2],
        ["prompt3", "33.3", "1", "3", "0.03", "0", "1", "0", "0", "1"]
    );
}

#[test]
fn summary_csv_adds_round_columns_for_several_rounds() {
    let records = vec![
        record("prompt1", 1, 1, Correct),
        record("prompt1", 2, 1, WrongAnswer),
        record("prompt1", 1, 2, Correct),
        record("prompt1", 2, 2, Correct),
    ];
    let dir = report(&info(2), &records);
    let (header, rows) = read_csv(&dir.path().join("report/summary.csv"));
    assert_eq!(
        header[10..].join(","),
        "rounds,round_mean,round_min,round_max,round_stddev"
    );
    assert_eq!(&rows[0][..4], ["prompt1", "75.0", "3", "4"]);
    assert_eq!(&rows[0][10..], ["2", "75.0", "50.0", "100.0", "25.0"]);
}

#[test]
fn cases_csv_round_trips_multiline_values_and_defuses_formulas() {
    let mut records = three_by_three();
    records[2].actual = "=HYPERLINK(\"http://x\")\nsecond, line".into();
    let dir = report(&info(1), &records);
    let (header, rows) = read_csv(&dir.path().join("report/cases.csv"));
    // The columns as the reference documents them, in order.
    assert_eq!(
        header.join(","),
        "prompt,question,question_id,round,sample,verdict,expected,actual,exec_secs,llm_secs"
    );
    assert_eq!(rows.len(), 9);
    let greeting = "Hello, World!\nWelcome to Python!";
    assert_eq!(
        rows[1],
        [
            "prompt1",
            "2",
            "q2_indent",
            "1",
            "",
            "correct",
            greeting,
            greeting,
            "0.030",
            "1.500"
        ]
    );
    assert_eq!(rows[2][5], "wrong_answer");
    assert_eq!(rows[2][7], "'=HYPERLINK(\"http://x\")\nsecond, line");
    assert_eq!(rows[8][5], "api_error");
}

// --- each case's program file -----------------------------------------------

/// The case files of a report: `<prompt folder>/*.<extension>`.
fn case_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let folders = std::fs::read_dir(dir)
        .expect("run folder")
        .filter_map(|e| e.ok());
    folders
        .filter(|e| e.path().is_dir() && e.file_name() != "report")
        .flat_map(|d| std::fs::read_dir(d.path()).expect("prompt folder"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect()
}

/// Runs `command` with the file's path last; its stderr when it fails.
fn check_file(command: &[&str], path: &Path) {
    let output = std::process::Command::new(command[0])
        .args(&command[1..])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", command[0]));
    assert!(
        output.status.success(),
        "{} does not parse:\n{}\n--- file ---\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(path).unwrap_or_default()
    );
}

/// Parses with the real interpreter, as a user opening the file would: the
/// text parse is what an editor or linter does; compiling the bytes also
/// honours PEP 263 cookies and NUL checks, as `python3 f.py` does.
const PYTHON_PARSES: [&str; 3] = [
    "python3",
    "-c",
    "import ast,sys; ast.parse(open(sys.argv[1], encoding='utf-8').read()); \
     compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
];
/// Compiles as C++ (syntax only), as a user building the file would.
const CPP_COMPILES: [&str; 4] = ["g++", "-fsyntax-only", "-x", "c++"];

/// Every text a person reads, made of what breaks out of comments.
fn hostile(rec: &mut CaseRecord, i: usize) {
    rec.reply = Some(HOSTILE.to_string());
    rec.expected = format!("{HOSTILE}{i}");
    rec.actual = HOSTILE.to_string();
    rec.question = HOSTILE.to_string();
    rec.system_prompt = Some(HOSTILE.to_string());
    rec.prompt = HOSTILE.to_string();
    rec.detail = Some(HOSTILE.to_string());
    if let Some(exec) = rec.execution.as_mut() {
        exec.stdout = HOSTILE.to_string();
        exec.stderr.push_str(HOSTILE);
    }
}

#[test]
fn every_python_file_parses_even_with_hostile_text() {
    let mut records = three_by_three();
    records
        .iter_mut()
        .enumerate()
        .for_each(|(i, rec)| hostile(rec, i));
    // Code that does not parse must not leak out of its comments.
    records[1].code = Some("print('''unterminated\r\"\"\"".into());
    records[1].verdict = SyntaxError;
    records[3].verdict = RuntimeError;
    records[0].code = Some("x = 1\r\nprint(x)\rprint('\"\"\"')".into());
    let mut odd = record("coding: zzz", 1, 1, Correct);
    odd.reply = Some(HOSTILE.into());
    records.push(odd);
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, written) = write_all(dir.path(), &info(1), &records).expect("written");
    assert_eq!(written.case_files, 10);
    let files = case_files(dir.path(), "py");
    assert_eq!(files.len(), 10, "{files:?}");
    for path in &files {
        check_file(&PYTHON_PARSES, path);
        let text = std::fs::read_to_string(path).expect("file");
        assert!(!text.contains('\r'), "{}", path.display());
    }
    assert!(
        read(dir.path(), "prompt1/question_1.py").contains("\nx = 1\nprint(x)\nprint('\"\"\"')\n"),
        "compiled code stays code"
    );
}

const CPP: &str = "#include <cstdio>\nint main() {\n    for (int i = 0; i < 1; ++i)\n        std::printf(\"[0, 1]\\n\");\n    return 0;\n}\n";

/// q1 in C++ under every prompt: prompt1's and prompt3's compiled,
/// prompt2's did not; the other questions stay Python.
fn cpp_run() -> (RunInfo, Vec<CaseRecord>) {
    let mut info = info(1);
    info.code_languages
        .insert("q1_two_sum".into(), CodeLanguage::Cpp);
    let mut records = three_by_three();
    records[0].code = Some(CPP.into());
    records[3].code = Some("int main( {\n  return */ 0;\n".into());
    records[3].verdict = SyntaxError;
    records[6].code = Some(CPP.into());
    (info, records)
}

#[test]
fn a_cpp_case_is_a_cpp_file_commented_with_slashes() {
    let (info, mut records) = cpp_run();
    // `\` ends HOSTILE: it would join the next line to a `//` comment.
    records
        .iter_mut()
        .enumerate()
        .for_each(|(i, rec)| hostile(rec, i));
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, written) = write_all(dir.path(), &info, &records).expect("written");
    assert_eq!(written.case_files, 9);
    assert_eq!(case_files(dir.path(), "cpp").len(), 3);
    assert_eq!(case_files(dir.path(), "py").len(), 6);
    assert!(!dir.path().join("prompt1/question_1.py").exists());
    let text = read(dir.path(), "prompt1/question_1.cpp");
    assert!(text.starts_with(
        "// ==========================================\n// Prompt Name: prompt1\n// Question 1: "
    ));
    assert!(text.contains("\n// Status: ✅ PASSED\n"), "{text}");
    assert!(
        text.contains(&format!("\n\n{CPP}\n")),
        "compiled code stays code"
    );
    let broken = read(dir.path(), "prompt2/question_1.cpp");
    assert!(broken.contains(
        "\n// (code commented out: the C++ compiler could not compile it)\n// int main( {\n"
    ));
    for path in case_files(dir.path(), "cpp") {
        check_file(&CPP_COMPILES, &path);
        let text = std::fs::read_to_string(&path).expect("file");
        assert!(
            !text.lines().any(|l| l.starts_with("# ")),
            "{}",
            path.display()
        );
    }
    for path in case_files(dir.path(), "py") {
        check_file(&PYTHON_PARSES, &path);
    }
}

#[test]
fn a_cpp_case_page_links_its_cpp_file_and_highlights_cpp() {
    let (info, records) = cpp_run();
    let dir = report(&info, &records);
    let (page, html) = case_pages::page_of(dir.path(), "prompt1::q1_two_sum::r1");
    let case = &html[html.find("id=\"case-prompt1::q1_two_sum::r1\"").unwrap()..];
    let case = &case[..case.find("</tbody>").unwrap()];
    let file = case_pages::hrefs(case)
        .into_iter()
        .find(|h| h.ends_with(".cpp"))
        .expect("a link to the .cpp file");
    assert!(
        case_pages::resolve(page.parent().unwrap(), &file)
            .0
            .is_file(),
        "{file}"
    );
    assert!(case.contains(">prompt1/question_1.cpp</a>"), "{case}");
    assert!(
        case.contains("<code class=\"language-cpp\"><span class=\"tok-keyword\">#include</span>")
    );
    for keyword in ["for", "return"] {
        assert!(case.contains(&format!("<span class=\"tok-keyword\">{keyword}</span>")));
    }
    let (_, python) = case_pages::page_of(dir.path(), "prompt1::q2_indent::r1");
    assert!(python.contains(
        "<code class=\"language-python\"><span class=\"tok-keyword\">def</span> <span class=\"tok-function\">greet</span>"
    ));
    assert!(python.contains(">prompt1/question_2.py</a>"));
}

// --- the terminal table -----------------------------------------------------

fn result(accuracy: f64, correct: usize, total: usize, avg: f64) -> PromptResult {
    PromptResult {
        accuracy: Some(accuracy),
        accuracy_interval: None,
        pass_at_k: Default::default(),
        pass_at_k_interval: Default::default(),
        correct_answers: correct,
        total_questions: total,
        avg_execution_time: Some(avg),
        error_breakdown: Default::default(),
        not_evaluated: 0,
        not_evaluated_reasons: Default::default(),
        warnings: vec![],
        unstable_questions: vec![],
        tokens: Default::default(),
        truncated_replies: 0,
        suspect_cases: 0,
        suspect_questions: vec![],
        truncated_prompts: 0,
        cases_with_tokens: 0,
        rounds: None,
        threshold: None,
        gate_passed: None,
        speed: None,
    }
}

/// A one-prompt run's summary with its results replaced by `results`.
fn summary(results: Vec<(&str, PromptResult)>) -> Summary {
    let dir = tempfile::tempdir().expect("tempdir");
    let records = [record("prompt1", 1, 1, Correct)];
    let (mut summary, _) = write_all(dir.path(), &info(1), &records).expect("written");
    summary.prompt_results = results
        .into_iter()
        .map(|(n, r)| (n.to_string(), r))
        .collect();
    summary.best_prompt = Some(BestPrompt {
        name: "prompt1".into(),
        accuracy: 87.5,
        tied_with: vec![],
        versus_runner_up: None,
    });
    summary
}

fn table(summary: Summary) -> String {
    terminal_table(&RunSummary::OneModel(summary), Labels::of(Language::Zh))
}

#[test]
fn reproduces_the_spec_table() {
    let s = summary(vec![
        ("prompt1", result(87.5, 7, 8, 0.02)),
        ("prompt2", result(75.0, 6, 8, 0.03)),
        ("prompt3", result(62.5, 5, 8, 0.02)),
        ("prompt4", result(50.0, 4, 8, 0.04)),
    ]);
    let expected = "\
+----------+----------+-------------+----------------+
| Prompt   | 準確率   | 正確/總數   | 平均執行時間   |
+==========+==========+=============+================+
| prompt1  | 87.5%    | 7/8         | 0.02s          |
| prompt2  | 75.0%    | 6/8         | 0.03s          |
| prompt3  | 62.5%    | 5/8         | 0.02s          |
| prompt4  | 50.0%    | 4/8         | 0.04s          |
+----------+----------+-------------+----------------+

🏆 最佳 Prompt: prompt1 (準確率: 87.5%)
";
    assert_eq!(table(s), expected);
}

#[test]
fn long_and_cjk_prompt_names_keep_columns_aligned() {
    let s = summary(vec![
        ("prompt1", result(87.5, 7, 8, 0.02)),
        ("詳細的演算法專家提示", result(100.0, 8, 8, 1.25)),
        ("a_very_long_prompt_name_x", result(0.0, 0, 8, 0.0)),
    ]);
    let table = table(s);
    let lines: Vec<&str> = table.lines().take(7).collect();
    assert_eq!(lines[0].width(), 72);
    assert_eq!(
        lines[4],
        "| 詳細的演算法專家提示       | 100.0%   | 8/8         | 1.25s          |"
    );
    // Every `|` sits in the same display column on every line.
    let bars = |line: &str| -> Vec<usize> {
        line.char_indices()
            .filter(|(_, c)| *c == '|' || *c == '+')
            .map(|(i, _)| line[..i].width())
            .collect()
    };
    for line in &lines {
        assert_eq!(line.width(), 72, "misaligned: {line}");
        assert_eq!(bars(line), bars(lines[0]), "{line}");
    }
}

#[test]
fn rounds_add_columns_and_incomplete_runs_say_so() {
    let mut r = result(83.3, 5, 6, 0.02);
    r.rounds = Some(RoundStats {
        count: 2,
        mean: 83.3,
        min: 66.7,
        max: 100.0,
        stddev: 16.7,
    });
    let mut s = summary(vec![("prompt1", r)]);
    (s.complete, s.finished_cases, s.planned_cases) = (false, 6, 9);
    let table = table(s);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "⚠️  INCOMPLETE 執行未完成: 完成 6/9 個案例; 本次執行被中斷"
    );
    assert_eq!(
        lines[2],
        "| Prompt   | 準確率   | 正確/總數   | 平均執行時間   | 最低   | 最高    | 標準差   |"
    );
    assert_eq!(
        lines[4],
        "| prompt1  | 83.3%    | 5/6         | 0.02s          | 66.7%  | 100.0%  | 16.7     |"
    );
}

#[test]
fn escape_sequences_in_names_do_not_reach_the_terminal() {
    let s = summary(vec![("evil\u{1b}[2J", result(50.0, 1, 2, 0.0))]);
    assert!(!table(s).contains('\u{1b}'));
}

// --- the pages --------------------------------------------------------------

/// Most cases on a page, and the size a page stays under (case_pages.rs).
const CASES_PER_PAGE: usize = 200;
const PAGE_BYTES: usize = 2_000_000;

/// Every page under `dir` (quick_view.html first, then report/ in path
/// order), as (path relative to `dir`, text).
fn pages(dir: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for path in std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
        {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "html") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&dir.join("report"), &mut paths);
    paths.sort();
    paths.insert(0, dir.join("quick_view.html"));
    let rel = |p: &Path| p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
    paths
        .iter()
        .map(|p| (rel(p), std::fs::read_to_string(p).expect("page")))
        .collect()
}

/// `href` on the page `from` (relative to the run folder) as the page it
/// leads to (relative too) and its decoded fragment.
fn resolve(from: &str, href: &str) -> (String, String) {
    let (path, fragment) = case_pages::resolve(Path::new(from).parent().unwrap(), href);
    (path.to_string_lossy().into_owned(), fragment)
}

#[test]
fn hostile_replies_render_as_inert_text() {
    let mut records = three_by_three();
    records[0].reply = Some(HOSTILE.into());
    records[0].code = Some(HOSTILE.into());
    records[1].actual = "<img src=x onerror=alert(9)>".into();
    records[2].question = "<a href=\"javascript:alert(4)\">q</a>".into();
    records[3].case.prompt = "<b>prompt2</b>".into();
    let dir = report(&info(1), &records);
    let pages = pages(dir.path());
    assert!(pages.len() > 1, "the quick view and its pages of cases");
    for (path, html) in &pages {
        let lower = html.to_lowercase();
        assert_eq!(
            lower.matches("<script").count(),
            1,
            "{path}: its own script only"
        );
        assert!(!lower.contains("<img"), "{path}");
        assert!(!lower.contains("href=\"javascript:"), "{path}");
        assert!(!html.contains("<b>prompt2</b>"), "{path}");
    }
    let all: String = pages.iter().map(|(_, html)| html.as_str()).collect();
    assert!(all.contains("&lt;&#x2f;script&gt;&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
    assert!(all.contains("&lt;img src=x onerror=alert(9)&gt;"));
    assert!(pages[0].1.contains("&lt;b&gt;prompt2&lt;&#x2f;b&gt;"));
}

#[test]
fn every_page_is_self_contained_and_locked_down() {
    let dir = report(&info(1), &three_by_three());
    for (path, html) in pages(dir.path()) {
        // The CSP lets run exactly the script that is in the page, by the
        // hash of the text between its tags.
        let script = &html[html.find("<script>").unwrap() + 8..html.find("</script>").unwrap()];
        use base64::Engine;
        use sha2::Digest;
        let hash = base64::engine::general_purpose::STANDARD
            .encode(sha2::Sha256::digest(script.as_bytes()))
            .replace('/', "&#x2f;");
        assert!(html.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{hash}'\">"
        )), "{path}: {}", &html[..600]);
        let outside_data = html.replace("http:&#x2f;&#x2f;127.0.0.1:11434", "");
        for external in ["http://", "https://", "src=", "<link"] {
            assert!(!outside_data.contains(external), "{path}: found {external}");
        }
        assert!(!html.contains("INCOMPLETE"), "{path}");
    }
}

#[test]
fn page_groups_cases_by_prompt_in_suite_order_with_a_summary_table() {
    let mut info = info(1);
    info.complete = false;
    let dir = report(&info, &three_by_three());
    let pages: BTreeMap<String, String> = pages(dir.path()).into_iter().collect();
    let html = &pages["quick_view.html"];
    assert!(html.contains("INCOMPLETE"));
    let p1 = html
        .find("<tbody class=\"prompt-head\" id=\"prompt-1\"")
        .expect("prompt1 section");
    let p3 = html
        .find("<tbody class=\"prompt-head\" id=\"prompt-3\"")
        .expect("prompt3 section");
    assert!(p1 < p3);
    assert!(html.contains(">66.7%</td>"));
    assert!(html.contains("landlock: temp dir only"));
    assert!(html.contains("gpt-oss:20b"));
    let correct = &pages["report/cases/prompt1/correct-1.html"];
    assert!(correct.contains(
        "<pre><code class=\"language-python\"><span class=\"tok-keyword\">def</span> <span class=\"tok-function\">two_sum</span>"
    ));
    assert!(correct.contains("✅ correct"));
    assert!(pages["report/cases/prompt1/wrong_answer-1.html"].contains("❌ wrong_answer"));
}

/// prompt1 and prompt2, 250 questions, 2 rounds: per prompt 400 correct
/// (two pages) and 100 wrong answers.
fn two_prompts() -> Vec<CaseRecord> {
    let mut records = Vec::new();
    for prompt in ["prompt1", "prompt2"] {
        for round in 1..=2 {
            for q in 1..=250 {
                let verdict = if q % 5 == 0 { WrongAnswer } else { Correct };
                records.push(numbered(prompt, q, round, verdict));
            }
        }
    }
    records
}

/// The `id="case-..."` names on a page, with its cases' verdicts.
fn cases_on(html: &str) -> Vec<(String, String)> {
    let re = regex::Regex::new(r#"id="case-([^"]*)"[^>]*data-status="([^"]*)""#).unwrap();
    re.captures_iter(html)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect()
}

#[test]
fn every_case_is_on_one_page_linked_from_the_quick_view() {
    let records = two_prompts();
    let dir = report(&info(2), &records);
    let pages: BTreeMap<String, String> = pages(dir.path()).into_iter().collect();
    let linked = case_pages::linked_pages(dir.path());
    assert_eq!(linked.len(), 6, "{linked:?}");
    let mut seen: Vec<String> = Vec::new();
    for path in &linked {
        let page = path
            .strip_prefix(dir.path())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let html = &pages[&page];
        let cases = cases_on(html);
        assert!(!cases.is_empty() && cases.len() <= CASES_PER_PAGE, "{page}");
        let verdict = page.rsplit('/').next().unwrap().rsplit_once('-').unwrap().0;
        assert!(cases.iter().all(|(_, v)| v == verdict), "{page}");
        seen.extend(cases.into_iter().map(|(name, _)| name));
        // Its neighbours and each case's .py file are where it says.
        for href in case_pages::hrefs(html) {
            let (target, _) = resolve(&page, &href);
            assert!(dir.path().join(&target).is_file(), "{page} -> {href}");
        }
    }
    let mut names: Vec<String> = records.iter().map(|r| r.case.test_name()).collect();
    names.sort();
    seen.sort();
    assert_eq!(seen, names, "every case once");
    let quick_view = &pages["quick_view.html"];
    assert!(quick_view.contains("<tr data-status=\"correct\" data-count=\"400\">"));
    assert!(quick_view.contains("<tr data-status=\"wrong_answer\" data-count=\"100\">"));
}

#[test]
fn a_page_holds_a_bounded_size_of_cases() {
    let records: Vec<CaseRecord> = (1..=12)
        .map(|q| {
            let mut r = numbered("prompt1", q, 1, Correct);
            r.prompt = "history line\n".repeat(25_000);
            r
        })
        .collect();
    let dir = report(&info(1), &records);
    let written: Vec<(String, String)> = pages(dir.path())
        .into_iter()
        .filter(|(p, _)| p.starts_with("report/cases/"))
        .collect();
    assert!(written.len() > 1, "{} pages", written.len());
    for (page, html) in &written {
        assert!(html.len() < PAGE_BYTES + 50_000, "{page}: {}", html.len());
    }
    let on_pages: usize = written.iter().map(|(_, html)| cases_on(html).len()).sum();
    assert_eq!(on_pages, 12);
}

#[test]
fn a_rewritten_report_leaves_no_page_of_the_earlier_one() {
    let dir = report(&info(2), &two_prompts());
    assert!(
        dir.path()
            .join("report/cases/prompt1/correct-2.html")
            .is_file()
    );
    let fewer: Vec<CaseRecord> = two_prompts().into_iter().take(10).collect();
    write_all(dir.path(), &info(2), &fewer).expect("written");
    let left: Vec<String> = pages(dir.path())
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.starts_with("report/cases/"))
        .collect();
    assert_eq!(
        left,
        [
            "report/cases/prompt1/correct-1.html",
            "report/cases/prompt1/wrong_answer-1.html"
        ]
    );
}

/// The matrix rows of a page: question id -> its cells' links.
fn rows_of(html: &str) -> BTreeMap<String, Vec<String>> {
    let row = regex::Regex::new(r#"<tr class="[a-z]*" data-question="([^"]*)">(.*)</tr>"#).unwrap();
    row.captures_iter(html)
        .map(|c| (c[1].to_string(), case_pages::hrefs(&c[2])))
        .collect()
}

#[test]
fn a_large_matrix_shows_the_disagreements_and_pages_the_rest() {
    // 500 questions; prompt1 fails every third: 166 disagreements.
    let mut records = Vec::new();
    for prompt in ["prompt1", "prompt2", "prompt3"] {
        for q in 1..=500 {
            let fails = prompt == "prompt1" && q % 3 == 0;
            records.push(numbered(
                prompt,
                q,
                1,
                if fails { WrongAnswer } else { Correct },
            ));
        }
    }
    let dir = report(&info(1), &records);
    let pages: BTreeMap<String, String> = pages(dir.path()).into_iter().collect();
    let quick_view = &pages["quick_view.html"];
    let shown = rows_of(quick_view);
    assert_eq!(shown.len(), 166);
    assert!(
        shown
            .keys()
            .all(|q| q[1..].parse::<usize>().unwrap() % 3 == 0)
    );
    let more = prompteval::language::report::matrix_more(info(1).language, 334);
    assert!(quick_view.contains(&more));
    let on_page = rows_of(&pages["report/matrix/1.html"]);
    assert_eq!(on_page.len(), 334);
    let questions: BTreeSet<&String> = shown.keys().chain(on_page.keys()).collect();
    assert_eq!(questions.len(), 500, "every question in the matrix");
    // Every cell opens its question's case under its prompt.
    for (from, rows) in [
        ("quick_view.html", &shown),
        ("report/matrix/1.html", &on_page),
    ] {
        for (question, cells) in rows {
            assert_eq!(cells.len(), 3, "{from} {question}");
            for (prompt, href) in ["prompt1", "prompt2", "prompt3"].iter().zip(cells) {
                let (page, id) = resolve(from, href);
                assert_eq!(id, format!("case-{prompt}::{question}::r1"));
                let html = pages.get(&page).unwrap_or_else(|| panic!("{page}"));
                assert!(html.contains(&format!("id=\"{id}\"")), "{page} {id}");
            }
        }
    }
}
