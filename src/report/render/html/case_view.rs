//! One case as its page shows it: the record's fields a person reads, the
//! code highlighted and expected against actual marked, the times and
//! tokens written out.

use serde::Serialize;

use crate::case::CaseRecord;
use crate::report::render::case_file::case_file_name;
use crate::suite::CodeLanguage;

#[derive(Serialize)]
pub(super) struct CaseView<'a> {
    passed: bool,
    verdict: &'static str,
    /// The case's one name: `prompt::question_id::rN`, as in the terminal.
    pub(super) name: String,
    prompt_name: &'a str,
    question_id: &'a str,
    round: u32,
    sample: Option<u32>,
    /// The case's `.py` (or `.cpp`) file in its prompt's folder.
    pub(super) file: String,
    /// The code's language (`python`, `cpp`): its `language-...` class.
    language: &'static str,
    question: &'a str,
    expected: &'a str,
    actual: &'a str,
    code: Option<&'a str>,
    /// The code as highlighted segments (None: shown plain).
    highlighted: Option<Vec<super::diff::Segment>>,
    system_prompt: Option<&'a str>,
    prompt: &'a str,
    prompt_chars: usize,
    reply: Option<&'a str>,
    /// A reasoning model's reasoning, shown folded.
    reasoning: Option<&'a str>,
    /// `1,234 reasoning tokens` (`~` when estimated).
    reasoning_tokens: Option<String>,
    stderr: Option<&'a str>,
    detail: Option<&'a str>,
    api_failure: Option<&'static str>,
    exec_secs: String,
    llm_secs: String,
    /// `N prompt + M completion tokens`, when the server said.
    tokens: Option<String>,
    /// Prompt plus completion tokens, for the table's column.
    tokens_total: Option<u64>,
    /// Expected and actual with their differences marked, for a failed
    /// case with output to compare.
    diff: Option<super::diff::Marked>,
    /// The reply stopped at the length limit.
    reply_cut: bool,
}

pub(super) fn case_view(case: &CaseRecord, lang: CodeLanguage) -> CaseView<'_> {
    let stderr = case
        .execution
        .as_ref()
        .map(|e| e.stderr.as_str())
        .filter(|s| !s.trim().is_empty());
    CaseView {
        passed: case.passed(),
        verdict: case.verdict.as_str(),
        name: case.case.test_name(),
        prompt_name: &case.case.prompt,
        question_id: &case.case.question_id,
        round: case.case.round,
        sample: case.case.sample,
        file: case_file_name(case, lang),
        language: lang.as_str(),
        question: &case.question,
        expected: &case.expected,
        actual: &case.actual,
        code: case.program_run(),
        highlighted: case
            .program_run()
            .and_then(|code| super::highlight::highlight(code, lang)),
        system_prompt: case.system_prompt.as_deref(),
        prompt: &case.prompt,
        prompt_chars: case.prompt.chars().count()
            + case
                .system_prompt
                .as_deref()
                .map_or(0, |s| s.chars().count()),
        reply: case.reply.as_deref(),
        reasoning: case.reasoning.as_deref().filter(|r| !r.trim().is_empty()),
        reasoning_tokens: case
            .tokens
            .and_then(|t| t.reasoning_shown())
            .map(|n| format!("{n} reasoning tokens")),
        stderr,
        detail: case.detail.as_deref(),
        api_failure: case.api_failure.map(|f| f.as_str()),
        exec_secs: format!("{:.2}s", case.exec_secs),
        // A replayed or cached case did not call the model now: its time
        // is the recorded call's (replay) or the lookup's (cache).
        llm_secs: match (case.snapshot, case.cached) {
            (Some(crate::case::SnapshotState::Replayed), _) => {
                format!("{:.2}s (recorded)", case.llm_secs)
            }
            (_, true) => format!("{:.2}s (cached)", case.llm_secs),
            _ => format!("{:.2}s", case.llm_secs),
        },
        tokens: case.tokens.map(|t| match t.reasoning_shown() {
            None => format!("{} prompt + {} completion tokens", t.prompt, t.completion),
            Some(reasoning) => format!(
                "{} prompt + {} completion tokens ({reasoning} reasoning, {} answer)",
                t.prompt,
                t.completion,
                t.completion.saturating_sub(t.reasoning)
            ),
        }),
        tokens_total: case.tokens.map(|t| t.prompt + t.completion),
        diff: (!case.passed() && case.execution.is_some())
            .then(|| super::diff::marked(&case.expected, &case.actual))
            .flatten(),
        reply_cut: case.reply_cut(),
    }
}
