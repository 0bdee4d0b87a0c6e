//! # prompteval
//!
//! Measures how well prompt templates make an LLM write correct Python. The
//! main job is `cargo test --test prompts`: a libtest-mimic harness that turns
//! every prompt x question x round of a JSON suite into a named test case.
//!
//! The folders are the pipeline's stages, in the order a case goes through
//! them; a stage imports only from the stages above it in this list:
//!
//! ```text
//! config/     harness.toml + environment ─► Config
//! case        the words every stage shares: CaseId, Verdict, CaseRecord
//! language/   every line a person reads, in zh or en
//! suite/      suite JSON ─► Suite (file:line errors); import
//! variants/   Suite ─► PartialOrderEval's 42 prompts per question (p_top
//!             through the leak gate, summaries, samples, maskings)
//! plan/       Suite × rounds × samples ─► cases in trial order; shards
//! ask/        history + template ─► request ─► window check ─► cache,
//!             snapshot ─► backend (ollama, openai, replay) ─► reply
//! sandbox/    untrusted code ─► a process with limits (namespaces, landlock,
//!             rlimits, cgroup; fork server, warm interpreter) ─► its exit
//! execute/    reply ─► extract ─► program ─► sandbox ─► judge ─► verdict;
//!             python/: what runs inside the sandbox's interpreter
//! record/     verdict ─► journal (one JSON line per case)
//! results/    what a run's results are, as data: run_info.json,
//!             summary.json, the figures' shapes, the run folder's files
//! analysis/   case records ─► figures: accuracy, intervals, pass@k, best
//!             prompt, robustness, kinds, cross-model, curves; gate
//! budget/     cases + cache + recordings ─► the plan (calls, tokens, time,
//!             money, what a run can tell apart); the keeper of [budget]
//! report/     results ─► render (table, markdown, junit, csv/json, .py,
//!             html) ─► write (the journal streamed, each file once)
//! compare/    two run folders side by side (`prompteval compare`)
//! terminal/   events ─► the lines the user sees
//! session/    one run: plan, start, the pipeline per case, finish
//! harness/    libtest-mimic (`cargo test --test prompts`), nextest
//! ```
//!
//! A user's crate calls [`harness::main`] from its own `tests/prompts.rs`;
//! the `prompteval` command (`src/main.rs`) imports, compares, merges and
//! manages the cache.

pub mod config;

pub mod case;

pub mod language;

pub mod suite;

// PartialOrderEval's prompt variants: a suite expanded.
pub mod variants;

pub mod plan;

pub mod ask;
// The model servers (Ollama, OpenAI-compatible, a pool) and replay: the only
// module that knows HTTP.
pub mod backend;

pub mod sandbox;

pub mod execute;
pub mod judge;
pub mod python;

pub mod record;

pub mod results;

pub mod analysis;

// The race between prompts: the rule, its hold on the scheduler, its standing.
pub mod race;

// What a run will cost (the plan) and the caps it keeps (`[budget]`).
pub mod budget;

// The two bounded pools that run a session's cases in chain order.
pub mod schedule;

pub mod publish;
pub mod report;

pub mod baseline;

pub mod compare;

pub mod terminal;

pub mod session;

pub mod harness;
