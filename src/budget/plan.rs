//! The plan: what a run will ask and spend, before its first call. Each
//! case to ask has its request built as the run builds it; a request the
//! response cache holds is no call. The tokens of a call come from a
//! recording of that case, else from the prompt's text scaled by what the
//! server counted for calls already made (the journal, the recordings,
//! the cache, a probe), or by its tokenizer, else by the project's
//! estimate; every figure says where it came from.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::evidence::{Call, Evidence, prompt_estimate};
use crate::analysis::power::{DEFAULT_DISCORDANCE, Pairs, detectable_difference, questions_for};
use crate::ask::history::HistoryEntry;
use crate::ask::request;
use crate::ask::snapshot::SnapshotStore;
use crate::backend::{Backend, ChatRequest};
use crate::case::{CaseId, ChainId};
use crate::config::Config;
use crate::suite::Suite;

/// One model of the run as the plan sees it.
pub struct ModelSide<'a> {
    pub config: &'a Config,
    pub backend: &'a dyn Backend,
    /// Its replies come from recordings: no call at all.
    pub replaying: bool,
}

/// What the plan is made from.
pub struct Inputs<'a> {
    pub suite: &'a Suite,
    pub models: Vec<ModelSide<'a>>,
    /// The cases this session will ask, in trial order.
    pub to_ask: &'a [CaseId],
    /// Cases a resumed run finished, per prompt (asked no more; paired
    /// with the cases to ask), and how often two prompts' verdicts on one
    /// of them differ.
    pub finished_by_prompt: Option<&'a HashMap<String, usize>>,
    pub finished_pairs: Pairs,
    /// Selected cases that will not be evaluated (no recording answers).
    pub not_evaluated: usize,
    /// A resumed run's history entries, per chain.
    pub earlier: &'a HashMap<ChainId, Vec<HistoryEntry>>,
    /// Calls already seen (a resumed journal, a probe).
    pub evidence: Evidence,
    /// How often two prompts' verdicts differ in `[gate] baseline`, when
    /// one is set.
    pub baseline_pairs: Option<Pairs>,
    /// `[budget]` prices per million tokens (prompt, reply).
    pub prices: Option<(f64, f64)>,
    /// A race's settings (`alpha`, `max_cases`), when the run is one.
    pub race: Option<(f64, Option<usize>)>,
}

/// The plan, as `prompteval plan --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// Cases selected: to ask, finished before, not evaluated.
    pub cases: usize,
    /// Model calls this session will make.
    pub calls: usize,
    pub tokens: PlannedTokens,
    /// Seconds the calls take at the servers' speed, spread over their
    /// slots; null when no call has been seen to time.
    pub wall_secs: Option<f64>,
    /// At `[budget]`'s prices; null without them.
    pub cost: Option<f64>,
    /// The smallest difference in accuracy (a fraction) between two
    /// prompts that the report's paired test detects at alpha 0.05 with
    /// 80 % power on the planned cases; null with one prompt.
    pub detectable_difference: Option<f64>,
    pub assumptions: Assumptions,
    /// What a call is taken to cost where no recording says: for the
    /// budget's keeper.
    #[serde(skip)]
    pub per_call: PerCall,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PlannedTokens {
    pub prompt: u64,
    /// Null when no reply has been seen to measure (no recording, cache
    /// entry, journal or probe).
    pub reply: Option<u64>,
}

/// What a call is taken to cost where nothing else says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PerCall {
    /// Server tokens per estimated token of prompt text.
    pub ratio: Option<f64>,
    pub reply_tokens: Option<f64>,
    pub secs: Option<f64>,
    /// Seconds a case's program takes to run and be judged.
    pub exec_secs: Option<f64>,
}

/// Where each figure came from.
#[derive(Debug, Clone, Serialize)]
pub struct Assumptions {
    /// Selected cases that need no call, by why.
    pub without_a_call: BTreeMap<&'static str, usize>,
    pub prompt_tokens_from: String,
    pub reply_tokens_from: String,
    pub wall_secs_from: String,
    /// The servers' parallel slots the calls are spread over.
    pub slots: usize,
    /// Paired cases per pair of prompts.
    pub paired_cases: usize,
    /// How often two prompts' outcomes on one case are taken to differ.
    pub discordance: f64,
    pub discordance_from: String,
    /// Paired cases a 10-point difference needs.
    pub cases_for_ten_points: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prices_per_million: Option<(f64, f64)>,
    /// Later questions of a chain show the history of earlier ones,
    /// their answers taken as long as a mean reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race: Option<String>,
}

/// A call still to estimate once every call seen is in.
struct Pending {
    estimate: u64,
    /// The case's own recording: its tokens and seconds.
    recorded: Option<Call>,
    slots: usize,
}

