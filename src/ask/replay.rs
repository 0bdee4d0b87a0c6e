//! Answers cases from the recorded snapshots, with no network: the whole
//! pipeline and its reports reproduce a recorded run offline.
//!
//! A recording answers a case only when it was made for exactly the request
//! the case sends now: model, sampling options, system prompt and the user
//! message with its learning history ([`RequestKey`]). Before the first case,
//! [`Replay::match_cases`] predicts every selected case's request (taking the
//! recorded outcome of earlier cases where it cannot be known before they
//! run) and says which cases have no matching recording and why. While
//! running, [`Backend::chat`] compares the real request once more, so a
//! history that turns out different (an earlier program printed something
//! else this time) is refused too, as `not_recorded`, never served.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::ask::history::HistoryEntry;
use crate::ask::request::{self, CaseRequest, PromptInputs};
use crate::ask::snapshot::{Recorded, SnapshotStore};
use crate::backend::{Backend, BackendError, ChatRequest, ConnectError, Reply, RequestKey};
use crate::case::{ApiFailure, CaseId, ChainId};
use crate::config::Config;
use crate::suite::Suite;

pub struct Replay {
    store: SnapshotStore,
    code_of: CodeOf,
}

/// The code a reply gives, as the execute stage extracts it: the history a
/// later case shows holds it. Passed in by the session, which knows both
/// stages, so asking does not import executing.
pub type CodeOf = fn(&str, &crate::suite::Question) -> String;

/// Why no recording answers a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    PromptNotRecorded,
    QuestionNotRecorded,
    RoundNotRecorded,
    /// The snapshot has no readable request (written by an older prompteval).
    RequestNotRecorded,
    ModelDiffers,
    OptionsChanged,
    SystemPromptChanged,
    TemplateChanged,
    QuestionChanged,
    HistoryDiffers,
    /// The user message differs and the snapshot does not say what it was built from.
    PromptDiffers,
    /// Not a replay's reason: the model of a multi-model run could not be
    /// reached or is not installed, so none of its cases were asked.
    ModelUnavailable,
}

impl Reason {
    pub fn label(self) -> &'static str {
        match self {
            Reason::PromptNotRecorded => "prompt not recorded",
            Reason::QuestionNotRecorded => "question not recorded",
            Reason::RoundNotRecorded => "round not recorded",
            Reason::RequestNotRecorded => "recorded without its request",
            Reason::ModelDiffers => "model differs",
            Reason::OptionsChanged => "options changed",
            Reason::SystemPromptChanged => "system prompt changed",
            Reason::TemplateChanged => "template changed",
            Reason::QuestionChanged => "question changed",
            Reason::HistoryDiffers => "history differs",
            Reason::PromptDiffers => "prompt differs",
            Reason::ModelUnavailable => "model unavailable",
        }
    }
}

/// A case no recording answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub reason: Reason,
    /// One line: what differs, concretely.
    pub detail: String,
}

impl Mismatch {
    /// A case of a model that could not be asked (see `Reason::ModelUnavailable`).
    pub fn unavailable(detail: impl Into<String>) -> Mismatch {
        Mismatch::new(Reason::ModelUnavailable, detail)
    }

    fn new(reason: Reason, detail: impl Into<String>) -> Mismatch {
        Mismatch {
            reason,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason.label(), self.detail)
    }
}

/// Which selected cases replay can answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matched {
    /// In the order they were given.
    pub runnable: Vec<CaseId>,
    pub unmatched: Vec<(CaseId, Mismatch)>,
}

impl Replay {
    pub fn new(store: SnapshotStore, code_of: CodeOf) -> Replay {
        Replay { store, code_of }
    }

    pub fn store(&self) -> &SnapshotStore {
        &self.store
    }

