//! The spec §9 comparison table, aligned by display width so CJK headers
//! and prompt names (two columns per character) line up.

use unicode_width::UnicodeWidthStr;

use super::text::{terminal_safe, transfer_lines, versus_text};
use crate::language::{Labels, Language, report as words};
use crate::results::{ModelsSummary, PromptResult, RoundStats, RunSummary, Summary};

/// The spec §9 table with the best prompt line. Runs with several rounds
/// get min/max/stddev columns; an interrupted run gets an INCOMPLETE line
/// above the table.
pub fn terminal_table(summary: &RunSummary, labels: &Labels) -> String {
    match summary {
        RunSummary::OneModel(summary) => model_table(summary, labels),
        RunSummary::Models(summary) => models_table(summary, labels),
    }
}

/// One model's table.
pub fn model_table(summary: &Summary, labels: &Labels) -> String {
    let any = |shown: fn(&PromptResult) -> bool| summary.prompt_results.values().any(shown);
    // Optional columns appear only where some prompt has a value, so a clean
    // one-round run keeps the spec's table exactly: the 95 % interval beside
    // every accuracy that has one, tokens per case where the server reported
    // them, min/max/stddev over several rounds, the note where one is due.
    let intervals = any(|r| r.accuracy_interval.is_some());
    let tokens = any(|r| r.cases_with_tokens > 0);
    let rounds = any(|r| r.rounds.is_some());
    let lang = labels.language;
    let notes = summary
        .prompt_results
        .values()
        .any(|r| !r.flags(lang).is_empty());
    type Cell<'l> = Box<dyn Fn(&PromptResult) -> String + 'l>;
    fn per_round(r: &PromptResult, cell: fn(&RoundStats) -> String) -> String {
        r.rounds.as_ref().map_or_else(|| "-".to_string(), cell)
    }
    let columns: Vec<(&str, Cell)> = [
        (
            true,
            labels.accuracy,
            Box::new(PromptResult::accuracy_text) as Cell,
        ),
        (intervals, "95% CI", Box::new(PromptResult::interval_text)),
        (
            true,
            labels.correct_total,
            Box::new(|r: &PromptResult| format!("{}/{}", r.correct_answers, r.total_questions)),
        ),
        (
            true,
            labels.avg_exec_time,
            Box::new(PromptResult::avg_time_text),
        ),
        (tokens, "tokens/case", Box::new(PromptResult::tokens_text)),
        (
            rounds,
            labels.min,
            Box::new(|r: &PromptResult| per_round(r, |s| format!("{:.1}%", s.min))),
        ),
        (
            rounds,
            labels.max,
            Box::new(|r: &PromptResult| per_round(r, |s| format!("{:.1}%", s.max))),
        ),
        (
            rounds,
            labels.std_dev,
            Box::new(|r: &PromptResult| per_round(r, |s| format!("{:.1}", s.stddev))),
        ),
        (
            notes,
            labels.notes,
            Box::new(move |r: &PromptResult| r.flags(lang)),
        ),
    ]
    .into_iter()
    .filter(|(shown, ..)| *shown)
    .map(|(_, header, cell)| (header, cell))
    .collect();
    let header: Vec<&str> = std::iter::once("Prompt")
        .chain(columns.iter().map(|(header, _)| *header))
        .collect();
    let rows: Vec<Vec<String>> = summary
        .prompt_results
        .iter()
        .map(|(name, r)| {
            std::iter::once(terminal_safe(name))
                .chain(columns.iter().map(|(_, cell)| cell(r)))
                .collect()
        })
        .collect();
    let mut out = warnings_above(summary, labels.notes, labels.language);
    out.push_str(&grid(&header, &rows));
    out.push_str(&pass_at_k_lines(summary));
    out.push_str(&partial_order_lines(summary));
    out.push_str(&super::themes::theme_lines(summary));
    out.push_str(&speed_lines(summary));
    out.push_str(&super::race::race_lines(summary));
    out.push('\n');
    out.push_str(&best_line(summary, labels));
    out
}

