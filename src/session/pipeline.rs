//! One case through the pipeline, in the scheduler's two stages:
//! [`Pipeline::ask`] (history -> request -> backend -> snapshot) holds a
//! model slot, [`Pipeline::execute`] (extract -> sandbox -> judge -> journal)
//! an execution slot. Knows nothing of libtest.

use std::sync::Arc;
use std::time::Instant;

use crate::ask::history::HistoryEntry;
use crate::ask::request::{self, CaseRequest};
use crate::ask::snapshot::{SnapshotInfo, SnapshotStore};
use crate::backend::{Backend, BackendError, Reply};
use crate::case::{ApiFailure, CaseId, CaseRecord, SnapshotState, Verdict};
use crate::config::Config;
use crate::execute::extract::Source;
use crate::execute::language::Languages;
use crate::record::journal::Journal;
use crate::sandbox::Sandbox;
use crate::schedule::{Finished, TrialOutcome, Work};
use crate::suite::{Question, Suite};

/// Where live replies are captured, and how they are described.
pub struct Recorder {
    pub store: SnapshotStore,
    /// "model via backend at endpoint[; model_info]", stored in each snapshot.
    pub description: String,
}

/// One model of the run: its configuration (the run's, with its
/// `[[models]]` keys), where its replies come from and where they are
/// recorded. A one-model run has one.
pub struct ServedModel {
    pub config: Config,
    pub backend: Box<dyn Backend>,
    /// `None` when replaying: the replies already are recordings.
    pub recorder: Option<Recorder>,
    /// Says once when its reasoning runs into the budget or the time limit.
    pub watch: super::thinking::Watch,
}

impl ServedModel {
    /// The model name recorded on each of its cases.
    pub fn name(&self) -> &str {
        &self.config.model
    }

    /// What its requests are built with: its configuration, or the one
    /// fitted to reasoning once its first reply showed that it thinks.
    pub fn asking(&self) -> &Config {
        self.watch.fitted().unwrap_or(&self.config)
    }
}

/// What the cases of a run share: what to ask, whom, and where to run and
/// write the result.
pub struct Pipeline {
    pub config: Config,
    pub suite: Suite,
    /// Per model of the run, in its order; a case asks the one of its
    /// `model` (the only one when that is `None`).
    pub models: Vec<ServedModel>,
    pub sandbox: Sandbox,
    /// Each language's side: Python's question shapes (checked once per
    /// run), C++'s toolchain.
    pub languages: Languages,
    pub journal: Journal,
    /// Whether a case's history was shortened to fit the window (said once).
    pub history_fitted: std::sync::atomic::AtomicBool,
    /// What the progress lines count.
    pub progress: crate::terminal::progress::Progress,
    /// `[budget]`: whether each call may start, and what the calls spent.
    pub budget: crate::budget::Keeper,
}

/// A case after the model stage: the record so far and the reply, if any.
pub struct Asked {
    record: CaseRecord,
    /// `None` when the call failed (the record says why).
    reply: Option<String>,
    /// Why the case was not asked: the call would have crossed a cap of
    /// `[budget]`. Such a case is not journaled (a resume asks it).
    not_run: Option<String>,
}

impl Pipeline {
    /// The model a case asks.
    pub fn model_of(&self, case: &CaseId) -> &ServedModel {
        match &case.model {
            Some(model) => self
                .models
                .iter()
                .find(|m| m.name() == &**model)
                .expect("planned cases name models of the run"),
            None => &self.models[0],
        }
    }

    /// Builds the request from the chain's history and asks the model.
    /// A model that showed only now that it thinks, by a reply whose
    /// reasoning spent the default budget, is asked again with the budget
    /// fitted to reasoning (thinking.rs), and so are all its later cases.
    pub fn ask(&self, case: &CaseId, history: &[HistoryEntry], slot: usize) -> Asked {
        let model = self.model_of(case);
        let fitted_before = model.watch.fitted().is_some();
        let mut asked = self.ask_once(model, case, history, slot);
        let spent = asked.reply.as_deref().is_some_and(|r| r.trim().is_empty())
            && asked.record.finish_reason.as_deref() == Some("length");
        // Live only: a replay asks what was recorded.
        if spent
            && !fitted_before
            && model.recorder.is_some()
            && model.watch.fit(&asked.record, &model.config)
        {
            tracing::debug!(case = %case.test_name(), "asked again with the budget fitted to reasoning");
            asked = self.ask_once(model, case, history, slot);
        }
        if let Some(warning) = model.watch.look(&asked.record, model.asking()) {
            tracing::warn!("{warning}");
        }
        asked
    }

