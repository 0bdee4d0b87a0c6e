//! The words of every view a person reads (the table, the `.py` headers,
//! the quick view), in the run's [`Language`]: the spec's Chinese by
//! default, English on request. Machine-read names (summary.json keys, CSV
//! columns, verdict names) are not labels and never change.

use serde::Serialize;

use super::Language;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Labels {
    /// The language of these words, for the lines built around them.
    #[serde(skip)]
    pub language: Language,
    pub accuracy: &'static str,
    pub correct_total: &'static str,
    pub avg_exec_time: &'static str,
    pub min: &'static str,
    pub max: &'static str,
    pub std_dev: &'static str,
    pub notes: &'static str,
    pub best_prompt: &'static str,
    pub tie: &'static str,
    pub no_results: &'static str,
    /// `.py` blocks and the quick view's case parts.
    pub template: &'static str,
    pub sent_prompt: &'static str,
    pub raw_reply: &'static str,
    /// A reply that stopped at the length limit.
    pub reply_cut: &'static str,
    /// A reasoning model's reasoning (never judged).
    pub reasoning: &'static str,
    pub execution_result: &'static str,
    pub output: &'static str,
    pub api_failure: &'static str,
    pub detail: &'static str,
    pub error: &'static str,
    pub stdout_truncated: &'static str,
    pub stderr_truncated: &'static str,
    pub exit_code: &'static str,
    pub signal: &'static str,
    pub timed_out: &'static str,
    /// The quick view's header and case parts.
    pub report_title: &'static str,
    pub model: &'static str,
    pub started: &'static str,
    pub total_time: &'static str,
    pub seconds: &'static str,
    /// The filters' count, `{n}` of `{m}` (the pages' scripts fill it in).
    pub cases_shown: &'static str,
    pub question: &'static str,
    pub code: &'static str,
    pub stderr: &'static str,
    pub time: &'static str,
    /// The quick view's pages: the matrix, the table of case pages and
    /// each page's links.
    pub matrix: &'static str,
    pub verdict: &'static str,
    pub cases: &'static str,
    pub pages: &'static str,
    pub back_to_quick_view: &'static str,
    pub previous_page: &'static str,
    pub next_page: &'static str,
}

/// The spec's labels (§8, §9).
const ZH: Labels = Labels {
    language: Language::Zh,
    accuracy: "準確率",
    correct_total: "正確/總數",
    avg_exec_time: "平均執行時間",
    min: "最低",
    max: "最高",
    std_dev: "標準差",
    notes: "注意",
    best_prompt: "最佳 Prompt",
    tie: "tie / 並列",
    no_results: "無結果 / no finished cases",
    template: "完整 Prompt 模板",
    sent_prompt: "發送給 LLM 的完整 Prompt (包含上下文)",
    raw_reply: "LLM 原始回應",
    reply_cut: "✂ 回覆停在長度上限 (finish_reason=length): 請調高 llm.num_predict",
    reasoning: "LLM 推理過程 (不評分) / reasoning, not judged",
    execution_result: "執行結果",
    output: "輸出",
    api_failure: "API 失敗",
    detail: "說明",
    error: "錯誤",
    stdout_truncated: "輸出已截斷 / stdout truncated",
    stderr_truncated: "錯誤輸出已截斷 / stderr truncated",
    exit_code: "結束碼 (exit code)",
    signal: "訊號 (signal)",
    timed_out: "逾時 (timed out)",
    report_title: "Prompt 效能比較報告",
    model: "模型 (model)",
    started: "開始",
    total_time: "總執行時間",
    seconds: "秒",
    cases_shown: "顯示 {n} / {m} 個案例",
    question: "問題",
    code: "程式碼",
    stderr: "錯誤 (stderr)",
    time: "時間",
    matrix: "問題 × Prompt",
    verdict: "判定",
    cases: "案例數",
    pages: "頁面",
    back_to_quick_view: "← 快速檢視",
    previous_page: "← 上一頁",
    next_page: "下一頁 →",
};

const EN: Labels = Labels {
    language: Language::En,
    accuracy: "Accuracy",
    correct_total: "Correct/Total",
    avg_exec_time: "Avg exec time",
    min: "Min",
    max: "Max",
    std_dev: "Std dev",
    notes: "Notes",
    best_prompt: "Best prompt",
    tie: "tie",
    no_results: "no finished cases",
    template: "Full prompt template",
    sent_prompt: "Full prompt sent to the LLM (with context)",
    raw_reply: "LLM raw reply",
    reply_cut: "✂ cut at the length limit (finish_reason=length): raise llm.num_predict",
    reasoning: "LLM reasoning (not judged)",
    execution_result: "Execution result",
    output: "Output",
    api_failure: "API failure",
    detail: "Detail",
    error: "Error",
    stdout_truncated: "stdout truncated",
    stderr_truncated: "stderr truncated",
    exit_code: "Exit code",
    signal: "Signal",
    timed_out: "Timed out",
    report_title: "Prompt performance comparison",
    model: "model",
    started: "started",
    total_time: "total execution time",
    seconds: "s",
    cases_shown: "{n} of {m} cases shown",
    question: "Question",
    code: "Code",
    stderr: "Error (stderr)",
    time: "Time",
    matrix: "Questions × prompts",
    verdict: "verdict",
    cases: "cases",
    pages: "pages",
    back_to_quick_view: "← quick view",
    previous_page: "← previous page",
    next_page: "next page →",
};

impl Labels {
    pub fn of(language: Language) -> &'static Labels {
        match language {
            Language::Zh => &ZH,
            Language::En => &EN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_labels_hold_no_chinese() {
        let en = serde_json::to_value(Labels::of(Language::En)).unwrap();
        for (key, value) in en.as_object().unwrap() {
            let text = value.as_str().unwrap();
            assert!(
                !text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{key}: {text}"
            );
        }
    }
}
