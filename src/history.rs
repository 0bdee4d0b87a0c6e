//! Chain history -> prompt text, in the layout of spec §3.2:
//!
//! ```text
//! [template]
//!
//! 之前的學習經驗：
//!
//! 問題1: 實作Two Sum演算法...
//! 我的回答: def two_sum(nums, target): ...
//! 結果: ✅ PASSED (期望: [0, 1], 實際: [0, 1])
//!
//! ---
//! 現在請解決新問題：[current question]
//! ```
//!
//! The template is the spec's "base prompt": its `{question}` placeholder is
//! removed and the current question follows the closing line, so a template
//! that ends in `{question}` (all of the spec's do) reads naturally and text
//! after the placeholder stays an instruction before the question. The
//! history is bounded (most recent entries, abbreviated questions and
//! answers, a character cap) so long suites fit the model's context.

use serde::{Deserialize, Serialize};

use crate::case::{CaseRecord, Verdict};
use crate::config::{HistoryConfig, HistoryLanguage};
use crate::judge::abbreviate;

/// What one earlier case of the chain contributes. Recorded with each reply
/// (the entries its prompt was built from), so replay can tell whether a
/// new run would send the same history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// 1-based question number in the suite.
    pub question_number: usize,
    pub question: String,
    /// The code the model wrote, or why there is none.
    pub answer: String,
    pub passed: bool,
    pub expected: String,
    pub actual: String,
}

impl HistoryEntry {
    pub fn from_record(record: &CaseRecord) -> HistoryEntry {
        let answer = match (&record.code, &record.api_failure) {
            (Some(code), _) => code.trim().to_string(),
            (None, Some(f)) => format!("(no reply: {})", f.as_str()),
            (None, None) => "(no code)".into(),
        };
        // An error says more than empty output; a wrong answer with no
        // output is just that (its detail would repeat the expected value).
        let actual = match (&record.actual, record.verdict, &record.detail) {
            (a, _, _) if !a.is_empty() => a.clone(),
            (_, Verdict::WrongAnswer, _) | (_, _, None) => "(no output)".to_string(),
            (_, _, Some(detail)) => detail.clone(),
        };
        HistoryEntry {
            question_number: record.case.question,
            question: record.question.clone(),
            answer,
            passed: record.passed(),
            expected: record.expected.clone(),
            actual,
        }
    }
}

struct Labels {
    header: &'static str,
    question: &'static str,
    answer: &'static str,
    result: &'static str,
    expected: &'static str,
    actual: &'static str,
    now: &'static str,
    sep: &'static str,
}

const ZH: Labels = Labels {
    header: "之前的學習經驗：",
    question: "問題",
    answer: "我的回答",
    result: "結果",
    expected: "期望",
    actual: "實際",
    now: "現在請解決新問題：",
    sep: ": ",
};

const EN: Labels = Labels {
    header: "Previous experience:",
    question: "Question ",
    answer: "My answer",
    result: "Result",
    expected: "expected",
    actual: "actual",
    now: "Now solve the new question: ",
    sep: ": ",
};

fn labels(lang: HistoryLanguage) -> &'static Labels {
    match lang {
        HistoryLanguage::Zh => &ZH,
        HistoryLanguage::En => &EN,
    }
}

fn render_entry(e: &HistoryEntry, cfg: &HistoryConfig, l: &Labels) -> String {
    let status = if e.passed { "✅ PASSED" } else { "❌ FAILED" };
    let value = |s: &str| abbreviate(&s.replace('\n', "\\n"), cfg.answer_chars.min(120));
    format!(
        "{q}{n}{sep}{question}\n{a}{sep}{answer}\n{r}{sep}{status} ({ex}: {expected}, {ac}: {actual})",
        q = l.question,
        n = e.question_number,
        sep = l.sep,
        question = abbreviate(e.question.trim(), cfg.question_chars),
        a = l.answer,
        answer = abbreviate(&e.answer, cfg.answer_chars),
        r = l.result,
        ex = l.expected,
        expected = value(&e.expected),
        ac = l.actual,
        actual = value(&e.actual),
    )
}

/// The base template: the placeholder removed, trailing space trimmed.
fn base(template: &str) -> String {
    template.replace("{question}", "").trim_end().to_string()
}

/// The user message for `question`, given the earlier entries of its chain
/// (oldest first).
pub fn build_prompt(
    template: &str,
    question: &str,
    history: &[HistoryEntry],
    cfg: &HistoryConfig,
) -> String {
    render_prompt(template, question, kept(history, cfg), cfg)
}

/// The user message showing exactly `shown` (oldest first).
pub fn render_prompt(
    template: &str,
    question: &str,
    shown: &[HistoryEntry],
    cfg: &HistoryConfig,
) -> String {
    let l = labels(cfg.language);
    let rendered: Vec<String> = shown.iter().map(|e| render_entry(e, cfg, l)).collect();
    let base = base(template);
    if rendered.is_empty() {
        return format!("{base}\n\n{}{question}", l.now);
    }
    format!(
        "{base}\n\n{}\n\n{}\n\n---\n{}{question}",
        l.header,
        rendered.join("\n\n"),
        l.now
    )
}