    /// Predicts the request of every case in `selected` and compares it with
    /// its recording. `earlier` holds, per chain, the history entries of
    /// cases a resumed run already finished (known exactly), oldest first. A case whose predecessor in the
    /// chain is not runnable sees a history without it, as it will when run.
    pub fn match_cases(
        &self,
        selected: &[CaseId],
        earlier: &HashMap<ChainId, Vec<HistoryEntry>>,
        suite: &Suite,
        config: &Config,
        model: &str,
    ) -> Matched {
        let names = self.store.names();
        let mut chains: BTreeMap<ChainId, Vec<&CaseId>> = BTreeMap::new();
        for case in selected {
            chains.entry(case.chain()).or_default().push(case);
        }
        let none = Vec::new();
        let mut verdicts: HashMap<&CaseId, Option<Mismatch>> = HashMap::new();
        for (chain, mut cases) in chains {
            cases.sort_by_key(|c| c.question);
            let known = earlier.get(&chain).unwrap_or(&none);
            let recordings: Vec<Option<Recorded>> =
                cases.iter().map(|case| self.store.read(case)).collect();
            // How each earlier question came out, as any recording of the
            // chain shows it: a recording that left an entry out (history
            // caps) does not say, but a later one may, and the caps decide
            // what is shown by the rendered size that outcome has.
            let mut outcomes: BTreeMap<usize, HistoryEntry> = BTreeMap::new();
            for recorded in recordings.iter().flatten() {
                for e in recorded.inputs.iter().flat_map(|i| &i.history) {
                    outcomes
                        .entry(e.question_number)
                        .or_insert_with(|| e.clone());
                }
            }
            // The code each runnable predecessor's recorded reply gives: part
            // of the history entry that can be known before it runs.
            let mut answers: BTreeMap<usize, String> = BTreeMap::new();
            for (case, recorded) in cases.into_iter().zip(recordings) {
                let outcome = match recorded {
                    None => Err(not_recorded(case, &names)),
                    Some(recorded) => {
                        let history =
                            predicted_history(known, &answers, &recorded, &outcomes, suite, case);
                        let now = build_for(case, &history, suite, config, model);
                        match explain(&recorded, &now) {
                            None => Ok(recorded),
                            Some(m) => Err(m),
                        }
                    }
                };
                let verdict = match outcome {
                    Ok(recorded) => {
                        let question = &suite.questions[case.question - 1];
                        let code = (self.code_of)(&recorded.reply, question).trim().to_string();
                        answers.insert(case.question, code);
                        None
                    }
                    Err(m) => Some(m),
                };
                verdicts.insert(case, verdict);
            }
        }
        let mut matched = Matched::default();
        for case in selected {
            match verdicts.remove(case).flatten() {
                None => matched.runnable.push(case.clone()),
                Some(m) => matched.unmatched.push((case.clone(), m)),
            }
        }
        matched
    }
}

/// The chain's history as case `case` will see it, oldest first: exact
/// entries of finished cases; for cases that will be replayed, the parts
/// known now (question, expected answer, the code of the recorded reply) and
/// the recorded outcome (this recording's, else the one `chain_outcomes`
/// took from the chain's other recordings), which only running them can
/// confirm.
fn predicted_history(
    finished: &[HistoryEntry],
    answers: &BTreeMap<usize, String>,
    recorded: &Recorded,
    chain_outcomes: &BTreeMap<usize, HistoryEntry>,
    suite: &Suite,
    case: &CaseId,
) -> Vec<HistoryEntry> {
    let recorded_entries: &[HistoryEntry] = recorded.inputs.as_ref().map_or(&[], |i| &i.history);
    let mut entries: Vec<HistoryEntry> = finished
        .iter()
        .filter(|e| e.question_number < case.question)
        .cloned()
        .collect();
    for (&number, code) in answers.range(..case.question) {
        let question = &suite.questions[number - 1];
        let outcome = recorded_entries
            .iter()
            .find(|e| e.question_number == number)
            .or_else(|| chain_outcomes.get(&number));
        entries.push(HistoryEntry {
            question_number: number,
            question: question.question.clone(),
            answer: code.clone(),
            passed: outcome.is_some_and(|e| e.passed),
            expected: question.expected_text(),
            // Unknown until it runs: a placeholder that matches no recording.
            actual: outcome.map_or_else(|| "(not run yet)".into(), |e| e.actual.clone()),
        });
    }
    entries.sort_by_key(|e| e.question_number);
    entries
}