/// Each prompt's curves in one line per strategy, least detailed first,
/// and its partial-order violations (report/partial_order.csv has all).
fn partial_order_lines(summary: &Summary) -> String {
    let mut out = String::new();
    for (name, po) in &summary.partial_order {
        out.push_str(&format!(
            "pass@1 by prompt detail, {} (PartialOrderEval; report/partial_order.csv):\n",
            terminal_safe(name)
        ));
        for (strategy, points) in &po.curves {
            let shown: Vec<String> = points
                .iter()
                .map(|p| format!("{} {:.2}", p.label, p.pass_at_1))
                .collect();
            out.push_str(&format!("  {strategy}: {}\n", shown.join(" → ")));
        }
        if let Some(o) = &po.original {
            out.push_str(&format!("  original prompt: {:.2}\n", o.pass_at_1));
        }
        out.push_str(&match po.violations.len() {
            0 => format!(
                "  no partial-order violation beyond noise; {} of {} problems have one of their own\n",
                po.problems_with_violations, po.problems
            ),
            n => format!(
                "  ⚠️  {n} partial-order violation(s) beyond noise ({}); {} of {} problems have one of their own\n",
                po.violations
                    .iter()
                    .map(|v| format!("{} < {}", v.more_detailed, v.less_detailed))
                    .collect::<Vec<_>>()
                    .join(", "),
                po.problems_with_violations,
                po.problems
            ),
        });
        if let Some(line) = po.unqualified_text() {
            out.push_str(&format!("  ⚠️  {}\n", terminal_safe(&line)));
        }
    }
    out
}

/// ParEval's speedup per prompt whose correct C++ cases were timed:
/// reported beside the accuracy, never part of it.
fn speed_lines(summary: &Summary) -> String {
    let timed: Vec<_> = summary
        .prompt_results
        .iter()
        .filter_map(|(name, r)| r.speed.as_ref().map(|s| (name, s)))
        .collect();
    if timed.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "speed of the correct cases (ParEval's T_best / T, from the runs that judged them):\n",
    );
    for (name, speed) in timed {
        out.push_str(&format!("  {}: {}\n", terminal_safe(name), speed.text()));
        if let Some(by_type) = speed.by_type_text() {
            out.push_str(&format!("    {by_type}\n"));
        }
    }
    out
}

/// pass@k with its interval per prompt, when a question had several
/// attempts (rounds or samples); with one attempt pass@1 is the accuracy.
fn pass_at_k_lines(summary: &Summary) -> String {
    let several = summary
        .prompt_results
        .values()
        .any(|r| r.has_pass_at_k_beyond_1());
    if !several {
        return String::new();
    }
    let mut out = String::from("pass@k (95% CI: bootstrap over questions)\n");
    for (name, r) in &summary.prompt_results {
        out.push_str(&format!(
            "  {}: {}\n",
            terminal_safe(name),
            r.pass_at_k_text()
        ));
    }
    out
}

/// Content width per column: the widest cell, and at least one column more
/// than the header, which with the padding reproduces spec §9's widths.
fn column_widths<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>]) -> Vec<usize> {
    header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let widest = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.as_ref().width())
                .max()
                .unwrap_or(0);
            widest.max(h.width() + 1)
        })
        .collect()
}

fn rule(widths: &[usize], fill: char) -> String {
    let mut line = String::from("+");
    for w in widths {
        line.extend(std::iter::repeat_n(fill, w + 3));
        line.push('+');
    }
    line.push('\n');
    line
}

fn row_line<S: AsRef<str>>(cells: &[S], widths: &[usize]) -> String {
    let mut line = String::from("|");
    for (cell, w) in cells.iter().zip(widths) {
        let cell = cell.as_ref();
        let pad = w.saturating_sub(cell.width());
        line.push(' ');
        line.push_str(cell);
        line.extend(std::iter::repeat_n(' ', pad + 2));
        line.push('|');
    }
    line.push('\n');
    line
}

