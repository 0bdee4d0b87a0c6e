//! The budget's keeper: before each model call it plans what the call
//! will take, and starts it only if the run stays within every cap of
//! `[budget]` with it (what is spent, plus what the calls in flight were
//! planned to take, plus this one). Once a call would cross a cap, the
//! run's remaining calls are not made: a resume goes on with a new cap.
//!
//! A call's plan errs high where it can: its prompt is the request's text
//! scaled by the highest ratio of the server's count to the estimate seen
//! so far (the high estimate of three characters a token before any), and
//! its reply is the longest seen so far (the plan's mean before any, else
//! `llm.num_predict`, which the server cannot exceed).

use std::sync::Mutex;
use std::time::Instant;

use super::evidence::prompt_estimate;
use super::plan::{PerCall, Plan};
use crate::backend::ChatRequest;
use crate::backend::prompt_size::estimate_messages;
use crate::case::Tokens;
use crate::config::BudgetConfig;
use crate::language::numbers::thousands;
use crate::results::budget::{BudgetResult, Caps, Planned, Spent};

/// What a started call was planned to take, until it is settled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ticket {
    tokens: u64,
    cost: f64,
}

pub struct Keeper {
    config: BudgetConfig,
    prior: PerCall,
    num_predict: Option<u32>,
    planned: Option<Planned>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The resumed run's earlier sessions.
    earlier: Spent,
    spent: Spent,
    reserved_tokens: u64,
    reserved_cost: f64,
    max_ratio: Option<f64>,
    max_reply: Option<u64>,
    max_secs: Option<f64>,
    first_start: Option<Instant>,
    last_end: Option<Instant>,
    stopped: Option<String>,
    /// Prompt -> test names of the cases not run.
    not_run: indexmap::IndexMap<String, Vec<String>>,
    not_run_count: usize,
}