fn build_for(
    case: &CaseId,
    history: &[HistoryEntry],
    suite: &Suite,
    config: &Config,
    model: &str,
) -> CaseRequest {
    let prompt = suite
        .prompt(&case.prompt)
        .expect("planned cases name suite prompts");
    let question = &suite.questions[case.question - 1];
    request::build(
        config,
        model,
        suite.system_prompt_for(prompt, config.llm.system_prompt.as_deref()),
        &prompt.template_for(question),
        &question.question,
        history,
        case.sample_index(),
    )
}

/// Why there is no snapshot for `case`: is the prompt, the question or the
/// round missing from the recordings?
fn not_recorded(case: &CaseId, names: &HashSet<String>) -> Mismatch {
    let first_round = CaseId {
        model: None,
        round: 1,
        ..case.clone()
    };
    let prefix = format!("{}__", case.prompt);
    if case.round > 1 && names.contains(&first_round.snapshot_name()) {
        Mismatch::new(
            Reason::RoundNotRecorded,
            format!("round {} was not recorded", case.round),
        )
    } else if names.iter().any(|n| n.starts_with(&prefix)) {
        Mismatch::new(
            Reason::QuestionNotRecorded,
            format!(
                "question `{}` was not recorded under `{}`",
                case.question_id, case.prompt
            ),
        )
    } else {
        Mismatch::new(
            Reason::PromptNotRecorded,
            format!("prompt `{}` was not recorded", case.prompt),
        )
    }
}

/// `None` when `recorded` answers exactly the request `now`, else why not.
pub fn explain(recorded: &Recorded, now: &CaseRequest) -> Option<Mismatch> {
    let Some(key) = &recorded.request else {
        return Some(Mismatch::new(
            Reason::RequestNotRecorded,
            "the snapshot holds no request to compare with; re-record it with a live backend",
        ));
    };
    let new_key = now.request.key();
    if *key == new_key {
        return None;
    }
    if key.model != new_key.model {
        return Some(Mismatch::new(
            Reason::ModelDiffers,
            format!(
                "recorded for model {}, asked for {}",
                key.model, new_key.model
            ),
        ));
    }
    let changes = new_key.options.changes_from(&key.options);
    if !changes.is_empty() {
        return Some(Mismatch::new(Reason::OptionsChanged, changes.join(", ")));
    }
    if system_prompt(key) != system_prompt(&new_key) {
        return Some(Mismatch::new(
            Reason::SystemPromptChanged,
            format!(
                "recorded with system prompt {}, now {}",
                quoted(system_prompt(key)),
                quoted(system_prompt(&new_key))
            ),
        ));
    }
    let Some(inputs) = &recorded.inputs else {
        return Some(Mismatch::new(
            Reason::PromptDiffers,
            first_difference(user_message(key), &now.user),
        ));
    };
    if inputs.template != now.inputs.template {
        return Some(Mismatch::new(
            Reason::TemplateChanged,
            format!(
                "recorded with template {}, now {}",
                quoted(Some(&inputs.template)),
                quoted(Some(&now.inputs.template))
            ),
        ));
    }
    if inputs.question != now.inputs.question {
        return Some(Mismatch::new(
            Reason::QuestionChanged,
            format!(
                "recorded for question text {}, now {}",
                quoted(Some(&inputs.question)),
                quoted(Some(&now.inputs.question))
            ),
        ));
    }
    Some(Mismatch::new(
        Reason::HistoryDiffers,
        history_difference(inputs, &now.inputs),
    ))
}

