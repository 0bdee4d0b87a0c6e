//! The machine-readable files: summary.json, report/detailed_report.json,
//! report/summary.csv and report/cases.csv.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::case::{CaseRecord, Verdict};
use crate::results::run_folder::{Staged, write_atomically};
use crate::results::summary::failure_verdicts;
use crate::results::{ModelsSummary, PromptGroup, PromptResult, RunInfo, Summary};

/// report/detailed_report.json, one record at a time:
/// `{"run": ..., "finished_cases": N, "prompts": [{"name", "template",
/// "folder", "cases": [...]}]}`.
pub(crate) struct DetailedWriter {
    staged: Staged,
    out: std::io::BufWriter<File>,
    prompts: usize,
    cases_in_prompt: usize,
}

impl DetailedWriter {
    pub fn create(path: &Path, info: &RunInfo, finished: usize) -> std::io::Result<DetailedWriter> {
        let (staged, mut out) = Staged::create(path)?;
        out.write_all(b"{\n  \"run\": ")?;
        serde_json::to_writer(&mut out, info)?;
        write!(
            out,
            ",\n  \"finished_cases\": {finished},\n  \"prompts\": ["
        )?;
        Ok(DetailedWriter {
            staged,
            out,
            prompts: 0,
            cases_in_prompt: 0,
        })
    }

    pub fn start_prompt(&mut self, group: &PromptGroup) -> std::io::Result<()> {
        if self.prompts > 0 {
            self.out.write_all(b",")?;
        }
        self.prompts += 1;
        self.cases_in_prompt = 0;
        self.out.write_all(b"\n    {\"name\": ")?;
        serde_json::to_writer(&mut self.out, group.name)?;
        self.out.write_all(b", \"template\": ")?;
        serde_json::to_writer(&mut self.out, group.template)?;
        self.out.write_all(b", \"folder\": ")?;
        serde_json::to_writer(&mut self.out, &group.dir)?;
        self.out.write_all(b", \"cases\": [")
    }

    pub fn case(&mut self, record: &CaseRecord) -> std::io::Result<()> {
        if self.cases_in_prompt > 0 {
            self.out.write_all(b",")?;
        }
        self.cases_in_prompt += 1;
        self.out.write_all(b"\n      ")?;
        serde_json::to_writer(&mut self.out, record)?;
        Ok(())
    }

    pub fn end_prompt(&mut self) -> std::io::Result<()> {
        self.out.write_all(b"]}")
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.write_all(b"\n  ]\n}\n")?;
        self.staged.finish(self.out)
    }
}

fn has_rounds(summary: &Summary) -> bool {
    summary.prompt_results.values().any(|r| r.rounds.is_some())
}

pub(crate) fn write_summary_csv(path: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    let rounds = has_rounds(summary);
    let verdicts = failure_verdicts(summary.prompt_results.values());
    out.write_record(summary_header(rounds, &verdicts))?;
    for (name, result) in &summary.prompt_results {
        out.write_record(summary_row(name, result, rounds, &verdicts))?;
    }
    finish_csv(path, out)
}

/// A multi-model run's report/summary.csv: summary.csv's columns after a
/// `model` column, a row per model and prompt.
pub(crate) fn write_models_csv(path: &Path, summary: &ModelsSummary) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    let rounds = summary.models.values().any(has_rounds);
    let verdicts = failure_verdicts(
        summary
            .models
            .values()
            .flat_map(|m| m.prompt_results.values()),
    );
    let mut header = vec!["model".to_string()];
    header.extend(summary_header(rounds, &verdicts));
    out.write_record(&header)?;
    for (model, results) in &summary.models {
        for (name, result) in &results.prompt_results {
            let mut row = vec![spreadsheet_safe(model)];
            row.extend(summary_row(name, result, rounds, &verdicts));
            out.write_record(&row)?;
        }
    }
    finish_csv(path, out)
}

fn summary_header(rounds: bool, verdicts: &[Verdict]) -> Vec<String> {
    let mut header: Vec<String> = [
        "prompt",
        "accuracy",
        "correct",
        "total",
        "avg_execution_time",
    ]
    .map(String::from)
    .to_vec();
    header.extend(verdicts.iter().map(|v| v.as_str().to_string()));
    if rounds {
        header.extend(
            [
                "rounds",
                "round_mean",
                "round_min",
                "round_max",
                "round_stddev",
            ]
            .map(String::from),
        );
    }
    header
}