/// How many prompts the server's tokenizer counts, to scale the rest by.
const TOKENIZED: usize = 16;
/// The answer length a history entry is taken to have before any reply
/// was seen (characters).
const DEFAULT_ANSWER_CHARS: usize = 400;

pub fn make(mut inputs: Inputs<'_>) -> Plan {
    let mut walk = Walk {
        without: BTreeMap::new(),
        pending: Vec::new(),
        to_tokenize: Vec::new(),
    };
    let finished: usize = inputs
        .finished_by_prompt
        .into_iter()
        .flatten()
        .map(|(_, n)| n)
        .sum();
    if finished > 0 {
        walk.without.insert("finished", finished);
    }
    if inputs.not_evaluated > 0 {
        walk.without.insert("not evaluated", inputs.not_evaluated);
    }
    let mut history_note = None;
    let answer_chars = inputs
        .evidence
        .mean_answer_chars()
        .map_or(DEFAULT_ANSWER_CHARS, |c| c.round() as usize);
    let models = std::mem::take(&mut inputs.models);
    let multi = models.len() > 1 || models.iter().any(|m| m.config.is_multi_model());
    for side in &models {
        let mine: Vec<&CaseId> = inputs
            .to_ask
            .iter()
            .filter(|c| !multi || c.model.as_deref() == Some(side.config.model.as_str()))
            .collect();
        if side.replaying {
            *walk.without.entry("recordings").or_default() += mine.len();
            continue;
        }
        if side.config.history.enabled {
            history_note = Some(format!(
                "a question's prompt shows the chain's earlier questions; their answers, not yet \
                 written, are taken as long as their recordings' code, else {answer_chars} \
                 characters (the mean code of the replies seen), and a case after one the cache answers is taken as cached too"
            ));
        }
        walk_model(
            side,
            inputs.suite,
            inputs.earlier,
            &mine,
            answer_chars,
            &mut inputs.evidence,
            &mut walk,
        );
    }
    let Walk {
        without,
        pending,
        to_tokenize,
    } = walk;
    let evidence = &inputs.evidence;
    let (ratio, prompt_from) = match evidence.ratio() {
        _ if pending.is_empty() => (1.0, "no call to make".to_string()),
        Some(r) => (
            r,
            format!(
                "their text, scaled by the server's own counts of the {}",
                evidence.describe()
            ),
        ),
        None => match tokenizer_ratio(&to_tokenize) {
            Some((r, n)) => (
                r,
                format!(
                    "the server's tokenizer (/apply-template, /tokenize) on {n} prompt(s), the \
                     rest scaled from them by their text"
                ),
            ),
            None => (
                1.0,
                "the project's estimate (about 4 characters a token), with no call seen and no \
                 tokenizer at the server"
                    .to_string(),
            ),
        },
    };
    let per_call = PerCall {
        ratio: Some(ratio),
        reply_tokens: evidence.mean_reply_tokens(),
        secs: evidence.mean_secs(),
        exec_secs: evidence.median_exec_secs(),
    };
    let mut prompt = 0u64;
    let mut reply = Some(0u64);
    let mut wall = Some(0.0f64);
    let chained = models.iter().any(|m| m.config.history.enabled);
    let exec = per_call.exec_secs.unwrap_or(0.0);
    for p in &pending {
        let (p_tokens, r_tokens, secs) = match &p.recorded {
            Some(c) => (c.prompt_tokens, Some(c.reply_tokens as f64), c.secs),
            None => (
                (p.estimate as f64 * ratio).round() as u64,
                per_call.reply_tokens,
                per_call.secs,
            ),
        };
        prompt += p_tokens;
        reply = reply.zip(r_tokens).map(|(a, b)| a + b.round() as u64);
        // With the history on, a slot keeps its chain and the chain's
        // next question waits for this one's program: a case takes its
        // call and its run. Without, runs overlap the next calls.
        let case_secs = |s: f64| if chained { s + exec } else { s };
        wall = wall
            .zip(secs.or(per_call.secs))
            .map(|(w, s)| w + case_secs(s) / p.slots as f64);
    }
    let calls = pending.len();
    let reply_from = match (per_call.reply_tokens, calls) {
        (_, 0) => "no call to make".to_string(),
        (Some(_), _) => format!("the mean of the {}", evidence.describe()),
        (None, _) => "unknown, no reply seen yet (no recording, cache entry, journal or probe); \
                      `prompteval plan` measures replies with a short probe"
            .to_string(),
    };
    let wall_from = match (per_call.secs, calls) {
        (_, 0) => "no call to make".to_string(),
        (Some(s), _) => format!(
            "{s:.2} s a call (the mean of the {}){}",
            evidence.describe(),
            match (per_call.exec_secs, chained) {
                (Some(e), true) => format!(
                    ", and {e:.2} s a program's run, which the chain's next question waits for"
                ),
                (Some(_), false) => ", the programs' runs overlapping the calls".to_string(),
                (None, _) => ", the programs' runs not counted (none seen)".to_string(),
            }
        ),
        (None, _) => "unknown, no call timed yet".to_string(),
    };
    let slots = models
        .iter()
        .map(|m| m.config.concurrency.max(1))
        .max()
        .unwrap_or(1);
    let cases = inputs.to_ask.len() + finished + inputs.not_evaluated;
    let (paired, discordance, discordance_from) = pairing(&inputs);
    // Rounded to a millionth: the money of a token at a price per million.
    let cost = reply
        .and_then(|r| super::cost(inputs.prices, prompt, r))
        .map(|c| (c * 1e6).round() / 1e6);
    Plan {
        cases,
        calls,
        tokens: PlannedTokens { prompt, reply },
        wall_secs: if calls == 0 {
            Some(0.0)
        } else {
            wall.map(|w| (w * 10.0).round() / 10.0)
        },
        cost,
        detectable_difference: (paired > 0)
            .then(|| detectable_difference(paired, discordance))
            .flatten(),
        assumptions: Assumptions {
            without_a_call: without,
            prompt_tokens_from: prompt_from,
            reply_tokens_from: reply_from,
            wall_secs_from: wall_from,
            slots,
            paired_cases: paired,
            discordance,
            discordance_from,
            cases_for_ten_points: questions_for(0.10, discordance),
            prices_per_million: inputs.prices,
            history: history_note,
            race: inputs.race.map(|(alpha, max_cases)| {
                let order: Vec<String> = inputs
                    .suite
                    .prompts
                    .iter()
                    .map(|p| p.name.clone())
                    .collect();
                let share =
                    super::race_share::expected_share(inputs.to_ask, &order, alpha, max_cases);
                let share = share.map_or("no share can be simulated (one prompt)".to_string(), |s| {
                    format!(
                        "if one prompt leads the others by {:.0} points ({:.0} % against {:.0} %), \
                         it is expected to ask {:.0} % of them (the race's own rule, simulated)",
                        100.0 * super::race_share::LEAD,
                        100.0 * (super::race_share::LEVEL + super::race_share::LEAD),
                        100.0 * super::race_share::LEVEL,
                        100.0 * s
                    )
                });
                format!(
                    "a race asks only part of the grid: the calls, tokens and time above are the \
                     full grid's, an upper bound; {share}"
                )
            }),
        },
        per_call,
    }
}