    fn ask_once(
        &self,
        model: &ServedModel,
        case: &CaseId,
        history: &[HistoryEntry],
        slot: usize,
    ) -> Asked {
        let config = model.asking();
        let prompt = self
            .suite
            .prompt(&case.prompt)
            .expect("planned cases name suite prompts");
        let question = &self.suite.questions[case.question - 1];
        let mut built = request::build(
            config,
            model.name(),
            self.suite
                .system_prompt_for(prompt, config.llm.system_prompt.as_deref()),
            &prompt.template_for(question),
            &question.question,
            history,
            case.sample_index(),
        );
        built.request.slot = Some(slot);
        if built.left_out_to_fit > 0 {
            self.warn_of_the_fitted_history(case, config);
        }
        let mut record = self.unanswered(model, case, &prompt.template, question, &built);
        // A live call spends: the budget decides. Only a cap needs to know
        // beforehand whether the cache answers (one more look at its file);
        // without one, the reply says so.
        let live = model.recorder.is_some();
        let cached = live
            && self.budget.capped()
            && model
                .backend
                .answered_without_a_call(case, &built.request)
                .is_some();
        let ticket = match live && !cached {
            true => match self.budget.admit(&built.request) {
                Ok(ticket) => Some(ticket),
                Err(why) => {
                    self.budget.not_run(&case.prompt, case.test_name());
                    return Asked {
                        record,
                        reply: None,
                        not_run: Some(why),
                    };
                }
            },
            false => None,
        };
        tracing::debug!(case = %case.test_name(), history = history.len(), prompt_chars = record.prompt.chars().count(), "asking the model");
        let asked = Instant::now();
        let reply = {
            let _in_flight = self.progress.asking();
            model.backend.chat(case, &built.request)
        };
        record.llm_secs = round3(asked.elapsed().as_secs_f64());
        let answered = reply.is_ok();
        let reply = match reply {
            Ok(reply) => {
                note_reply(model, &mut record, &built, &reply);
                Some(reply.content)
            }
            Err(e) => {
                note_failure(&mut record, e);
                None
            }
        };
        match ticket {
            // The cache answered after all: nothing was spent.
            Some(ticket) if record.cached => self.budget.release(ticket),
            Some(ticket) => {
                // A failed call without counts spent nothing the server said.
                let counted = record
                    .tokens
                    .or((!answered).then(crate::case::Tokens::default));
                self.budget
                    .settle(ticket, &built.request, counted, record.llm_secs);
            }
            None => {}
        }
        Asked {
            record,
            reply,
            not_run: None,
        }
    }

    /// Said once per run, at the first case whose history was shortened.
    fn warn_of_the_fitted_history(&self, case: &CaseId, config: &Config) {
        if self
            .history_fitted
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        tracing::warn!(
            case = %case.test_name(),
            "history shortened to fit the context window: from this case on, the oldest \
             earlier questions are left out while a prompt would exceed llm.num_ctx ({}) \
             less llm.num_predict ({}) for the reply; raise both (and the server's window) \
             to show more, or set history.fit_window = false",
            config.llm.num_ctx.unwrap_or(0),
            config.llm.num_predict.unwrap_or(0)
        );
    }

    /// The case's record before the model answers: an api_error until a
    /// reply says otherwise.
    fn unanswered(
        &self,
        model: &ServedModel,
        case: &CaseId,
        template: &str,
        question: &Question,
        built: &CaseRequest,
    ) -> CaseRecord {
        CaseRecord {
            case: case.clone(),
            name: case.test_name(),
            verdict: Verdict::ApiError,
            question: question.question.clone(),
            expected: question.expected_text(),
            actual: String::new(),
            template: template.to_string(),
            system_prompt: built
                .request
                .messages
                .first()
                .filter(|m| m.role == "system")
                .map(|m| m.content.clone()),
            prompt: built.user.clone(),
            reply: None,
            reasoning: None,
            code: None,
            program: None,
            execution: None,
            api_failure: None,
            detail: None,
            model: model.name().to_string(),
            backend: model.backend.kind().to_string(),
            snapshot: None,
            cached: false,
            tokens: None,
            finish_reason: None,
            generation_secs: None,
            llm_secs: 0.0,
            exec_secs: 0.0,
            speed: None,
            finished_at: String::new(),
        }
    }

