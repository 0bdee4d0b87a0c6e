//! Runs the selected cases through two bounded pools: model requests in
//! flight (sized to the server's parallel slots, `concurrency`) and program
//! executions (sized to the cores). A case waiting for the model never
//! holds back a case ready to run its code, and libtest's worker threads
//! only wait for results ([`Scheduler::wait`]).
//!
//! Order: with the learning history on, the cases of a chain (prompt x
//! round) run one after another, since each sees the earlier ones. Each
//! model slot keeps one chain until its last case has been asked, and
//! takes the chain's next case as soon as it is ready: the prompt of
//! question k is the prompt of question k-1 plus one history entry and
//! the new question, so the server's slot holds most of it in its cache
//! (a slot's own chain is the only work it waits for, the judging of its
//! last case, a fraction of a second against the seconds a prompt of
//! 1,000 tokens takes to process on a CPU). Slots take new chains in plan
//! order (question-major). A reply that never reached the server (a
//! replay, the response cache) leaves its slot free for any chain: there
//! is no prefix to keep, and programs then run side by side. With the history off, there is no chain:
//! ready cases are asked prompt by prompt, so requests sharing a template
//! go back to back. The slot a case is asked on is handed to
//! [`Work::ask`], for servers that take it (llama-server's `id_slot`).
//!
//! In a race ([`RaceGate`]), a case is asked only once its question is
//! open: every live prompt's cases of the question before have ended and
//! the race's rule has looked at them. Cases the race will never ask end
//! as not run, with the reason; no slot keeps a chain there, since every
//! chain waits for the others at each question.
//!
//! Bookkeeping is O(cases): a chain is a list of case indices and a cursor,
//! and keeps only the history entries a prompt can show.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::ask::history::HistoryEntry;
use crate::case::{CaseId, ChainId};
use crate::race::gate::{RaceGate, Step};

/// What libtest shows for a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrialOutcome {
    Passed,
    Failed(String),
    /// Not run or not evaluated, with the reason.
    Ignored(String),
}

/// The result of running one case to the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: TrialOutcome,
    /// What the case adds to its chain's history; `None` when it adds nothing.
    pub entry: Option<HistoryEntry>,
    /// Whether the model's reply passed, when it was judged (a race pairs
    /// only judged replies: not a server's error, not a case the harness
    /// could not evaluate).
    pub judged: Option<bool>,
}

/// The two stages of a case. `ask` holds a model slot, `execute` an
/// execution slot.
pub trait Work: Send + Sync + 'static {
    /// What the model stage hands to the execution stage.
    type Asked: Send + 'static;
    /// Asks for `case` on its lane's `slot` (0 to the lane's slots - 1).
    fn ask(&self, case: &CaseId, history: &[HistoryEntry], slot: usize) -> Self::Asked;
    fn execute(&self, case: &CaseId, asked: Self::Asked) -> Finished;
    /// Whether the server processed the prompt of `asked` (its slot now
    /// holds it): a reply from a recording or the response cache leaves
    /// the slot as it was, so the chain need not wait for that slot.
    fn reached_the_server(&self, _asked: &Self::Asked) -> bool {
        true
    }
    /// Every case of `model` has been asked and another model of its lane
    /// (its server) comes next.
    fn model_done(&self, _model: Option<&str>) {}
}

/// How many cases may be in each stage at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pools {
    /// Model requests in flight.
    pub model: usize,
    /// Programs running.
    pub execute: usize,
}

/// Models that share a server: their cases are asked model after model
/// (`models` in order: one model resident at a time, never alternating),
/// by `slots` requests in flight. Lanes run side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    pub models: Vec<Option<String>>,
    pub slots: usize,
}

/// One lane's ready cases and which of its models is being asked.
struct LaneQueue {
    ready: VecDeque<usize>,
    /// Index into the lane's models of the model being asked.
    current: usize,
    /// Per model of the lane, its cases not yet through the model stage.
    unasked: Vec<usize>,
    /// Per slot of the lane, the chain it keeps until that chain's last
    /// case has been asked.
    kept: Vec<Option<usize>>,
}

impl LaneQueue {
    /// Moves on past the models whose every case has been asked.
    fn advance(&mut self) {
        while self.current < self.unasked.len() && self.unasked[self.current] == 0 {
            self.current += 1;
        }
    }

    /// The place in `ready` of the case `slot` asks next: a case of the
    /// chain it keeps; when it keeps none, the first ready case of a chain
    /// no slot keeps (or of none, without history).
    fn pick(
        &self,
        slot: usize,
        ready_for: impl Fn(usize) -> bool,
        chain_of: &[Option<usize>],
    ) -> Option<usize> {
        let mine = self.kept[slot];
        self.ready.iter().position(|&i| {
            ready_for(i)
                && match (chain_of[i], mine) {
                    (Some(c), Some(kept)) => c == kept,
                    (Some(c), None) => !self.kept.contains(&Some(c)),
                    (None, mine) => mine.is_none(),
                }
        })
    }
}

