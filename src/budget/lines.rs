//! The plan as a person reads it: the run's first lines and
//! `prompteval plan`'s text.

use super::plan::Plan;
use crate::language::numbers::{clock, thousands};

impl Plan {
    /// The plan as the run's first lines and `prompteval plan` say it.
    pub fn lines(&self) -> Vec<String> {
        let a = &self.assumptions;
        let mut lines = Vec::new();
        let without: Vec<String> = a
            .without_a_call
            .iter()
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        let without = match without.is_empty() {
            true => String::new(),
            false => format!(
                " ({} need none: {})",
                self.cases - self.calls,
                without.join(", ")
            ),
        };
        lines.push(format!(
            "plan: {} case(s), {} model call(s){without}",
            self.cases, self.calls
        ));
        if self.calls > 0 {
            let tokens = match self.tokens.reply {
                Some(r) => format!(
                    "about {} tokens ({} prompt + {} reply)",
                    thousands(self.tokens.prompt + r),
                    thousands(self.tokens.prompt),
                    thousands(r)
                ),
                None => format!(
                    "about {} prompt tokens, reply tokens unknown",
                    thousands(self.tokens.prompt)
                ),
            };
            lines.push(format!(
                "plan: {tokens}; prompt tokens: {}; reply tokens: {}",
                a.prompt_tokens_from, a.reply_tokens_from
            ));
            let wall = match self.wall_secs {
                Some(w) => format!("about {} over {} slot(s)", clock(w), a.slots),
                None => "wall time".to_string(),
            };
            let cost = match (self.cost, a.prices_per_million) {
                (Some(c), Some((i, o))) => {
                    format!("; cost about {c:.4} at {i} / {o} per million tokens (prompt / reply)")
                }
                _ => String::new(),
            };
            lines.push(format!("plan: {wall}: {}{cost}", a.wall_secs_from));
        }
        if let Some(history) = &a.history {
            lines.push(format!("plan: {history}"));
        }
        if let Some(race) = &a.race {
            lines.push(format!("plan: {race}"));
        }
        lines.extend(self.tell_apart());
        lines
    }

    /// "what this run can tell apart: ..." for two or more prompts.
    fn tell_apart(&self) -> Option<String> {
        let a = &self.assumptions;
        if a.paired_cases == 0 {
            return None;
        }
        let told = match self.detectable_difference {
            Some(d) => format!(
                "two prompts must differ by about {:.0} points of accuracy to be told apart",
                100.0 * d
            ),
            None if a.paired_cases > 0 => "no difference in accuracy can be told apart".to_string(),
            None => return None,
        };
        let ten = a
            .cases_for_ten_points
            .map(|n| format!("; 10 points need about {n} paired cases"))
            .unwrap_or_default();
        Some(format!(
            "what this run can tell apart: {} paired cases per pair of prompts: {told}{ten} \
             (exact McNemar, as the report compares prompts, alpha 0.05, 80 % power; \
             discordance {:.0} %, {})",
            a.paired_cases,
            100.0 * a.discordance,
            a.discordance_from
        ))
    }
}
