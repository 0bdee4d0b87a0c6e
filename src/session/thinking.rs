//! A model that reasons before it answers, run with nothing set.
//!
//! The spec runs `ollama.chat(model="gpt-oss:20b", ...)` with no token
//! limit, and Ollama 0.13 and later let such a model think unless told not
//! to. The defaults that fit a plain model (`num_predict = 1024`, 30 s a
//! call) are spent inside the reasoning: every case would read `no_answer`.
//! So once the server says the model thinks (Ollama's `/api/show`), or the
//! user asked it to (`think = true` or a level), each budget the user left
//! unset is chosen for reasoning, and the run's first lines say what and
//! why. A value the user set is always kept; a model that does not think
//! keeps every default, so its recordings and cached replies keep their
//! keys. A replay asks with the budget the recordings were made with.
//!
//! What the server cannot say before the first reply (an OpenAI-compatible
//! server) is watched in the replies: [`Watch`] says once, early, when a
//! reply carries reasoning and ran into its budget or its time limit.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::backend::Thinking;
use crate::case::{ApiFailure, CaseRecord};
use crate::config::{Config, Think};

/// Tokens a reasoning model gets when the user set no `num_predict`:
/// gpt-oss and Qwen3 reason for a few thousand tokens on a coding question,
/// and the hardest ones for ten thousand and more.
pub const THINKING_BUDGET: u32 = 16_384;
/// The window's room for the prompt beside the reply (the default
/// `num_ctx`, which the spec's prompts with their history fit).
const PROMPT_ROOM: u32 = 4_096;
/// The pace the time limit allows for, in tokens a second: a 20B model on
/// a CPU generates 10 to 20.
const TOKENS_PER_SEC: u32 = 15;
/// Below this a budget is small for reasoning.
const SMALL_BUDGET: u32 = 4_096;

/// What the run knows of `config`'s model: the server's word, else the
/// user's `think`. `None`: nothing says it thinks.
pub fn evidence(config: &Config, said: Option<Thinking>) -> Option<Thinking> {
    said.or_else(|| match config.llm.think {
        Some(Think::On(true)) | Some(Think::Level(_)) => Some(Thinking {
            how: format!("think = {}", config.llm.think?.describe()),
            ..Thinking::default()
        }),
        _ => None,
    })
}

/// Fits the budgets the user left unset to a model that thinks; the lines
/// that say so, for the run's first lines (none when nothing thinks).
pub fn fit(config: &mut Config, thinking: Option<&Thinking>) -> Vec<String> {
    let Some(thinking) = thinking else {
        return Vec::new();
    };
    let model = config.model.clone();
    let think = match config.llm.think {
        None => "think unset: the server's default applies".to_string(),
        Some(t) => format!("think = {}", t.describe()),
    };
    let head = if thinking.how.starts_with("think =") {
        format!("{model} thinks ({think})")
    } else {
        format!("{model} thinks ({}; {think})", thinking.how)
    };
    if config.llm.think == Some(Think::On(false)) {
        return vec![format!(
            "{head}: asked not to, so the budget is left as it is (gpt-oss reasons all the \
             same; if its cases read no_answer, raise llm.num_predict)"
        )];
    }
    let chosen = match &thinking.recorded {
        Some((num_predict, num_ctx)) => as_recorded(config, *num_predict, *num_ctx),
        None => for_reasoning(config, thinking.context_length),
    };
    let mut lines = vec![match chosen.is_empty() {
        true => format!("{head}: the budget set in harness.toml is kept"),
        false if thinking.recorded.is_some() => format!(
            "{head}: replayed with the budget it was recorded with: {}",
            chosen.join(", ")
        ),
        false => {
            let defaults = crate::config::LlmConfig::default();
            format!(
                "{head}: {} (unset, chosen for reasoning: the defaults of {} tokens and {} s a \
                 call are spent inside it; a value set in [llm] is kept)",
                chosen.join(", "),
                defaults.num_predict.unwrap_or(0),
                defaults.timeout_secs
            )
        }
    }];
    if thinking.recorded.is_none()
        && let Some(line) = small_window(config, thinking.context_length)
    {
        lines.push(line);
    }
    if let Some(small) = config.llm.num_predict.filter(|n| *n < SMALL_BUDGET)
        && config.user_set("num_predict")
    {
        lines.push(format!(
            "{model}: llm.num_predict = {small} (set) may be too small for its reasoning: a \
             case that spends it reasoning reads no_answer; raise it (>= {SMALL_BUDGET}) or \
             leave it unset"
        ));
    }
    lines
}