/// What differs between two learning histories, concretely.
fn history_difference(recorded: &PromptInputs, now: &PromptInputs) -> String {
    let numbers =
        |i: &PromptInputs| -> Vec<usize> { i.history.iter().map(|e| e.question_number).collect() };
    let (old, new) = (numbers(recorded), numbers(now));
    if old != new {
        let missing: Vec<usize> = old.iter().copied().filter(|n| !new.contains(n)).collect();
        let hint = if missing.is_empty() {
            String::new()
        } else {
            format!(
                "; earlier questions {missing:?} are not in this run (filtered out, or not evaluated): select the whole chain, e.g. by prompt name"
            )
        };
        return format!("recorded after earlier questions {old:?}, now after {new:?}{hint}");
    }
    for (a, b) in recorded.history.iter().zip(&now.history) {
        let n = a.question_number;
        if a.question != b.question || a.expected != b.expected {
            return format!("earlier question {n} changed since the recording");
        }
        if a.answer != b.answer {
            return format!(
                "the recorded reply to earlier question {n} is not the one in this reply's history"
            );
        }
        if a.passed != b.passed || a.actual != b.actual {
            return format!(
                "earlier question {n} came out differently: recorded {} printing {:?}, now {} printing {:?}",
                if a.passed { "PASSED" } else { "FAILED" },
                a.actual,
                if b.passed { "PASSED" } else { "FAILED" },
                b.actual
            );
        }
    }
    "the same entries render differently: the [history] settings changed".into()
}

fn system_prompt(key: &RequestKey) -> Option<&str> {
    key.messages
        .iter()
        .find(|m| m.role == "system")
        .map(|m| m.content.as_str())
}

fn user_message(key: &RequestKey) -> &str {
    key.messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map_or("", |m| m.content.as_str())
}

fn quoted(text: Option<&str>) -> String {
    match text {
        None => "(none)".into(),
        Some(t) => format!("{:?}", crate::ask::history::abbreviate(t, 80)),
    }
}

/// The first line where two texts differ, both sides shown.
fn first_difference(recorded: &str, now: &str) -> String {
    let mut old = recorded.lines();
    let mut new = now.lines();
    let mut line = 1;
    loop {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                return format!(
                    "the user message differs at line {line}: recorded {}, now {}",
                    quoted(a),
                    quoted(b)
                );
            }
        }
    }
}

/// Recordings read to tell whether the model thinks: a thinking model's
/// replies nearly all carry reasoning, so a few say it.
const SAMPLE: usize = 16;

impl Backend for Replay {
    fn kind(&self) -> &'static str {
        "replay"
    }

    fn endpoint(&self) -> String {
        self.store.dir().display().to_string()
    }

    fn check(&self, model: &str) -> Result<(), ConnectError> {
        if self.store.count() == 0 {
            return Err(ConnectError {
                server_answered: false,
                message: format!(
                    "no recorded replies for model {model} in {}: record them once with a live backend (PROMPTEVAL_BACKEND=ollama or openai, INSTA_UPDATE=always), or pick a recorded model with PROMPTEVAL_MODEL",
                    self.store.dir().display()
                ),
            });
        }
        Ok(())
    }

    /// A model whose recordings carry reasoning thinks; a run that set no
    /// budget asks again with the one they were recorded with (the first
    /// recordings, by name, say).
    fn thinking(&self, _model: &str) -> Option<crate::backend::Thinking> {
        let sample = self.store.first(SAMPLE);
        let thinking = sample
            .iter()
            .find(|r| r.reasoning.as_deref().is_some_and(|t| !t.trim().is_empty()))?;
        Some(crate::backend::Thinking {
            how: "its recordings carry reasoning".into(),
            context_length: None,
            recorded: thinking
                .request
                .as_ref()
                .map(|key| (key.options.num_predict, key.options.num_ctx)),
        })
    }

    fn chat(&self, case: &CaseId, request: &ChatRequest) -> Result<Reply, BackendError> {
        let start = Instant::now();
        let not_recorded = |message: String| BackendError {
            failure: ApiFailure::NotRecorded,
            message,
            usage: None,
        };
        let Some(recorded) = self.store.read(case) else {
            return Err(not_recorded(format!(
                "no recorded reply for {} at {}: record it with a live backend",
                case.test_name(),
                self.store.path(case).display()
            )));
        };
        let key = request.key();
        if recorded.request.as_ref() != Some(&key) {
            let detail = match &recorded.request {
                None => "the snapshot holds no request to compare with".to_string(),
                // The check before the run compared everything it could
                // predict: what is left is the history's recorded outcomes.
                Some(old) => first_difference(user_message(old), user_message(&key)),
            };
            return Err(not_recorded(format!(
                "{}: the recording at {} answered another request ({detail}); not evaluated",
                case.test_name(),
                self.store.path(case).display()
            )));
        }
        // The recorded call's time, not the file read's: a replayed run
        // reports what the model took (marked as replayed in the reports).
        let elapsed = recorded
            .llm_secs
            .or_else(|| recorded.usage.as_ref().and_then(|u| u.generation_secs))
            .map_or_else(|| start.elapsed(), Duration::from_secs_f64);
        Ok(Reply {
            content: recorded.reply,
            reasoning: recorded.reasoning,
            model: request.model.clone(),
            elapsed,
            cached: false,
            usage: recorded.usage.unwrap_or_default(),
        })
    }
}

