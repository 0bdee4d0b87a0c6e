//! The race's lines under the table: what was decided, what was not, and
//! the calls it took against the full grid's.

use super::text::terminal_safe;
use crate::results::Summary;
use crate::results::race::RaceResult;

/// The race of one model's summary, when the run was one.
pub fn race_lines(summary: &Summary) -> String {
    summary.race.as_ref().map(lines).unwrap_or_default()
}

fn lines(race: &RaceResult) -> String {
    let ended = match race.ended.as_str() {
        "decided" => format!("decided after {} question(s)", race.questions),
        "max_cases" => format!(
            "stopped at max_cases = {} after {} question(s), not decided",
            race.max_cases.unwrap_or_default(),
            race.questions
        ),
        "unfinished" => format!(
            "UNFINISHED after {} question(s): the run stopped inside the race",
            race.questions
        ),
        _ => format!(
            "the questions ran out after {} question(s), not decided",
            race.questions
        ),
    };
    let mut out = format!(
        "race (alpha {}: a prompt is eliminated once another's e-value over it reaches {}): {ended}; \
         {} of {} calls ({:.1} % of the grid), {} not run\n",
        race.alpha,
        e_text(race.bound),
        race.calls,
        race.grid_calls,
        race.calls_percent(),
        race.not_run.len()
    );
    let width = race
        .prompts
        .keys()
        .map(|n| unicode_width::UnicodeWidthStr::width(terminal_safe(n).as_str()))
        .max()
        .unwrap_or(0);
    for (name, p) in &race.prompts {
        let accuracy = match p.interval {
            Some((lo, hi)) => format!("{:.1}% [{lo:.1}, {hi:.1}]", p.accuracy),
            None => "no judged case".into(),
        };
        let partial = if p.partial { ", partial" } else { "" };
        let standing = match p.status.as_str() {
            "eliminated" => format!(
                "eliminated after {} question(s) by {} (E = {} ≥ {})",
                p.eliminated_after.unwrap_or_default(),
                terminal_safe(p.eliminated_by.as_deref().unwrap_or("?")),
                e_text(p.e_value.unwrap_or_default()),
                e_text(race.bound)
            ),
            "winner" => "winner".to_string(),
            status => match p.e_value {
                Some(e) => format!(
                    "{status} (largest E against it {} < {})",
                    e_text(e),
                    e_text(race.bound)
                ),
                None => format!("{status} (no question separated it from another)"),
            },
        };
        let name = terminal_safe(name);
        let pad = width.saturating_sub(unicode_width::UnicodeWidthStr::width(name.as_str()));
        out.push_str(&format!(
            "  {name}{} {standing}; {accuracy} over {} judged{partial}\n",
            " ".repeat(pad),
            p.judged
        ));
    }
    out
}

/// An e-value for a line: whole numbers when large.
fn e_text(e: f64) -> String {
    if e >= 100.0 {
        format!("{e:.0}")
    } else {
        format!("{e:.1}")
    }
}