/// A multi-model run: prompt x model accuracy with its interval, then per
/// model its best prompt against its runner-up, then whether the prompts'
/// ranking transfers between the models.
fn models_table(summary: &ModelsSummary, labels: &Labels) -> String {
    let mut prompts: Vec<&String> = Vec::new();
    for results in summary.models.values() {
        for name in results.prompt_results.keys() {
            if !prompts.contains(&name) {
                prompts.push(name);
            }
        }
    }
    let models: Vec<String> = summary.models.keys().map(|m| terminal_safe(m)).collect();
    let header: Vec<&str> = std::iter::once("Prompt")
        .chain(models.iter().map(String::as_str))
        .collect();
    let rows: Vec<Vec<String>> = prompts
        .iter()
        .map(|p| {
            std::iter::once(terminal_safe(p))
                .chain(
                    summary
                        .models
                        .values()
                        .map(|m| match m.prompt_results.get(*p) {
                            Some(r) => {
                                let mut cell = format!(
                                    "{} {} {}/{}",
                                    r.accuracy_text(),
                                    r.interval_text(),
                                    r.correct_answers,
                                    r.total_questions
                                );
                                if r.not_evaluated > 0 {
                                    cell.push_str(&format!(" ⚠ {} n/e", r.not_evaluated));
                                }
                                cell
                            }
                            None => "-".to_string(),
                        }),
                )
                .collect()
        })
        .collect();
    let mut out = warnings_above(&summary.run, "n/e", labels.language);
    out.push_str(&format!(
        "{} x model ({}, 95% CI, {})\n",
        "Prompt", labels.accuracy, labels.correct_total
    ));
    out.push_str(&grid(&header, &rows));
    for (model, results) in &summary.models {
        out.push_str(&format!("{}:\n", terminal_safe(model)));
        let lines = best_line(results, labels)
            + &pass_at_k_lines(results)
            + &partial_order_lines(results)
            + &super::themes::theme_lines(results)
            + &speed_lines(results)
            + &super::race::race_lines(results);
        for line in lines.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out.push_str(&transfer_lines(summary, labels.language));
    out
}

/// A bordered table, aligned by display width.
fn grid<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>]) -> String {
    let widths = column_widths(header, rows);
    let mut out = rule(&widths, '-');
    out.push_str(&row_line(header, &widths));
    out.push_str(&rule(&widths, '='));
    for row in rows {
        out.push_str(&row_line(row, &widths));
    }
    out.push_str(&rule(&widths, '-'));
    out
}

/// The lines above a table: an interrupted run, and cases not evaluated
/// (flagged in the table's `flag` cells).
fn warnings_above(summary: &Summary, flag: &str, lang: Language) -> String {
    let mut out = String::new();
    if !summary.complete {
        out.push_str(&words::incomplete_run(
            lang,
            summary.finished_cases,
            summary.planned_cases,
            summary.budget.as_ref().is_some_and(|b| b.stopped_the_run()),
        ));
        out.push('\n');
    }
    if summary.not_evaluated > 0 {
        out.push_str(&words::not_evaluated(
            lang,
            summary.not_evaluated,
            summary.planned_cases,
            flag,
        ));
        out.push('\n');
    }
    out
}

fn best_line(summary: &Summary, l: &Labels) -> String {
    match &summary.best_prompt {
        Some(best) if !best.tied_with.is_empty() => {
            let mut names = vec![terminal_safe(&best.name)];
            names.extend(best.tied_with.iter().map(|n| terminal_safe(n)));
            format!(
                "🏆 {}: {} ({}, {}: {:.1}%)\n",
                l.best_prompt,
                names.join(" = "),
                l.tie,
                l.accuracy,
                best.accuracy
            )
        }
        Some(best) => {
            let mut line = format!(
                "🏆 {}: {} ({}: {:.1}%)\n",
                l.best_prompt,
                terminal_safe(&best.name),
                l.accuracy,
                best.accuracy
            );
            if let Some(v) = &best.versus_runner_up {
                line.push_str(&format!("   {}\n", versus_text(v, l.language)));
            }
            line
        }
        None => format!("🏆 {}: ({})\n", l.best_prompt, l.no_results),
    }
}