/// One line per prompt: how many of its selected cases no recording
/// answers, by reason, then the first example's detail.
/// The reasons are machine names (summary.json's `not_evaluated_reasons`)
/// and the example's detail is English; the frame is in `lang`.
pub fn unmatched_lines(
    unmatched: &[(CaseId, Mismatch)],
    selected: &[CaseId],
    lang: crate::language::Language,
) -> Vec<String> {
    let mut per_prompt: BTreeMap<&str, BTreeMap<Reason, usize>> = BTreeMap::new();
    for (case, m) in unmatched {
        *per_prompt
            .entry(&case.prompt)
            .or_default()
            .entry(m.reason)
            .or_insert(0) += 1;
    }
    let mut order: Vec<&str> = Vec::new();
    for case in selected {
        if per_prompt.contains_key(&*case.prompt) && !order.contains(&&*case.prompt) {
            order.push(&case.prompt);
        }
    }
    let mut lines: Vec<String> = order
        .iter()
        .map(|prompt| {
            let of = selected.iter().filter(|c| &*c.prompt == *prompt).count();
            let reasons: Vec<String> = per_prompt[prompt]
                .iter()
                .map(|(r, n)| format!("{} {n}", r.label()))
                .collect();
            let missing: usize = per_prompt[prompt].values().sum();
            format!("  {prompt}: {missing}/{of} ({})", reasons.join(", "))
        })
        .collect();
    let mut seen = HashSet::new();
    for (case, m) in unmatched {
        if seen.insert(m.reason) {
            let eg = match lang {
                crate::language::Language::Zh => "例如",
                crate::language::Language::En => "e.g.",
            };
            lines.push(format!("  {eg} {}: {m}", case.test_name()));
        }
    }
    lines
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    use super::*;
    use crate::ask::snapshot::SnapshotInfo;
    use crate::plan;

    pub(crate) const MODEL: &str = "m:1";

    fn suite(template: &str, second_question: &str) -> Suite {
        let json = serde_json::json!({
            "p": template,
            "questions": [
                {"id": "a", "question": "print one", "answer": "1"},
                {"id": "b", "question": second_question, "answer": "2"},
                {"id": "c", "question": "print three", "answer": "3"},
            ]
        });
        Suite::parse(Path::new("s.json"), json.to_string().as_bytes()).unwrap()
    }

    fn config() -> Config {
        let dir = tempfile::tempdir().unwrap();
        Config::load(&[("X", "")], dir.path()).unwrap()
    }

    /// Records round 1 of `suite` as a live run would have: each reply
    /// prints the expected answer, each case passed.
    pub(crate) fn record(store: &SnapshotStore, suite: &Suite, config: &Config) {
        let mut history = Vec::new();
        for case in plan::cases(suite, 1, 1) {
            let q = &suite.questions[case.question - 1];
            let built = build_for(&case, &history, suite, config, MODEL);
            let fence = q.code_language().fence_tags()[0];
            let reply = format!("```{fence}\nprint({})\n```", q.answer);
            store.write_for_test(
                &case,
                &reply,
                &SnapshotInfo {
                    model: MODEL,
                    backend: "test",
                    endpoint: "nowhere",
                    request: &built.request.key(),
                    inputs: &built.inputs,
                    usage: None,
                    llm_secs: None,
                    reasoning: None,
                },
            );
            history.push(HistoryEntry {
                question_number: case.question,
                question: q.question.clone(),
                answer: format!("print({})", q.answer),
                passed: true,
                expected: q.answer.clone(),
                actual: q.answer.clone(),
            });
        }
    }

    /// The code of the fenced replies [`record`] writes, in the
    /// question's language (as the session's replay extracts it).
    fn fenced(reply: &str, q: &crate::suite::Question) -> String {
        crate::execute::extract::extract_for(reply, q.code_language()).code
    }

    /// Python's extraction for every question, whatever its language.
    fn python_only(reply: &str, _: &crate::suite::Question) -> String {
        crate::execute::extract::extract(reply).code
    }

    #[test]
    fn the_history_of_a_suite_in_another_language_replays_with_its_code() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path(), "s", MODEL);
        let mut recorded = suite("Solve: {question}", "print two");
        for q in &mut recorded.questions {
            q.language = Some(crate::suite::CodeLanguage::Cpp);
        }
        let config = config();
        record(&store, &recorded, &config);
        let all = plan::cases(&recorded, 1, 1);
        let replay = Replay::new(store.clone(), fenced);
        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(m.runnable, all, "{:?}", m.unmatched);
        // Python's extraction finds no ```python block in a ```cpp reply:
        // the history it predicts is not the one the run sent.
        let replay = Replay::new(store, python_only);
        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(
            m.runnable,
            all[..1],
            "only the first question has no history"
        );
    }

    fn reasons(m: &Matched) -> Vec<(String, Reason)> {
        m.unmatched
            .iter()
            .map(|(c, m)| (c.test_name(), m.reason))
            .collect()
    }

    #[test]
    fn only_the_exact_recorded_requests_are_replayed_and_each_refusal_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path(), "s", MODEL);
        let recorded = suite("Solve: {question}", "print two");
        let mut config = config();
        record(&store, &recorded, &config);
        let replay = Replay::new(store, fenced);
        let all = plan::cases(&recorded, 1, 1);

        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(m.runnable, all, "{:?}", m.unmatched);

        // Another template: nothing of that prompt is replayed.
        let edited = suite("Reply in French: {question}", "print two");
        let m = replay.match_cases(&all, &HashMap::new(), &edited, &config, MODEL);
        assert!(m.runnable.is_empty());
        assert!(
            m.unmatched
                .iter()
                .all(|(_, m)| m.reason == Reason::TemplateChanged)
        );

        // A changed question, and the cases whose history held it.
        let edited = suite("Solve: {question}", "print two, then exit");
        let m = replay.match_cases(&all, &HashMap::new(), &edited, &config, MODEL);
        assert_eq!(m.runnable, all[..1]);
        assert_eq!(
            reasons(&m),
            [
                ("p::b::r1".to_string(), Reason::QuestionChanged),
                ("p::c::r1".to_string(), Reason::HistoryDiffers)
            ]
        );

        // A filtered-out predecessor changes the history.
        let m = replay.match_cases(&all[2..], &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(
            reasons(&m),
            [("p::c::r1".to_string(), Reason::HistoryDiffers)]
        );
        assert!(
            m.unmatched[0].1.detail.contains("[1, 2]"),
            "{}",
            m.unmatched[0].1
        );

        // More rounds and a new prompt were never recorded.
        let mut two_prompts = recorded.clone();
        two_prompts.prompts.push(crate::suite::Prompt {
            name: "q".into(),
            template: "New: {question}".into(),
            system_prompt: None,
        });
        let wider = plan::cases(&two_prompts, 2, 1);
        let m = replay.match_cases(&wider, &HashMap::new(), &two_prompts, &config, MODEL);
        assert_eq!(m.runnable, all);
        let count = |r: Reason| m.unmatched.iter().filter(|(_, m)| m.reason == r).count();
        assert_eq!(count(Reason::RoundNotRecorded), 3);
        assert_eq!(count(Reason::PromptNotRecorded), 6);

        // Settings that reach the request.
        config.history.answer_chars = 5;
        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(m.runnable, all[..1], "the first question has no history");
        assert!(m.unmatched[0].1.detail.contains("[history] settings"));
        config.history.answer_chars = 300;
        config.llm.temperature = 0.5;
        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert!(m.runnable.is_empty());
        assert_eq!(
            m.unmatched[0].1.to_string(),
            "options changed: temperature 0 -> 0.5"
        );
        config.llm.temperature = 0.0;
        config.llm.system_prompt = Some("Be brief.".into());
        let m = replay.match_cases(&all, &HashMap::new(), &recorded, &config, MODEL);
        assert_eq!(m.unmatched[0].1.reason, Reason::SystemPromptChanged);
    }

    #[test]
    fn a_history_that_comes_out_differently_is_refused_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path(), "s", MODEL);
        let suite = suite("Solve: {question}", "print two");
        let config = config();
        record(&store, &suite, &config);
        let replay = Replay::new(store, fenced);
        let case = plan::cases(&suite, 1, 1).remove(1);
        let mut history = vec![HistoryEntry {
            question_number: 1,
            question: "print one".into(),
            answer: "print(1)".into(),
            passed: true,
            expected: "1".into(),
            actual: "1".into(),
        }];
        let same = build_for(&case, &history, &suite, &config, MODEL).request;
        assert_eq!(
            replay.chat(&case, &same).map(|r| r.content),
            Ok("```python\nprint(2)\n```".to_string())
        );
        // Question 1 printed something else this time.
        history[0].passed = false;
        history[0].actual = "0".into();
        let other = build_for(&case, &history, &suite, &config, MODEL).request;
        let e = replay.chat(&case, &other).unwrap_err();
        assert_eq!(e.failure, ApiFailure::NotRecorded);
        assert!(
            e.message.contains("answered another request"),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_entry_the_caps_left_out_of_a_recording_is_predicted_as_it_came_out() {
        let long = "1".repeat(100);
        let json = serde_json::json!({"p": "Solve: {question}", "questions": [
            {"id": "a", "question": "print a long number", "answer": long},
            {"id": "b", "question": "print two", "answer": "2"},
            {"id": "c", "question": "print three", "answer": "3"},
        ]});
        let suite = Suite::parse(Path::new("s.json"), json.to_string().as_bytes()).unwrap();
        let entry = |n: usize, expected: &str, actual: &str| HistoryEntry {
            question_number: n,
            question: suite.questions[n - 1].question.clone(),
            answer: format!("print({expected})"),
            passed: true,
            expected: expected.into(),
            actual: actual.into(),
        };
        // A cap that shows question a's real outcome after b, but would
        // show a's entry with an unknown outcome (shorter) before c.
        let real = [entry(1, &long, &long), entry(2, "2", "2")];
        let unknown = [entry(1, &long, "(not run yet)"), entry(2, "2", "2")];
        let mut config = config();
        config.history.drop_block = 1;
        config.history.max_chars = (100..4000)
            .find(|&max_chars| {
                let caps = crate::config::HistoryConfig {
                    max_chars,
                    ..config.history.clone()
                };
                crate::ask::history::kept(&real[..1], &caps).len() == 1
                    && crate::ask::history::kept(&real, &caps).len() == 1
                    && crate::ask::history::kept(&unknown, &caps).len() == 2
            })
            .expect("such a cap exists");
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path(), "s", MODEL);
        record(&store, &suite, &config);
        let replay = Replay::new(store, fenced);
        let all = plan::cases(&suite, 1, 1);
        let recorded_c = replay.store().read(&all[2]).unwrap().inputs.unwrap();
        assert_eq!(recorded_c.history.len(), 1, "c was recorded after b only");
        let m = replay.match_cases(&all, &HashMap::new(), &suite, &config, MODEL);
        assert_eq!(m.runnable, all, "{:?}", m.unmatched);
    }
}
