//! The questions x prompts matrix: a row per question, each cell the
//! attempts passed of evaluated, the widest disagreement between prompts
//! first; a cell links to the question's first case on its page.
//!
//! The quick view shows the first rows (on a large run, only questions
//! where the prompts disagree, at most [`MATRIX_ROWS`]); the rest continue,
//! in the same order, on pages of as many rows (`report/matrix/<n>.html`),
//! so every question is linked while the quick view stays small.

use std::path::Path;

use serde::Serialize;

use super::case_pages::PageIndex;
use super::templates::{self, MATRIX_PAGE, QUICK_VIEW_SCRIPT, href};
use crate::language::report as words;
use crate::report::render::Labels;
use crate::results::run_folder::{MATRIX_PAGES, QUICK_VIEW, write_derived};
use crate::results::summary::MatrixCell as Counts;
use crate::results::{RunInfo, Summary};

/// Most rows a matrix shows at once (the quick view's, or a page's).
pub(super) const MATRIX_ROWS: usize = 400;

#[derive(Serialize)]
pub(super) struct MatrixRow {
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
    /// The question's first case under this prompt, on its page; None when
    /// the prompt has no case of it.
    href: Option<String>,
}

/// The quick view's part of the matrix, and the pages with the rest.
pub(super) struct Matrix {
    pub shown: Vec<MatrixRow>,
    /// The pages' links, from the run folder.
    pub pages: Vec<String>,
    /// Questions on the pages.
    pub more: usize,
}

/// The matrix's rows in order (widest spread first, each group in suite
/// order); writes the pages beyond the quick view's rows into `run_dir`.
pub(super) fn write(
    run_dir: &Path,
    info: &RunInfo,
    summary: &Summary,
    index: &PageIndex,
) -> std::io::Result<Matrix> {
    let folder = run_dir.join(MATRIX_PAGES);
    match std::fs::remove_dir_all(&folder) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut order: Vec<(f64, usize)> = summary
        .matrix
        .iter()
        .enumerate()
        .map(|(i, (_, cells))| (spread(cells), i))
        .collect();
    // Stable: widest disagreements first, each group in suite order.
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let first = if order.len() > MATRIX_ROWS {
        order
            .iter()
            .take_while(|(s, _)| *s > 0.0)
            .take(MATRIX_ROWS)
            .count()
    } else {
        order.len()
    };
    let view = |rows: &[(f64, usize)], up: &[&str]| -> Vec<MatrixRow> {
        rows.iter()
            .map(|&(spread, i)| row(summary, i, spread, index, up))
            .collect()
    };
    let rest: Vec<&[(f64, usize)]> = order[first..].chunks(MATRIX_ROWS).collect();
    if !rest.is_empty() {
        std::fs::create_dir_all(&folder)?;
    }
    let l = Labels::of(info.language);
    for (n, rows) in rest.iter().enumerate() {
        let number = n + 1;
        let neighbour = |m: usize| {
            (1..=rest.len())
                .contains(&m)
                .then(|| href(&[&page_file(m)]))
        };
        let html = templates::render(
            MATRIX_PAGE,
            minijinja::context! {
                l,
                lang => info.language.html_lang(),
                test_id => &info.test_id,
                model => &info.model,
                script_hash => templates::script_source(QUICK_VIEW_SCRIPT),
                script => QUICK_VIEW_SCRIPT,
                quick_view => href(&["..", "..", QUICK_VIEW]),
                page_name => words::page_name(info.language, number),
                previous => neighbour(number - 1),
                next => neighbour(number + 1),
                columns => summary.prompt_results.keys().collect::<Vec<_>>(),
                rows => view(rows, &["..", ".."]),
            },
        )?;
        write_derived(&folder.join(page_file(number)), html.as_bytes())?;
    }
    Ok(Matrix {
        shown: view(&order[..first], &[]),
        pages: (1..=rest.len())
            .map(|n| {
                let mut segments: Vec<&str> = MATRIX_PAGES.split('/').collect();
                let file = page_file(n);
                segments.push(&file);
                href(&segments)
            })
            .collect(),
        more: order.len() - first,
    })
}

fn page_file(number: usize) -> String {
    format!("{number}.html")
}

/// The passed share of each cell (None: no evaluated attempt).
fn shares(cells: &[Counts]) -> impl Iterator<Item = Option<f64>> + '_ {
    cells
        .iter()
        .map(|c| c.filter(|(_, n)| *n > 0).map(|(p, n)| p as f64 / n as f64))
}

fn spread(cells: &[Counts]) -> f64 {
    let seen: Vec<f64> = shares(cells).flatten().collect();
    let hi = seen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = seen.iter().copied().fold(f64::INFINITY, f64::min);
    // No evaluated attempt at all: nothing to disagree on.
    if hi >= lo { hi - lo } else { 0.0 }
}

/// Row `i` of the summary's matrix, its links from `up` below the run folder.
fn row(summary: &Summary, i: usize, spread: f64, index: &PageIndex, up: &[&str]) -> MatrixRow {
    let (question_id, cells) = &summary.matrix[i];
    MatrixRow {
        question_id: question_id.clone(),
        spread,
        spread_text: format!("{:.0}%", spread * 100.0),
        cells: cells
            .iter()
            .zip(shares(cells))
            .enumerate()
            .map(|(column, (c, share))| {
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
                    href: index.first_case(question_id, column, up),
                }
            })
            .collect(),
    }
}