/// The entries [`build_prompt`] shows: the most recent ones that fit both
/// caps (a suffix of `history`), none when the history is off.
pub fn kept<'a>(history: &'a [HistoryEntry], cfg: &HistoryConfig) -> &'a [HistoryEntry] {
    if !cfg.enabled {
        return &[];
    }
    let l = labels(cfg.language);
    let mut count = 0;
    let mut chars = 0;
    for e in history.iter().rev().take(cfg.max_entries) {
        let len = render_entry(e, cfg, l).chars().count() + 2;
        if chars + len > cfg.max_chars {
            break;
        }
        chars += len;
        count += 1;
    }
    &history[history.len() - count..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: usize, passed: bool) -> HistoryEntry {
        HistoryEntry {
            question_number: n,
            question: format!("Question text {n}"),
            answer: "def f():\n    return 1\nprint(f())".into(),
            passed,
            expected: "[0, 1]".into(),
            actual: if passed {
                "[0, 1]".into()
            } else {
                "[1, 0]".into()
            },
        }
    }

    #[test]
    fn first_question_has_template_and_question_only() {
        let p = build_prompt(
            "你是專業的程式設計師：{question}",
            "Q1",
            &[],
            &HistoryConfig::default(),
        );
        assert_eq!(p, "你是專業的程式設計師：\n\n現在請解決新問題：Q1");
    }

    #[test]
    fn later_questions_carry_the_spec_layout() {
        let p = build_prompt(
            "T: {question}",
            "Q3",
            &[entry(1, true), entry(2, false)],
            &HistoryConfig::default(),
        );
        let want = "T:\n\n之前的學習經驗：\n\n問題1: Question text 1\n我的回答: def f():\n    return 1\nprint(f())\n結果: ✅ PASSED (期望: [0, 1], 實際: [0, 1])\n\n問題2: Question text 2\n我的回答: def f():\n    return 1\nprint(f())\n結果: ❌ FAILED (期望: [0, 1], 實際: [1, 0])\n\n---\n現在請解決新問題：Q3";
        assert_eq!(p, want);
    }

    #[test]
    fn history_is_bounded_to_recent_entries() {
        let cfg = HistoryConfig {
            max_entries: 2,
            ..Default::default()
        };
        let h: Vec<_> = (1..=5).map(|n| entry(n, true)).collect();
        let p = build_prompt("{question}", "Q6", &h, &cfg);
        assert!(
            !p.contains("問題3:") && p.contains("問題4:") && p.contains("問題5:"),
            "{p}"
        );

        let cfg = HistoryConfig {
            max_chars: 150,
            ..Default::default()
        };
        let p = build_prompt("{question}", "Q6", &h, &cfg);
        assert!(p.contains("問題5:") && !p.contains("問題4:"), "{p}");
    }

    #[test]
    fn long_answers_are_abbreviated_and_history_can_be_off() {
        let mut e = entry(1, true);
        e.answer = "x = 1\n".repeat(200);
        let cfg = HistoryConfig {
            answer_chars: 20,
            ..Default::default()
        };
        let p = build_prompt("{question}", "Q2", &[e.clone()], &cfg);
        assert!(p.contains("我的回答: x = 1\nx = 1\nx = 1\nx ..."), "{p}");
        let off = HistoryConfig {
            enabled: false,
            ..Default::default()
        };
        assert_eq!(
            build_prompt("{question}", "Q2", &[e], &off),
            "\n\n現在請解決新問題：Q2"
        );
    }

    #[test]
    fn entries_show_errors_but_not_empty_wrong_output_details() {
        let mut r = crate::journal::tests::record(1);
        r.verdict = Verdict::WrongAnswer;
        r.actual = String::new();
        r.detail = Some("expected \"1\", got \"\"".into());
        assert_eq!(HistoryEntry::from_record(&r).actual, "(no output)");
        r.verdict = Verdict::RuntimeError;
        r.detail = Some("ZeroDivisionError: division by zero".into());
        assert_eq!(
            HistoryEntry::from_record(&r).actual,
            "ZeroDivisionError: division by zero"
        );
        r.actual = "0".into();
        assert_eq!(HistoryEntry::from_record(&r).actual, "0");
    }

    #[test]
    fn english_labels() {
        let cfg = HistoryConfig {
            language: HistoryLanguage::En,
            ..Default::default()
        };
        let p = build_prompt("Solve: {question}", "Q2", &[entry(1, true)], &cfg);
        assert!(
            p.starts_with(
                "Solve:\n\nPrevious experience:\n\nQuestion 1: Question text 1\nMy answer: "
            ),
            "{p}"
        );
        assert!(p.ends_with("---\nNow solve the new question: Q2"), "{p}");
    }
}
