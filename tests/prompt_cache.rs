//! History chains keep the server's prompt cache: a scripted
//! OpenAI-compatible server with llama-server's slot behaviour and no
//! host-memory cache. Each slot keeps the tokens of the last prompt it
//! processed; a request goes to the slot it names (`id_slot`), else to the
//! idle slot with the longest common prefix, else to the least recently
//! used; it processes only what its slot does not already hold, and says so
//! in `timings` (`cache_n`, `prompt_n`) or in
//! `usage.prompt_tokens_details.cached_tokens`, or not at all.
//!
//! Three prompts x eight questions, history on, on 1 and 4 slots, with and
//! without `id_slot`: the tokens processed stay within 1.1 times the least
//! the chains allow (each request's tokens less the longest prefix any
//! earlier request shares with it: what a cache of unlimited size would
//! still process), every verdict is what the model answered, and the
//! cached tokens are reported per case and per prompt, or said to be
//! unknown when the server reports nothing.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::sync::{Arc, Condvar, Mutex};

use prompts_cli::Scratch;
use serde_json::json;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const QUESTIONS: usize = 8;

/// How the scripted server reports what it reused.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Reports {
    /// llama-server's `timings`.
    Timings,
    /// OpenAI's `usage.prompt_tokens_details.cached_tokens`.
    CachedTokens,
    Nothing,
}

/// The slots and what the server processed.
#[derive(Default)]
struct Slots {
    /// Each slot's cached tokens and when it was last used.
    cache: Vec<(Vec<String>, usize)>,
    /// Slots processing a request: a request goes to an idle one, and
    /// waits while none is.
    busy: Vec<bool>,
    clock: usize,
    processed: usize,
    sent: usize,
    /// Every prompt received, for the least the chains allow.
    prompts: Vec<Vec<String>>,
}

/// A request's prompt as the server tokenises it: one token per word of
/// each message, after its role.
fn tokens(req: &Request) -> Vec<String> {
    req.json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| {
            let role = m["role"].as_str().unwrap().to_string();
            let words: Vec<String> = m["content"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .map(str::to_string)
                .collect();
            std::iter::once(format!("<{role}>")).chain(words)
        })
        .collect()
}

fn common(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl Slots {
    fn new(n: usize) -> Slots {
        Slots {
            cache: vec![(Vec::new(), 0); n],
            busy: vec![false; n],
            ..Slots::default()
        }
    }

    /// The slot a request goes to, if one can take it now: the one it
    /// names, else the idle slot with the longest common prefix, else the
    /// least recently used idle slot.
    fn choose(&self, prompt: &[String], id_slot: Option<usize>) -> Option<usize> {
        if let Some(s) = id_slot.filter(|&s| s < self.cache.len()) {
            return (!self.busy[s]).then_some(s);
        }
        let idle: Vec<usize> = (0..self.cache.len()).filter(|&s| !self.busy[s]).collect();
        let longest = idle
            .iter()
            .copied()
            .max_by_key(|&s| common(&self.cache[s].0, prompt))?;
        match common(&self.cache[longest].0, prompt) {
            0 => idle.into_iter().min_by_key(|&s| self.cache[s].1),
            _ => Some(longest),
        }
    }

    /// Takes `slot` for `prompt`: how many of its tokens it reuses.
    fn take(&mut self, slot: usize, prompt: &[String]) -> usize {
        self.clock += 1;
        self.busy[slot] = true;
        let reused = common(&self.cache[slot].0, prompt);
        self.cache[slot] = (prompt.to_vec(), self.clock);
        self.processed += prompt.len() - reused;
        self.sent += prompt.len();
        self.prompts.push(prompt.to_vec());
        reused
    }

    /// Each prompt's tokens less the longest prefix an earlier prompt
    /// shares with it.
    fn least(&self) -> usize {
        self.prompts
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let shared = self.prompts[..k]
                    .iter()
                    .map(|e| common(e, p))
                    .max()
                    .unwrap_or(0);
                p.len() - shared
            })
            .sum()
    }
}

/// The scripted model: prints the number each question asks for.
fn answer(req: &Request) -> String {
    let asked = req.current_question();
    let n: String = asked
        .rsplit("print the number ")
        .next()
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    format!("```python\nprint({n})\n```")
}

/// The slots, and the signal that one became idle.
type Shared = Arc<(Mutex<Slots>, Condvar)>;

/// Serves `prompt` as the server does: waits for a slot, holds it while
/// the prompt is "processed" (a few milliseconds), then lets it go.
fn serve(shared: &Shared, prompt: &[String], id_slot: Option<usize>) -> usize {
    let (lock, idle) = &**shared;
    let mut slots = lock.lock().unwrap();
    let slot = loop {
        match slots.choose(prompt, id_slot) {
            Some(slot) => break slot,
            None => slots = idle.wait(slots).unwrap(),
        }
    };
    let reused = slots.take(slot, prompt);
    drop(slots);
    std::thread::sleep(std::time::Duration::from_millis(20));
    lock.lock().unwrap().busy[slot] = false;
    idle.notify_all();
    reused
}