/// A chain's cases in question order and what the next one will see.
struct Chain {
    cases: Vec<usize>,
    next: usize,
    /// The most recent entries, oldest first, at most `keep` of them.
    history: VecDeque<HistoryEntry>,
}

struct Shared<W: Work> {
    work: W,
    cases: Vec<CaseId>,
    /// Chain of each case (its place in `chains`); `None` when the
    /// history is off. Positions, not names: per case, the bookkeeping
    /// holds a few numbers, never another copy of its identity.
    chain_of: Vec<Option<usize>>,
    /// Whether each case is the last of its chain (a slot then lets the
    /// chain go).
    last_of_chain: Vec<bool>,
    chains: Mutex<Vec<Chain>>,
    keep: usize,
    /// Lane and model (index into the lane's models) of each case.
    lane_of: Vec<(usize, usize)>,
    lanes: Mutex<Vec<LaneQueue>>,
    ready_changed: Condvar,
    asked: Mutex<VecDeque<(usize, W::Asked)>>,
    asked_changed: Condvar,
    /// At most this many asked cases wait for an execution slot
    /// ([`asked_bound`]): a cached rerun asks far faster than programs
    /// run, and an unbounded queue held every reply of a 100,000-case run
    /// at once.
    asked_bound: usize,
    /// Signalled when the queue has drained to half the bound: the model
    /// stage then refills it, woken once per half a queue rather than once
    /// per case (a wake-up per case cost a cached run 3 % of its time on
    /// 2 cores).
    asked_room: Condvar,
    results: Mutex<Vec<Option<TrialOutcome>>>,
    /// The libtest thread waiting for each case, woken alone when its case
    /// ends: one condition variable for all of them woke every waiting
    /// thread (up to 64) on every case.
    waiters: Mutex<HashMap<usize, std::thread::Thread>>,
    /// Cases without a result yet.
    remaining: std::sync::atomic::AtomicUsize,
    interrupted: Arc<AtomicBool>,
    /// Set when every case has a result or the run was interrupted.
    closing: AtomicBool,
    /// In a race, which cases may be asked now ([`RaceGate`]).
    race: Option<Mutex<RaceGate>>,
}

/// The running cases of one run. A case is named by its position in the
/// cases it was started with ([`Scheduler::positions`]).
pub struct Scheduler<W: Work> {
    shared: Arc<Shared<W>>,
}

impl<W: Work> Scheduler<W> {
    /// Starts the pools on `cases` (plan order). `history` is `Some(keep)`
    /// when the history is on: chains run in order and remember their last
    /// `keep` entries; `earlier` holds the entries of cases finished before
    /// (a resumed run), oldest first per chain.
    pub fn start(
        work: W,
        cases: Vec<CaseId>,
        history: Option<usize>,
        earlier: HashMap<ChainId, Vec<HistoryEntry>>,
        pools: Pools,
        interrupted: Arc<AtomicBool>,
    ) -> Scheduler<W> {
        let models: Vec<Option<String>> = {
            let mut seen: Vec<Option<String>> = Vec::new();
            for c in &cases {
                let model = c.model.as_deref().map(str::to_string);
                if !seen.contains(&model) {
                    seen.push(model);
                }
            }
            seen
        };
        let lane = Lane {
            models,
            slots: pools.model,
        };
        Self::start_lanes(
            work,
            cases,
            history,
            earlier,
            vec![lane],
            pools.execute,
            interrupted,
            None,
        )
    }

