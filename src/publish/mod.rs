//! Journal records -> the files of a run folder and the terminal table.
//!
//! Layout written by [`write_all`] (spec §8.1), beside the existing
//! `journal.jsonl`, which is never touched:
//!
//! ```text
//! <run_dir>/summary.json                 spec §8.3 fields + run facts
//! <run_dir>/quick_view.html              self-contained, escaped, CSP-locked
//! <run_dir>/report/cases/<prompt>/<verdict>-<n>.html   its pages of cases
//! <run_dir>/report/matrix/<n>.html       its matrix beyond the first rows
//! <run_dir>/<prompt>/question_N.py       round 1 (and single-round runs);
//!                                        `.cpp` for a C++ question
//! <run_dir>/<prompt>/question_N_round_R.py   rounds R > 1
//! <run_dir>/report/detailed_report.json  run info + every record
//! <run_dir>/report/summary.csv           one row per prompt
//! <run_dir>/report/cases.csv             one row per case
//! ```
//!
//! Decisions a reader of the files needs to know:
//! - Rounds: round 1 keeps the spec's `question_N.py` so single-round runs
//!   look exactly like spec §8.1; later rounds sit beside it as
//!   `question_N_round_R.py`, which sorts next to its round-1 sibling.
//! - A prompt with no records (filtered out, or never reached before an
//!   interruption) is omitted from every output: a 0/0 line would read as
//!   0 % accuracy and could win or lose a gate it never took part in.
//!   `complete: false` (INCOMPLETE) says the run stopped early.
//! - Records of a prompt missing from `RunInfo::prompts` are kept, after the
//!   suite's prompts, in first-seen order: no result is silently dropped.
//! - Two records with the same [`CaseId`](crate::case::CaseId) count once (the
//!   later one wins), so a resumed journal cannot inflate totals.
//! - A prompt's folder is its name when that is a safe single path component;
//!   otherwise (or when it would collide with `report/`) a sanitised name.

mod models;

use std::path::{Path, PathBuf};

use crate::analysis::prompt_results::{self, Tally};
use crate::case::CaseRecord;
use crate::results::groups::{group_records, groups, unknown_prompts};
use crate::results::run_folder::{self, write_derived};
use crate::results::{Cases, PromptGroup, RunInfo, RunSummary, Summary};

use crate::report::render::{Labels, case_file, files, html, junit};

/// Where the report files were written.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub summary_json: PathBuf,
    pub quick_view: PathBuf,
    pub detailed_report: PathBuf,
    pub summary_csv: PathBuf,
    pub cases_csv: PathBuf,
    /// report/junit.xml: one testcase per case, for CI test views.
    pub junit_xml: PathBuf,
    /// report/partial_order.csv, in a run of prompt variants.
    pub partial_order_csv: Option<PathBuf>,
    /// report/themes.csv, in a run whose variants are labeled.
    pub themes_csv: Option<PathBuf>,
    /// How many `<prompt>/question_N[_round_R].py` (or `.cpp`) files were written
    /// (counted, not listed: a list held every path of a large run).
    pub case_files: usize,
}

/// Writes summary.json, report/detailed_report.json, report/summary.csv,
/// report/cases.csv, `<prompt>/question_N.py` and quick_view.html into
/// `run_dir`, which must exist, from records held in memory.
pub fn write_all(
    run_dir: &Path,
    info: &RunInfo,
    records: &[CaseRecord],
) -> std::io::Result<(Summary, Written)> {
    let groups = group_records(info, records);
    write(run_dir, info, &groups, &Records::Memory)
}

/// The same files from the run folder's journal, one record at a time: a
/// run of any size never holds every reply, prompt and output at once.
/// A multi-model run gets each model's report in its folder and the
/// run's [`crate::results::ModelsSummary`] across them.
pub fn write_from_journal(
    run_dir: &Path,
    info: &RunInfo,
) -> std::io::Result<(RunSummary, Written)> {
    write_from_index(run_dir, info, &crate::record::journal::index(run_dir)?)
}

/// [`write_from_journal`] with the journal's index in hand (the session
/// has read it already: a second one would double what the report holds).
pub fn write_from_index(
    run_dir: &Path,
    info: &RunInfo,
    index: &crate::record::journal::Index,
) -> std::io::Result<(RunSummary, Written)> {
    if !info.models.is_empty() {
        let (summary, written) =
            models::write_models(run_dir, info, &index.entries, &index.templates)?;
        return Ok((RunSummary::Models(summary), written));
    }
    let extra = unknown_prompts(
        info,
        index
            .templates
            .iter()
            .map(|(prompt, template)| (prompt.as_str(), template.as_str())),
    );
    let located = index
        .entries
        .iter()
        .map(|e| (&e.case, (e.offset, e.len)))
        .collect();
    let groups = groups(info, extra, located, Cases::Journal);
    let reader = crate::record::journal::Reader::open(run_dir)?;
    let (summary, written) = write(run_dir, info, &groups, &Records::Journal(reader))?;
    Ok((RunSummary::OneModel(summary), written))
}