fn summary_row(
    name: &str,
    result: &PromptResult,
    rounds: bool,
    verdicts: &[Verdict],
) -> Vec<String> {
    let mut row = vec![
        spreadsheet_safe(name),
        result
            .accuracy
            .map_or_else(String::new, |a| format!("{a:.1}")),
        result.correct_answers.to_string(),
        result.total_questions.to_string(),
        result
            .avg_execution_time
            .map_or_else(String::new, |t| format!("{t:.2}")),
    ];
    row.extend(verdicts.iter().map(|v| {
        let count = result.error_breakdown.get(v.as_str()).copied().unwrap_or(0);
        count.to_string()
    }));
    if rounds {
        row.extend(match &result.rounds {
            Some(s) => vec![
                s.count.to_string(),
                format!("{:.1}", s.mean),
                format!("{:.1}", s.min),
                format!("{:.1}", s.max),
                format!("{:.1}", s.stddev),
            ],
            None => vec![String::new(); 5],
        });
    }
    row
}

/// report/cases.csv, one row per case, as the cases come.
pub(crate) struct CasesCsv {
    staged: Staged,
    out: csv::Writer<std::io::BufWriter<File>>,
}

impl CasesCsv {
    pub fn create(path: &Path) -> std::io::Result<CasesCsv> {
        let (staged, writer) = Staged::create(path)?;
        let mut out = csv::Writer::from_writer(writer);
        out.write_record([
            "prompt",
            "question",
            "question_id",
            "round",
            // Empty in a run without samples.
            "sample",
            "verdict",
            "expected",
            "actual",
            "exec_secs",
            "llm_secs",
        ])?;
        Ok(CasesCsv { staged, out })
    }

    pub fn case(&mut self, case: &CaseRecord) -> std::io::Result<()> {
        self.out.write_record([
            spreadsheet_safe(&case.case.prompt),
            case.case.question.to_string(),
            spreadsheet_safe(&case.case.question_id),
            case.case.round.to_string(),
            case.case.sample.map(|s| s.to_string()).unwrap_or_default(),
            case.verdict.as_str().to_string(),
            spreadsheet_safe(&case.expected),
            spreadsheet_safe(&case.actual),
            format!("{:.3}", case.exec_secs),
            format!("{:.3}", case.llm_secs),
        ])?;
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<()> {
        let writer = self.out.into_inner().map_err(|e| e.into_error())?;
        self.staged.finish(writer)
    }
}

/// report/partial_order.csv: every point of every curve (p_bot and p_top
/// in each strategy's rows) and the original prompt (strategy `original`),
/// the numbers quick_view.html draws.
pub(crate) fn write_partial_order_csv(path: &Path, summary: &Summary) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "prompt",
        "strategy",
        "label",
        "level",
        "detail",
        "problems",
        "attempts",
        "passed",
        "pass_at_1",
        "ci_low",
        "ci_high",
    ])?;
    for (prompt, po) in &summary.partial_order {
        let rows = po
            .curves
            .iter()
            .flat_map(|(strategy, points)| points.iter().map(move |p| (strategy.as_str(), p)))
            .chain(po.original.iter().map(|p| ("original", p)));
        for (strategy, p) in rows {
            let interval = |i: usize| p.interval.map(|v| v[i].to_string()).unwrap_or_default();
            out.write_record([
                spreadsheet_safe(prompt),
                strategy.to_string(),
                p.label.clone(),
                p.level.map(|l| l.to_string()).unwrap_or_default(),
                p.detail.to_string(),
                p.problems.to_string(),
                p.attempts.to_string(),
                p.passed.to_string(),
                p.pass_at_1.to_string(),
                interval(0),
                interval(1),
            ])?;
        }
    }
    finish_csv(path, out)
}

pub(crate) fn finish_csv(path: &Path, out: csv::Writer<Vec<u8>>) -> std::io::Result<()> {
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    write_atomically(path, &bytes)
}

/// Model output opened in a spreadsheet must not run as a formula
/// (`=HYPERLINK(...)`, `@SUM(...)`): such cells get a leading `'`, the
/// OWASP-recommended guard. Plain numbers like `-1` are left alone because
/// they are answers, not formulas; detailed_report.json keeps raw values.
pub(crate) fn spreadsheet_safe(value: &str) -> String {
    let risky = value.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if risky && value.trim().parse::<f64>().is_err() {
        format!("'{value}")
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreadsheet_guard_keeps_numbers() {
        assert_eq!(spreadsheet_safe("-1"), "-1");
        assert_eq!(spreadsheet_safe("+3.5"), "+3.5");
        assert_eq!(
            spreadsheet_safe("-1+cmd|' /C calc'!A0"),
            "'-1+cmd|' /C calc'!A0"
        );
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("[0, 1]"), "[0, 1]");
    }
}