    /// [`Scheduler::start`] with the model stage split into lanes (one per
    /// server): each lane asks its models one after another with its own
    /// slots, and the lanes run at once. Every case's model must be in
    /// exactly one lane. In a race, `race` (built on the same cases, with
    /// its first step) holds every case until its question is open, and
    /// the cases it skips end as not run.
    #[allow(clippy::too_many_arguments)]
    pub fn start_lanes(
        work: W,
        cases: Vec<CaseId>,
        history: Option<usize>,
        earlier: HashMap<ChainId, Vec<HistoryEntry>>,
        lanes: Vec<Lane>,
        execute: usize,
        interrupted: Arc<AtomicBool>,
        race: Option<(RaceGate, Step)>,
    ) -> Scheduler<W> {
        let (race, first) = match race {
            Some((gate, step)) => (Some(gate), Some(step)),
            None => (None, None),
        };
        let keep = history.unwrap_or(0);
        let (chain_of, chains) = match history {
            Some(_) => chains(&cases, keep, earlier),
            None => (vec![None; cases.len()], Vec::new()),
        };
        let lane_of = lane_of(&cases, &lanes);
        let mut last_of_chain = vec![false; cases.len()];
        for chain in &chains {
            if let Some(&last) = chain.cases.last() {
                last_of_chain[last] = true;
            }
        }
        // Ready now: every case without history, prompt by prompt (one
        // template's requests back to back), else each chain's first in
        // plan order.
        let ready: Vec<usize> = match history {
            None => {
                let mut all: Vec<usize> = (0..cases.len()).collect();
                let mut prompts: Vec<&str> = Vec::new();
                for c in &cases {
                    if !prompts.contains(&&*c.prompt) {
                        prompts.push(&c.prompt);
                    }
                }
                let rank = |i: usize| prompts.iter().position(|p| *p == &*cases[i].prompt);
                all.sort_by_key(|&i| rank(i));
                all
            }
            Some(_) => chains.iter().map(|c| c.cases[0]).collect(),
        };
        // In a race, the race's first step makes the open question's
        // cases ready (in its order: prompt by prompt).
        let ready: Vec<usize> = match &race {
            Some(_) => Vec::new(),
            None => ready,
        };
        let queues = queues(&lanes, &lane_of, ready, history.is_none());
        let n = cases.len();
        let shared = Arc::new(Shared {
            work,
            cases,
            chain_of,
            last_of_chain,
            chains: Mutex::new(chains),
            keep,
            lane_of,
            lanes: Mutex::new(queues),
            ready_changed: Condvar::new(),
            asked: Mutex::new(VecDeque::new()),
            asked_changed: Condvar::new(),
            asked_bound: asked_bound(execute),
            asked_room: Condvar::new(),
            results: Mutex::new(vec![None; n]),
            waiters: Mutex::new(HashMap::new()),
            remaining: std::sync::atomic::AtomicUsize::new(n),
            interrupted,
            closing: AtomicBool::new(n == 0),
            race: race.map(Mutex::new),
        });
        if let Some(step) = first {
            shared.take_step(step);
        }
        for (l, lane) in lanes.iter().enumerate() {
            for slot in 0..lane.slots.max(1) {
                let s = shared.clone();
                std::thread::spawn(move || s.model_worker(l, slot));
            }
        }
        for _ in 0..execute.max(1) {
            let s = shared.clone();
            std::thread::spawn(move || s.execute_worker());
        }
        Scheduler { shared }
    }

    /// Each case's position, to wait for it by ([`Scheduler::wait`]): a
    /// lookup to build the waiters with, then dropped (kept for the run,
    /// a map keyed by case identity doubled what a case costs).
    pub fn positions(&self) -> HashMap<&CaseId, usize> {
        self.shared
            .cases
            .iter()
            .enumerate()
            .map(|(i, c)| (c, i))
            .collect()
    }

    /// Blocks until the case at position `i` has a result. `None` when there
    /// is no such case, or the run was interrupted before it finished.
    pub fn wait(&self, i: usize) -> Option<TrialOutcome> {
        let s = &self.shared;
        if i >= s.cases.len() {
            return None;
        }
        loop {
            {
                let results = lock(&s.results);
                if let Some(outcome) = &results[i] {
                    lock(&s.waiters).remove(&i);
                    return Some(outcome.clone());
                }
                if s.interrupted.load(Ordering::SeqCst) {
                    return None;
                }
                // Registered under the results lock: `complete` sets the
                // result under it too, so it finds this waiter to unpark.
                lock(&s.waiters).insert(i, std::thread::current());
            }
            // Interrupts come from a signal handler, which cannot unpark.
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }

    /// Lets idle workers end; running cases finish on their own.
    pub fn close(&self) {
        self.shared.close();
    }
}

impl<W: Work> Drop for Scheduler<W> {
    fn drop(&mut self) {
        self.close();
    }
}

/// How many asked cases may wait for an execution slot: replies are
/// small (a few KB), and a deep queue lets the model stage run in bursts.
fn asked_bound(execute: usize) -> usize {
    (4 * execute.max(1)).max(64)
}

/// The chain of each case (its place in the chains), and each chain's
/// cases in question order with the last `keep` history entries of its
/// cases finished before (`earlier`).
fn chains(
    cases: &[CaseId],
    keep: usize,
    mut earlier: HashMap<ChainId, Vec<HistoryEntry>>,
) -> (Vec<Option<usize>>, Vec<Chain>) {
    let mut ids: HashMap<ChainId, usize> = HashMap::new();
    let mut chains: Vec<Chain> = Vec::new();
    let mut chain_of = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let at = *ids.entry(case.chain()).or_insert_with(|| {
            chains.push(Chain {
                cases: Vec::new(),
                next: 0,
                history: VecDeque::new(),
            });
            chains.len() - 1
        });
        chains[at].cases.push(i);
        chain_of.push(Some(at));
    }
    for (id, at) in ids {
        let chain = &mut chains[at];
        chain.cases.sort_by_key(|&i| cases[i].question);
        let entries = earlier.remove(&id).unwrap_or_default();
        let skip = entries.len().saturating_sub(keep);
        chain.history.extend(entries.into_iter().skip(skip));
    }
    (chain_of, chains)
}