/// Where a group's records are read from.
enum Records {
    Memory,
    Journal(crate::record::journal::Reader),
}

impl Records {
    /// Calls `f` with each record of `group`, in report order.
    fn each(
        &self,
        group: &PromptGroup,
        mut f: impl FnMut(&CaseRecord) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match (&group.cases, self) {
            (Cases::Memory(cases), _) => cases.iter().try_for_each(|c| f(c)),
            (Cases::Journal(at), Records::Journal(reader)) => at
                .iter()
                .try_for_each(|&(offset, len)| f(&reader.record_at(offset, len)?)),
            (Cases::Journal(_), Records::Memory) => Err(std::io::Error::other(
                "internal error: journal cases without a journal",
            )),
        }
    }
}

/// Tallies every group (first pass), then writes every file (second pass).
fn write(
    run_dir: &Path,
    info: &RunInfo,
    groups: &[PromptGroup],
    records: &Records,
) -> std::io::Result<(Summary, Written)> {
    let summary = summarize(info, groups, records, |_| {})?;
    let written = write_files(run_dir, info, groups, records, &summary)?;
    Ok((summary, written))
}

/// The first pass: every group's records tallied into one model's summary.
/// `also` sees each record too, so a step that needs more from the records
/// (a multi-model run's outcomes) takes it from the same pass.
fn summarize(
    info: &RunInfo,
    groups: &[PromptGroup],
    records: &Records,
    mut also: impl FnMut(&CaseRecord),
) -> std::io::Result<Summary> {
    let mut tallies = Vec::with_capacity(groups.len());
    for group in groups {
        let mut tally = Tally::default();
        records.each(group, |r| {
            tally.add(r);
            also(r);
            Ok(())
        })?;
        tallies.push(tally);
    }
    let names: Vec<&str> = groups.iter().map(|g| g.name).collect();
    Ok(prompt_results::summarize(info, &names, &tallies))
}

/// The second pass: every file of one model's report, each written once,
/// from its finished summary.
fn write_files(
    run_dir: &Path,
    info: &RunInfo,
    groups: &[PromptGroup],
    records: &Records,
    summary: &Summary,
) -> std::io::Result<Written> {
    let report_dir = run_dir.join("report");
    std::fs::create_dir_all(&report_dir)?;
    let summary_json = run_dir.join(run_folder::SUMMARY);
    run_folder::write_json(&summary_json, summary)?;
    let summary_csv = report_dir.join("summary.csv");
    files::write_summary_csv(&summary_csv, summary)?;
    let partial_order_csv =
        (!summary.partial_order.is_empty()).then(|| report_dir.join("partial_order.csv"));
    if let Some(path) = &partial_order_csv {
        files::write_partial_order_csv(path, summary)?;
    }
    let themes_csv = (!summary.themes.is_empty()).then(|| report_dir.join("themes.csv"));
    if let Some(path) = &themes_csv {
        crate::report::render::themes::write_themes_csv(path, summary)?;
    }
    let mut per_case = PerCaseFiles::create(run_dir, info, summary)?;
    let case_files = per_case.stream(run_dir, info, groups, records, summary)?;
    Ok(Written {
        summary_json,
        summary_csv,
        partial_order_csv,
        themes_csv,
        case_files,
        ..per_case.finish(info, summary)?
    })
}

/// What the case pages' thread is given, in report order.
enum PageWork<'a> {
    Start(&'a PromptGroup<'a>),
    Case(Box<CaseRecord>),
    End,
}

/// The files written a case at a time: detailed_report.json, cases.csv,
/// the quick view's pages of cases and junit.xml (the case pages and the
/// `.py` files on threads of their own); quick_view.html is written last,
/// from the pages' index.
struct PerCaseFiles {
    detailed: files::DetailedWriter,
    cases: files::CasesCsv,
    pages: html::CasePages,
    junit: junit::JunitWriter,
    paths: Written,
}