/// A replay: the budget of the recordings, where the user set none.
fn as_recorded(config: &mut Config, num_predict: Option<u32>, num_ctx: Option<u32>) -> Vec<String> {
    let mut chosen = Vec::new();
    if !config.user_set("num_predict") {
        config.llm.num_predict = num_predict;
        chosen.push(format!("llm.num_predict = {}", shown(num_predict)));
    }
    if !config.user_set("num_ctx") {
        config.llm.num_ctx = num_ctx;
        chosen.push(format!("llm.num_ctx = {}", shown(num_ctx)));
    }
    chosen
}

/// A live run: [`THINKING_BUDGET`] within the model's context, a window
/// with room for the budget (fitted or the user's) and the prompt, up to
/// the model's own context length, and a time limit at
/// [`TOKENS_PER_SEC`], each only where the user set none.
fn for_reasoning(config: &mut Config, context_length: Option<u32>) -> Vec<String> {
    let mut chosen = Vec::new();
    let [ctx_set, budget_set, timeout_set] =
        ["num_ctx", "num_predict", "timeout_secs"].map(|key| config.user_set(key));
    let llm = &mut config.llm;
    if !ctx_set {
        let budget = match budget_set {
            true => llm.num_predict.unwrap_or(THINKING_BUDGET),
            false => THINKING_BUDGET,
        };
        let wanted = budget.saturating_add(PROMPT_ROOM);
        let window = context_length.map_or(wanted, |n| n.min(wanted));
        if llm.num_ctx.is_some_and(|n| n < window) {
            llm.num_ctx = Some(window);
            chosen.push(format!("llm.num_ctx = {window}"));
        }
    }
    if !budget_set {
        // Room for the prompt within the window, and at least half of it.
        let room = llm.num_ctx.map_or(THINKING_BUDGET, reply_room);
        let budget = THINKING_BUDGET.min(room);
        if llm.num_predict.is_some_and(|n| n < budget) {
            llm.num_predict = Some(budget);
            chosen.push(format!("llm.num_predict = {budget}"));
        }
    }
    if !timeout_set {
        let budget = llm.num_predict.unwrap_or(THINKING_BUDGET);
        // Whole minutes.
        let secs = f64::from(time_for(budget));
        if llm.timeout_secs < secs {
            llm.timeout_secs = secs;
            chosen.push(format!("llm.timeout_secs = {secs}"));
        }
    }
    chosen
}

/// Tokens a window of `num_ctx` leaves for the reply: what the prompt's
/// room leaves, and at least half of it.
fn reply_room(num_ctx: u32) -> u32 {
    num_ctx.saturating_sub(PROMPT_ROOM).max(num_ctx / 2)
}

/// The line for a window the user set too small for reasoning: under
/// [`SMALL_BUDGET`] tokens of reply room once the prompt has its room.
fn small_window(config: &Config, context_length: Option<u32>) -> Option<String> {
    let num_ctx = config.llm.num_ctx?;
    if !config.user_set("num_ctx") || reply_room(num_ctx) >= SMALL_BUDGET {
        return None;
    }
    let wanted = THINKING_BUDGET + PROMPT_ROOM;
    let fix = context_length.map_or(wanted, |n| n.min(wanted));
    Some(format!(
        "{}: llm.num_ctx = {num_ctx} (set) leaves about {} tokens for a reply once the prompt \
         has its room, too small for its reasoning (under {SMALL_BUDGET}): a case that spends \
         it reasoning reads no_answer; raise it (num_ctx = {fix}) or leave it unset to have it \
         fitted",
        config.model,
        reply_room(num_ctx)
    ))
}

/// Seconds a budget of `tokens` takes at [`TOKENS_PER_SEC`], in whole
/// minutes.
fn time_for(tokens: u32) -> u32 {
    tokens.div_ceil(TOKENS_PER_SEC).div_ceil(60) * 60
}

fn shown(n: Option<u32>) -> String {
    n.map_or_else(|| "unset".to_string(), |n| n.to_string())
}

/// Watches the replies of one model for reasoning that ran into its
/// budget or its time limit, to say so once.
#[derive(Default)]
pub struct Watch {
    /// Known to think before the first case ([`evidence`]).
    thinks: bool,
    said: AtomicBool,
    /// The configuration fitted to reasoning once a reply showed that the
    /// model thinks (an OpenAI-compatible server, an Ollama without
    /// `/api/show`).
    fitted: OnceLock<Config>,
}