/// A server of `slots` slots; `llama_server`: it says its slots at
/// `/props` and takes `id_slot`, else it has neither.
fn server(slots: usize, reports: Reports, llama_server: bool) -> (StubServer, Shared) {
    serving(slots, reports, llama_server, answer)
}

/// [`server`] with the model's answers given by `answer`.
fn serving(
    slots: usize,
    reports: Reports,
    llama_server: bool,
    answer: impl Fn(&Request) -> String + Send + Sync + 'static,
) -> (StubServer, Shared) {
    let state: Shared = Arc::new((Mutex::new(Slots::new(slots)), Condvar::new()));
    let shared = state.clone();
    let server = StubServer::start(move |req: &Request| match req.path.as_str() {
        "/props" if llama_server => Behaviour::Raw(
            "application/json",
            json!({"default_generation_settings": {"n_ctx": 32768}, "total_slots": slots})
                .to_string(),
        ),
        "/v1/chat/completions" => {
            let prompt = tokens(req);
            let id_slot = req.json["id_slot"]
                .as_u64()
                .map(|s| s as usize)
                .filter(|_| llama_server);
            let reused = serve(&shared, &prompt, id_slot);
            let content = answer(req);
            let total = prompt.len();
            let delta = json!({"model": STUB_MODEL, "choices": [{"index": 0,
                "delta": {"content": content}, "finish_reason": null}]});
            let last = json!({"model": STUB_MODEL, "choices": [{"index": 0, "delta": {},
                "finish_reason": "stop"}]});
            let mut usage = json!({"model": STUB_MODEL, "choices": [],
                "usage": {"prompt_tokens": total, "completion_tokens": 8}});
            match reports {
                Reports::Timings => {
                    usage["timings"] = json!({"cache_n": reused, "prompt_n": total - reused,
                        "predicted_ms": 10.0});
                }
                Reports::CachedTokens => {
                    usage["usage"]["prompt_tokens_details"] = json!({"cached_tokens": reused});
                }
                Reports::Nothing => {}
            }
            Behaviour::Raw(
                "text/event-stream",
                format!("data: {delta}\n\ndata: {last}\n\ndata: {usage}\n\ndata: [DONE]\n\n"),
            )
        }
        _ => Behaviour::Default,
    });
    (server, state)
}

/// Three prompts, eight questions each asking for a number.
fn suite() -> String {
    let questions: Vec<serde_json::Value> = (1..=QUESTIONS)
        .map(|q| {
            json!({"id": format!("q{q}"), "question": format!("Write a program that does it: print the number {}", 100 + q),
                   "answer": (100 + q).to_string()})
        })
        .collect();
    json!({
        "prompt1": "Solve this task in Python.\n{question}",
        "prompt2": "You are a careful engineer. Read the task, then answer with one code block.\n{question}",
        "prompt3": "Task:\n{question}\nAnswer with a Python program.",
        "questions": questions,
    })
    .to_string()
}

/// Runs the suite against a server of `slots` slots with `concurrency`
/// requests in flight; the processed tokens over the least, and the run.
fn run(slots: usize, reports: Reports, llama_server: bool) -> (f64, Scratch, Shared) {
    let (server, state) = server(slots, reports, llama_server);
    let s = Scratch::new(&format!(
        "suite = \"suite.json\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"openai\"\nconcurrency = {slots}\n\
         [openai]\nbase_url = \"{}\"\n",
        server.openai_url()
    ));
    s.write("suite.json", &suite());
    let run = s.prompts(&[], &[]);
    assert_eq!(
        run.status,
        Some(0),
        "every answer is right:\n{}",
        run.both()
    );
    let slots = state.0.lock().unwrap();
    assert_eq!(slots.prompts.len(), 3 * QUESTIONS);
    let ratio = slots.processed as f64 / slots.least() as f64;
    println!(
        "{slots_n} slot(s), {reports:?}, llama-server's /props and id_slot {llama_server}: processed {} of {} sent, least {}: {ratio:.2}x",
        slots.processed,
        slots.sent,
        slots.least(),
        slots_n = slots.cache.len()
    );
    drop(slots);
    (ratio, s, state)
}

