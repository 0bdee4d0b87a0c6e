//! `<prompt>/question_N.py` (`.cpp` for a C++ question): one case as a
//! runnable program file (spec §8.2).
//!
//! Everything that is not the extracted code is a comment, and every
//! commented line starts with `# ` (`// ` in C++): text is split on `\r\n`,
//! `\r` and `\n` (the line ends both languages know), so a reply cannot end
//! a comment early. The code itself goes in uncommented only when the case
//! shows that it compiled; otherwise the file would not parse, and it is
//! commented out with a note.

use std::path::{Path, PathBuf};

use crate::case::{CaseRecord, Verdict};
use crate::language::Labels;
use crate::suite::CodeLanguage;

const RULE: &str = "==========================================";
/// Characters of the question kept in the header line.
const QUESTION_HEAD_CHARS: usize = 60;
/// Lines of stderr kept: the end of a traceback says what went wrong.
const STDERR_TAIL_LINES: usize = 40;

/// One case's file in its prompt's folder: its path and its text.
pub(crate) fn case_file(
    dir: &Path,
    case: &CaseRecord,
    lang: CodeLanguage,
    l: &Labels,
) -> (PathBuf, String) {
    (dir.join(case_file_name(case, lang)), render(case, lang, l))
}

/// `question_N.py` for round 1, `question_N_round_R.py` after it; a
/// sampled case adds `_sample_S`; a C++ case's ends in `.cpp`.
pub(crate) fn case_file_name(case: &CaseRecord, lang: CodeLanguage) -> String {
    let mut name = format!("question_{}", case.case.question);
    if case.case.round > 1 {
        name.push_str(&format!("_round_{}", case.case.round));
    }
    if let Some(s) = case.case.sample {
        name.push_str(&format!("_sample_{s}"));
    }
    format!("{name}.{}", lang.extension())
}

pub(crate) fn render(case: &CaseRecord, lang: CodeLanguage, l: &Labels) -> String {
    let c = lang.line_comment();
    let mut head = String::new();
    push_header(&mut head, case, lang);
    let mut out = closed(lang, &head);
    out.push('\n');
    push_code(&mut out, case, lang);
    let code_end = out.len();
    push_block(
        &mut out,
        c,
        &format!("{}:", l.template),
        &comment_lines(c, &case.template),
    );
    let sent = sent_prompt(c, case);
    push_block(&mut out, c, &format!("{}:", l.sent_prompt), &sent);
    if let Some(reasoning) = case.reasoning.as_deref().filter(|r| !r.trim().is_empty()) {
        // Before the reply, as the model wrote it; never what was judged.
        let tokens = case
            .tokens
            .and_then(|t| t.reasoning_shown())
            .map(|n| format!(" ({n} tokens)"))
            .unwrap_or_default();
        push_block(
            &mut out,
            c,
            &format!("{}{tokens}:", l.reasoning),
            &comment_lines(c, reasoning),
        );
    }
    let reply = match &case.reply {
        Some(reply) => comment_lines(c, reply),
        None => vec![format!("{c} (no reply)")],
    };
    push_block(&mut out, c, &format!("{}:", l.raw_reply), &reply);
    push_block(
        &mut out,
        c,
        &format!("{}:", l.execution_result),
        &execution_lines(c, case, l),
    );
    let tail = closed(lang, &out[code_end..]);
    out.truncate(code_end);
    out.push_str(&tail);
    let end = out.trim_end_matches('\n').len();
    out.truncate(end);
    out.push('\n');
    out
}

fn push_header(out: &mut String, case: &CaseRecord, lang: CodeLanguage) {
    let c = lang.line_comment();
    // Python reads a `coding: x` on line 2 as the file's encoding (PEP
    // 263) and refuses to run when `x` is unknown.
    // Harmless in every other language's comments.
    let name = |text: &str| {
        one_line(text)
            .replace("coding:", "coding :")
            .replace("coding=", "coding =")
    };
    let lines = [
        format!("{c} {RULE}"),
        format!("{c} Prompt Name: {}", name(&case.case.prompt)),
        format!(
            "{c} Question {}: {}",
            case.case.question,
            abbreviate(&case.question)
        ),
        format!(
            "{c} Case: {} (question id {})",
            name(&case.case.test_name()),
            case.case.question_id
        ),
        labelled(c, "Expected", &case.expected),
        labelled(c, "Actual", &case.actual),
        format!("{c} Status: {}", status(case.verdict)),
        format!("{c} Time: {:.2}s", case.exec_secs),
        format!("{c} {RULE}"),
    ];
    push_lines(out, &lines);
}

