//! The one path for every line the user sees: the session, the pipeline,
//! the harness and the log (every stage's warnings, through tracing) emit
//! [`Event`]s, and every [`Sink`] renders them its own way. [`Console`] is
//! the terminal in the spec §9 wording (or English), with progress lines
//! and the live status line; [`JobSummary`] appends the run's markdown to
//! GitHub's job summary; [`Recording`] keeps them for tests.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::language::{Language, console as words};
use crate::record::journal::TornTail;
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
    /// What the run decided for a model once its server (or its
    /// recordings) said more: a thinking model's budget, one line each.
    Settled(&'a [String]),
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

/// The terminal, in the run's language (language/console.rs words every
/// line).
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
    fn language(&self) -> Language {
        if self.english.load(Ordering::Relaxed) {
            Language::En
        } else {
            Language::Zh
        }
    }

    /// The live status line: drawn in place on a terminal, closed for good
    /// at the run's end.
    fn progress(&self, line: &str) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if live.is_none() && !self.live_closed.load(Ordering::Relaxed) {
            *live = StatusLine::open();
        }
        if let Some(status) = live.as_ref() {
            status.draw(line);
        }
    }

    fn progress_end(&self) {
        self.live_closed.store(true, Ordering::Relaxed);
        if let Some(status) = self.live.lock().unwrap_or_else(|e| e.into_inner()).take() {
            status.close();
        }
    }

    /// The line an event says, if it says one on the terminal. Long as a
    /// table is: one arm per event, each handing its fields to its wording.
    fn line(&self, event: &Event) -> Option<String> {
        let lang = self.language();
        Some(match *event {
            Event::Starting {
                prompts,
                questions,
                suite,
                settings,
                ..
            } => {
                let mut lines = vec![
                    words::starting(lang),
                    words::loaded(lang, prompts, questions, &shown(suite)),
                ];
                // What the suite set, with where each value came from.
                lines.extend(settings.iter().map(|line| format!("⚙️  {line}")));
                lines.join("\n")
            }
            Event::Settled(lines) if !lines.is_empty() => lines
                .iter()
                .map(|line| format!("⚙️  {line}"))
                .collect::<Vec<_>>()
                .join("\n"),
            Event::Settled(_) => return None,
            Event::Replaying {
                why,
                recorded,
                model,
                dir,
                origin,
            } => words::replaying(
                lang,
                &words::Replay {
                    why,
                    recorded,
                    model,
                    dir: &shown(dir),
                    origin,
                },
            ),
            Event::Unmatched {
                missing,
                selected,
                lines,
            } => words::unmatched(lang, missing, selected, lines),
            Event::NothingSelected { line } | Event::Table(line) | Event::Gate(line) => {
                line.to_string()
            }
            Event::RunFolder(dir) => words::run_folder(lang, &shown(dir)),
            Event::CutReplies { replies, limit } => words::cut_replies(lang, replies, limit),
            Event::NoAnswer { cases, limit } => words::no_answer(lang, cases, limit),
            Event::Retrying {
                errors,
                later_in_chain,
            } => words::retrying(lang, errors, later_in_chain),
            Event::TornJournal { journal, tail } => words::torn_journal(
                lang,
                &shown(journal),
                match tail {
                    TornTail::Cut(bytes) => Some(bytes),
                    TornTail::Completed => None,
                },
            ),
            Event::Testing {
                rounds,
                cases,
                already_finished,
            } => words::testing(lang, rounds, cases, already_finished),
            Event::Reporting => words::reporting(lang),
            Event::Saved {
                summary,
                quick_view,
            } => format!(
                "{}\n{}",
                words::summary_saved(lang, &shown(summary)),
                words::quick_view_written(lang, &shown(quick_view))
            ),
            Event::Incomplete {
                finished,
                intended,
                run_dir,
            } => words::incomplete(lang, finished, intended, &shown(run_dir)),
            Event::Cache(stats) => words::cache(lang, stats.hits, stats.misses, &shown(&stats.dir)),
            Event::TotalTime(secs) => words::total_time(lang, secs),
            Event::Snapshots { new, changed } => {
                words::snapshots(lang, new, changed, &snapshot_fate())
            }
            // Not lines of the terminal's own: see [`Console::event`] and
            // [`JobSummary`].
            Event::Progress { .. }
            | Event::ProgressEnd
            | Event::Log(_)
            | Event::StepSummary(_)
            | Event::UnderNextest { .. } => return None,
        })
    }
}

impl Sink for Console {
    fn event(&self, event: &Event) {
        if let Event::Starting { language, .. } = event {
            self.english
                .store(*language == Language::En, Ordering::Relaxed);
        }
        match *event {
            Event::Progress { line, live: false } => eprintln!("{line}"),
            Event::Progress { line, live: true } => self.progress(line),
            Event::ProgressEnd => self.progress_end(),
            Event::Log(line) => eprint!("{line}"),
            // For the CI job page, not the terminal: see [`JobSummary`].
            Event::StepSummary(_) => {}
            // On stderr: libtest owns stdout under nextest.
            Event::UnderNextest { cases } => {
                eprintln!("{}", words::under_nextest(self.language(), cases))
            }
            _ => {
                if let Some(line) = self.line(event) {
                    say(line);
                }
            }
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

/// What insta does with new and changed replies, by its update mode.
fn snapshot_fate() -> words::SnapshotFate {
    let mode = std::env::var("INSTA_UPDATE").unwrap_or_default();
    if mode == "always" || mode == "force" {
        words::SnapshotFate::Written(mode)
    } else if in_ci() || mode == "no" {
        words::SnapshotFate::Held
    } else {
        words::SnapshotFate::AwaitReview
    }
}
