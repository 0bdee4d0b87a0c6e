//! quick_view.html (spec §8.4): one self-contained page, complete without
//! JavaScript; its one script (quick_view.js) adds filters, sorting and
//! opening a case from a link.
//!
//! Everything shown comes from the model or the suite, so it goes through
//! minijinja with HTML auto-escaping (the template name ends in `.html`);
//! the Rust side never builds markup. A Content-Security-Policy that allows
//! only that script, by its hash, backs that up should an escape ever be
//! missed: an injected script would not run.

use std::io::Write;
use std::path::Path;

use minijinja::{Environment, Value};
use serde::Serialize;

use crate::case::CaseRecord;

use crate::language::report as words;
use crate::report::render::Labels;
use crate::report::render::python::case_file_name;
use crate::report::render::text::{best_names, versus_text};
use crate::results::summary::failure_verdicts;
use crate::results::{PromptGroup, RunInfo, Summary};

const TEMPLATE_NAME: &str = "quick_view.html";
const TEMPLATE: &str = include_str!("quick_view.html");
/// The macros for a prompt's section and for a case.
const PARTS_NAME: &str = "quick_view_parts.html";
const PARTS: &str = include_str!("quick_view_parts.html");
/// The page's one script, inlined after the case table.
const SCRIPT: &str = include_str!("quick_view.js");

/// `sha256-...`: the CSP source that lets SCRIPT, and nothing else, run.
fn script_hash() -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(SCRIPT.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[derive(Serialize)]
struct Page<'a> {
    /// The labels in the run's language.
    l: &'static Labels,
    /// The page's HTML `lang`.
    lang: &'static str,
    /// The CSP source for the page's script.
    script_hash: String,
    /// The banner over an interrupted run, in the run's language.
    incomplete: Option<String>,
    /// The heading over the cases not evaluated, in the run's language.
    not_evaluated_heading: String,
    test_id: &'a str,
    timestamp: &'a str,
    total_execution_time: f64,
    suite: &'a str,
    model: &'a str,
    backend: &'a str,
    endpoint: &'a str,
    complete: bool,
    finished_cases: usize,
    planned_cases: usize,
    isolation: Vec<(String, String)>,
    verdict_names: Vec<&'static str>,
    multi_round: bool,
    /// Whether the server reported token figures (the tokens/case column).
    show_tokens: bool,
    /// Completion tokens per second of generation, where the server timed it.
    generation_speed: Option<f64>,
    best: Option<String>,
    /// Whether the best beats the runner-up by more than noise.
    versus: Option<String>,
    /// Selected cases that were not evaluated, with why.
    not_evaluated: Vec<NotEvaluatedView<'a>>,
    rows: Vec<Row>,
    /// Whether some prompt has pass@k for a k > 1 (the pass@k column).
    show_pass_at_k: bool,
    /// pass@1 against prompt detail, per prompt (a run of prompt variants).
    curves: Vec<super::svg::PromptCharts<'a>>,
    overview: super::svg::Overview,
    /// Prompt names, the matrix's columns.
    columns: Vec<&'a str>,
    matrix: Vec<MatrixRow>,
    /// Questions left out of the matrix (all prompts agreed) on a large run.
    matrix_hidden: usize,
    /// Every question id, in suite order: the question filter's choices.
    question_ids: Vec<&'a str>,
    /// 1..=rounds: the round filter's choices.
    round_numbers: Vec<u32>,
}

#[derive(Serialize)]
struct MatrixRow {
    question_id: String,
    /// Best prompt's pass share minus the worst's (what the matrix sorts
    /// by); above 0 when the prompts disagree on the question.
    spread: f64,
    spread_text: String,
    cells: Vec<MatrixCell>,
}

#[derive(Serialize)]
struct MatrixCell {
    /// `2/3` passed of evaluated attempts; `-` when none.
    text: String,
    /// all, some, none or missing: the cell's colour.
    class: &'static str,
    /// Passed share of the attempts, for sorting; -1 when none ran.
    share: f64,
    /// The first case of this question under this prompt; None when none
    /// of its cases ran (nothing to open).
    anchor: Option<String>,
}

#[derive(Serialize)]
struct NotEvaluatedView<'a> {
    name: String,
    reason: &'a str,
    detail: &'a str,
}