/// The lane of each case, and its model's place in the lane.
fn lane_of(cases: &[CaseId], lanes: &[Lane]) -> Vec<(usize, usize)> {
    cases
        .iter()
        .map(|c| {
            lanes
                .iter()
                .enumerate()
                .find_map(|(l, lane)| {
                    lane.models
                        .iter()
                        .position(|m| m.as_deref() == c.model.as_deref())
                        .map(|m| (l, m))
                })
                .expect("every case's model is in a lane")
        })
        .collect()
}

/// Each lane's queue: its `ready` cases (in plan order, unless `ordered`
/// says they already are in theirs), and its first model with cases to
/// ask.
fn queues(
    lanes: &[Lane],
    lane_of: &[(usize, usize)],
    mut ready: Vec<usize>,
    ordered: bool,
) -> Vec<LaneQueue> {
    let mut queues: Vec<LaneQueue> = lanes
        .iter()
        .map(|lane| LaneQueue {
            ready: VecDeque::new(),
            current: 0,
            unasked: vec![0; lane.models.len()],
            kept: vec![None; lane.slots.max(1)],
        })
        .collect();
    for &(l, m) in lane_of {
        queues[l].unasked[m] += 1;
    }
    if !ordered {
        ready.sort_unstable();
    }
    for i in ready {
        queues[lane_of[i].0].ready.push_back(i);
    }
    for q in &mut queues {
        q.advance();
    }
    queues
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Waits on `changed` for at most 200 ms (a waiter re-checks whether the
/// run is stopping at least that often), a poisoned lock taken as is.
fn wait_a_while<'a, T>(
    changed: &Condvar,
    guard: std::sync::MutexGuard<'a, T>,
) -> std::sync::MutexGuard<'a, T> {
    changed
        .wait_timeout(guard, Duration::from_millis(200))
        .map(|(g, _)| g)
        .unwrap_or_else(|p| p.into_inner().0)
}

