//! The quick view's pages of cases: each prompt's cases of one verdict, in
//! report order, on pages of at most [`CASES_PER_PAGE`] cases and about
//! [`PAGE_BYTES`] (`report/cases/<prompt folder>/<verdict>-<n>.html`).
//! quick_view.html once held every case and grew with the run (19 MB and
//! 10 s to draw at 10,000 cases); split by verdict, the pages are what its
//! filters select, and every case is two clicks away: the quick view lists
//! every page.
//!
//! The pages are written a case at a time as the journal streams, one open
//! page per verdict of the prompt being written; what they hold is kept as
//! a small [`PageIndex`] (a link per page, and where each question's first
//! case is for the matrix) that the quick view is written from afterwards.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use minijinja::Value;
use serde::Serialize;

use super::case_view::case_view;
use super::templates::{self, CASE_PAGE, CASE_PAGE_SCRIPT, CASE_PARTS, href};
use crate::case::{CaseRecord, Verdict};
use crate::language::report as words;
use crate::report::render::Labels;
use crate::results::run_folder::{CASE_PAGES, QUICK_VIEW};
use crate::results::{PromptGroup, RunInfo, Summary};

/// Most cases on one page: a few hundred draw in well under a second.
pub(crate) const CASES_PER_PAGE: usize = 200;
/// A page is closed before a case would take it past this size: a case
/// whose prompt carries a long history is tens of kilobytes.
const PAGE_BYTES: usize = 2_000_000;
/// From a case page (`report/cases/<prompt>/`) up to the run folder.
const UP: [&str; 3] = ["..", "..", ".."];

/// What the pages hold: the quick view links to them from it.
pub(crate) struct PageIndex {
    pub(super) prompts: Vec<PromptPages>,
    /// Question id -> its row in the summary's matrix.
    rows: HashMap<String, usize>,
    /// Prompts of the summary, the matrix's columns.
    columns: usize,
    /// Per matrix row, then prompt: where the question's first case is.
    first: Vec<Option<CaseAt>>,
    /// A multi-model run's model: its cases' names start with it.
    model: Option<String>,
}

/// One prompt's pages, by verdict (correct first, then the failures).
#[derive(Serialize)]
pub(super) struct PromptPages {
    /// 1-based, in summary order: the summary table links to `#prompt-N`.
    pub index: usize,
    pub name: String,
    #[serde(skip)]
    dir: String,
    /// Its column in the summary's matrix.
    #[serde(skip)]
    column: Option<usize>,
    pub template: String,
    pub summary_line: String,
    pub verdicts: Vec<VerdictPages>,
}

#[derive(Serialize)]
pub(super) struct VerdictPages {
    #[serde(skip)]
    of: Verdict,
    pub verdict: &'static str,
    pub cases: usize,
    pub pages: Vec<PageLink>,
}

/// One page, linked from the quick view.
#[derive(Serialize)]
pub(super) struct PageLink {
    /// Relative to the run folder.
    pub href: String,
    pub cases: usize,
    /// The names of its first and last case (the link's title).
    pub first: String,
    pub last: String,
}

/// Where a case is: its page and what its name is made of.
#[derive(Clone, Copy)]
struct CaseAt {
    verdict: Verdict,
    page: usize,
    round: u32,
    sample: Option<u32>,
}

impl PageIndex {
    /// The link to the first case (in report order) of `question_id` under
    /// the `column`th prompt, from a page `up` folders below the run folder.
    pub(super) fn first_case(
        &self,
        question_id: &str,
        column: usize,
        up: &[&str],
    ) -> Option<String> {
        let row = *self.rows.get(question_id)?;
        let at = self
            .first
            .get(row * self.columns + column)
            .copied()
            .flatten()?;
        let prompt = self.prompts.iter().find(|p| p.column == Some(column))?;
        let name = crate::case::test_name(&prompt.name, question_id, at.round, at.sample);
        let name = match &self.model {
            Some(model) => format!("{model}::{name}"),
            None => name,
        };
        let file = page_file(at.verdict, at.page);
        let mut segments: Vec<&str> = up.to_vec();
        segments.extend(CASE_PAGES.split('/'));
        segments.extend([prompt.dir.as_str(), file.as_str()]);
        Some(format!(
            "{}{}",
            href(&segments),
            templates::case_fragment(&name)
        ))
    }
}

fn page_file(verdict: Verdict, number: usize) -> String {
    format!("{}-{number}.html", verdict.as_str())
}

/// The run's facts every page's head shows.
#[derive(Serialize)]
struct RunFacts {
    l: &'static Labels,
    lang: &'static str,
    test_id: String,
    model: String,
    script_hash: String,
    /// 1..=rounds: the round filter's choices.
    round_numbers: Vec<u32>,
    /// The quick view, from a page.
    quick_view: String,
}