#[derive(Serialize)]
struct Row {
    name: String,
    /// Api errors and cases not evaluated: shown beside the accuracy.
    warnings: Vec<String>,
    accuracy: String,
    /// The accuracy as a number, for sorting.
    accuracy_value: Option<f64>,
    /// 95 % Wilson interval.
    interval: String,
    correct_total: String,
    avg_time: String,
    /// Mean prompt+completion tokens per case.
    tokens: String,
    /// pass@k with intervals.
    pass_at_k: String,
    verdict_counts: Vec<usize>,
    rounds: Option<String>,
    gate: Option<String>,
    gate_failed: bool,
}

#[derive(Serialize)]
struct PromptView<'a> {
    /// 1-based, in summary order: the table links to `#prompt-N`.
    index: usize,
    name: &'a str,
    template: &'a str,
    folder: &'a str,
    summary_line: String,
}

#[derive(Serialize)]
struct CaseView<'a> {
    passed: bool,
    verdict: &'static str,
    /// The case's one name: `prompt::question_id::rN`, as in the terminal.
    name: String,
    prompt_name: &'a str,
    question_id: &'a str,
    round: u32,
    sample: Option<u32>,
    file: String,
    question: &'a str,
    expected: &'a str,
    actual: &'a str,
    code: Option<&'a str>,
    /// The code as highlighted segments (None: shown plain).
    highlighted: Option<Vec<super::diff::Segment>>,
    system_prompt: Option<&'a str>,
    prompt: &'a str,
    prompt_chars: usize,
    reply: Option<&'a str>,
    /// A reasoning model's reasoning, shown folded.
    reasoning: Option<&'a str>,
    /// `1,234 reasoning tokens` (`~` when estimated).
    reasoning_tokens: Option<String>,
    stderr: Option<&'a str>,
    detail: Option<&'a str>,
    api_failure: Option<&'static str>,
    exec_secs: String,
    llm_secs: String,
    /// `N prompt + M completion tokens`, when the server said.
    tokens: Option<String>,
    /// Prompt plus completion tokens, for the table's column.
    tokens_total: Option<u64>,
    /// Expected and actual with their differences marked, for a failed
    /// case with output to compare.
    diff: Option<super::diff::Marked>,
    /// The reply stopped at the length limit.
    reply_cut: bool,
}

/// The page's templates, parsed once per process (they are constants).
fn environment() -> Result<&'static Environment<'static>, &'static minijinja::Error> {
    static ENV: std::sync::OnceLock<Result<Environment<'static>, minijinja::Error>> =
        std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.add_template(TEMPLATE_NAME, TEMPLATE)
            .and_then(|()| env.add_template(PARTS_NAME, PARTS))?;
        Ok(env)
    })
    .as_ref()
}

/// Writes quick_view.html in pieces: the head with the summary, then each
/// prompt's section and cases as they come, so the page streams.
pub(crate) struct PageWriter {
    staged_path: std::path::PathBuf,
    tmp: tempfile::NamedTempFile,
    out: std::io::BufWriter<std::fs::File>,
    /// The parts template, evaluated once: its macros are called per piece.
    parts: minijinja::Captured<'static>,
    prompts: usize,
}