impl PerCaseFiles {
    fn create(run_dir: &Path, info: &RunInfo, summary: &Summary) -> std::io::Result<Self> {
        let report_dir = run_dir.join("report");
        let paths = Written {
            summary_json: PathBuf::new(),
            quick_view: run_dir.join(run_folder::QUICK_VIEW),
            detailed_report: report_dir.join("detailed_report.json"),
            summary_csv: PathBuf::new(),
            cases_csv: report_dir.join("cases.csv"),
            junit_xml: report_dir.join("junit.xml"),
            partial_order_csv: None,
            themes_csv: None,
            case_files: 0,
        };
        Ok(PerCaseFiles {
            detailed: files::DetailedWriter::create(
                &paths.detailed_report,
                info,
                summary.finished_cases,
            )?,
            cases: files::CasesCsv::create(&paths.cases_csv)?,
            pages: html::CasePages::create(run_dir, info, summary)?,
            junit: junit::JunitWriter::new(info)?,
            paths,
        })
    }

    /// Streams every group's records into the files; the case pages (half
    /// of a report's time: each case's code highlighted and rendered) and
    /// each case's `.py` file go to threads of their own: creating a
    /// thousand files is mostly inode allocation, and the run's other cores
    /// are idle by now. The channels are bounded, so at most a few records
    /// are held at once. Returns the case files written.
    fn stream(
        &mut self,
        run_dir: &Path,
        info: &RunInfo,
        groups: &[PromptGroup],
        records: &Records,
        summary: &Summary,
    ) -> std::io::Result<usize> {
        let (to_writer, cases_to_write) = std::sync::mpsc::sync_channel::<(PathBuf, String)>(64);
        let (to_pages, pages_to_render) = std::sync::mpsc::sync_channel::<PageWork>(64);
        let PerCaseFiles {
            detailed,
            cases,
            pages,
            junit,
            ..
        } = self;
        std::thread::scope(|scope| -> std::io::Result<usize> {
            let writer = scope.spawn(move || -> std::io::Result<usize> {
                let mut written = 0;
                for (path, text) in cases_to_write {
                    write_derived(&path, text.as_bytes())?;
                    written += 1;
                }
                Ok(written)
            });
            let renderer = scope.spawn(move || -> std::io::Result<()> {
                for work in pages_to_render {
                    match work {
                        PageWork::Start(group) => pages.start_prompt(group, summary)?,
                        PageWork::Case(record) => pages.case(&record)?,
                        PageWork::End => pages.end_prompt()?,
                    }
                }
                Ok(())
            });
            let labels = Labels::of(info.language);
            // A closed channel means its thread failed: its error is the
            // one reported below.
            let mut main = || -> std::io::Result<()> {
                for group in groups {
                    detailed.start_prompt(group)?;
                    junit.start_prompt(group.name)?;
                    let _ = to_pages.send(PageWork::Start(group));
                    let dir = run_dir.join(&group.dir);
                    std::fs::create_dir_all(&dir)?;
                    records.each(group, |r| {
                        detailed.case(r)?;
                        cases.case(r)?;
                        junit.case(r)?;
                        let _ = to_pages.send(PageWork::Case(Box::new(r.clone())));
                        let lang = info.code_language(&r.case.question_id);
                        let _ = to_writer.send(case_file::case_file(&dir, r, lang, labels));
                        Ok(())
                    })?;
                    if let Some(race) = &summary.race {
                        for name in race.not_run_of(group.name) {
                            junit.not_run(group.name, name, &race.why_not_run(group.name))?;
                        }
                    }
                    if let Some(budget) = &summary.budget {
                        let why = budget
                            .stopped
                            .as_deref()
                            .unwrap_or("the budget stopped the run");
                        for name in budget.not_run_of(group.name) {
                            junit.not_run(group.name, name, why)?;
                        }
                    }
                    detailed.end_prompt()?;
                    junit.end_prompt()?;
                    let _ = to_pages.send(PageWork::End);
                }
                Ok(())
            };
            let streamed = main();
            drop(to_writer);
            drop(to_pages);
            let files = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the case files' writer panicked")));
            let rendered = renderer.join().unwrap_or_else(|_| {
                Err(std::io::Error::other("the case pages' renderer panicked"))
            });
            streamed?;
            rendered?;
            files
        })
    }

    /// Closes every file, then writes quick_view.html; their paths.
    fn finish(self, info: &RunInfo, summary: &Summary) -> std::io::Result<Written> {
        self.detailed.finish()?;
        self.cases.finish()?;
        let index = self.pages.finish()?;
        html::quick_view::write(&self.paths.quick_view, info, summary, &index)?;
        self.junit.finish(&self.paths.junit_xml)?;
        Ok(self.paths)
    }
}
