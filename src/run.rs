//! One case through the pipeline: history -> request -> backend -> extract ->
//! sandbox -> judge -> snapshot -> journal. Knows nothing of libtest.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::backend::Backend;
use crate::case::{ApiFailure, CaseId, CaseRecord, ChainId, SnapshotState, Verdict};
use crate::config::Config;
use crate::extract::{Source, extract};
use crate::history::HistoryEntry;
use crate::journal::Journal;
use crate::judge::judge;
use crate::request::{self, CaseRequest};
use crate::sandbox::Sandbox;
use crate::snapshot::{SnapshotInfo, SnapshotStore};
use crate::suite::Suite;

/// The finished cases of one chain, by question number; `None` marks a case
/// that ended without a history entry (interrupted).
#[derive(Default)]
struct Chain {
    done: Mutex<BTreeMap<usize, Option<HistoryEntry>>>,
    changed: Condvar,
}

/// Everything the cases of a run share.
pub struct RunState {
    pub config: Config,
    pub suite: Suite,
    pub backend: Box<dyn Backend>,
    pub sandbox: Sandbox,
    pub journal: Journal,
    /// Where live replies are captured; `None` when replaying.
    pub snapshots: Option<SnapshotStore>,
    /// "model via backend at endpoint", stored in each snapshot.
    pub snapshot_description: String,
    /// The model name recorded on each case.
    pub model: String,
    chains: HashMap<ChainId, Chain>,
    /// For each selected case, the selected cases of its chain that come first.
    predecessors: HashMap<CaseId, Vec<usize>>,
    records: Mutex<Vec<CaseRecord>>,
    pub interrupted: Arc<AtomicBool>,
}

