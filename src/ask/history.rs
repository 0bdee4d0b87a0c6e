//! Chain history -> the user message.
//!
//! With the learning history off (`history.enabled = false`: HumanEval,
//! prompt variants, `PROMPTEVAL_HISTORY=off`) the message is the template
//! exactly as written with `{question}` replaced, byte for byte: the prompt
//! a benchmark's authors wrote is the prompt measured.
//!
//! With the history on, the message follows spec §3.2, the first question
//! included:
//!
//! ```text
//! [template before {question}]
//!
//! 之前的學習經驗：
//!
//! 問題1: 實作Two Sum演算法...
//! 我的回答: def two_sum(nums, target): ...
//! 結果: ✅ PASSED (期望: [0, 1], 實際: [0, 1])
//!
//! ---
//! 現在請解決新問題：[current question][template after {question}]
//! ```
//!
//! The template's text before `{question}` is the spec's "base prompt".
//! Text after the placeholder stays where the user wrote it, right after
//! the question (`Task: {question}\nAnswer:` ends in `...[question]\nAnswer:`),
//! so an instruction about the question is never separated from it by the
//! history. The spec's templates all end in `{question}`, where this is the
//! spec's layout exactly. The history is bounded (most recent entries,
//! abbreviated questions and answers, a character cap) so long suites fit
//! the model's context.

use serde::{Deserialize, Serialize};

use crate::case::{CaseRecord, Verdict};
use crate::config::{HistoryConfig, Language};

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

fn labels(lang: Language) -> &'static Labels {
    match lang {
        Language::Zh => &ZH,
        Language::En => &EN,
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

/// The template with `{question}` replaced: what the model gets when the
/// history is off. Every occurrence is replaced, as a user reading the
/// template would expect.
pub fn fill(template: &str, question: &str) -> String {
    template.replace(PLACEHOLDER, question)
}

/// The placeholder every template holds (checked when the suite loads).
pub const PLACEHOLDER: &str = "{question}";

/// The user message showing exactly `shown` (oldest first): the template as
/// written when the history is off, else the spec's layout.
pub fn render_prompt(
    template: &str,
    question: &str,
    shown: &[HistoryEntry],
    cfg: &HistoryConfig,
) -> String {
    if !cfg.enabled {
        return fill(template, question);
    }
    let l = labels(cfg.language);
    // Text before the first placeholder is the base prompt; the rest, with
    // any later placeholder filled too, follows the question.
    let (before, after) = template.split_once(PLACEHOLDER).unwrap_or((template, ""));
    let base = before.trim_end();
    let now = format!("{}{question}{}", l.now, fill(after, question));
    let mut parts: Vec<String> = Vec::new();
    if !base.is_empty() {
        parts.push(base.to_string());
    }
    if !shown.is_empty() {
        let rendered: Vec<String> = shown.iter().map(|e| render_entry(e, cfg, l)).collect();
        parts.push(l.header.to_string());
        parts.push(rendered.join("\n\n"));
        parts.push(format!("---\n{now}"));
    } else {
        parts.push(now);
    }
    parts.join("\n\n")
}

/// The entries [`build_prompt`] shows: the most recent ones that fit both
/// caps (a suffix of `history`), none when the history is off. When a cap
/// leaves one out, the shown entries start at the next block of
/// `drop_block` ([`from_block`]).
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
    match history.len() - count {
        0 => history,
        left_out => from_block(&history[left_out..], cfg.drop_block),
    }
}

/// `shown` from its first entry that starts a block of `block` question
/// numbers (1, 1 + block, ...): entries leave a block at a time, so the
/// start of the history stays the same while the next block fills. Every
/// entry starts a block of 1.
pub fn from_block(shown: &[HistoryEntry], block: usize) -> &[HistoryEntry] {
    let block = block.max(1);
    let first = shown
        .iter()
        .position(|e| (e.question_number.max(1) - 1) % block == 0)
        .unwrap_or(shown.len());
    &shown[first..]
}

/// The entries a chain must remember for [`kept`]: the window, and a
/// block's worth more, so a cap that drops one is seen to drop it.
pub fn remembered(cfg: &HistoryConfig) -> usize {
    cfg.max_entries + cfg.drop_block.max(1) - 1
}

/// What the scheduler keeps per chain: [`remembered`] entries, or no
/// chains at all when the history is off.
pub fn chain_memory(cfg: &HistoryConfig) -> Option<usize> {
    cfg.enabled.then(|| remembered(cfg))
}

