//! What one test case is and what it produced: the identity shared by the
//! plan, the journal, the snapshots and the report.

use serde::{Deserialize, Serialize};

/// A name cases share (a model, a prompt, a question id): a case is
/// copied into the plan, the manifest, the scheduler and the trials, and
/// shared names keep each copy to a few words (100,000 cases held one
/// small allocation per name per copy).
pub type Name = std::sync::Arc<str>;

/// One (model x) prompt x question x round (x sample). `question` is
/// 1-based, as in the spec's `question_N.py` files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CaseId {
    /// The model of a run that evaluates several (`[[models]]`,
    /// `PROMPTEVAL_MODELS`); `None` in a one-model run, whose names, keys
    /// and journal lines stay as they always were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Name>,
    pub prompt: Name,
    pub question: usize,
    pub question_id: Name,
    pub round: u32,
    /// 1-based sample of a run with `samples` > 1; `None` in a run drawing
    /// one reply per case, whose names and keys stay as they always were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
}

#[cfg(test)]
impl CaseId {
    /// Prompt `p`, question 1 (`q1`), `round`: the case unit tests ask
    /// about when the case itself does not matter.
    pub(crate) fn example(round: u32) -> CaseId {
        CaseId {
            model: None,
            prompt: "p".into(),
            question: 1,
            question_id: "q1".into(),
            round,
            sample: None,
        }
    }
}

impl CaseId {
    /// The libtest name: `prompt1::q1_two_sum::r1`. Prompt first so that a
    /// prompt name filter selects that prompt, the question id in the middle
    /// so it selects that question under every prompt.
    /// A sampled case ends in `::s2`. A case of a run of several models
    /// starts with its model (`qwen2.5-coder:0.5b::prompt1::q1_two_sum::r1`):
    /// `-- <model>` selects that model, `-- prompt1` prompt1 on every model.
    pub fn test_name(&self) -> String {
        let name = test_name(&self.prompt, &self.question_id, self.round, self.sample);
        match &self.model {
            Some(model) => format!("{model}::{name}"),
            None => name,
        }
    }

    /// The insta snapshot name; `::` is not portable in file names.
    pub fn snapshot_name(&self) -> String {
        let name = format!("{}__{}__r{}", self.prompt, self.question_id, self.round);
        match self.sample {
            Some(s) => format!("{name}__s{s}"),
            None => name,
        }
    }

    /// The chain this case belongs to: cases of one chain share a history.
    /// Each sample is its own chain: its history shows its own earlier replies.
    pub fn chain(&self) -> ChainId {
        ChainId {
            model: self.model.clone(),
            prompt: self.prompt.clone(),
            round: self.round,
            sample: self.sample,
        }
    }

    /// 0 for the only or the first sample: the offset of its seed and its
    /// index in the response cache's key.
    pub fn sample_index(&self) -> u32 {
        self.sample.map_or(0, |s| s - 1)
    }
}

/// `prompt1::q1_two_sum::r1`, `...::r1::s2` for a sample: a case's one name
/// (also what `compare` pairs runs by).
pub fn test_name(prompt: &str, question_id: &str, round: u32, sample: Option<u32>) -> String {
    let name = format!("{prompt}::{question_id}::r{round}");
    match sample {
        Some(s) => format!("{name}::s{s}"),
        None => name,
    }
}

/// A (model, prompt, round, sample): its cases run in question order and
/// each sees the history of the earlier ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChainId {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Name>,
    pub prompt: Name,
    pub round: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
}

/// The outcome classes of spec §5.3 / §6.1, plus `not_evaluated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Correct,
    WrongAnswer,
    SyntaxError,
    RuntimeError,
    Timeout,
    ApiError,
    /// The token budget ran out inside the reasoning: the model gave no
    /// answer. The model's behaviour under the configured budget, so it
    /// counts in accuracy's denominator, as `timeout` does.
    NoAnswer,
    /// The harness could not judge the model on this case: replay had no
    /// recording of this exact request, or the sandbox itself failed. Not a
    /// model failure, so it is in no accuracy; every report counts and flags it.
    NotEvaluated,
}