impl RunState {
    /// `selected` are the cases this process runs, `finished` those a resumed
    /// run already has in its journal (their history is reused).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: Config,
        suite: Suite,
        backend: Box<dyn Backend>,
        sandbox: Sandbox,
        journal: Journal,
        snapshots: Option<SnapshotStore>,
        model: String,
        selected: &[CaseId],
        finished: &[CaseRecord],
        interrupted: Arc<AtomicBool>,
    ) -> RunState {
        let mut chains: HashMap<ChainId, Chain> = HashMap::new();
        for case in selected {
            chains.entry(case.chain()).or_default();
        }
        for r in finished {
            if let Some(chain) = chains.get_mut(&r.case.chain()) {
                chain
                    .done
                    .get_mut()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(r.case.question, Some(HistoryEntry::from_record(r)));
            }
        }
        let mut predecessors: HashMap<CaseId, Vec<usize>> = HashMap::new();
        for case in selected {
            let earlier = selected
                .iter()
                .filter(|o| o.chain() == case.chain() && o.question < case.question)
                .map(|o| o.question)
                .collect();
            predecessors.insert(case.clone(), earlier);
        }
        let mut snapshot_description =
            format!("{model} via {} at {}", backend.kind(), backend.endpoint());
        if let Some(info) = &config.model_info {
            snapshot_description.push_str("; ");
            snapshot_description.push_str(info);
        }
        RunState {
            config,
            suite,
            backend,
            sandbox,
            journal,
            snapshots,
            snapshot_description,
            model,
            chains,
            predecessors,
            records: Mutex::new(Vec::new()),
            interrupted,
        }
    }

    pub fn records(&self) -> Vec<CaseRecord> {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Runs one case: waits for its chain's selected predecessors, then the
    /// pipeline. Always marks the case done, even when interrupted, so later
    /// cases of the chain never wait forever.
    pub fn run_case(&self, case: &CaseId) -> Option<CaseRecord> {
        let history = self.wait_for_history(case);
        let record = if self.interrupted.load(Ordering::SeqCst) {
            None
        } else {
            Some(self.evaluate(case, &history))
        };
        if let Some(r) = &record {
            if let Err(e) = self.journal.append(r) {
                tracing::error!(case = %case.test_name(), journal = %self.journal.path().display(), "could not append to the journal: {e}; the case is kept in memory for the report");
            }
            self.records
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(r.clone());
        }
        self.mark_done(case, record.as_ref().map(HistoryEntry::from_record));
        record
    }

    /// Marks a case that will not run (e.g. its trial panicked).
    pub fn mark_done(&self, case: &CaseId, entry: Option<HistoryEntry>) {
        if let Some(chain) = self.chains.get(&case.chain()) {
            let mut done = chain.done.lock().unwrap_or_else(|p| p.into_inner());
            done.entry(case.question).or_insert(entry);
            chain.changed.notify_all();
        }
    }

    fn wait_for_history(&self, case: &CaseId) -> Vec<HistoryEntry> {
        let Some(chain) = self.chains.get(&case.chain()) else {
            return Vec::new();
        };
        let empty = Vec::new();
        let waits = self.predecessors.get(case).unwrap_or(&empty);
        let mut done = chain.done.lock().unwrap_or_else(|p| p.into_inner());
        while !waits.iter().all(|q| done.contains_key(q)) {
            done = chain.changed.wait(done).unwrap_or_else(|p| p.into_inner());
        }
        done.range(..case.question)
            .filter_map(|(_, e)| e.clone())
            .collect()
    }

    fn evaluate(&self, case: &CaseId, history: &[HistoryEntry]) -> CaseRecord {
        let prompt = self
            .suite
            .prompt(&case.prompt)
            .expect("planned cases name suite prompts");
        let question = &self.suite.questions[case.question - 1];
        let CaseRequest {
            request,
            user,
            inputs,
        } = request::build(
            &self.config,
            &self.model,
            &prompt.template,
            &question.question,
            history,
        );
        let mut record = CaseRecord {
            case: case.clone(),
            name: case.test_name(),
            verdict: Verdict::ApiError,
            question: question.question.clone(),
            expected: question.answer.clone(),
            actual: String::new(),
            template: prompt.template.clone(),
            system_prompt: self.config.llm.system_prompt.clone(),
            prompt: user,
            reply: None,
            code: None,
            execution: None,
            api_failure: None,
            detail: None,
            model: self.model.clone(),
            backend: self.backend.kind().to_string(),
            snapshot: None,
            llm_secs: 0.0,
            exec_secs: 0.0,
            finished_at: String::new(),
        };

        tracing::debug!(case = %case.test_name(), history = history.len(), prompt_chars = record.prompt.chars().count(), "asking the model");
        let asked = Instant::now();
        let reply = self.backend.chat(case, &request);
        record.llm_secs = round3(asked.elapsed().as_secs_f64());
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) if e.failure == ApiFailure::NotRecorded => {
                tracing::warn!(case = %case.test_name(), "not evaluated: {}", e.message);
                record.verdict = Verdict::NotEvaluated;
                record.api_failure = Some(e.failure);
                record.detail = Some(e.message);
                record.finished_at = now();
                return record;
            }
            Err(e) => {
                tracing::warn!(case = %case.test_name(), "model call failed: {}", e.message);
                record.api_failure = Some(e.failure);
                record.detail = Some(e.message);
                record.finished_at = now();
                return record;
            }
        };
        record.snapshot = Some(match &self.snapshots {
            Some(store) => store.capture(
                case,
                &reply.content,
                &self.snapshot_description,
                &SnapshotInfo {
                    model: &self.model,
                    backend: self.backend.kind(),
                    endpoint: &self.backend.endpoint(),
                    request: &request,
                    inputs: &inputs,
                },
            ),
            None => SnapshotState::Replayed,
        });
        let extracted = extract(&reply.content);
        let code = extracted.code;
        record.reply = Some(reply.content);
        match self.sandbox.run(&code) {
            Ok(execution) => {
                let judgement = judge(&execution, &question.answer);
                record.verdict = judgement.verdict;
                record.actual = judgement.actual;
                record.detail = judgement.detail;
                record.exec_secs = round3(execution.duration_secs);
                record.execution = Some(execution);
            }
            Err(e) => {
                // The sandbox itself failed, not the program: the model is
                // not to blame, so the case is in no accuracy.
                tracing::error!(case = %case.test_name(), "the sandbox could not run the program: {e}; check [sandbox] in harness.toml");
                record.verdict = Verdict::NotEvaluated;
                record.detail = Some(format!("the sandbox could not run the program: {e}"));
            }
        }
        if extracted.source == Source::WholeReply && !record.passed() {
            // Small models often answer with the expected output instead of
            // a program; say so, since the verdict alone hides it.
            let note = "the reply had no code block, so all of it was run as the program";
            record.detail = Some(match record.detail.take() {
                Some(d) => format!("{d} ({note})"),
                None => note.to_string(),
            });
        }
        record.code = Some(code);
        record.finished_at = now();
        tracing::debug!(
            case = %case.test_name(),
            verdict = %record.verdict,
            llm_secs = record.llm_secs,
            exec_secs = record.exec_secs,
            detail = record.detail.as_deref().unwrap_or(""),
            "case finished"
        );
        record
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn now() -> String {
    jiff::Timestamp::now().to_string()
}