impl<W: Work> Shared<W> {
    fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        self.ready_changed.notify_all();
        self.asked_changed.notify_all();
        self.asked_room.notify_all();
    }

    fn stopping(&self) -> bool {
        self.closing.load(Ordering::SeqCst) || self.interrupted.load(Ordering::SeqCst)
    }

    /// Asks the cases of lane `l`, its current model's only, as its
    /// `slot`.
    fn model_worker(&self, l: usize, slot: usize) {
        loop {
            if !self.wait_for_room() {
                return;
            }
            let next = {
                let mut lanes = lock(&self.lanes);
                loop {
                    if self.stopping() {
                        return;
                    }
                    let lane = &mut lanes[l];
                    let current = lane.current;
                    let at = lane.pick(slot, |i| self.lane_of[i].1 == current, &self.chain_of);
                    if let Some(i) = at.and_then(|at| lane.ready.remove(at)) {
                        // In a race every chain waits for the others at
                        // each question: a slot keeping one would idle.
                        lane.kept[slot] = match self.last_of_chain[i] || self.race.is_some() {
                            true => None,
                            false => self.chain_of[i],
                        };
                        break i;
                    }
                    lanes = wait_a_while(&self.ready_changed, lanes);
                }
            };
            let history: Vec<HistoryEntry> = match self.chain_of[next] {
                Some(at) => lock(&self.chains)
                    .get(at)
                    .map(|c| c.history.iter().cloned().collect())
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let case = &self.cases[next];
            let asked = catch(|| self.work.ask(case, &history, slot));
            if !asked
                .as_ref()
                .is_ok_and(|a| self.work.reached_the_server(a))
            {
                // Nothing of the chain is in the server's slot: any slot
                // may take its next case, and this one another chain.
                let mut lanes = lock(&self.lanes);
                let kept = &mut lanes[l].kept[slot];
                if *kept == self.chain_of[next] {
                    *kept = None;
                }
            }
            self.asked_one(next);
            match asked {
                Ok(asked) => {
                    lock(&self.asked).push_back((next, asked));
                    self.asked_changed.notify_one();
                }
                Err(panic) => self.complete(next, panicked(panic)),
            }
        }
    }

    /// Waits until the asked queue has room (a few cases per execution
    /// slot, so the programs never starve); `false` when the run stops.
    /// The execution workers always drain the queue, so this ends.
    fn wait_for_room(&self) -> bool {
        let mut queue = lock(&self.asked);
        while queue.len() >= self.asked_bound {
            if self.stopping() {
                return false;
            }
            queue = wait_a_while(&self.asked_room, queue);
        }
        true
    }

    /// Counts a case through the model stage; its lane moves on to its
    /// next model once every case of the current one has been asked.
    fn asked_one(&self, i: usize) {
        let (l, m) = self.lane_of[i];
        let done = {
            let mut lanes = lock(&self.lanes);
            let lane = &mut lanes[l];
            lane.unasked[m] -= 1;
            if lane.unasked[m] == 0 && lane.current == m {
                lane.advance();
            }
            // Only where another model follows on the same server.
            lane.unasked[m] == 0 && m + 1 < lane.unasked.len()
        };
        if done {
            // Let the server go of it before the next model's first request.
            self.work.model_done(self.cases[i].model.as_deref());
            self.ready_changed.notify_all();
        }
    }

    fn execute_worker(&self) {
        loop {
            let (i, asked) = {
                let mut queue = lock(&self.asked);
                loop {
                    if let Some(item) = queue.pop_front() {
                        if queue.len() == self.asked_bound / 2 {
                            self.asked_room.notify_all();
                        }
                        break item;
                    }
                    if self.stopping() {
                        return;
                    }
                    queue = wait_a_while(&self.asked_changed, queue);
                }
            };
            let case = &self.cases[i];
            let finished = catch(|| self.work.execute(case, asked)).unwrap_or_else(panicked);
            self.complete(i, finished);
        }
    }

    /// Records the result, extends the chain's history and makes the chain's
    /// next case ready.
    fn complete(&self, i: usize, finished: Finished) {
        if let Some(at) = self.chain_of[i] {
            let mut chains = lock(&self.chains);
            if let Some(chain) = chains.get_mut(at) {
                if let Some(entry) = finished.entry {
                    chain.history.push_back(entry);
                    while chain.history.len() > self.keep {
                        chain.history.pop_front();
                    }
                }
                chain.next += 1;
                if let Some(&following) = chain.cases.get(chain.next)
                    && self.released(following)
                {
                    lock(&self.lanes)[self.lane_of[following].0]
                        .ready
                        .push_back(following);
                    // All: the workers of other lanes wait on it too.
                    self.ready_changed.notify_all();
                }
            }
        }
        let step = self
            .race
            .as_ref()
            .map(|gate| lock(gate).ended(i, finished.judged));
        let first = lock(&self.results)[i].replace(finished.outcome).is_none();
        if let Some(waiter) = lock(&self.waiters).remove(&i) {
            waiter.unpark();
        }
        if first && self.remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.close();
        }
        if let Some(step) = step {
            self.take_step(step);
        }
    }

    /// Whether case `i` may be asked now (always, outside a race).
    fn released(&self, i: usize) -> bool {
        self.race.as_ref().is_none_or(|gate| lock(gate).released(i))
    }

    /// What the race decided: skipped cases end as not run (never asked,
    /// so their lane counts them through the model stage), and released
    /// ones are asked when their chain is at them.
    fn take_step(&self, step: Step) {
        for (i, reason) in step.skip {
            self.asked_one(i);
            self.complete(
                i,
                Finished {
                    outcome: TrialOutcome::Ignored(reason),
                    entry: None,
                    judged: None,
                },
            );
        }
        if step.release.is_empty() {
            return;
        }
        let chains = lock(&self.chains);
        let mut lanes = lock(&self.lanes);
        for i in step.release {
            let at_its_turn = match self.chain_of[i] {
                Some(c) => chains[c].cases.get(chains[c].next) == Some(&i),
                None => true,
            };
            if at_its_turn {
                lanes[self.lane_of[i].0].ready.push_back(i);
            }
        }
        drop(lanes);
        drop(chains);
        self.ready_changed.notify_all();
    }
}

/// The harness panicked on a case; `message` is the panic's, when it has
/// one.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct CasePanic {
    message: String,
}

fn catch<T>(f: impl FnOnce() -> T) -> Result<T, CasePanic> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| CasePanic {
        message: payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into()),
    })
}

