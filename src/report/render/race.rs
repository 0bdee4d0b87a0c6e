//! The race's lines under the table: what was decided, what was not, and
//! the calls it took against the full grid's.

use super::text::terminal_safe;
use crate::race::rule::e_text;
use crate::results::Summary;
use crate::results::race::{RaceEnd, RaceResult, RaceStatus};

/// The race of one model's summary, when the run was one.
pub fn race_lines(summary: &Summary) -> String {
    summary.race.as_ref().map(lines).unwrap_or_default()
}

fn lines(race: &RaceResult) -> String {
    let ended = match race.ended {
        RaceEnd::Decided => format!("decided after {} question(s)", race.questions),
        RaceEnd::MaxCases => format!(
            "stopped at max_cases = {} after {} question(s), not decided",
            race.max_cases.unwrap_or_default(),
            race.questions
        ),
        RaceEnd::Unfinished => format!(
            "UNFINISHED after {} question(s): the run stopped inside the race",
            race.questions
        ),
        RaceEnd::QuestionsRanOut => format!(
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
        100.0 * race.calls as f64 / race.grid_calls.max(1) as f64,
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
        let standing = match p.status {
            RaceStatus::Eliminated => format!(
                "eliminated after {} question(s) by {} (E = {} ≥ {})",
                p.eliminated_after.unwrap_or_default(),
                terminal_safe(p.eliminated_by.as_deref().unwrap_or("?")),
                e_text(p.e_value.unwrap_or_default()),
                e_text(race.bound)
            ),
            RaceStatus::Winner => "winner".to_string(),
            RaceStatus::Tied | RaceStatus::Running => match p.e_value {
                Some(e) => format!(
                    "{} (largest E against it {} < {})",
                    status_word(p.status),
                    e_text(e),
                    e_text(race.bound)
                ),
                None => format!(
                    "{} (no question separated it from another)",
                    status_word(p.status)
                ),
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

/// A live prompt's status as summary.json spells it.
fn status_word(status: RaceStatus) -> &'static str {
    match status {
        RaceStatus::Running => "running",
        _ => "tied",
    }
}