/// Writes the pages of cases as the records stream.
pub(crate) struct CasePages {
    folder: PathBuf,
    run: RunFacts,
    /// The parts template, evaluated once: its macros are called per piece.
    parts: minijinja::Captured<'static>,
    prompt: Option<OpenPrompt>,
    index: PageIndex,
    /// The run's questions not in Python, with their language.
    code_languages: std::collections::BTreeMap<String, crate::suite::CodeLanguage>,
}

/// The prompt being written: its index entry and its open pages.
struct OpenPrompt {
    pages: PromptPages,
    open: Vec<(Verdict, OpenPage)>,
}

/// A page being written, through a temp file renamed into place when it
/// closes, so a reader never sees half a page.
struct OpenPage {
    verdict: Verdict,
    number: usize,
    /// The prompt's folder, for the page's link.
    dir: String,
    path: PathBuf,
    tmp: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    bytes: usize,
    cases: usize,
    first: String,
    last: String,
}

impl CasePages {
    /// Starts the pages of `run_dir`'s report, removing those of an earlier
    /// report of the same folder (a resumed or merged run).
    pub fn create(run_dir: &Path, info: &RunInfo, summary: &Summary) -> std::io::Result<CasePages> {
        let folder = run_dir.join(CASE_PAGES);
        match std::fs::remove_dir_all(&folder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let l = Labels::of(info.language);
        let parts = templates::environment()?
            .get_template(CASE_PARTS)
            .and_then(|t| t.render_captured(minijinja::context! { l }))
            .map_err(std::io::Error::other)?;
        let mut quick_view = UP.to_vec();
        quick_view.push(QUICK_VIEW);
        let columns = summary.prompt_results.len();
        Ok(CasePages {
            folder,
            run: RunFacts {
                l,
                lang: info.language.html_lang(),
                test_id: info.test_id.clone(),
                model: info.model.clone(),
                script_hash: templates::script_source(CASE_PAGE_SCRIPT),
                round_numbers: (1..=summary.rounds.max(1)).collect(),
                quick_view: href(&quick_view),
            },
            parts,
            prompt: None,
            index: PageIndex {
                prompts: Vec::new(),
                rows: summary
                    .matrix
                    .iter()
                    .enumerate()
                    .map(|(row, (question, _))| (question.clone(), row))
                    .collect(),
                columns,
                first: vec![None; summary.matrix.len() * columns],
                model: None,
            },
            code_languages: info.code_languages.clone(),
        })
    }

    pub fn start_prompt(&mut self, group: &PromptGroup, summary: &Summary) -> std::io::Result<()> {
        self.end_prompt()?;
        std::fs::create_dir_all(self.folder.join(&group.dir))?;
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
        self.prompt = Some(OpenPrompt {
            pages: PromptPages {
                index: self.index.prompts.len() + 1,
                name: group.name.to_string(),
                dir: group.dir.clone(),
                column: summary.prompt_results.get_index_of(group.name),
                template: group.template.to_string(),
                summary_line,
                verdicts: Vec::new(),
            },
            open: Vec::new(),
        });
        Ok(())
    }

    pub fn case(&mut self, record: &CaseRecord) -> std::io::Result<()> {
        let Some(prompt) = self.prompt.as_mut() else {
            return Err(std::io::Error::other(
                "internal error: a case before its prompt",
            ));
        };
        let lang = self.code_languages.get(&*record.case.question_id);
        let view = case_view(record, lang.copied().unwrap_or_default());
        let mut file = UP.to_vec();
        file.extend([prompt.pages.dir.as_str(), view.file.as_str()]);
        let place = serde_json::json!({ "folder": prompt.pages.dir, "file_href": href(&file) });
        let html = call(
            &self.parts,
            "case",
            &[Value::from_serialize(&view), Value::from_serialize(place)],
        )?;
        let page = prompt.page_for(
            record.verdict,
            html.len(),
            &self.folder,
            &self.run,
            &self.parts,
        )?;
        page.out.write_all(b"\n")?;
        page.out.write_all(html.as_bytes())?;
        page.bytes += html.len() + 1;
        page.cases += 1;
        if page.first.is_empty() {
            page.first.clone_from(&view.name);
        }
        page.last = view.name;
        let at = CaseAt {
            verdict: record.verdict,
            page: page.number,
            round: record.case.round,
            sample: record.case.sample,
        };
        if let Some(column) = prompt.pages.column {
            self.index.note_first(column, &record.case.question_id, at);
        }
        if self.index.model.is_none() {
            self.index.model = record.case.model.as_deref().map(str::to_string);
        }
        Ok(())
    }

    /// Closes the prompt's pages: its entry in the index is complete.
    pub fn end_prompt(&mut self) -> std::io::Result<()> {
        let Some(mut prompt) = self.prompt.take() else {
            return Ok(());
        };
        for (verdict, page) in std::mem::take(&mut prompt.open) {
            let link = close(page, None, &self.parts)?;
            prompt.pages.add(verdict, link);
        }
        prompt.pages.verdicts.sort_by_key(|v| v.of);
        self.index.prompts.push(prompt.pages);
        Ok(())
    }

    /// Every page closed; what they hold.
    pub fn finish(mut self) -> std::io::Result<PageIndex> {
        self.end_prompt()?;
        Ok(self.index)
    }
}

impl PageIndex {
    /// Keeps the first case of a question under a prompt (report order is
    /// round, then sample: the first seen is the lowest).
    fn note_first(&mut self, column: usize, question_id: &str, at: CaseAt) {
        if let Some(&row) = self.rows.get(question_id) {
            if let Some(cell) = self.first.get_mut(row * self.columns + column) {
                cell.get_or_insert(at);
            }
        }
    }
}

impl PromptPages {
    fn add(&mut self, verdict: Verdict, link: PageLink) {
        let at = match self.verdicts.iter().position(|v| v.of == verdict) {
            Some(i) => i,
            None => {
                self.verdicts.push(VerdictPages {
                    of: verdict,
                    verdict: verdict.as_str(),
                    cases: 0,
                    pages: Vec::new(),
                });
                self.verdicts.len() - 1
            }
        };
        let entry = &mut self.verdicts[at];
        entry.cases += link.cases;
        entry.pages.push(link);
    }
}

impl OpenPrompt {
    /// The open page of `verdict` with room for `bytes` more: the current
    /// one, or the next (the current closed with a link to it).
    fn page_for(
        &mut self,
        verdict: Verdict,
        bytes: usize,
        folder: &Path,
        run: &RunFacts,
        parts: &minijinja::Captured<'static>,
    ) -> std::io::Result<&mut OpenPage> {
        let dir = folder.join(&self.pages.dir);
        let i = match self.open.iter().position(|(v, _)| *v == verdict) {
            Some(i) => i,
            None => {
                let page = open(&dir, verdict, 1, &self.pages, run)?;
                self.open.push((verdict, page));
                self.open.len() - 1
            }
        };
        let current = &self.open[i].1;
        let full = current.cases >= CASES_PER_PAGE || current.bytes + bytes > PAGE_BYTES;
        if current.cases > 0 && full {
            let next = open(&dir, verdict, current.number + 1, &self.pages, run)?;
            let next_href = href(&[&page_file(verdict, next.number)]);
            let done = std::mem::replace(&mut self.open[i].1, next);
            let link = close(done, Some(next_href), parts)?;
            self.pages.add(verdict, link);
        }
        Ok(&mut self.open[i].1)
    }
}

/// Opens page `number` of a prompt's `verdict` cases, its head written.
fn open(
    dir: &Path,
    verdict: Verdict,
    number: usize,
    prompt: &PromptPages,
    run: &RunFacts,
) -> std::io::Result<OpenPage> {
    let name = page_file(verdict, number);
    let path = dir.join(&name);
    let tmp = dir.join(format!("{name}.tmp"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    let previous = (number > 1).then(|| href(&[&page_file(verdict, number - 1)]));
    let head = templates::render(
        CASE_PAGE,
        minijinja::context! {
            prompt => Value::from_serialize(prompt),
            verdict => verdict.as_str(),
            page_name => words::page_name(run.l.language, number),
            previous,
            ..Value::from_serialize(run)
        },
    )?;
    out.write_all(head.as_bytes())?;
    Ok(OpenPage {
        verdict,
        number,
        dir: prompt.dir.clone(),
        path,
        tmp,
        out,
        bytes: head.len(),
        cases: 0,
        first: String::new(),
        last: String::new(),
    })
}

/// Writes the page's tail (the links to its neighbours and its script) and
/// moves it into place; its link for the quick view.
fn close(
    mut page: OpenPage,
    next: Option<String>,
    parts: &minijinja::Captured<'static>,
) -> std::io::Result<PageLink> {
    let previous = (page.number > 1).then(|| href(&[&page_file(page.verdict, page.number - 1)]));
    let tail = call(
        parts,
        "page_close",
        &[Value::from_serialize(previous), Value::from_serialize(next)],
    )?;
    page.out.write_all(b"\n")?;
    page.out.write_all(tail.as_bytes())?;
    page.out.write_all(b"\n<script>")?;
    page.out.write_all(CASE_PAGE_SCRIPT.as_bytes())?;
    page.out.write_all(b"</script>\n</body>\n</html>\n")?;
    page.out.flush()?;
    drop(page.out);
    std::fs::rename(&page.tmp, &page.path)?;
    let file = page_file(page.verdict, page.number);
    let mut segments: Vec<&str> = CASE_PAGES.split('/').collect();
    segments.extend([page.dir.as_str(), file.as_str()]);
    Ok(PageLink {
        href: href(&segments),
        cases: page.cases,
        first: page.first,
        last: page.last,
    })
}

fn call(
    parts: &minijinja::Captured<'static>,
    name: &str,
    args: &[Value],
) -> std::io::Result<String> {
    parts
        .state()
        .call_macro(name, args)
        .map_err(std::io::Error::other)
}