impl PageWriter {
    pub fn create(path: &Path, info: &RunInfo, summary: &Summary) -> std::io::Result<PageWriter> {
        let env = environment().map_err(|e| std::io::Error::other(e.to_string()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        let mut out = std::io::BufWriter::new(tmp.reopen()?);
        let head = env
            .get_template(TEMPLATE_NAME)
            .and_then(|t| t.render(page(info, summary)))
            .map_err(std::io::Error::other)?;
        out.write_all(head.as_bytes())?;
        let parts = env
            .get_template(PARTS_NAME)
            .and_then(|t| t.render_captured(minijinja::context! { l => Labels::of(info.language) }))
            .map_err(std::io::Error::other)?;
        Ok(PageWriter {
            staged_path: path.to_path_buf(),
            tmp,
            out,
            parts,
            prompts: 0,
        })
    }

    fn call(&self, name: &str, args: &[Value]) -> std::io::Result<String> {
        self.parts
            .state()
            .call_macro(name, args)
            .map_err(std::io::Error::other)
    }

    pub fn start_prompt(&mut self, group: &PromptGroup, summary: &Summary) -> std::io::Result<()> {
        self.prompts += 1;
        let view = prompt_view(self.prompts, group, summary);
        let html = self.call("prompt_open", &[Value::from_serialize(&view)])?;
        self.out.write_all(b"\n")?;
        self.out.write_all(html.as_bytes())
    }

    pub fn case(&mut self, group: &PromptGroup, record: &CaseRecord) -> std::io::Result<()> {
        let folder = serde_json::json!({ "folder": group.dir });
        let html = self.call(
            "case",
            &[
                Value::from_serialize(case_view(record)),
                Value::from_serialize(folder),
            ],
        )?;
        self.out.write_all(b"\n")?;
        self.out.write_all(html.as_bytes())
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.write_all(b"\n</table>\n<script>")?;
        self.out.write_all(SCRIPT.as_bytes())?;
        self.out.write_all(b"</script>\n</body>\n</html>\n")?;
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        self.tmp.persist(&self.staged_path).map_err(|e| e.error)?;
        Ok(())
    }
}

fn page<'a>(info: &'a RunInfo, summary: &'a Summary) -> Page<'a> {
    let (matrix, matrix_hidden) = matrix(summary);
    Page {
        script_hash: script_hash(),
        l: Labels::of(info.language),
        lang: info.language.html_lang(),
        incomplete: (!info.complete).then(|| {
            words::incomplete_banner(info.language, summary.finished_cases, info.planned_cases)
        }),
        not_evaluated_heading: words::not_evaluated_heading(
            info.language,
            info.not_evaluated.len(),
        ),
        test_id: &info.test_id,
        timestamp: &info.timestamp,
        total_execution_time: summary.total_execution_time,
        suite: &info.suite,
        model: &info.model,
        backend: &info.backend,
        endpoint: &info.endpoint,
        complete: info.complete,
        finished_cases: summary.finished_cases,
        planned_cases: info.planned_cases,
        isolation: isolation_pairs(&info.isolation),
        verdict_names: failure_verdicts(summary.prompt_results.values())
            .into_iter()
            .map(|v| v.as_str())
            .collect(),
        multi_round: summary.prompt_results.values().any(|r| r.rounds.is_some()),
        show_tokens: summary
            .prompt_results
            .values()
            .any(|r| r.cases_with_tokens > 0),
        generation_speed: summary.generation_speed,
        best: summary
            .best_prompt
            .as_ref()
            .map(|b| best_names(b, Labels::of(info.language))),
        versus: summary
            .best_prompt
            .as_ref()
            .and_then(|b| b.versus_runner_up.as_ref())
            .map(|v| versus_text(v, info.language)),
        not_evaluated: info
            .not_evaluated
            .iter()
            .map(|u| NotEvaluatedView {
                name: u.case.test_name(),
                reason: &u.reason,
                detail: &u.detail,
            })
            .collect(),
        rows: rows(summary, info.language),
        show_pass_at_k: summary
            .prompt_results
            .values()
            .any(|r| r.has_pass_at_k_beyond_1()),
        curves: summary
            .partial_order
            .iter()
            .map(|(name, order)| super::svg::charts(name, order))
            .collect(),
        overview: super::svg::overview(summary),
        columns: summary.prompt_results.keys().map(String::as_str).collect(),
        matrix,
        matrix_hidden,
        question_ids: summary.matrix.iter().map(|(q, _)| q.as_str()).collect(),
        round_numbers: (1..=summary.rounds.max(1)).collect(),
    }
}

/// Most rows a matrix shows in full; a larger run shows the questions where
/// prompts disagree.
const MATRIX_ROWS: usize = 400;

/// Questions (those where prompts disagree first) x prompts.
fn matrix(summary: &Summary) -> (Vec<MatrixRow>, usize) {
    let names: Vec<&String> = summary.prompt_results.keys().collect();
    let first = if summary.samples > 1 {
        "::r1::s1"
    } else {
        "::r1"
    };
    let mut rows: Vec<MatrixRow> = summary
        .matrix
        .iter()
        .map(|(question_id, cells)| {
            let shares: Vec<Option<f64>> = cells
                .iter()
                .map(|c| c.filter(|(_, n)| *n > 0).map(|(p, n)| p as f64 / n as f64))
                .collect();
            let seen = shares.iter().flatten().copied();
            let hi = seen.clone().fold(f64::NEG_INFINITY, f64::max);
            let lo = seen.fold(f64::INFINITY, f64::min);
            // No evaluated attempt at all: nothing to disagree on.
            let spread = if hi >= lo { hi - lo } else { 0.0 };
            MatrixRow {
                question_id: question_id.clone(),
                spread,
                spread_text: format!("{:.0}%", spread * 100.0),
                cells: cells
                    .iter()
                    .zip(&names)
                    .zip(&shares)
                    .map(|((c, prompt), share)| {
                        let (text, class) = match c {
                            Some((p, n)) if *n > 0 => (
                                format!("{p}/{n}"),
                                if p == n {
                                    "all"
                                } else if *p == 0 {
                                    "none"
                                } else {
                                    "some"
                                },
                            ),
                            _ => ("-".to_string(), "missing"),
                        };
                        MatrixCell {
                            text,
                            class,
                            share: share.unwrap_or(-1.0),
                            anchor: c
                                .is_some()
                                .then(|| format!("case-{prompt}::{question_id}{first}")),
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    // Stable: widest disagreements first, each group in suite order.
    rows.sort_by(|a, b| b.spread.total_cmp(&a.spread));
    let mut hidden = 0;
    if rows.len() > MATRIX_ROWS {
        let before = rows.len();
        rows.retain(|r| r.spread > 0.0);
        rows.truncate(MATRIX_ROWS);
        hidden = before - rows.len();
    }
    (rows, hidden)
}

fn rows(summary: &Summary, lang: crate::language::Language) -> Vec<Row> {
    let verdicts = failure_verdicts(summary.prompt_results.values());
    summary
        .prompt_results
        .iter()
        .map(|(name, r)| Row {
            name: name.clone(),
            warnings: r.warnings_in(lang),
            accuracy: r.accuracy_text(),
            accuracy_value: r.accuracy,
            interval: r.interval_text(),
            correct_total: format!("{}/{}", r.correct_answers, r.total_questions),
            avg_time: r.avg_time_text(),
            tokens: r.tokens_text(),
            pass_at_k: r.pass_at_k_text(),
            verdict_counts: verdicts
                .iter()
                .map(|v| r.error_breakdown.get(v.as_str()).copied().unwrap_or(0))
                .collect(),
            rounds: r.rounds.as_ref().map(|s| {
                format!(
                    "{} rounds: mean {:.1}%, min {:.1}%, max {:.1}%, sd {:.1}",
                    s.count, s.mean, s.min, s.max, s.stddev
                )
            }),
            gate: r.threshold.map(|t| {
                let verdict = if r.gate_passed == Some(true) {
                    "pass"
                } else {
                    "FAIL"
                };
                format!("{verdict} (≥ {t:.1}%)")
            }),
            gate_failed: r.gate_passed == Some(false),
        })
        .collect()
}

fn prompt_view<'a>(index: usize, group: &'a PromptGroup, summary: &Summary) -> PromptView<'a> {
    let summary_line = summary
        .prompt_results
        .get(group.name)
        .map(|r| {
            format!(
                "{} ({}/{})",
                r.accuracy_text(),
                r.correct_answers,
                r.total_questions
            )
        })
        .unwrap_or_default();
    PromptView {
        index,
        name: group.name,
        template: group.template,
        folder: &group.dir,
        summary_line,
    }
}

fn case_view(case: &CaseRecord) -> CaseView<'_> {
    let stderr = case
        .execution
        .as_ref()
        .map(|e| e.stderr.as_str())
        .filter(|s| !s.trim().is_empty());
    CaseView {
        passed: case.passed(),
        verdict: case.verdict.as_str(),
        name: case.case.test_name(),
        prompt_name: &case.case.prompt,
        question_id: &case.case.question_id,
        round: case.case.round,
        sample: case.case.sample,
        file: case_file_name(case),
        question: &case.question,
        expected: &case.expected,
        actual: &case.actual,
        code: case.program_run(),
        highlighted: case.program_run().and_then(super::highlight::python),
        system_prompt: case.system_prompt.as_deref(),
        prompt: &case.prompt,
        prompt_chars: case.prompt.chars().count()
            + case
                .system_prompt
                .as_deref()
                .map_or(0, |s| s.chars().count()),
        reply: case.reply.as_deref(),
        reasoning: case.reasoning.as_deref().filter(|r| !r.trim().is_empty()),
        reasoning_tokens: case
            .tokens
            .and_then(|t| t.reasoning_shown())
            .map(|n| format!("{n} reasoning tokens")),
        stderr,
        detail: case.detail.as_deref(),
        api_failure: case.api_failure.map(|f| f.as_str()),
        exec_secs: format!("{:.2}s", case.exec_secs),
        // A replayed or cached case did not call the model now: its time
        // is the recorded call's (replay) or the lookup's (cache).
        llm_secs: match (case.snapshot, case.cached) {
            (Some(crate::case::SnapshotState::Replayed), _) => {
                format!("{:.2}s (recorded)", case.llm_secs)
            }
            (_, true) => format!("{:.2}s (cached)", case.llm_secs),
            _ => format!("{:.2}s", case.llm_secs),
        },
        tokens: case.tokens.map(|t| match t.reasoning_shown() {
            None => format!("{} prompt + {} completion tokens", t.prompt, t.completion),
            Some(reasoning) => format!(
                "{} prompt + {} completion tokens ({reasoning} reasoning, {} answer)",
                t.prompt,
                t.completion,
                t.completion.saturating_sub(t.reasoning)
            ),
        }),
        tokens_total: case.tokens.map(|t| t.prompt + t.completion),
        diff: (!case.passed() && case.execution.is_some())
            .then(|| super::diff::marked(&case.expected, &case.actual))
            .flatten(),
        reply_cut: case.reply_cut(),
    }
}

/// `Isolation` is recorded as JSON; the page lists it as key/value pairs.
fn isolation_pairs(isolation: &serde_json::Value) -> Vec<(String, String)> {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) if items.is_empty() => "none".to_string(),
        other => other.to_string(),
    };
    match isolation {
        serde_json::Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
        serde_json::Value::Null => Vec::new(),
        other => vec![("isolation".to_string(), text(other))],
    }
}

#[cfg(test)]
mod tests {
    use crate::report::write_all;
    use crate::results::fixtures::{HOSTILE, info, three_by_three};

    fn page_with(records: Vec<crate::case::CaseRecord>, complete: bool) -> String {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut info = info(1);
        info.complete = complete;
        let (_, written) = write_all(dir.path(), &info, &records).expect("written");
        std::fs::read_to_string(written.quick_view).expect("html")
    }

    #[test]
    fn hostile_replies_render_as_inert_text() {
        let mut records = three_by_three();
        records[0].reply = Some(HOSTILE.into());
        records[0].code = Some(HOSTILE.into());
        records[1].actual = "<img src=x onerror=alert(9)>".into();
        records[2].question = "<a href=\"javascript:alert(4)\">q</a>".into();
        records[3].case.prompt = "<b>prompt2</b>".into();
        let html = page_with(records, true);
        let lower = html.to_lowercase();
        assert_eq!(
            lower.matches("<script").count(),
            1,
            "one script element: the page's own"
        );
        assert!(html.contains(&format!("<script>{}</script>", super::SCRIPT)));
        assert!(!lower.contains("<img"));
        assert!(!lower.contains("href=\"javascript:"));
        assert!(!html.contains("<b>prompt2</b>"));
        assert!(html.contains("&lt;&#x2f;script&gt;&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
        assert!(html.contains("&lt;img src=x onerror=alert(9)&gt;"));
        assert!(html.contains("&lt;b&gt;prompt2&lt;&#x2f;b&gt;"));
    }

    #[test]
    fn page_is_self_contained_and_locked_down() {
        let html = page_with(three_by_three(), true);
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
        )), "{}", &html[..600]);
        for external in ["http://", "https://", "src=", "<link"] {
            let outside_data = html.replace("http:&#x2f;&#x2f;127.0.0.1:11434", "");
            assert!(!outside_data.contains(external), "found {external}");
        }
        assert!(!html.contains("INCOMPLETE"));
    }

    #[test]
    fn page_groups_cases_by_prompt_in_suite_order_with_a_summary_table() {
        let html = page_with(three_by_three(), false);
        assert!(html.contains("INCOMPLETE"));
        let p1 = html
            .find("<tbody class=\"prompt-head\" id=\"prompt-1\"")
            .expect("prompt1 section");
        let p3 = html
            .find("<tbody class=\"prompt-head\" id=\"prompt-3\"")
            .expect("prompt3 section");
        assert!(p1 < p3);
        assert!(html.contains(">66.7%</td>"));
        assert!(html.contains(
            "<pre><code class=\"language-python\"><span class=\"tok-keyword\">def</span> <span class=\"tok-function\">two_sum</span>"
        ));
        assert!(html.contains("❌ wrong_answer"));
        assert!(html.contains("✅ correct"));
        assert!(html.contains("landlock: temp dir only"));
        assert!(html.contains("gpt-oss:20b"));
    }
}