/// Cuts text to `max` characters with an ellipsis, on a char boundary.
pub fn abbreviate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}...")
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
    fn a_full_window_drops_a_block_at_a_time_so_its_start_stays() {
        let cfg = HistoryConfig {
            max_entries: 4,
            drop_block: 2,
            ..HistoryConfig::default()
        };
        let shown = |n: usize| -> Vec<usize> {
            let chain: Vec<HistoryEntry> = (1..=n).map(|q| entry(q, true)).collect();
            // What the scheduler remembers of the chain.
            let from = n.saturating_sub(remembered(&cfg));
            kept(&chain[from..], &cfg)
                .iter()
                .map(|e| e.question_number)
                .collect()
        };
        assert_eq!(shown(4), [1, 2, 3, 4], "nothing dropped yet");
        assert_eq!(shown(5), [3, 4, 5], "q1 and q2 leave together");
        assert_eq!(shown(6), [3, 4, 5, 6], "the start stays at q3");
        assert_eq!(shown(7), [5, 6, 7]);
        assert_eq!(shown(8), [5, 6, 7, 8]);
        // One at a time, as before the setting.
        let sliding = HistoryConfig {
            max_entries: 4,
            drop_block: 1,
            ..HistoryConfig::default()
        };
        let chain: Vec<HistoryEntry> = (1..=7).map(|q| entry(q, true)).collect();
        let at = |n: usize| -> Vec<usize> {
            kept(&chain[n.saturating_sub(remembered(&sliding))..n], &sliding)
                .iter()
                .map(|e| e.question_number)
                .collect()
        };
        assert_eq!(at(5), [2, 3, 4, 5]);
        assert_eq!(at(7), [4, 5, 6, 7]);
    }

    #[test]
    fn abbreviate_counts_chars_not_bytes() {
        assert_eq!(abbreviate("實作Two Sum演算法", 4), "實作Tw...");
        assert_eq!(abbreviate("short", 10), "short");
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
        // One at a time (drop_block 1), the spec's sliding window.
        let cfg = HistoryConfig {
            max_entries: 2,
            drop_block: 1,
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
            drop_block: 1,
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
        assert_eq!(build_prompt("{question}", "Q2", &[e], &off), "Q2");
    }

    #[test]
    fn entries_show_errors_but_not_empty_wrong_output_details() {
        let mut r = crate::case::fixtures::record(1);
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
            language: Language::En,
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

    const TEMPLATES: [&str; 3] = [
        "{question}\n\nReply with one python code block.",
        "Solve the task below.\n\n{question}\n\nReply with one python code block.",
        "Solve the task below.\n\n{question}",
    ];

    #[test]
    fn with_the_history_off_the_message_is_the_template_as_written() {
        let off = HistoryConfig {
            enabled: false,
            ..Default::default()
        };
        let question = "def f(x):\n    \"\"\"Return x.\"\"\"\n";
        for template in TEMPLATES {
            let want = template.replace("{question}", question);
            // Earlier entries change nothing: the history is off.
            for shown in [vec![], vec![entry(1, true)]] {
                assert_eq!(render_prompt(template, question, &shown, &off), want);
                assert_eq!(build_prompt(template, question, &shown, &off), want);
            }
        }
        assert_eq!(
            build_prompt("Q: {question}\nAgain: {question}", "x", &[], &off),
            "Q: x\nAgain: x"
        );
    }

    #[test]
    fn the_entry_point_is_filled_before_the_question_and_never_inside_it() {
        use std::borrow::Cow;
        let template = "Complete {entry_point}. Only {entry_point}'s body.\n{question}\n";
        let filled = crate::suite::with_entry_point(template, Some("axpy"));
        assert_eq!(filled, "Complete axpy. Only axpy's body.\n{question}\n");
        // A question that mentions the placeholder keeps it as written.
        let question = "void f() { /* {entry_point} stays */";
        let off = HistoryConfig {
            enabled: false,
            ..Default::default()
        };
        assert_eq!(
            build_prompt(&filled, question, &[], &off),
            "Complete axpy. Only axpy's body.\nvoid f() { /* {entry_point} stays */\n"
        );
        let on = build_prompt(
            &filled,
            question,
            &[entry(1, true)],
            &HistoryConfig::default(),
        );
        assert!(on.starts_with("Complete axpy. Only axpy's body."), "{on}");
        assert!(
            on.ends_with("現在請解決新問題：void f() { /* {entry_point} stays */\n"),
            "{on}"
        );
        // Nothing to fill: the template itself, borrowed.
        assert!(matches!(
            crate::suite::with_entry_point("Solve: {question}", Some("f")),
            Cow::Borrowed("Solve: {question}")
        ));
        assert!(matches!(
            crate::suite::with_entry_point(template, None),
            Cow::Borrowed(t) if t == template
        ));
    }

    #[test]
    fn with_the_history_on_text_after_the_question_stays_after_it() {
        let on = HistoryConfig::default();
        let [start, middle, end] = TEMPLATES;
        assert_eq!(
            build_prompt(start, "Q1", &[], &on),
            "現在請解決新問題：Q1\n\nReply with one python code block."
        );
        assert_eq!(
            build_prompt(middle, "Q1", &[], &on),
            "Solve the task below.\n\n現在請解決新問題：Q1\n\nReply with one python code block."
        );
        assert_eq!(
            build_prompt(end, "Q1", &[], &on),
            "Solve the task below.\n\n現在請解決新問題：Q1"
        );
        let p = build_prompt(middle, "Q2", &[entry(1, true)], &on);
        assert!(
            p.starts_with("Solve the task below.\n\n之前的學習經驗：\n\n問題1: "),
            "{p}"
        );
        assert!(
            p.ends_with("\n\n---\n現在請解決新問題：Q2\n\nReply with one python code block."),
            "{p}"
        );
        let p = build_prompt(start, "Q2", &[entry(1, true)], &on);
        assert!(p.starts_with("之前的學習經驗：\n\n問題1: "), "{p}");
    }
}
