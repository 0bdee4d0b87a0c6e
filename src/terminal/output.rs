//! The one path for every line the user sees: the session, the pipeline,
//! the harness and the log (every stage's warnings, through tracing) emit
//! [`Event`]s, and every [`Sink`] renders them its own way. [`Console`] is
//! the terminal in the spec §9 wording (or English), with progress lines
//! and the live status line; [`JobSummary`] appends the run's markdown to
//! GitHub's job summary; [`Recording`] keeps them for tests.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::config::Language;
use crate::terminal::console::{in_ci, say};
use crate::terminal::status_line::StatusLine;

/// Something the user should learn about the run, in the order it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// The suite loaded; the run is about to start.
    Starting {
        prompts: usize,
        questions: usize,
        suite: &'a Path,
        /// The run settings the suite set, each with where its value came from.
        settings: &'a [String],
        /// The labels' language from here on.
        language: Language,
    },
    /// Replies come from recordings, not from a live model.
    Replaying {
        why: &'a str,
        recorded: usize,
        model: &'a str,
        dir: &'a Path,
        origin: &'a str,
    },
    /// Selected cases no recording answers (auto backend): they are not run.
    Unmatched {
        missing: usize,
        selected: usize,
        lines: &'a [String],
    },
    /// Nothing matched the filters; `line` says what exists.
    NothingSelected {
        line: &'a str,
    },
    RunFolder(&'a Path),
    /// Opening the journal repaired what an interrupted write left.
    TornJournal {
        journal: &'a Path,
        tail: crate::record::journal::TornTail,
    },
    /// Replies that stopped at the length limit (judged, but cut).
    CutReplies {
        replies: usize,
        limit: Option<u32>,
    },
    /// Cases whose token budget ran out inside the reasoning (`no_answer`).
    NoAnswer {
        cases: usize,
        limit: Option<u32>,
    },
    /// `PROMPTEVAL_RETRY=errors`: how many finished cases are asked again.
    Retrying {
        errors: usize,
        later_in_chain: usize,
    },
    Testing {
        rounds: u32,
        cases: usize,
        already_finished: usize,
    },
    Reporting,
    /// The comparison table, already laid out.
    Table(&'a str),
    Saved {
        summary: &'a Path,
        quick_view: &'a Path,
    },
    Incomplete {
        finished: usize,
        intended: usize,
        run_dir: &'a Path,
    },
    /// Response-cache hits and misses of this run.
    Cache(&'a crate::ask::cache::CacheStats),
    TotalTime(f64),
    Snapshots {
        new: usize,
        changed: usize,
    },
    /// One line of the gate's verdict.
    Gate(&'a str),
    /// How far the run is: for the live line the terminal keeps (`live`),
    /// or a whole line (CI logs, PROMPTEVAL_PROGRESS).
    Progress {
        line: &'a str,
        live: bool,
    },
    /// The run is over: the live line gives its row back.
    ProgressEnd,
    /// A warning or note of any stage, as the log formats it
    /// (harness.toml `log`, PROMPTEVAL_LOG).
    Log(&'a str),
    /// The run's markdown summary, for a CI job page.
    StepSummary(&'a str),
    /// Under cargo-nextest this process runs the whole suite.
    UnderNextest {
        cases: usize,
    },
}

/// A path as the user can type it from where they ran the command:
/// relative to the working folder when it is inside it, else from `~`
/// when it is in the home folder.
fn shown(path: &Path) -> String {
    let inside = |base: Option<std::path::PathBuf>| {
        base.and_then(|b| path.strip_prefix(b).ok().map(Path::to_path_buf))
            .filter(|p| !p.as_os_str().is_empty())
    };
    if let Some(relative) = inside(std::env::current_dir().ok()) {
        return relative.display().to_string();
    }
    match inside(std::env::var_os("HOME").map(Into::into)) {
        Some(in_home) => format!("~/{}", in_home.display()),
        None => path.display().to_string(),
    }
}

/// A way of showing events.
pub trait Sink: Send + Sync {
    fn event(&self, event: &Event);
}

/// Every sink of the run.
#[derive(Default)]
pub struct Output {
    sinks: Vec<Box<dyn Sink>>,
}

impl Output {
    pub fn new(sinks: Vec<Box<dyn Sink>>) -> Output {
        Output { sinks }
    }

    pub fn emit(&self, event: Event) {
        for sink in &self.sinks {
            sink.event(&event);
        }
    }
}

/// The terminal, in the spec's words (or English: `language = "en"`).
#[derive(Default)]
pub struct Console {
    /// Set by [`Event::Starting`], once the configuration is read.
    english: AtomicBool,
    /// The live status line below libtest's output, once opened.
    live: Mutex<Option<StatusLine>>,
    /// Closed for good: no line opens it again.
    live_closed: AtomicBool,
}

impl Console {
    /// The spec's line, or its English one.
    fn words(&self, zh: String, en: String) -> String {
        if self.english.load(Ordering::Relaxed) {
            en
        } else {
            zh
        }
    }
}

impl Sink for Console {
    fn event(&self, event: &Event) {
        let says = |zh: String, en: String| say(self.words(zh, en));
        match *event {
            Event::Starting {
                prompts,
                questions,
                suite,
                settings,
                language,
            } => {
                self.english
                    .store(language == Language::En, Ordering::Relaxed);
                says(
                    "🚀 LLM Prompt 效能評測系統啟動 (prompteval)".into(),
                    "🚀 LLM prompt evaluation starting (prompteval)".into(),
                );
                says(
                    format!(
                        "✅ 載入完成: {prompts} 個 Prompts, {questions} 個問題 ({})",
                        shown(suite)
                    ),
                    format!(
                        "✅ Loaded: {prompts} prompts, {questions} questions ({})",
                        shown(suite)
                    ),
                );
                for line in settings {
                    say(format!("⚙️  {line}"));
                }
            }
            Event::Replaying {
                why,
                recorded,
                model,
                dir,
                origin,
            } => {
                say(format!(
                    "▶ replay ({why}): {recorded} recorded replies of {model} from {} (recorded via {origin}). Go live: `ollama serve`, or scripts/local-llm.sh start and PROMPTEVAL_BACKEND=openai",
                    shown(dir),
                ));
            }
            Event::Unmatched {
                missing,
                selected,
                lines,
            } => say(format!(
                "⚠️  replay: {missing} of {selected} selected cases have no recording of their exact request; they are not evaluated (ignored, and in no accuracy):\n{}",
                lines.join("\n")
            )),
            Event::NothingSelected { line } => say(line),
            Event::RunFolder(dir) => says(
                format!("📁 測試結果將儲存至: {}", shown(dir)),
                format!("📁 Results go to: {}", shown(dir)),
            ),
            Event::CutReplies { replies, limit } => say(format!(
                "✂️  {replies} reply(ies) stopped at the length limit{} (finish_reason=length) and \
                 were judged as cut: raise llm.num_predict in harness.toml (max_tokens on \
                 OpenAI-compatible servers)",
                limit.map_or_else(String::new, |n| format!(" of {n} tokens"))
            )),
            Event::NoAnswer { cases, limit } => says(
                format!(
                    "🧠 {cases} 個案例的 token 預算{}在推理中用盡，沒有答案 (no_answer)：請提高 llm.num_predict，或降低 think",
                    limit.map_or_else(String::new, |n| format!(" ({n})"))
                ),
                format!(
                    "🧠 {cases} case(s) spent the token budget{} inside the reasoning and gave no \
                     answer (no_answer): raise llm.num_predict, or lower think",
                    limit.map_or_else(String::new, |n| format!(" of {n} tokens"))
                ),
            ),
            Event::Retrying {
                errors,
                later_in_chain,
            } => say(format!(
                "🔁 PROMPTEVAL_RETRY=errors: asking again for {errors} case(s) that ended in \
                 api_error or were not evaluated{}; every other case keeps its outcome",
                if later_in_chain > 0 {
                    format!(
                        ", and {later_in_chain} later case(s) of their chains, whose history \
                         changes with them"
                    )
                } else {
                    String::new()
                }
            )),
            Event::TornJournal { journal, tail } => say(match tail {
                crate::record::journal::TornTail::Cut(bytes) => format!(
                    "✂️  {}: cut a torn last line ({bytes} bytes of a record an interrupted \
                     write left unfinished); its case runs again",
                    shown(journal)
                ),
                crate::record::journal::TornTail::Completed => format!(
                    "✂️  {}: the last record lacked its newline (interrupted write); kept it and \
                     ended the line",
                    shown(journal)
                ),
            }),
            Event::Testing {
                rounds,
                cases,
                already_finished,
            } => says(
                format!(
                    "🧪 開始執行測試 (共 {rounds} 輪, {cases} 個測試{})",
                    if already_finished == 0 {
                        String::new()
                    } else {
                        format!(", {already_finished} 個已完成")
                    }
                ),
                format!(
                    "🧪 Running the tests ({rounds} round(s), {cases} cases{})",
                    if already_finished == 0 {
                        String::new()
                    } else {
                        format!(", {already_finished} already finished")
                    }
                ),
            ),
            Event::Reporting => says(
                "\n📊 生成評估報告...".into(),
                "\n📊 Writing the report...".into(),
            ),
            Event::Table(table) => say(table),
            Event::Saved {
                summary,
                quick_view,
            } => {
                says(
                    format!("📋 會話摘要已儲存: {}", shown(summary)),
                    format!("📋 Summary saved: {}", shown(summary)),
                );
                says(
                    format!("🌐 快速檢視已生成: {}", shown(quick_view)),
                    format!("🌐 Quick view written: {}", shown(quick_view)),
                );
            }
            Event::Incomplete {
                finished,
                intended,
                run_dir,
            } => says(
                format!(
                    "⚠️  執行未完成: {finished} of {intended} cases finished; finish it with PROMPTEVAL_RESUME={}",
                    shown(run_dir)
                ),
                format!(
                    "⚠️  Run incomplete: {finished} of {intended} cases finished; finish it with PROMPTEVAL_RESUME={}",
                    shown(run_dir)
                ),
            ),
            Event::Cache(stats) => say(format!(
                "💾 cache: {} hits, {} model calls ({}); PROMPTEVAL_CACHE=off asks the model every time",
                stats.hits,
                stats.misses,
                shown(&stats.dir)
            )),
            Event::TotalTime(secs) => says(
                format!("⏱️  總執行時間: {secs:.2} 秒"),
                format!("⏱️  Total time: {secs:.2} s"),
            ),
            Event::Snapshots { new, changed } => say(snapshot_note(new, changed)),
            Event::Gate(line) => say(line),
            Event::Progress { line, live: false } => eprintln!("{line}"),
            Event::Progress { line, live: true } => {
                let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
                if live.is_none() && !self.live_closed.load(Ordering::Relaxed) {
                    *live = StatusLine::open();
                }
                if let Some(status) = live.as_ref() {
                    status.draw(line);
                }
            }
            Event::ProgressEnd => {
                self.live_closed.store(true, Ordering::Relaxed);
                if let Some(status) = self.live.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    status.close();
                }
            }
            Event::Log(line) => eprint!("{line}"),
            // For the CI job page, not the terminal: see [`JobSummary`].
            Event::StepSummary(_) => {}
            Event::UnderNextest { cases } => eprintln!(
                "prompteval under cargo-nextest: this process runs the whole suite ({cases} cases) as `cargo test --test prompts` would, chains in order with their history, and writes one report; the other test processes wait for their case's verdict"
            ),
        }
    }
}

/// Keeps every event, in order, as its debug form: what a test of the
/// session, the pipeline or the harness asserts on instead of a terminal.
#[derive(Default)]
pub struct Recording {
    events: Mutex<Vec<String>>,
}

impl Recording {
    pub fn events(&self) -> Vec<String> {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Sink for Recording {
    fn event(&self, event: &Event) {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(format!("{event:?}"));
    }
}

impl<S: Sink> Sink for std::sync::Arc<S> {
    fn event(&self, event: &Event) {
        (**self).event(event)
    }
}

/// GitHub Actions' job summary (the file GITHUB_STEP_SUMMARY names): the
/// run's markdown summary is appended to it.
pub struct JobSummary {
    pub file: std::path::PathBuf,
}

impl Sink for JobSummary {
    fn event(&self, event: &Event) {
        if let Event::StepSummary(markdown) = event {
            crate::report::step_summary::append(&self.file, markdown);
        }
    }
}

/// What happened to new and changed replies depends on insta's update mode.
fn snapshot_note(new: usize, changed: usize) -> String {
    let mode = std::env::var("INSTA_UPDATE").unwrap_or_default();
    if mode == "always" || mode == "force" {
        format!(
            "📸 {new} new and {changed} changed replies recorded into the snapshots (INSTA_UPDATE={mode})"
        )
    } else if in_ci() || mode == "no" {
        format!(
            "📸 {new} new and {changed} changed replies (not written: CI or INSTA_UPDATE=no); record them locally"
        )
    } else {
        format!("📸 {new} new and {changed} changed replies await review: `cargo insta review`")
    }
}
