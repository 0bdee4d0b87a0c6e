//! The run in markdown for GitHub Actions' job summary: appended to the
//! file `GITHUB_STEP_SUMMARY` names, when it is set (as Actions sets it
//! for every step). The table, the intervals, pass@k, the best prompt
//! against the runner-up, what was not evaluated, and the gate's result.

use std::io::Write;
use std::path::Path;

use super::text::versus_text;
use crate::analysis::gate::GateReport;
use crate::language::{Labels, Language, gate as words, report};
use crate::results::{ModelsSummary, RunSummary, Summary};

/// `GITHUB_STEP_SUMMARY`'s content for this run, in the run's language.
pub fn markdown(summary: &RunSummary, gate: Option<&GateReport>, labels: &Labels) -> String {
    match summary {
        RunSummary::OneModel(summary) => model_markdown(summary, gate, labels),
        RunSummary::Models(summary) => models_markdown(summary, gate, labels),
    }
}

/// One model's section.
fn model_markdown(summary: &Summary, gate: Option<&GateReport>, labels: &Labels) -> String {
    let lang = labels.language;
    let mut out = format!("## prompteval · {}\n\n", summary.test_id);
    out.push_str(&format!(
        "{} `{}` · backend {} · suite `{}` · {}\n\n",
        labels.model,
        summary.model,
        summary.backend,
        summary.suite,
        report::cases_finished(lang, summary.finished_cases, summary.planned_cases)
    ));
    if !summary.complete {
        let banner = report::incomplete_banner(
            lang,
            summary.finished_cases,
            summary.planned_cases,
            summary.budget.as_ref().is_some_and(|b| b.stopped_the_run()),
        );
        out.push_str(&format!("> [!WARNING]\n> {banner}\n\n"));
    }
    if summary.not_evaluated > 0 {
        let banner = report::not_evaluated(
            lang,
            summary.not_evaluated,
            summary.planned_cases,
            labels.notes,
        );
        out.push_str(&format!("> [!WARNING]\n> {banner}\n\n"));
    }
    let pass_at_k = summary
        .prompt_results
        .values()
        .any(|r| r.has_pass_at_k_beyond_1());
    out.push_str(&format!(
        "| Prompt | {} | 95% CI | {} |",
        labels.accuracy, labels.correct_total
    ));
    out.push_str(if pass_at_k { " pass@k [95% CI] |" } else { "" });
    out.push_str(&format!(" gate | {} |\n|---|---:|---|---:|", labels.notes));
    out.push_str(if pass_at_k { "---|" } else { "" });
    out.push_str("---|---|\n");
    for (name, r) in &summary.prompt_results {
        let gate_cell = match (r.threshold, r.gate_passed) {
            (Some(t), Some(true)) => format!("✅ ≥ {t:.1}%"),
            (Some(t), _) => format!("❌ < {t:.1}%"),
            (None, _) => "-".to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {}/{} |",
            cell(name),
            r.accuracy_text(),
            r.interval_text(),
            r.correct_answers,
            r.total_questions
        ));
        if pass_at_k {
            out.push_str(&format!(" {} |", cell(&r.pass_at_k_text())));
        }
        out.push_str(&format!(
            " {gate_cell} | {} |\n",
            cell(&r.warnings_in(lang).join("; "))
        ));
    }
    out.push('\n');
    if let Some(best) = &summary.best_prompt {
        out.push_str(&format!(
            "🏆 {}: **{}** ({:.1}%)",
            labels.best_prompt,
            cell(&best.name),
            best.accuracy
        ));
        if let Some(v) = &best.versus_runner_up {
            out.push_str(&format!(" · {}", cell(&versus_text(v, lang))));
        }
        out.push_str("\n\n");
    }
    // The race's standing, as the terminal shows it under the table.
    let race = super::race::race_lines(summary);
    if !race.is_empty() {
        out.push_str(&format!("```text\n{race}```\n\n"));
    }
    // The budget's spending against the plan and the caps.
    if let Some(lines) = summary
        .budget
        .as_ref()
        .map(super::budget::budget_lines)
        .filter(|l| !l.is_empty())
    {
        out.push_str(&format!("```text\n{lines}```\n\n"));
    }
    out.push_str(&gate_markdown(gate, lang));
    out
}

// The gate's own lines are its report's (the same in the terminal).
fn gate_markdown(gate: Option<&GateReport>, lang: Language) -> String {
    let Some(g) = gate else {
        return format!("{}\n\n", words::no_gate(lang));
    };
    let mut out = String::from(if g.passed() {
        "**gate: passed**\n\n"
    } else {
        "**gate: FAILED**\n\n"
    });
    // Every check, passed ones too: a baseline's "within noise" is news.
    for line in g.lines(lang) {
        out.push_str(&format!("- {}\n", cell(&line)));
    }
    out.push('\n');
    out
}

/// A multi-model run: each model's section (as a one-model run's), then
/// the gate over all of them.
fn models_markdown(summary: &ModelsSummary, gate: Option<&GateReport>, labels: &Labels) -> String {
    let mut out = format!(
        "## prompteval · {} · {} models\n\n",
        summary.run.test_id,
        summary.models.len()
    );
    let no_gate = gate_markdown(None, labels.language);
    for results in summary.models.values() {
        // Each model's section one heading level down, the gate once below.
        let section = model_markdown(results, None, labels).replacen(
            "## prompteval ·",
            "### prompteval ·",
            1,
        );
        out.push_str(section.strip_suffix(&no_gate).unwrap_or(&section));
    }
    out.push_str(&gate_markdown(gate, labels.language));
    out
}

/// Appends to the summary file; a missing or unwritable one is a warning,
/// never a failed run.
pub fn append(path: &Path, text: &str) {
    let result = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = result {
        tracing::warn!(file = %path.display(), "cannot append the job summary to GITHUB_STEP_SUMMARY: {e}");
    }
}

/// Text safe inside a markdown table cell: no pipes, no line breaks, no
/// markup from a prompt's name.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace(['\n', '\r'], " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