impl Verdict {
    /// The spec's six classes: every evaluated case has one of them, and
    /// accuracy is `correct` over all of them.
    pub const ALL: [Verdict; 6] = [
        Verdict::Correct,
        Verdict::WrongAnswer,
        Verdict::SyntaxError,
        Verdict::RuntimeError,
        Verdict::Timeout,
        Verdict::ApiError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::WrongAnswer => "wrong_answer",
            Verdict::SyntaxError => "syntax_error",
            Verdict::RuntimeError => "runtime_error",
            Verdict::Timeout => "timeout",
            Verdict::ApiError => "api_error",
            Verdict::NoAnswer => "no_answer",
            Verdict::NotEvaluated => "not_evaluated",
        }
    }

    pub fn passed(self) -> bool {
        self == Verdict::Correct
    }

    /// Whether a reply passed, for a race's pairing: `None` where the
    /// verdict says nothing of the prompt (a server's error, a case not
    /// evaluated).
    pub fn judged(self) -> Option<bool> {
        match self {
            Verdict::ApiError | Verdict::NotEvaluated => None,
            verdict => Some(verdict.passed()),
        }
    }

    /// Whether the case counts in accuracy (its denominator).
    pub fn evaluated(self) -> bool {
        self != Verdict::NotEvaluated
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the model call failed, when it did (spec §4.2's error classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiFailure {
    /// The server answered with an error status or an unreadable body.
    ApiError,
    /// No complete answer within the per-call timeout.
    Timeout,
    /// No connection could be made, or it dropped before an answer.
    ConnectionFailed,
    /// Not a server failure: replay has no recording of this exact request.
    /// The case is `not_evaluated`, never a model failure.
    NotRecorded,
    /// Not the model's failure: the prompt did not fit the server's context
    /// window (llama-server refused it; Ollama cut its start). The case is
    /// `not_evaluated`: its verdict would be about a prompt nobody wrote.
    PromptTooLong,
}

impl ApiFailure {
    /// Failures that say nothing about the model: the case is not evaluated.
    pub fn not_evaluated(self) -> bool {
        matches!(self, ApiFailure::NotRecorded | ApiFailure::PromptTooLong)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ApiFailure::ApiError => "api_error",
            ApiFailure::Timeout => "timeout",
            ApiFailure::ConnectionFailed => "connection_failed",
            ApiFailure::NotRecorded => "not_recorded",
            ApiFailure::PromptTooLong => "prompt_too_long",
        }
    }
}

/// What running the extracted code did, as stored in the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ExecutionRecord {
    /// Exit code when the program exited by itself.
    pub exit_code: Option<i32>,
    /// Signal number when a signal ended it.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration_secs: f64,
    pub stdout: String,
    pub stderr: String,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// For a question with hidden `tests`: what the tests' proof recorded
    /// (sandbox/proof.rs). Absent for stdout questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<TestsRun>,
    /// Not run: a byte-identical ParEval program was judged earlier in the
    /// run, and this is that judgement (execute/cpp/judged.rs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
}

/// ParEval's runtime figures of a correct C++ case, from the runs that
/// judged it (ParEval's harness validates and times in one process): the
/// mean seconds of 5 runs of `compute` (the reply's function) and of
/// `best` (ParEval's sequential baseline) at the problem's size, at
/// `threads`, on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    pub threads: u32,
    /// ParEval's problem (`03_dense_la_axpy`): a variant's figures count
    /// for the problem it was cut from (absent in journals written before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// ParEval's `problem_type` (`dense_la`): its reports average per type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_secs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_secs: Option<f64>,
    /// Why there are no figures: the timing run passed its limit, crashed,
    /// or its `validate()` failed this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

impl Speed {
    /// ParEval's speedup of this case: T_best / T.
    pub fn speedup(&self) -> Option<f64> {
        match (self.time_secs, self.best_secs) {
            // ParEval's floor (max(runtime, 1e-8)) for a time too short to read.
            (Some(t), Some(best)) => Some(best / t.max(1e-8)),
            _ => None,
        }
    }
}

/// What a tests case's prelude saw: whether the tests ran to their end, and
/// if not, how the process left before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TestsRun {
    /// The end marker ran in main.py's own code and wrote back the
    /// per-case secret: every test ran and none failed.
    pub completed: bool,
    /// The start marker ran: the program's own code finished.
    pub started: bool,
    /// The interpreter's own exit began (atexit ran): a `SystemExit` or an
    /// uncaught exception, not `os._exit` or a signal.
    pub exiting: bool,
    /// The program installed a trace function, which can skip lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub traced: bool,
    /// The type of an exception that left main.py, as sys.excepthook saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raised: Option<String>,
    /// Classes of the program whose `==` is true for any object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suspect: Vec<String>,
}

/// A selected case the run did not evaluate, and why (e.g. replay has no
/// recording of its exact request). Counted and flagged by every report,
/// in no accuracy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unevaluated {
    pub case: CaseId,
    /// Short and shared by many cases, e.g. "template changed".
    pub reason: String,
    /// What differs, concretely.
    pub detail: String,
}

/// Whether the reply matched the stored snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotState {
    /// No snapshot existed: a new one awaits review.
    New,
    Unchanged,
    /// The reply differs from the stored snapshot: awaits `cargo insta review`.
    Changed,
    /// The reply was read from the snapshot (replay backend).
    Replayed,
}

