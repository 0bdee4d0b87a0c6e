//! The budget's lines under the table: what the run's calls spent against
//! the plan and the caps, and what a cap left not run.

use crate::language::numbers::{clock, thousands};
use crate::results::budget::BudgetResult;

/// "budget: planned 41,200 tokens in 220 call(s), ...; spent 39,870 tokens
/// ..."; nothing for a run that made no call and had no cap (a replay).
pub fn budget_lines(b: &BudgetResult) -> String {
    let s = &b.spent;
    let capped = b.caps.tokens.is_some() || b.caps.cost.is_some() || b.caps.wall_secs.is_some();
    if s.calls == 0 && !capped && b.not_run == 0 && b.planned.is_none() {
        return String::new();
    }
    let mut spent = format!(
        "spent {} tokens ({} prompt + {} reply) in {} call(s)",
        thousands(s.tokens),
        thousands(s.prompt_tokens),
        thousands(s.reply_tokens),
        s.calls
    );
    if s.estimated_calls > 0 {
        spent.push_str(&format!(
            " ({} without the server's counts, estimated)",
            s.estimated_calls
        ));
    }
    if let Some(cost) = s.cost {
        spent.push_str(&format!(", cost {cost:.4}"));
    }
    spent.push_str(&format!(", cases' wall time {}", clock(s.wall_secs)));
    let planned = match &b.planned {
        Some(p) => {
            let tokens = p.tokens.map_or("tokens unknown".to_string(), |t| {
                format!("{} tokens", thousands(t))
            });
            let wall = p
                .wall_secs
                .map(|w| format!(", {}", clock(w)))
                .unwrap_or_default();
            let cost = p.cost.map(|c| format!(", cost {c:.4}")).unwrap_or_default();
            format!("planned {tokens} in {} call(s){cost}{wall}; ", p.calls)
        }
        None => String::new(),
    };
    let mut out = format!("budget: {planned}{spent}\n");
    let caps: Vec<String> = [
        b.caps
            .tokens
            .map(|t| format!("max_tokens = {}", thousands(t))),
        b.caps.cost.map(|c| format!("max_cost = {c}")),
        b.caps.wall_secs.map(|w| format!("max_wall_secs = {w}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !caps.is_empty() {
        out.push_str(&format!("budget caps: {}\n", caps.join(", ")));
    }
    if let Some(why) = &b.stopped {
        out.push_str(&format!(
            "budget STOPPED the run: {} case(s) not run; {why}\n",
            b.not_run
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::budget::{Caps, Planned, Spent};

    #[test]
    fn the_lines_set_the_plan_beside_the_spending_and_say_a_stop() {
        let b = BudgetResult {
            spent: Spent {
                tokens: 39_870,
                prompt_tokens: 30_000,
                reply_tokens: 9_870,
                cost: None,
                wall_secs: 95.0,
                calls: 212,
                estimated_calls: 0,
            },
            caps: Caps {
                tokens: Some(40_000),
                ..Caps::default()
            },
            planned: Some(Planned {
                calls: 220,
                tokens: Some(41_200),
                cost: None,
                wall_secs: Some(100.0),
            }),
            not_run: 8,
            stopped: Some("the next call would cross [budget] max_tokens = 40,000".into()),
            not_run_cases: Default::default(),
        };
        let text = budget_lines(&b);
        assert!(
            text.starts_with(
                "budget: planned 41,200 tokens in 220 call(s), 1m40s; spent 39,870 tokens"
            ),
            "{text}"
        );
        assert!(text.contains("budget caps: max_tokens = 40,000"), "{text}");
        assert!(
            text.contains("budget STOPPED the run: 8 case(s) not run"),
            "{text}"
        );
    }
}