/// What walking the cases to ask finds: the cases that need no call (by
/// why), the calls, and a few of their requests for the tokenizer.
struct Walk<'a> {
    without: BTreeMap<&'static str, usize>,
    pending: Vec<Pending>,
    to_tokenize: Vec<(&'a dyn Backend, ChatRequest, u64)>,
}

/// Walks a live model's cases `mine` chain by chain, as the run will ask
/// them: each request built with the history the chain will show by then
/// (its earlier answers `answer_chars` long where no recording says), a
/// request the cache holds counted as no call, a recorded case with its
/// recording's figures (also added to `evidence`).
fn walk_model<'a>(
    side: &ModelSide<'a>,
    suite: &Suite,
    earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
    mine: &[&CaseId],
    answer_chars: usize,
    evidence: &mut Evidence,
    walk: &mut Walk<'a>,
) {
    let store = SnapshotStore::new(&side.config.snapshot_dir, &suite.stem(), &side.config.model);
    let recorded = store.names();
    for chain in chains(mine) {
        let mut entries: Vec<HistoryEntry> =
            earlier.get(&chain[0].chain()).cloned().unwrap_or_default();
        let mut written_here = 0usize;
        let mut cached_so_far = true;
        for case in chain {
            // The answer the next question's history shows: this
            // case's recorded reply where there is one.
            let mut answer = answer_chars;
            let built = request_of(side, suite, case, &entries);
            let usage = match written_here {
                0 => side.backend.answered_without_a_call(case, &built),
                _ if cached_so_far => Some(Default::default()),
                _ => None,
            };
            cached_so_far = usage.is_some();
            match usage {
                Some(usage) => {
                    *walk.without.entry("cache").or_default() += 1;
                    let chars = usage.completion_tokens.unwrap_or(0) as usize * 4;
                    let reply = code_like(chars.min(20_000));
                    // The cache keeps the server's generation time only.
                    let secs = usage.generation_secs;
                    let language = suite.questions[case.question - 1].code_language();
                    if let Some(call) = Call::of(&built.messages, &usage, &reply, secs, language) {
                        evidence.add("cache", call);
                    }
                }
                None => {
                    let estimate = prompt_estimate(&built.messages);
                    tracing::debug!(case = %case.test_name(), estimate, "planned prompt");
                    let recording = recorded
                        .contains(&case.snapshot_name())
                        .then(|| store.read(case))
                        .flatten()
                        .and_then(|r| {
                            let usage = r.usage.clone()?;
                            let language = suite.questions[case.question - 1].code_language();
                            Call::of(&built.messages, &usage, &r.reply, r.llm_secs, language)
                        });
                    if let Some(call) = &recording {
                        answer = call.answer_chars;
                        evidence.add("recordings", call.clone());
                    } else if walk.to_tokenize.len() < TOKENIZED {
                        walk.to_tokenize
                            .push((side.backend, built.clone(), estimate));
                    }
                    walk.pending.push(Pending {
                        estimate,
                        recorded: recording,
                        slots: side.config.concurrency.max(1),
                    });
                }
            }
            if side.config.history.enabled {
                entries.push(entry_to_come(suite, case, answer));
                written_here += 1;
            }
        }
    }
}