/// One finished case: a line of the journal and the unit of every report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    pub case: CaseId,
    pub name: String,
    pub verdict: Verdict,
    pub question: String,
    pub expected: String,
    /// The program's stdout after normalisation (what the judge compared).
    pub actual: String,
    pub template: String,
    pub system_prompt: Option<String>,
    /// The full user message sent, history included.
    pub prompt: String,
    /// The model's answer as received (its reasoning apart), if any.
    pub reply: Option<String>,
    /// A reasoning model's reasoning, as the server sent it (never judged,
    /// never in the learning history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub code: Option<String>,
    /// The whole program that ran, when it is more than `code`: the
    /// question's completion prompt before it (`entry_point`), its `tests`
    /// after it (see program.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    pub execution: Option<ExecutionRecord>,
    pub api_failure: Option<ApiFailure>,
    /// A one-line explanation for anything but `correct`.
    pub detail: Option<String>,
    pub model: String,
    pub backend: String,
    pub snapshot: Option<SnapshotState>,
    /// The reply came from the response cache: the model was not called.
    #[serde(default)]
    pub cached: bool,
    /// The server's token counts for this case's call, as it reported them
    /// (`null`: no call, or a server or recording without figures).
    #[serde(default)]
    pub tokens: Option<Tokens>,
    /// Why the reply ended: `stop`, or `length` when it hit `num_predict` /
    /// `max_tokens` (the verdict then judged a cut reply).
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// Seconds the server spent generating, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_secs: Option<f64>,
    /// Seconds spent waiting for the model.
    pub llm_secs: f64,
    /// Seconds the program ran (0 when it never ran).
    pub exec_secs: f64,
    /// A correct ParEval case's runtime and its baseline's (`[cpp] speed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// RFC 3339 time the case finished.
    pub finished_at: String,
}

/// Prompt and completion tokens of one call, or summed over cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt: u64,
    /// Everything generated: reasoning and answer.
    pub completion: u64,
    /// Of `completion`, the reasoning's: the server's count where it gives
    /// one, else estimated from the reasoning's text.
    #[serde(default)]
    pub reasoning: u64,
    /// `reasoning` is an estimate (about four characters a token).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_estimated: bool,
    /// Of `prompt`, the tokens the server reused from its prompt cache (the
    /// rest it processed); absent when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cached: Option<u64>,
}

impl Tokens {
    /// The reasoning's token count as shown, `~` marking an estimate
    /// (`~1450`); None without reasoning.
    pub fn reasoning_shown(&self) -> Option<String> {
        let about = if self.reasoning_estimated { "~" } else { "" };
        (self.reasoning > 0).then(|| format!("{about}{}", self.reasoning))
    }
}

impl CaseRecord {
    /// What ran: the whole program, else the extracted code.
    pub fn program_run(&self) -> Option<&str> {
        self.program.as_deref().or(self.code.as_deref())
    }

    /// Whether the reply stopped at the length limit.
    /// Not when the cut came inside the reasoning: that is `no_answer`,
    /// which nothing judged.
    pub fn reply_cut(&self) -> bool {
        self.finish_reason.as_deref() == Some("length") && self.verdict != Verdict::NoAnswer
    }

    pub fn passed(&self) -> bool {
        self.verdict.passed()
    }

    pub fn evaluated(&self) -> bool {
        self.verdict.evaluated()
    }
}

/// Records for the tests of every stage that reads them.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// A correct case `p::q<q>::r1` answering `print(1)`.
    pub(crate) fn record(q: usize) -> CaseRecord {
        CaseRecord {
            case: CaseId {
                model: None,
                prompt: "p".into(),
                question: q,
                question_id: format!("q{q}").into(),
                round: 1,
                sample: None,
            },
            name: format!("p::q{q}::r1"),
            verdict: Verdict::Correct,
            question: "?".into(),
            expected: "1".into(),
            actual: "1".into(),
            template: "{question}".into(),
            system_prompt: None,
            prompt: "?".into(),
            reply: Some("print(1)".into()),
            reasoning: None,
            code: Some("print(1)\n".into()),
            program: None,
            execution: None,
            api_failure: None,
            detail: None,
            model: "m".into(),
            backend: "replay".into(),
            snapshot: None,
            cached: false,
            tokens: None,
            finish_reason: None,
            generation_secs: None,
            llm_secs: 0.1,
            exec_secs: 0.02,
            speed: None,
            finished_at: "2026-01-01T00:00:00Z".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(prompt: &str, q: &str) -> CaseId {
        CaseId {
            model: None,
            prompt: prompt.into(),
            question: 1,
            question_id: q.into(),
            round: 2,
            sample: None,
        }
    }

    #[test]
    fn names_put_prompt_first_and_round_last() {
        assert_eq!(
            id("prompt1", "q1_two_sum").test_name(),
            "prompt1::q1_two_sum::r2"
        );
        assert_eq!(
            id("prompt1", "q1_two_sum").snapshot_name(),
            "prompt1__q1_two_sum__r2"
        );
    }

    #[test]
    fn verdict_serialises_as_the_spec_names() {
        let names: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| serde_json::to_string(v).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "\"correct\"",
                "\"wrong_answer\"",
                "\"syntax_error\"",
                "\"runtime_error\"",
                "\"timeout\"",
                "\"api_error\""
            ]
        );
    }
}