impl Keeper {
    /// A keeper of `config`'s caps, with what the resumed run's earlier
    /// sessions spent and the plan's figures per call.
    pub fn new(
        config: &BudgetConfig,
        mut earlier: Spent,
        plan: Option<&Plan>,
        num_predict: Option<u32>,
    ) -> Keeper {
        earlier.cost = super::cost(config.prices(), earlier.prompt_tokens, earlier.reply_tokens);
        let planned = plan.filter(|p| p.calls > 0).map(|p| Planned {
            calls: p.calls,
            tokens: p.tokens.reply.map(|r| p.tokens.prompt + r),
            cost: p.cost,
            wall_secs: p.wall_secs,
        });
        Keeper {
            config: config.clone(),
            prior: plan.map(|p| p.per_call).unwrap_or_default(),
            num_predict,
            planned,
            state: Mutex::new(State {
                earlier,
                ..State::default()
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn cost_of(&self, prompt: u64, reply: u64) -> f64 {
        super::cost(self.config.prices(), prompt, reply).unwrap_or(0.0)
    }

    /// Whether a call of `request` may start: its ticket, or why not
    /// (without libtest's `not run: `). Once one is refused, every later
    /// one is, with the same reason.
    pub fn admit(&self, request: &ChatRequest) -> Result<Ticket, String> {
        let mut st = self.state();
        let now = Instant::now();
        let first = *st.first_start.get_or_insert(now);
        if let Some(why) = &st.stopped {
            return Err(why.clone());
        }
        let prompt = match st.max_ratio.or(self.prior.ratio) {
            Some(ratio) => (prompt_estimate(&request.messages) as f64 * ratio).ceil() as u64,
            None => estimate_messages(&request.messages) as u64,
        };
        let reply = st
            .max_reply
            .or(self.prior.reply_tokens.map(|r| r.ceil() as u64))
            .or(self.num_predict.map(u64::from))
            .unwrap_or(0);
        let tokens = prompt + reply;
        let cost = self.cost_of(prompt, reply);
        let spent_tokens = st.earlier.tokens + st.spent.tokens + st.reserved_tokens;
        let spent_cost =
            st.earlier.cost.unwrap_or(0.0) + st.spent.cost.unwrap_or(0.0) + st.reserved_cost;
        // A case's time: its call, and its program's run.
        let secs =
            st.max_secs.or(self.prior.secs).unwrap_or(0.0) + self.prior.exec_secs.unwrap_or(0.0);
        let elapsed = now.duration_since(first).as_secs_f64();
        let crossed = if let Some(cap) = self
            .config
            .max_tokens
            .filter(|&cap| (spent_tokens + tokens) as f64 > cap)
        {
            Some(format!(
                "the next call would cross [budget] max_tokens = {}: {} spent or in flight, the \
                 call planned at {} (prompt {prompt} + reply {reply})",
                thousands(cap as u64),
                thousands(spent_tokens),
                thousands(tokens)
            ))
        } else if let Some(cap) = self.config.max_cost.filter(|&cap| spent_cost + cost > cap) {
            Some(format!(
                "the next call would cross [budget] max_cost = {cap}: {spent_cost:.4} spent or \
                 in flight, the call planned at {cost:.4}"
            ))
        } else {
            self.config
                .max_wall_secs
                .filter(|&cap| elapsed + secs > cap)
                .map(|cap| {
                    format!(
                        "the next call would cross [budget] max_wall_secs = {cap}: {elapsed:.1} s \
                         gone, the call planned at {secs:.1} s"
                    )
                })
        };
        if let Some(why) = crossed {
            st.stopped = Some(why.clone());
            return Err(why);
        }
        st.reserved_tokens += tokens;
        st.reserved_cost += cost;
        Ok(Ticket { tokens, cost })
    }

    /// Whether any cap is kept (else every call may start).
    pub fn capped(&self) -> bool {
        self.config.capped()
    }

    /// A started call turned out to need no model (the cache answered):
    /// its reservation goes, and nothing is spent.
    pub fn release(&self, ticket: Ticket) {
        let mut st = self.state();
        st.reserved_tokens = st.reserved_tokens.saturating_sub(ticket.tokens);
        st.reserved_cost = (st.reserved_cost - ticket.cost).max(0.0);
    }

    /// A started call ended: what the server counted (`None`: it gave no
    /// counts, so the call counts as planned) and how long it took.
    pub fn settle(
        &self,
        ticket: Ticket,
        request: &ChatRequest,
        counted: Option<Tokens>,
        secs: f64,
    ) {
        self.release(ticket);
        let mut st = self.state();
        st.last_end = Some(Instant::now());
        st.spent.calls += 1;
        st.max_secs = Some(st.max_secs.map_or(secs, |m| m.max(secs)));
        match counted {
            Some(t) => {
                st.spent.prompt_tokens += t.prompt;
                st.spent.reply_tokens += t.completion;
                st.spent.tokens += t.prompt + t.completion;
                let cost = self.cost_of(t.prompt, t.completion);
                st.spent.cost = Some(st.spent.cost.unwrap_or(0.0) + cost);
                let ratio = t.prompt as f64 / prompt_estimate(&request.messages) as f64;
                st.max_ratio = Some(st.max_ratio.map_or(ratio, |m| m.max(ratio)));
                st.max_reply = Some(st.max_reply.map_or(t.completion, |m| m.max(t.completion)));
            }
            None => {
                st.spent.tokens += ticket.tokens;
                st.spent.cost = Some(st.spent.cost.unwrap_or(0.0) + ticket.cost);
                st.spent.estimated_calls += 1;
            }
        }
    }

    /// A case not run because the budget stopped the run.
    pub fn not_run(&self, prompt: &str, name: String) {
        let mut st = self.state();
        st.not_run_count += 1;
        st.not_run.entry(prompt.to_string()).or_default().push(name);
    }

    /// Whether a cap has stopped the run.
    pub fn stopped(&self) -> bool {
        self.state().stopped.is_some()
    }

    /// summary.json's `budget`.
    pub fn result(&self) -> BudgetResult {
        let st = self.state();
        let prices = self.config.prices().is_some();
        let sum = |a: &Spent, b: &Spent| Spent {
            tokens: a.tokens + b.tokens,
            prompt_tokens: a.prompt_tokens + b.prompt_tokens,
            reply_tokens: a.reply_tokens + b.reply_tokens,
            cost: prices.then(|| a.cost.unwrap_or(0.0) + b.cost.unwrap_or(0.0)),
            wall_secs: match (st.first_start, st.last_end) {
                (Some(a), Some(b)) => round2(b.duration_since(a).as_secs_f64()),
                _ => 0.0,
            },
            calls: a.calls + b.calls,
            estimated_calls: a.estimated_calls + b.estimated_calls,
        };
        BudgetResult {
            spent: sum(&st.earlier, &st.spent),
            caps: Caps {
                tokens: self.config.max_tokens.map(|t| t as u64),
                cost: self.config.max_cost,
                wall_secs: self.config.max_wall_secs,
            },
            planned: self.planned.clone(),
            not_run: st.not_run_count,
            stopped: st.stopped.clone(),
            not_run_cases: st.not_run.clone(),
        }
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Message;

    fn request(chars: usize) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![Message::user("x".repeat(chars))],
            options: crate::config::LlmConfig::default(),
            slot: None,
        }
    }

    fn tokens(prompt: u64, completion: u64) -> Option<Tokens> {
        Some(Tokens {
            prompt,
            completion,
            ..Tokens::default()
        })
    }

    fn capped(max_tokens: f64) -> BudgetConfig {
        BudgetConfig {
            max_tokens: Some(max_tokens),
            ..BudgetConfig::default()
        }
    }

    #[test]
    fn no_call_starts_that_would_cross_the_token_cap_and_none_after_it() {
        // Each call: a 400-character prompt the server counts as 100
        // tokens, and a 50-token reply.
        let keeper = Keeper::new(&capped(700.0), Spent::default(), None, Some(200));
        let r = request(400);
        let mut calls = 0;
        while let Ok(ticket) = keeper.admit(&r) {
            keeper.settle(ticket, &r, tokens(100, 50), 0.1);
            calls += 1;
        }
        // 150 a call: four fit in 700 (600), a fifth would make 750.
        assert_eq!(calls, 4);
        let result = keeper.result();
        assert_eq!(result.spent.tokens, 600);
        assert!(result.spent.tokens as f64 <= 700.0);
        let why = result.stopped.unwrap();
        assert!(why.contains("max_tokens = 700"), "{why}");
        assert!(keeper.admit(&request(4)).is_err(), "stopped for good");
    }

    #[test]
    fn the_first_call_is_planned_at_the_reply_limit_when_nothing_was_seen() {
        // 134 (high estimate of 400 characters) + 200 (num_predict) > 300.
        let keeper = Keeper::new(&capped(300.0), Spent::default(), None, Some(200));
        assert!(keeper.admit(&request(400)).is_err());
    }

    #[test]
    fn calls_in_flight_count_as_planned() {
        let mut plan_per_call = Keeper::new(&capped(350.0), Spent::default(), None, Some(50));
        plan_per_call.prior = PerCall {
            ratio: Some(1.0),
            reply_tokens: Some(50.0),
            secs: None,
            exec_secs: None,
        };
        let r = request(400);
        let a = plan_per_call.admit(&r).unwrap();
        let b = plan_per_call.admit(&r).unwrap();
        assert!(
            plan_per_call.admit(&r).is_err(),
            "150 + 150 in flight, 150 more > 350"
        );
        plan_per_call.settle(a, &r, tokens(100, 50), 0.1);
        plan_per_call.settle(b, &r, tokens(100, 50), 0.1);
        assert_eq!(plan_per_call.result().spent.tokens, 300);
    }

    #[test]
    fn a_resumed_run_counts_its_earlier_spending_against_a_new_cap() {
        let earlier = Spent {
            tokens: 500,
            calls: 4,
            ..Spent::default()
        };
        let keeper = Keeper::new(&capped(700.0), earlier, None, Some(50));
        let r = request(400);
        let t = keeper.admit(&r).unwrap();
        keeper.settle(t, &r, tokens(100, 50), 0.1);
        assert!(keeper.admit(&r).is_err(), "650 + 150 > 700");
        let result = keeper.result();
        assert_eq!(result.spent.tokens, 650);
        assert_eq!(result.spent.calls, 5);
    }

    #[test]
    fn money_is_counted_at_the_prices() {
        let config = BudgetConfig {
            max_cost: Some(1.0),
            price_in: Some(1000.0),
            price_out: Some(2000.0),
            ..BudgetConfig::default()
        };
        let keeper = Keeper::new(&config, Spent::default(), None, Some(50));
        let r = request(400);
        let mut calls = 0;
        while let Ok(t) = keeper.admit(&r) {
            keeper.settle(t, &r, tokens(100, 50), 0.1);
            calls += 1;
        }
        // A call: 100 x 1000/1e6 + 50 x 2000/1e6 = 0.2.
        assert_eq!(calls, 5);
        let cost = keeper.result().spent.cost.unwrap();
        assert!((cost - 1.0).abs() < 1e-9, "{cost}");
    }
}