fn status(verdict: Verdict) -> String {
    if verdict.passed() {
        "✅ PASSED".to_string()
    } else {
        format!("❌ FAILED ({verdict})")
    }
}

fn push_code(out: &mut String, case: &CaseRecord, lang: CodeLanguage) {
    let c = lang.line_comment();
    match case.program_run() {
        Some(code) if compiled(case, code, lang) => {
            let code = code.replace("\r\n", "\n").replace('\r', "\n");
            out.push_str(code.trim_end_matches('\n'));
            out.push('\n');
        }
        Some(code) => {
            let who = lang.info().checker;
            let mut text = format!("{c} (code commented out: {who} could not compile it)\n");
            push_lines(&mut text, &comment_lines(c, code));
            out.push_str(&closed(lang, &text));
        }
        None => {
            let reason = no_code_reason(case);
            let text = format!("{c} (no code: {})\n", one_line(&reason));
            out.push_str(&closed(lang, &text));
        }
    }
    out.push('\n');
}

/// A program is compiled whole before any of it runs, so a run that got
/// past compilation proves the code parses; anything else (no run, a
/// syntax or compile error, a NUL byte Python rejects) is treated as not
/// compiling.
fn compiled(case: &CaseRecord, code: &str, lang: CodeLanguage) -> bool {
    let Some(execution) = &case.execution else {
        return false;
    };
    let compile_error = lang
        .info()
        .syntax_markers
        .iter()
        .any(|e| execution.stderr.contains(e));
    case.verdict != Verdict::SyntaxError && !compile_error && !code.contains('\0')
}

fn no_code_reason(case: &CaseRecord) -> String {
    match (case.api_failure, &case.detail) {
        (Some(failure), Some(detail)) => format!("{failure}: {detail}", failure = failure.as_str()),
        (Some(failure), None) => failure.as_str().to_string(),
        (None, Some(detail)) => detail.clone(),
        (None, None) if case.reply.is_some() => "the reply had no code".to_string(),
        (None, None) => "no reply".to_string(),
    }
}

fn sent_prompt(c: &str, case: &CaseRecord) -> Vec<String> {
    match &case.system_prompt {
        Some(system) => {
            let mut lines = vec![format!("{c} [system]")];
            lines.extend(comment_lines(c, system));
            lines.push(format!("{c} [user]"));
            lines.extend(comment_lines(c, &case.prompt));
            lines
        }
        None => comment_lines(c, &case.prompt),
    }
}

fn execution_lines(c: &str, case: &CaseRecord, l: &Labels) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(exec) = &case.execution else {
        lines.push(labelled(c, l.output, ""));
        if let Some(failure) = case.api_failure {
            lines.push(labelled(c, l.api_failure, failure.as_str()));
        }
        if let Some(detail) = &case.detail {
            lines.push(labelled(c, l.detail, detail));
        }
        return lines;
    };
    lines.push(labelled(
        c,
        l.output,
        exec.stdout.trim_end_matches(['\n', '\r']),
    ));
    if exec.stdout_truncated {
        lines.push(format!("{c} ({})", l.stdout_truncated));
    }
    if !exec.stderr.trim().is_empty() {
        lines.push(labelled(
            c,
            l.error,
            &tail_lines(&exec.stderr, STDERR_TAIL_LINES),
        ));
    }
    if exec.stderr_truncated {
        lines.push(format!("{c} ({})", l.stderr_truncated));
    }
    if let Some(code) = exec.exit_code.filter(|code| *code != 0) {
        lines.push(format!("{c} {}: {code}", l.exit_code));
    }
    if let Some(signal) = exec.signal {
        lines.push(format!("{c} {}: {signal}", l.signal));
    }
    if exec.timed_out {
        lines.push(format!(
            "{c} {} after {:.2}s",
            l.timed_out, exec.duration_secs
        ));
    }
    if let Some(detail) = case.detail.as_ref().filter(|_| !case.passed()) {
        lines.push(labelled(c, l.detail, detail));
    }
    lines
}

fn push_block(out: &mut String, c: &str, title: &str, body: &[String]) {
    out.push_str(&format!("{c} {RULE}\n{c} {title}\n"));
    push_lines(out, body);
    out.push_str(&format!("{c} {RULE}\n\n"));
}