#[test]
fn one_slot_processes_no_more_than_the_chains_allow() {
    let (ratio, s, state) = run(1, Reports::Timings, false);
    assert!(ratio <= 1.1, "{ratio:.2} times the least");
    // The cached part is reported per case and per prompt, as the server said.
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    let cached: u64 = journal
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| {
            r["tokens"]["prompt_cached"]
                .as_u64()
                .expect("each case says it")
        })
        .sum();
    let slots = state.0.lock().unwrap();
    assert_eq!(cached as usize, slots.sent - slots.processed);
    let summary = s.summary();
    let per_prompt: u64 = ["prompt1", "prompt2", "prompt3"]
        .iter()
        .map(|p| {
            summary["prompt_results"][p]["tokens"]["prompt_cached"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(per_prompt, cached);
}

#[test]
fn four_slots_keep_each_chain_with_or_without_id_slot() {
    for llama_server in [true, false] {
        let (ratio, _, _) = run(4, Reports::CachedTokens, llama_server);
        assert!(
            ratio <= 1.1,
            "id_slot {llama_server}: {ratio:.2} times the least"
        );
    }
}

#[test]
fn a_server_that_reports_nothing_is_not_guessed_at() {
    let (_, s, _) = run(1, Reports::Nothing, false);
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    assert!(!journal.contains("prompt_cached"), "{journal}");
    let summary = s.summary();
    assert!(summary["prompt_results"]["prompt1"]["tokens"]["prompt_cached"].is_null());
    assert!(
        summary["prompt_results"]["prompt1"]["tokens"]["prompt"]
            .as_u64()
            .unwrap()
            > 0
    );
}

/// The recorded replies of python-basics (Qwen2.5-Coder-1.5B), by the
/// first words of their prompt's template and the question.
fn recorded_python_basics() -> impl Fn(&Request) -> String + Send + Sync + 'static {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("benches-data/python-basics.json")).unwrap(),
    )
    .unwrap();
    let mut replies: Vec<(String, String, String)> = Vec::new();
    for (prompt, template) in suite.as_object().unwrap() {
        let Some(template) = template.as_str() else {
            continue;
        };
        let head: String = template
            .split("{question}")
            .next()
            .unwrap()
            .trim()
            .chars()
            .take(30)
            .collect();
        for q in suite["questions"].as_array().unwrap() {
            let id = q["id"].as_str().unwrap();
            let snap = root.join(format!(
                "tests/snapshots/python-basics/qwen2.5-coder_1.5b/{prompt}__{id}__r1.snap"
            ));
            let text = std::fs::read_to_string(&snap).unwrap();
            let reply = text
                .strip_prefix("---\n")
                .and_then(|b| b.split_once("\n---\n"))
                .map(|(_, r)| r.to_string())
                .unwrap();
            replies.push((
                head.clone(),
                q["question"].as_str().unwrap().to_string(),
                reply,
            ));
        }
    }
    move |req: &Request| {
        let asked = req.last_user_message().unwrap_or("");
        let current = req.current_question().trim();
        replies
            .iter()
            .find(|(head, question, _)| {
                asked.trim_start().starts_with(head.as_str()) && current.contains(question.trim())
            })
            .map(|(_, _, reply)| reply.clone())
            .unwrap_or_else(|| panic!("no recording for {current:?}"))
    }
}

/// The full python-basics (4 prompts x 27 questions, history on, the
/// recorded replies), one slot, with the window sliding by one and
/// dropping five at a time: the tokens the server processes against
/// those sent. Prints the figures for docs/internals/performance.md.
#[test]
fn python_basics_history_keeps_its_prefix_when_entries_leave_a_block_at_a_time() {
    let mut shares = Vec::new();
    for block in [1, 5, 10] {
        let (server, state) = serving(1, Reports::Timings, true, recorded_python_basics());
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        // The suite pins the block its recordings were made with (1): a
        // copy says the one measured here.
        let mut suite: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("benches-data/python-basics.json")).unwrap(),
        )
        .unwrap();
        suite["settings"]["history"]["drop_block"] = block.into();
        let s = Scratch::new(&format!(
            "model = \"{STUB_MODEL}\"\nbackend = \"openai\"\n\
             [openai]\nbase_url = \"{}\"\n",
            server.openai_url()
        ));
        let path = s.write("python-basics.json", &suite.to_string());
        let run = s.prompts(&[], &[("PROMPTEVAL_SUITE", path.to_str().unwrap())]);
        assert!(matches!(run.status, Some(0 | 101)), "{}", run.both());
        let slots = state.0.lock().unwrap();
        assert_eq!(slots.prompts.len(), 108);
        let share = slots.processed as f64 / slots.sent as f64;
        println!(
            "python-basics, drop_block {block}: processed {} of {} sent ({:.0} %), least {} ({:.2}x)",
            slots.processed,
            slots.sent,
            100.0 * share,
            slots.least(),
            slots.processed as f64 / slots.least() as f64
        );
        shares.push(share);
    }
    assert!(shares[1] < shares[0], "{shares:?}");
}