impl Watch {
    pub fn new(thinks: bool) -> Watch {
        Watch {
            thinks,
            ..Watch::default()
        }
    }

    pub fn fitted(&self) -> Option<&Config> {
        self.fitted.get()
    }

    /// After a reply whose reasoning spent the whole budget with no answer:
    /// when nothing said before that the model thinks and the user set no
    /// budget, fits `config` to reasoning (said once, as a warning) and
    /// returns true: the case is to be asked again. Only the first such
    /// reply fits; the cases asked before it keep their requests.
    pub fn fit(&self, record: &CaseRecord, config: &Config) -> bool {
        let reasoned = record
            .reasoning
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty());
        if !reasoned
            || self.thinks
            || config.user_set("num_predict")
            || config.llm.think == Some(Think::On(false))
        {
            return false;
        }
        let mut fitted = config.clone();
        let evidence = Thinking {
            how: format!("its reply to {} carried reasoning", record.name),
            ..Thinking::default()
        };
        let lines = fit(&mut fitted, Some(&evidence));
        if self.fitted.set(fitted).is_err() {
            // Another case fitted it first: ask again with that.
            return true;
        }
        self.said.store(true, Ordering::Relaxed);
        for line in lines {
            tracing::warn!("{line}; asked again, with every later case");
        }
        true
    }

    /// The warning `record` calls for, the first time one does: a reply
    /// with reasoning at its limits, or a thinking model's call that timed
    /// out (its reasoning is lost with the call).
    pub fn look(&self, record: &CaseRecord, config: &Config) -> Option<String> {
        let reasoned = record
            .reasoning
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty());
        let timed_out = record.api_failure == Some(ApiFailure::Timeout);
        if !(reasoned || (self.thinks && timed_out)) {
            return None;
        }
        let budget = config.llm.num_predict;
        let completion = record.tokens.as_ref().map(|t| t.completion);
        let ran_out = record.finish_reason.as_deref() == Some("length");
        // Within a tenth of the budget: the next, longer reasoning will not fit.
        let near = budget
            .zip(completion)
            .is_some_and(|(b, used)| used * 10 >= u64::from(b) * 9);
        let slow = timed_out || record.llm_secs >= 0.8 * config.llm.timeout_secs;
        if !(ran_out || near || slow) || self.said.swap(true, Ordering::Relaxed) {
            return None;
        }
        let what = match (ran_out, near) {
            (true, _) => "ran out of its token budget".to_string(),
            (false, true) => format!(
                "used {} of its {} tokens",
                completion.unwrap_or(0),
                budget.unwrap_or(0)
            ),
            (false, false) if timed_out => {
                format!("timed out after {} s", config.llm.timeout_secs)
            }
            (false, false) => format!(
                "took {:.0} s of its {} s limit",
                record.llm_secs, config.llm.timeout_secs
            ),
        };
        Some(format!(
            "{} reasons before it answers, and {} {what}: a reasoning model needs room (llm.num_predict \
             = {}, llm.timeout_secs = {}); raise both in [llm] (for example num_predict = \
             {THINKING_BUDGET} with num_ctx = {}, and timeout_secs = {}), or set think = false \
             where the model takes it",
            config.model,
            record.name,
            shown(budget),
            config.llm.timeout_secs,
            THINKING_BUDGET + PROMPT_ROOM,
            time_for(THINKING_BUDGET)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The configuration a harness.toml of `toml` gives.
    fn config(toml: &str) -> Config {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("harness.toml"),
            format!("model = \"gpt-oss:20b\"\n{toml}"),
        )
        .unwrap();
        Config::load(&[("X", "")], dir.path()).unwrap()
    }

    fn said(context_length: Option<u32>) -> Thinking {
        Thinking {
            how: "/api/show lists \"thinking\"".into(),
            context_length,
            recorded: None,
        }
    }

    #[test]
    fn nothing_set_gets_a_budget_a_window_and_a_time_limit_for_reasoning() {
        let mut c = config("");
        let lines = fit(&mut c, Some(&said(None)));
        assert_eq!(c.llm.num_predict, Some(THINKING_BUDGET));
        assert_eq!(c.llm.num_ctx, Some(THINKING_BUDGET + PROMPT_ROOM));
        assert_eq!(c.llm.timeout_secs, 1140.0);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("gpt-oss:20b thinks (/api/show lists \"thinking\"; think unset")
        );
    }

    #[test]
    fn a_short_context_bounds_the_budget() {
        let mut c = config("");
        fit(&mut c, Some(&said(Some(8192))));
        assert_eq!(c.llm.num_ctx, Some(8192));
        assert_eq!(c.llm.num_predict, Some(4096), "room for the prompt is kept");
    }

    #[test]
    fn every_value_the_user_set_is_kept() {
        let mut c = config("[llm]\nnum_predict = 2048\nnum_ctx = 8192\ntimeout_secs = 45\n");
        let lines = fit(&mut c, Some(&said(None)));
        assert_eq!(c.llm.num_predict, Some(2048));
        assert_eq!(c.llm.num_ctx, Some(8192));
        assert_eq!(c.llm.timeout_secs, 45.0);
        assert!(
            lines[0].ends_with("the budget set in harness.toml is kept"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("llm.num_predict = 2048 (set) may be too small"),
            "{lines:?}"
        );
        // A model table's keys are the user's too.
        let c = config(
            "[[models]]\nname = \"gpt-oss:20b\"\nnum_predict = 512\n[[models]]\nname = \"qwen3:8b\"\n",
        );
        let models = c.model_configs();
        assert!(models[0].user_set("num_predict"));
        assert!(!models[1].user_set("num_predict"));
    }

    /// A window the user left unset is fitted to the budget the user set;
    /// one the user set too small for reasoning is said, with the fix.
    #[test]
    fn the_window_follows_the_budget_and_a_small_one_set_is_said() {
        let mut c = config("[llm]\nnum_predict = 8192\n");
        fit(&mut c, Some(&said(Some(131_072))));
        assert_eq!(c.llm.num_predict, Some(8192));
        assert_eq!(c.llm.num_ctx, Some(8192 + PROMPT_ROOM));
        let mut c = config("[llm]\nnum_predict = 30000\n");
        fit(&mut c, Some(&said(Some(16_384))));
        assert_eq!(
            c.llm.num_ctx,
            Some(16_384),
            "never past the model's context"
        );

        let mut c = config("[llm]\nnum_ctx = 4096\n");
        let lines = fit(&mut c, Some(&said(Some(131_072))));
        assert_eq!(c.llm.num_ctx, Some(4096), "kept");
        assert_eq!(c.llm.num_predict, Some(2048));
        assert!(
            lines.iter().any(|l| l
                .contains("llm.num_ctx = 4096 (set) leaves about 2048 tokens for a reply")
                && l.contains("raise it (num_ctx = 20480)")),
            "{lines:?}"
        );
        let mut c = config("[llm]\nnum_ctx = 32768\n");
        let lines = fit(&mut c, Some(&said(None)));
        assert_eq!(c.llm.num_predict, Some(THINKING_BUDGET));
        assert!(!lines.iter().any(|l| l.contains("(set)")), "{lines:?}");
    }

    #[test]
    fn nothing_known_changes_nothing_and_think_false_keeps_the_budget() {
        let mut c = config("");
        let before = c.clone();
        assert!(fit(&mut c, None).is_empty());
        assert_eq!(c, before);
        let mut c = config("[llm]\nthink = false\n");
        let lines = fit(&mut c, Some(&said(None)));
        assert_eq!(c.llm.num_predict, Some(1024));
        assert!(lines[0].contains("asked not to"), "{lines:?}");
    }

    #[test]
    fn think_set_is_evidence_and_a_replay_asks_with_the_recorded_budget() {
        let c = config("[llm]\nthink = \"high\"\n");
        let known = evidence(&c, None).expect("think = high says it thinks");
        assert_eq!(known.how, "think = \"high\"");
        assert!(evidence(&config("[llm]\nthink = false\n"), None).is_none());
        let mut c = config("");
        let recorded = Thinking {
            how: "its recordings carry reasoning".into(),
            context_length: None,
            recorded: Some((Some(1024), Some(4096))),
        };
        let lines = fit(&mut c, Some(&recorded));
        assert_eq!((c.llm.num_predict, c.llm.num_ctx), (Some(1024), Some(4096)));
        assert!(
            lines[0].contains("replayed with the budget it was recorded with"),
            "{lines:?}"
        );
    }
}