fn panicked(panic: CasePanic) -> Finished {
    tracing::error!("the harness panicked on a case: {panic}; please report it with the journal");
    Finished {
        outcome: TrialOutcome::Failed(format!(
            "the harness panicked on this case ({panic}); please report it with the journal line"
        )),
        entry: None,
        judged: None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Instant;

    use super::*;

    /// Sleeps in both stages and records the peak number of cases in each.
    struct Probe {
        ask_ms: u64,
        exec_ms: u64,
        asking: AtomicUsize,
        peak_asking: AtomicUsize,
        executing: AtomicUsize,
        peak_executing: AtomicUsize,
        /// Cases asked and not yet executing: replies held in memory.
        waiting: AtomicUsize,
        peak_waiting: AtomicUsize,
        /// (case name, the history numbers it saw), in ask order.
        seen: Mutex<Vec<(String, Vec<usize>)>>,
        /// (case name, the slot it was asked on), in ask order.
        slots: Mutex<Vec<(String, usize)>>,
        /// Replies from the server (else from a recording or the cache).
        live: bool,
    }

    impl Probe {
        fn new(ask_ms: u64, exec_ms: u64) -> Probe {
            Probe {
                ask_ms,
                exec_ms,
                asking: AtomicUsize::new(0),
                peak_asking: AtomicUsize::new(0),
                executing: AtomicUsize::new(0),
                peak_executing: AtomicUsize::new(0),
                waiting: AtomicUsize::new(0),
                peak_waiting: AtomicUsize::new(0),
                seen: Mutex::new(Vec::new()),
                slots: Mutex::new(Vec::new()),
                live: true,
            }
        }
    }

    fn enter(now: &AtomicUsize, peak: &AtomicUsize) {
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(n, Ordering::SeqCst);
    }

    impl Work for Arc<Probe> {
        type Asked = ();
        fn ask(&self, case: &CaseId, history: &[HistoryEntry], slot: usize) {
            enter(&self.asking, &self.peak_asking);
            lock(&self.slots).push((case.test_name(), slot));
            lock(&self.seen).push((
                case.test_name(),
                history.iter().map(|e| e.question_number).collect(),
            ));
            std::thread::sleep(Duration::from_millis(self.ask_ms));
            enter(&self.waiting, &self.peak_waiting);
            self.asking.fetch_sub(1, Ordering::SeqCst);
        }
        fn reached_the_server(&self, _: &()) -> bool {
            self.live
        }
        fn execute(&self, case: &CaseId, _: ()) -> Finished {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            enter(&self.executing, &self.peak_executing);
            std::thread::sleep(Duration::from_millis(self.exec_ms));
            self.executing.fetch_sub(1, Ordering::SeqCst);
            Finished {
                outcome: if case.question % 2 == 0 {
                    TrialOutcome::Failed("even".into())
                } else {
                    TrialOutcome::Passed
                },
                entry: Some(HistoryEntry {
                    question_number: case.question,
                    question: String::new(),
                    answer: String::new(),
                    passed: true,
                    expected: String::new(),
                    actual: String::new(),
                }),
                judged: Some(case.question % 2 == 1),
            }
        }
    }

    fn cases(prompts: &[&str], questions: usize) -> Vec<CaseId> {
        let mut out = Vec::new();
        for q in 1..=questions {
            for p in prompts {
                out.push(CaseId {
                    model: None,
                    prompt: (*p).into(),
                    question: q,
                    question_id: format!("q{q}").into(),
                    round: 1,
                    sample: None,
                });
            }
        }
        out
    }

    fn run(probe: &Arc<Probe>, cases: &[CaseId], history: Option<usize>, pools: Pools) {
        let s = Scheduler::start(
            probe.clone(),
            cases.to_vec(),
            history,
            HashMap::new(),
            pools,
            Arc::new(AtomicBool::new(false)),
        );
        let positions = s.positions();
        for c in cases {
            let expected = if c.question % 2 == 0 {
                TrialOutcome::Failed("even".into())
            } else {
                TrialOutcome::Passed
            };
            assert_eq!(s.wait(positions[c]), Some(expected));
        }
    }

    fn of_model(model: &str, cases: &[CaseId]) -> Vec<CaseId> {
        cases
            .iter()
            .map(|c| CaseId {
                model: Some(model.into()),
                ..c.clone()
            })
            .collect()
    }

    fn run_lanes(probe: &Arc<Probe>, cases: &[CaseId], history: Option<usize>, lanes: Vec<Lane>) {
        let s = Scheduler::start_lanes(
            probe.clone(),
            cases.to_vec(),
            history,
            HashMap::new(),
            lanes,
            2,
            Arc::new(AtomicBool::new(false)),
            None,
        );
        // Positions are the order the cases were given in.
        for (at, c) in cases.iter().enumerate() {
            assert!(s.wait(at).is_some(), "{}", c.test_name());
        }
    }

    /// The models asked, in ask order, with consecutive repeats merged.
    fn model_runs(probe: &Probe) -> Vec<String> {
        let mut runs: Vec<String> = Vec::new();
        for (name, _) in lock(&probe.seen).iter() {
            let model = name.split("::").next().unwrap().to_string();
            if runs.last() != Some(&model) {
                runs.push(model);
            }
        }
        runs
    }

    #[test]
    fn fast_replies_wait_in_a_bounded_queue() {
        // A cached rerun: replies come at once, programs take time. The
        // replies waiting for a slot stay a few per execution slot (plus
        // the asks in flight), not one per case.
        let probe = Arc::new(Probe::new(0, 2));
        let all = cases(&["p1", "p2"], 150);
        let pools = Pools {
            model: 3,
            execute: 2,
        };
        run(&probe, &all, None, pools);
        let peak = probe.peak_waiting.load(Ordering::SeqCst);
        assert!(peak <= asked_bound(2) + 3, "{peak} replies waited at once");
        assert_eq!(lock(&probe.seen).len(), 300, "every case was asked");
    }

    #[test]
    fn models_of_one_server_are_asked_one_after_another() {
        for history in [None, Some(10)] {
            let probe = Arc::new(Probe::new(2, 3));
            let one = cases(&["p1", "p2", "p3"], 4);
            let mut all = of_model("a", &one);
            all.extend(of_model("b", &one));
            let lane = Lane {
                models: vec![Some("a".into()), Some("b".into())],
                slots: 3,
            };
            run_lanes(&probe, &all, history, vec![lane]);
            assert_eq!(model_runs(&probe), ["a", "b"], "history {history:?}");
            assert!(probe.peak_asking.load(Ordering::SeqCst) <= 3);
        }
    }

    #[test]
    fn models_of_different_servers_are_asked_at_once() {
        let probe = Arc::new(Probe::new(20, 1));
        let one = cases(&["p1", "p2"], 3);
        let mut all = of_model("a", &one);
        all.extend(of_model("b", &one));
        let lanes = vec![
            Lane {
                models: vec![Some("a".into())],
                slots: 2,
            },
            Lane {
                models: vec![Some("b".into())],
                slots: 1,
            },
        ];
        run_lanes(&probe, &all, None, lanes);
        // Both servers full at once: their slots summed.
        assert_eq!(probe.peak_asking.load(Ordering::SeqCst), 3);
        assert!(model_runs(&probe).len() > 2, "the lanes did not interleave");
    }

    #[test]
    fn without_history_the_model_pool_is_kept_full_and_bounded() {
        let probe = Arc::new(Probe::new(30, 1));
        let all = cases(&["p"], 24);
        let started = Instant::now();
        run(
            &probe,
            &all,
            None,
            Pools {
                model: 4,
                execute: 2,
            },
        );
        assert_eq!(probe.peak_asking.load(Ordering::SeqCst), 4);
        assert!(probe.peak_executing.load(Ordering::SeqCst) <= 2);
        // 24 asks of 30 ms, 4 at a time: about 180 ms, not 720.
        assert!(started.elapsed() < Duration::from_millis(600));
    }

    #[test]
    fn with_history_chains_run_in_order_side_by_side() {
        let probe = Arc::new(Probe::new(5, 5));
        let all = cases(&["a", "b", "c"], 5);
        run(
            &probe,
            &all,
            Some(3),
            Pools {
                model: 4,
                execute: 2,
            },
        );
        let seen = lock(&probe.seen).clone();
        for p in ["a", "b", "c"] {
            let chain: Vec<&(String, Vec<usize>)> =
                seen.iter().filter(|(n, _)| n.starts_with(p)).collect();
            let order: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
            let expected: Vec<String> = (1..=5).map(|q| format!("{p}::q{q}::r1")).collect();
            assert_eq!(order, expected);
            // The most recent three entries, oldest first.
            assert_eq!(chain[4].1, [2, 3, 4]);
            assert_eq!(chain[1].1, [1]);
        }
        // Three chains, one case each in flight at most.
        assert!(probe.peak_asking.load(Ordering::SeqCst) <= 3);
        assert!(
            probe.peak_asking.load(Ordering::SeqCst) >= 2,
            "chains overlap"
        );
    }

    /// The case names in ask order.
    fn asked(probe: &Probe) -> Vec<String> {
        lock(&probe.seen).iter().map(|(n, _)| n.clone()).collect()
    }

    #[test]
    fn one_slot_keeps_its_chain_until_the_chain_ends() {
        // Each request extends the slot's last one: a, a, a, then b...
        let probe = Arc::new(Probe::new(2, 1));
        let all = cases(&["a", "b", "c"], 4);
        let pools = Pools {
            model: 1,
            execute: 2,
        };
        run(&probe, &all, Some(10), pools);
        let expected: Vec<String> = ["a", "b", "c"]
            .iter()
            .flat_map(|p| (1..=4).map(move |q| format!("{p}::q{q}::r1")))
            .collect();
        assert_eq!(asked(&probe), expected);
    }

    #[test]
    fn each_chain_stays_on_one_slot_and_no_slot_takes_anothers_chain() {
        let probe = Arc::new(Probe::new(3, 1));
        let all = cases(&["a", "b", "c", "d", "e"], 4);
        let pools = Pools {
            model: 2,
            execute: 2,
        };
        run(&probe, &all, Some(10), pools);
        let slots = lock(&probe.slots).clone();
        assert_eq!(slots.len(), 20);
        for p in ["a", "b", "c", "d", "e"] {
            let used: std::collections::BTreeSet<usize> = slots
                .iter()
                .filter(|(n, _)| n.starts_with(p))
                .map(|(_, s)| *s)
                .collect();
            assert_eq!(used.len(), 1, "chain {p} moved between slots: {slots:?}");
        }
        // Per slot, its chains one after another, never interleaved.
        for slot in 0..2 {
            let mine: Vec<char> = slots
                .iter()
                .filter(|(_, s)| *s == slot)
                .map(|(n, _)| n.chars().next().unwrap())
                .collect();
            let mut runs = mine.clone();
            runs.dedup();
            let mut unique = runs.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(
                runs.len(),
                unique.len(),
                "slot {slot} interleaved: {mine:?}"
            );
        }
        assert_eq!(
            probe.peak_asking.load(Ordering::SeqCst),
            2,
            "both slots busy"
        );
    }

    #[test]
    fn replies_that_never_reached_the_server_keep_no_slot() {
        // A replay: nothing is in the server's slots, so the chains go on
        // side by side and their programs run at once.
        let mut probe = Probe::new(0, 20);
        probe.live = false;
        let probe = Arc::new(probe);
        let all = cases(&["a", "b", "c"], 4);
        let pools = Pools {
            model: 1,
            execute: 3,
        };
        run(&probe, &all, Some(10), pools);
        assert!(
            probe.peak_executing.load(Ordering::SeqCst) >= 2,
            "one chain at a time would run one program at a time"
        );
        let first: String = asked(&probe)[..3]
            .iter()
            .map(|n| n.chars().next().unwrap())
            .collect();
        assert_eq!(first, "abc", "question-major, as planned");
    }

    #[test]
    fn without_history_one_templates_requests_go_back_to_back() {
        let probe = Arc::new(Probe::new(0, 0));
        let all = cases(&["a", "b", "c"], 3);
        let pools = Pools {
            model: 1,
            execute: 1,
        };
        run(&probe, &all, None, pools);
        let prompts: String = asked(&probe)
            .iter()
            .map(|n| n.chars().next().unwrap())
            .collect();
        assert_eq!(prompts, "aaabbbccc");
    }

    #[test]
    fn a_resumed_chain_continues_after_its_finished_entries() {
        let probe = Arc::new(Probe::new(0, 0));
        let all: Vec<CaseId> = cases(&["a"], 4).into_iter().skip(2).collect();
        let entry = |n| HistoryEntry {
            question_number: n,
            question: String::new(),
            answer: String::new(),
            passed: true,
            expected: String::new(),
            actual: String::new(),
        };
        let earlier = HashMap::from([(all[0].chain(), vec![entry(1), entry(2)])]);
        let s = Scheduler::start(
            probe.clone(),
            all.clone(),
            Some(10),
            earlier,
            Pools {
                model: 1,
                execute: 1,
            },
            Arc::new(AtomicBool::new(false)),
        );
        assert!(s.wait(1).is_some());
        let seen = lock(&probe.seen).clone();
        assert_eq!(seen[0].1, [1, 2]);
        assert_eq!(seen[1].1, [1, 2, 3]);
    }

    #[test]
    fn an_interrupt_stops_new_work_and_releases_waiters() {
        let probe = Arc::new(Probe::new(50, 0));
        let all = cases(&["a"], 20);
        let flag = Arc::new(AtomicBool::new(false));
        let s = Scheduler::start(
            probe.clone(),
            all.clone(),
            None,
            HashMap::new(),
            Pools {
                model: 1,
                execute: 1,
            },
            flag.clone(),
        );
        flag.store(true, Ordering::SeqCst);
        assert_eq!(s.wait(19), None);
        assert_eq!(s.wait(20), None, "no such case");
        std::thread::sleep(Duration::from_millis(120));
        assert!(lock(&probe.seen).len() <= 2, "no new case starts");
    }
}