    /// Runs the code of the reply, judges it and journals the case.
    pub fn execute(&self, asked: Asked) -> CaseRecord {
        let Asked {
            mut record, reply, ..
        } = asked;
        if let Some(reply) = reply {
            self.judge_reply(&mut record, reply);
        }
        record.finished_at = jiff::Timestamp::now().to_string();
        tracing::debug!(
            case = %record.name,
            verdict = %record.verdict,
            llm_secs = record.llm_secs,
            exec_secs = record.exec_secs,
            detail = record.detail.as_deref().unwrap_or(""),
            "case finished"
        );
        if let Err(e) = self.journal.append(&record) {
            tracing::error!(case = %record.name, journal = %self.journal.path().display(), "could not append to the journal: {e}; the case will be missing from the report and a resume will run it again");
        }
        self.progress.finished(&record);
        record
    }

    fn judge_reply(&self, record: &mut CaseRecord, reply: String) {
        if reply.trim().is_empty()
            && record
                .reasoning
                .as_deref()
                .is_some_and(|r| !r.trim().is_empty())
            && record.finish_reason.as_deref() == Some("length")
        {
            // The budget ran out while the model was still reasoning: there
            // is no answer to judge, and running nothing is not the model's
            // wrong answer (nor a syntax error).
            record.verdict = Verdict::NoAnswer;
            record.detail = Some(format!(
                "the token budget (llm.num_predict = {}) ran out inside the reasoning: no \
                 answer; raise llm.num_predict, or lower think",
                self.model_of(&record.case)
                    .asking()
                    .llm
                    .num_predict
                    .map_or_else(|| "the server's".to_string(), |n| n.to_string())
            ));
            record.reply = Some(reply);
            return;
        }
        let question = &self.suite.questions[record.case.question - 1];
        let extracted = self.languages.extract(question, &reply);
        // Which rule found the code decides what runs: logged, since a
        // wrong pick is a wrong verdict (extract.rs).
        tracing::debug!(case = %record.name, source = ?extracted.source, "code extracted");
        // What runs: the reply's code, completed for an entry point and
        // followed by the question's tests or check (execute/language.rs).
        let code = extracted.code.clone();
        record.reply = Some(reply);
        let mut shown = None;
        match self.languages.run(question, &code, &self.sandbox) {
            Ok(ran) => {
                let judgement = ran.judgement;
                record.verdict = judgement.verdict;
                record.actual = judgement.actual;
                record.detail = judgement.detail;
                record.exec_secs = round3(ran.execution.duration_secs);
                if record.verdict == Verdict::Timeout {
                    tracing::info!(
                        case = %record.name,
                        "the program ran past its time limit and was killed: verdict timeout \
                         ({}); if correct programs need longer on this machine, raise [sandbox] \
                         timeout_secs ({} s), or for a compiler [cpp] compile_timeout_secs",
                        record.detail.as_deref().unwrap_or(""),
                        self.config.sandbox.timeout_secs
                    );
                }
                record.execution = Some(ran.execution);
                record.speed = ran.speed;
                shown = Some(ran.shown);
            }
            Err(e) => {
                // The sandbox itself failed, not the program: the model is
                // not to blame, so the case is in no accuracy.
                tracing::error!(case = %record.name, "the sandbox could not run the program: {e}; check [sandbox] (and for C++ [cpp]) in harness.toml");
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
        record.program = shown.filter(|shown| *shown != code);
        record.code = Some(code);
    }
}

impl Work for Arc<Pipeline> {
    type Asked = Asked;

    fn ask(&self, case: &CaseId, history: &[HistoryEntry], slot: usize) -> Asked {
        Pipeline::ask(self, case, history, slot)
    }

    fn reached_the_server(&self, asked: &Asked) -> bool {
        if asked.not_run.is_some() {
            return false;
        }
        let replayed = asked.record.snapshot == Some(SnapshotState::Replayed);
        !asked.record.cached && !replayed
    }

    fn execute(&self, _case: &CaseId, asked: Asked) -> Finished {
        if let Some(why) = asked.not_run {
            return Finished {
                outcome: TrialOutcome::Ignored(format!("not run: {why}")),
                entry: None,
                judged: None,
            };
        }
        let record = Pipeline::execute(self, asked);
        Finished {
            outcome: trial_outcome(&record),
            entry: Some(HistoryEntry::from_record(&record)),
            judged: record.verdict.judged(),
        }
    }

    fn model_done(&self, model: Option<&str>) {
        if let Some(model) = model
            && let Some(served) = self.models.iter().find(|m| m.name() == model)
        {
            tracing::debug!("every case of {model} asked: the server may unload it");
            served.backend.release(served.config.server_model());
        }
    }
}

/// A failed call: not evaluated (the harness's or the server's doing), or
/// an api_error the model's run is charged with.
fn note_failure(record: &mut CaseRecord, e: BackendError) {
    if let Some(usage) = &e.usage {
        note_usage(record, usage);
    }
    if e.failure.not_evaluated() {
        tracing::warn!(case = %record.name, "not evaluated: {}", e.message);
        record.verdict = Verdict::NotEvaluated;
    } else {
        tracing::warn!(case = %record.name, "model call failed: {}", e.message);
    }
    record.api_failure = Some(e.failure);
    record.detail = Some(e.message);
}

/// Passed, failed, or (for a request no recording answers) ignored with the
/// reason: the model was not asked, so the case neither passes nor fails.
pub fn trial_outcome(record: &CaseRecord) -> TrialOutcome {
    trial_outcome_of(record.verdict, record.api_failure, record.detail.clone())
}

pub fn trial_outcome_of(
    verdict: Verdict,
    failure: Option<ApiFailure>,
    detail: Option<String>,
) -> TrialOutcome {
    match (verdict, failure) {
        (Verdict::Correct, _) => TrialOutcome::Passed,
        (Verdict::NotEvaluated, Some(ApiFailure::PromptTooLong)) => {
            TrialOutcome::Ignored("not evaluated: the prompt did not fit the context window".into())
        }
        (Verdict::NotEvaluated, Some(ApiFailure::NotRecorded)) => {
            TrialOutcome::Ignored("not evaluated: no recording of this exact request".into())
        }
        (verdict, _) => TrialOutcome::Failed(format!("{verdict}: {}", detail.unwrap_or_default())),
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The server's own figures for the call, on the case's record; the
/// reasoning's tokens estimated from its text where the server counts it
/// only with the answer (Ollama's `eval_count`).
fn note_usage(record: &mut CaseRecord, usage: &crate::backend::Usage) {
    let reasoning = record.reasoning.as_deref().unwrap_or("");
    let (reasoning_tokens, estimated) = match usage.reasoning_tokens {
        Some(n) => (n, false),
        None if reasoning.is_empty() => (0, false),
        None => (request::estimate_generated_tokens(reasoning), true),
    };
    record.tokens = usage
        .prompt_tokens
        .zip(usage.completion_tokens)
        .map(|(prompt, completion)| crate::case::Tokens {
            prompt,
            completion,
            reasoning: reasoning_tokens.min(completion),
            reasoning_estimated: estimated,
            prompt_cached: usage.prompt_cached.map(|n| n.min(prompt)),
        });
    record.finish_reason = usage.finish_reason.clone();
    record.generation_secs = usage.generation_secs;
}

/// A reply's figures, and its snapshot: captured when live, replayed
/// otherwise.
fn note_reply(model: &ServedModel, record: &mut CaseRecord, built: &CaseRequest, reply: &Reply) {
    record.cached = reply.cached;
    if model.recorder.is_none() {
        // Replayed: the recorded call's time (see replay.rs).
        record.llm_secs = round3(reply.elapsed.as_secs_f64());
    }
    record.reasoning = reply.reasoning.clone();
    note_usage(record, &reply.usage);
    record.snapshot = Some(match &model.recorder {
        Some(recorder) => recorder.store.capture(
            &record.case,
            &reply.content,
            &recorder.description,
            &SnapshotInfo {
                model: model.name(),
                backend: model.backend.kind(),
                endpoint: &model.backend.endpoint(),
                request: &built.request.key(),
                inputs: &built.inputs,
                usage: Some(&reply.usage),
                // A cache hit's time is the lookup's, not the model's.
                llm_secs: (!reply.cached).then_some(record.llm_secs),
                reasoning: reply.reasoning.as_deref(),
            },
        ),
        None => SnapshotState::Replayed,
    });
}