/// The history entry a case not yet asked is taken to leave: its
/// question, an answer of `answer_chars` characters, passed.
pub fn entry_to_come(suite: &Suite, case: &CaseId, answer_chars: usize) -> HistoryEntry {
    let q = &suite.questions[case.question - 1];
    HistoryEntry {
        question_number: q.index,
        question: q.question.clone(),
        answer: code_like(answer_chars),
        passed: true,
        expected: q.expected_text(),
        actual: q.expected_text(),
    }
}

/// `chars` characters that a tokenizer splits as it splits code (a run of
/// one letter would be a few tokens, and the probe would learn too low a
/// count per character).
fn code_like(chars: usize) -> String {
    const LINE: &str = "    total = total + values[index] * 2  # keep the running sum\n";
    LINE.chars().cycle().take(chars).collect()
}

/// The request `case` is asked with after `entries` of its chain.
pub fn request_of(
    side: &ModelSide<'_>,
    suite: &Suite,
    case: &CaseId,
    entries: &[HistoryEntry],
) -> ChatRequest {
    let config = side.config;
    let prompt = suite
        .prompt(&case.prompt)
        .expect("planned cases name suite prompts");
    let question = &suite.questions[case.question - 1];
    request::build(
        config,
        &config.model,
        suite.system_prompt_for(prompt, config.llm.system_prompt.as_deref()),
        &prompt.template_for(question),
        &question.question,
        entries,
        case.sample_index(),
    )
    .request
}

/// The cases of each chain, in question order.
fn chains<'a>(cases: &[&'a CaseId]) -> Vec<Vec<&'a CaseId>> {
    let mut at: HashMap<ChainId, usize> = HashMap::new();
    let mut out: Vec<Vec<&CaseId>> = Vec::new();
    for case in cases {
        let i = *at.entry(case.chain()).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[i].push(case);
    }
    for chain in &mut out {
        chain.sort_by_key(|c| c.question);
    }
    out
}

/// The server's tokens per estimated token, from its tokenizer.
fn tokenizer_ratio(requests: &[(&dyn Backend, ChatRequest, u64)]) -> Option<(f64, usize)> {
    let mut counted = 0u64;
    let mut estimated = 0u64;
    let mut n = 0;
    for (backend, request, estimate) in requests {
        let Some(tokens) = backend.count_prompt_tokens(request) else {
            // A server without a tokenizer says so at the first ask.
            if n == 0 {
                return None;
            }
            continue;
        };
        counted += tokens;
        estimated += estimate;
        n += 1;
    }
    (n > 0 && estimated > 0).then(|| (counted as f64 / estimated as f64, n))
}

/// Paired cases per pair of prompts (the fewest any prompt has), and the
/// discordance: measured on a resumed run's finished pairs when there are
/// at least 20, else the stated default.
fn pairing(inputs: &Inputs<'_>) -> (usize, f64, String) {
    let mut per_prompt: HashMap<&str, usize> = HashMap::new();
    for case in inputs.to_ask {
        *per_prompt.entry(&case.prompt).or_default() += 1;
    }
    for (prompt, n) in inputs.finished_by_prompt.into_iter().flatten() {
        *per_prompt.entry(prompt).or_default() += n;
    }
    // Pairs need two prompts among the planned cases.
    let paired = match per_prompt.len() {
        0 | 1 => 0,
        _ => per_prompt.values().copied().min().unwrap_or(0),
    };
    let measured = [
        (inputs.finished_pairs, "finished cases of the resumed run"),
        (
            inputs.baseline_pairs.unwrap_or_default(),
            "prompts' verdicts in [gate] baseline",
        ),
    ];
    match measured.iter().find(|(p, _)| p.pairs >= 20) {
        Some((p, on)) => (
            paired,
            p.discordant as f64 / p.pairs as f64,
            format!("measured on the {} pairs of {on}", p.pairs),
        ),
        None => (
            paired,
            DEFAULT_DISCORDANCE,
            "assumed: no finished pairs (resumed run, baseline) to measure it on".to_string(),
        ),
    }
}