/// `text`'s comment lines closed where the language's line comments need
/// it (OCaml's `(* ... *)`, whose comments nest and lex string literals:
/// the text inside loses what would open, close or quote).
fn closed(lang: CodeLanguage, text: &str) -> String {
    let info = lang.info();
    if info.comment_close.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        match body.strip_prefix(info.line_comment) {
            Some(inner) => {
                let inner = inner
                    .replace("(*", "( *")
                    .replace("*)", "* )")
                    .replace('"', "'");
                out.push_str(&format!(
                    "{}{inner}{}{end}",
                    info.line_comment, info.comment_close
                ));
            }
            None => out.push_str(line),
        }
    }
    out
}

fn push_lines(out: &mut String, lines: &[String]) {
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
}

/// `# Label: first line`, then `# ` + each further line.
fn labelled(c: &str, label: &str, value: &str) -> String {
    let mut lines = split_lines(value).into_iter();
    let first = lines.next().unwrap_or_default();
    let mut text = format!("{c} {label}: {first}").trim_end().to_string();
    for line in lines {
        text.push_str(&format!("\n{c} {line}"));
    }
    text
}

/// Trailing line ends are dropped: they would only add empty `# ` lines.
fn comment_lines(c: &str, text: &str) -> Vec<String> {
    split_lines(text.trim_end_matches(['\n', '\r']))
        .into_iter()
        .map(|l| format!("{c} {l}"))
        .collect()
}

/// Splits on every line end Python honours (C++ honours them too); NUL,
/// which Python refuses anywhere in a source file, becomes a visible `\x00`.
fn split_lines(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\0', "\\x00")
        .split('\n')
        .map(String::from)
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\0', "\\x00")
}

fn abbreviate(question: &str) -> String {
    let flat = one_line(question);
    if flat.chars().count() <= QUESTION_HEAD_CHARS {
        return flat;
    }
    let head: String = flat.chars().take(QUESTION_HEAD_CHARS).collect();
    format!("{head}...")
}

fn tail_lines(text: &str, keep: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(keep);
    let mut tail = lines[start..].join("\n");
    if start > 0 {
        tail = format!("... ({start} earlier lines)\n{tail}");
    }
    tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Verdict::*;
    use crate::config::Language;
    use crate::results::fixtures::record;
    use crate::suite::CodeLanguage::{Cpp, Python};

    #[test]
    fn header_follows_the_spec_lines() {
        let text = render(
            &record("prompt1", 1, 1, Correct),
            Python,
            Labels::of(Language::Zh),
        );
        let header: Vec<&str> = text.lines().take(9).collect();
        assert_eq!(
            header,
            [
                "# ==========================================",
                "# Prompt Name: prompt1",
                "# Question 1: 實作Two Sum演算法：給定一個整數陣列nums=[2,7,11,15]和目標值target=9，找出陣列中兩個數字的...",
                "# Case: prompt1::q1_two_sum::r1 (question id q1_two_sum)",
                "# Expected: [0, 1]",
                "# Actual: [0, 1]",
                "# Status: ✅ PASSED",
                "# Time: 0.02s",
                "# ==========================================",
            ]
        );
        assert!(
            text.contains("\ndef two_sum(nums, target):\n"),
            "code is uncommented"
        );
        assert!(text.contains("# ==========================================\n# 完整 Prompt 模板:\n# 你是專業的程式設計師"));
        assert!(text.contains("# 發送給 LLM 的完整 Prompt (包含上下文):\n"));
        assert!(text.contains("# LLM 原始回應:\n# Here is the solution:\n# ```python\n"));
        assert!(text.contains("# 執行結果:\n# 輸出: [0, 1]\n# =="));
    }

    #[test]
    fn failures_name_the_verdict_and_comment_every_line_of_values() {
        let text = render(
            &record("prompt1", 2, 1, WrongAnswer),
            Python,
            Labels::of(Language::Zh),
        );
        assert!(text.contains("# Expected: Hello, World!\n# Welcome to Python!\n# Actual: None\n"));
        assert!(text.contains("# Status: ❌ FAILED (wrong_answer)\n"));
        let api = render(
            &record("prompt3", 3, 1, ApiError),
            Python,
            Labels::of(Language::Zh),
        );
        assert!(api.contains(
            "\n# (no code: timeout: no answer from http://127.0.0.1:11434 within 30s (3 tries))\n"
        ));
        assert!(api.contains("# API 失敗: timeout\n"));
    }

    #[test]
    fn later_rounds_get_their_own_file_name() {
        assert_eq!(
            case_file_name(&record("p", 3, 1, Correct), Python),
            "question_3.py"
        );
        assert_eq!(
            case_file_name(&record("p", 3, 2, Correct), Python),
            "question_3_round_2.py"
        );
        assert_eq!(
            case_file_name(&record("p", 3, 2, Correct), Cpp),
            "question_3_round_2.cpp"
        );
    }
}
