//! The report's lines around its tables (what the words in labels.rs do
//! not say alone).

use std::collections::BTreeMap;

use super::Language;

/// An interrupted run: its numbers cover the finished cases only.
pub fn incomplete_run(lang: Language, finished: usize, planned: usize, budget: bool) -> String {
    match (lang, budget) {
        (Language::Zh, false) => {
            format!("⚠️  INCOMPLETE 執行未完成: 完成 {finished}/{planned} 個案例; 本次執行被中斷")
        }
        (Language::Zh, true) => format!(
            "⚠️  INCOMPLETE 執行未完成: 完成 {finished}/{planned} 個案例; [budget] 上限停止了執行 (以 PROMPTEVAL_RESUME 與新的上限繼續)"
        ),
        (Language::En, false) => {
            format!("⚠️  INCOMPLETE: {finished}/{planned} cases finished; the run was interrupted")
        }
        (Language::En, true) => format!(
            "⚠️  INCOMPLETE: {finished}/{planned} cases finished; a [budget] cap stopped the run (PROMPTEVAL_RESUME with a new cap finishes it)"
        ),
    }
}

/// Cases not evaluated, flagged in the table's `flag` cells; every
/// accuracy is over the evaluated cases only.
pub fn not_evaluated(lang: Language, cases: usize, planned: usize, flag: &str) -> String {
    match lang {
        Language::Zh => format!(
            "⚠️  {planned} 個計畫中的案例有 {cases} 個未評測 (見 {flag} 與 summary.json): 每個準確率只計已評測的案例"
        ),
        Language::En => format!(
            "⚠️  {cases} of {planned} planned cases were not evaluated (see {flag} and summary.json): each accuracy is over its evaluated cases only"
        ),
    }
}

/// The paired test of the best prompt against the runner-up, as numbers
/// already written out (language/ sits below the results' types).
pub struct VersusRunnerUp<'a> {
    pub runner_up: &'a str,
    pub beats_by_more_than_noise: bool,
    pub p_value: &'a str,
    pub shared_cases: usize,
    pub only_best_passed: usize,
    pub only_runner_up_passed: usize,
}

/// Whether the best prompt beats the runner-up by more than noise.
pub fn versus_runner_up(lang: Language, v: &VersusRunnerUp) -> String {
    let VersusRunnerUp {
        runner_up,
        beats_by_more_than_noise,
        p_value,
        shared_cases,
        only_best_passed,
        only_runner_up_passed,
    } = *v;
    match (lang, beats_by_more_than_noise) {
        (Language::En, true) => format!(
            "beats {runner_up} by more than noise (exact McNemar p = {p_value} over {shared_cases} shared cases: {only_best_passed} passed only with the best, {only_runner_up_passed} only with {runner_up})"
        ),
        (Language::En, false) => format!(
            "not distinguishable from {runner_up} on this run (exact McNemar p = {p_value} over {shared_cases} shared cases: {only_best_passed} passed only with the best, {only_runner_up_passed} only with {runner_up}); more questions or rounds would tell"
        ),
        (Language::Zh, true) => format!(
            "勝過 {runner_up}, 差距超出雜訊 (exact McNemar p = {p_value}, {shared_cases} 個共同案例: {only_best_passed} 個只有最佳者通過, {only_runner_up_passed} 個只有 {runner_up} 通過)"
        ),
        (Language::Zh, false) => format!(
            "本次執行中與 {runner_up} 無法區分 (exact McNemar p = {p_value}, {shared_cases} 個共同案例: {only_best_passed} 個只有最佳者通過, {only_runner_up_passed} 個只有 {runner_up} 通過); 更多問題或輪數才能分辨"
        ),
    }
}

/// How two models rank the prompts: `tau` and `rho` already written out.
pub fn ranking(
    lang: Language,
    models: (&str, &str),
    tau: &str,
    tau_interval: &str,
    rho: &str,
    prompts: usize,
) -> String {
    let (a, b) = models;
    match lang {
        Language::En => format!(
            "ranking {a} vs {b}: Kendall tau-b {tau} (95% CI {tau_interval}), Spearman rho {rho} over {prompts} prompts"
        ),
        Language::Zh => format!(
            "排名 {a} vs {b}: Kendall tau-b {tau} (95% CI {tau_interval}), Spearman rho {rho}, 共 {prompts} 個 Prompts"
        ),
    }
}

/// One prompt pair whose order flips between two models beyond noise; the
/// two sides already written out (`first > second on model (a% vs b%, p)`).
pub fn order_flip(lang: Language, on_a: &str, on_b: &str) -> String {
    match lang {
        Language::En => format!("  ⚠ order flips beyond noise: {on_a}, {on_b}"),
        Language::Zh => format!("  ⚠ 順序翻轉, 超出雜訊: {on_a}, {on_b}"),
    }
}

pub fn no_order_flip(lang: Language, within_noise: usize) -> String {
    match lang {
        Language::En => format!(
            "  no prompt pair flips order beyond noise ({within_noise} flip(s) within noise)"
        ),
        Language::Zh => {
            format!("  沒有 Prompt 配對的順序翻轉超出雜訊 ({within_noise} 個翻轉在雜訊內)")
        }
    }
}

/// One model's robustness figures, already written out.
pub struct Robustness<'a> {
    pub model: &'a str,
    pub spread: &'a str,
    pub spread_interval: &'a str,
    pub sensitivity: &'a str,
    pub sensitivity_interval: &'a str,
    pub robust_pass_at_1: &'a str,
    /// The most prompt-dependent questions, `id value` each.
    pub most: &'a [String],
}

pub fn robustness(lang: Language, r: &Robustness) -> String {
    let Robustness {
        model,
        spread,
        spread_interval,
        sensitivity,
        sensitivity_interval,
        robust_pass_at_1,
        most,
    } = *r;
    let most = most.join(", ");
    match lang {
        Language::En => {
            let most = match most.is_empty() {
                true => String::new(),
                false => format!("; most prompt-dependent: {most}"),
            };
            format!(
                "robustness {model}: mean spread {spread} {spread_interval}, PromptSensiScore {sensitivity} {sensitivity_interval}, robust pass@1 {robust_pass_at_1}{most}"
            )
        }
        Language::Zh => {
            let most = match most.is_empty() {
                true => String::new(),
                false => format!("; 最依賴 Prompt 的問題: {most}"),
            };
            format!(
                "穩健性 {model}: 平均差距 {spread} {spread_interval}, PromptSensiScore {sensitivity} {sensitivity_interval}, robust pass@1 {robust_pass_at_1}{most}"
            )
        }
    }
}

/// What a reader must know about one prompt's numbers before trusting
/// them, counted: the table's `notes` cell and the longer warnings say it.
pub struct Notes<'a> {
    pub api_errors: Option<usize>,
    pub not_evaluated: usize,
    /// Why, reason -> count.
    pub not_evaluated_reasons: &'a BTreeMap<String, usize>,
    pub cut_prompts: usize,
    pub cut_replies: usize,
    /// Questions whose program defeats its tests (judged wrong_answer).
    pub suspect: &'a [String],
    /// Questions that passed in some rounds and failed in others.
    pub unstable: &'a [String],
}

/// The notes of one prompt's row, each led by its sign and count so the
/// row reads the same way in both languages; empty when nothing is due.
/// `api_error` is the verdict's machine name in both.
pub fn note_flags(lang: Language, n: &Notes) -> String {
    let zh = lang == Language::Zh;
    let word = |zh_word: &'static str, en_word: &'static str| if zh { zh_word } else { en_word };
    let mut flags = Vec::new();
    if let Some(count) = n.api_errors {
        flags.push(format!("⚠ {count} api_error"));
    }
    if n.not_evaluated > 0 {
        let w = word("個未評測", "not evaluated");
        flags.push(format!("⚠ {} {w}", n.not_evaluated));
    }
    if n.cut_prompts > 0 {
        let w = word("個提示被截斷", "cut prompts");
        flags.push(format!("✂ {} {w}", n.cut_prompts));
    }
    if n.cut_replies > 0 {
        let w = word("個回覆被截斷", "cut replies");
        flags.push(format!("✂ {} {w}", n.cut_replies));
    }
    if !n.unstable.is_empty() {
        const SHOWN: usize = 3;
        let mut ids = n.unstable[..n.unstable.len().min(SHOWN)].join(" ");
        if n.unstable.len() > SHOWN {
            ids.push_str(" …");
        }
        let w = word("個不穩定", "unstable");
        flags.push(format!("≠ {} {w} ({ids})", n.unstable.len()));
    }
    flags.join(if zh { "; " } else { ", " })
}

/// The same facts as sentences that say what to do (summary.json keeps
/// the English ones; the views show them in the run's language).
pub fn warnings(lang: Language, n: &Notes) -> Vec<String> {
    let zh = lang == Language::Zh;
    let mut out = Vec::new();
    if let Some(count) = n.api_errors {
        out.push(if zh {
            format!("{count} 個 api_error: 模型呼叫失敗, 計為失敗; 請檢查伺服器後重新執行")
        } else {
            format!("{count} api_error: the model call failed and counts as a failure; check the server and rerun")
        });
    }
    if n.not_evaluated > 0 {
        let why: Vec<String> = n
            .not_evaluated_reasons
            .iter()
            .map(|(r, count)| format!("{r} {count}"))
            .collect();
        let why = why.join(", ");
        out.push(if zh {
            format!("{} 個未評測 ({why}): 不計入任何準確率", n.not_evaluated)
        } else {
            format!("{} not evaluated ({why}): in no accuracy", n.not_evaluated)
        });
    }
    if n.cut_prompts > 0 {
        let count = n.cut_prompts;
        out.push(if zh {
            format!(
                "{count} 個提示超出模型的上下文視窗, 未評測: 請調高 llm.num_ctx (以及伺服器自己的視窗, 例如 llama-server -c), 或調低 history.max_entries / history.max_chars"
            )
        } else {
            format!(
                "{count} prompt(s) did not fit the model's context window and were not evaluated: \
                 raise llm.num_ctx (and the server's own window, e.g. llama-server -c), or lower \
                 history.max_entries / history.max_chars"
            )
        });
    }
    if n.cut_replies > 0 {
        let count = n.cut_replies;
        out.push(if zh {
            format!("{count} 個回覆停在長度上限, 以截斷的回覆評判; 請調高 llm.num_predict")
        } else {
            format!(
                "{count} reply(ies) stopped at the length limit and were judged cut; raise llm.num_predict"
            )
        });
    }
    if !n.suspect.is_empty() {
        let (count, ids) = (n.suspect.len(), n.suspect.join(", "));
        out.push(if zh {
            format!(
                "{count} 個可疑案例: 程式定義了與任何物件都相等的類別, 使其測試無法失敗; 判為 wrong_answer: {ids}"
            )
        } else {
            format!(
                "{count} suspect case(s): the program defines a class equal to any object, so its tests \
                 cannot fail; judged wrong_answer: {ids}"
            )
        });
    }
    if !n.unstable.is_empty() {
        let (count, ids) = (n.unstable.len(), n.unstable.join(", "));
        out.push(if zh {
            format!("{count} 個不穩定的問題, 在某些輪次或樣本通過、其他失敗: {ids}")
        } else {
            format!(
                "{count} unstable question(s), passed in some rounds or samples and failed in others: {ids}"
            )
        });
    }
    out
}

/// How many of the planned cases finished (the job summary's header).
pub fn cases_finished(lang: Language, finished: usize, planned: usize) -> String {
    match lang {
        Language::Zh => format!("完成 {finished}/{planned} 個案例"),
        Language::En => format!("{finished} of {planned} cases finished"),
    }
}

/// The quick view's banner over an interrupted run.
pub fn incomplete_banner(lang: Language, finished: usize, planned: usize, budget: bool) -> String {
    match (lang, budget) {
        (Language::Zh, false) => format!(
            "⚠️ INCOMPLETE 執行未完成: 完成 {finished}/{planned} 個案例; 本次執行被中斷, 這些數字只涵蓋已完成的案例。"
        ),
        (Language::Zh, true) => format!(
            "⚠️ INCOMPLETE 執行未完成: 完成 {finished}/{planned} 個案例; [budget] 上限停止了執行, 這些數字只涵蓋已完成的案例。"
        ),
        (Language::En, false) => format!(
            "⚠️ INCOMPLETE: {finished}/{planned} cases finished; the run was interrupted and these numbers cover only the finished cases."
        ),
        (Language::En, true) => format!(
            "⚠️ INCOMPLETE: {finished}/{planned} cases finished; a [budget] cap stopped the run and these numbers cover only the finished cases."
        ),
    }
}

/// The quick view's heading over the cases not evaluated.
pub fn not_evaluated_heading(lang: Language, cases: usize) -> String {
    match lang {
        Language::Zh => format!("⚠️ 有 {cases} 個選取的案例未評測: 它們不計入任何準確率"),
        Language::En => {
            format!("⚠️ {cases} selected cases were not evaluated: they are in no accuracy")
        }
    }
}

/// The cases not evaluated beyond those the quick view lists.
pub fn not_evaluated_more(lang: Language, more: usize) -> String {
    match lang {
        Language::Zh => format!("另有 {more} 個未列出; 全部見 run_info.json 的 not_evaluated"),
        Language::En => {
            format!("{more} more not listed here; every one is in run_info.json (not_evaluated)")
        }
    }
}

/// A page's name among its prompt's and verdict's (or the matrix's) pages.
pub fn page_name(lang: Language, number: usize) -> String {
    match lang {
        Language::Zh => format!("第 {number} 頁"),
        Language::En => format!("page {number}"),
    }
}

/// Over the quick view's table of case pages.
pub fn case_pages_note(lang: Language, per_page: usize) -> String {
    match lang {
        Language::Zh => format!(
            "每個 Prompt 的案例依判定分頁, 每頁最多 {per_page} 個; 點頁碼開啟該頁, 頁內可依問題、輪次與文字篩選, 每個案例可展開其問題、程式碼、輸出與發送的 Prompt。"
        ),
        Language::En => format!(
            "Each prompt's cases by verdict, on pages of at most {per_page} cases: a page number opens that page, where the cases filter by question, round and text and each unfolds to its question, code, output and the prompt sent."
        ),
    }
}

/// Under the quick view's matrix when more questions continue on pages.
pub fn matrix_more(lang: Language, questions: usize) -> String {
    match lang {
        Language::Zh => format!("另有 {questions} 個問題 (差異較小) 接續在以下頁面:"),
        Language::En => {
            format!("{questions} more questions (smaller spread first) continue on pages:")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versus(beats: bool) -> VersusRunnerUp<'static> {
        VersusRunnerUp {
            runner_up: "p9",
            beats_by_more_than_noise: beats,
            p_value: "0.04",
            shared_cases: 9,
            only_best_passed: 4,
            only_runner_up_passed: 0,
        }
    }

    #[test]
    fn both_lines_speak_both_languages_with_their_numbers() {
        let han = |s: &str| s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        for (zh, en) in [
            (
                incomplete_run(Language::Zh, 4, 9, false),
                incomplete_run(Language::En, 4, 9, false),
            ),
            (
                not_evaluated(Language::Zh, 4, 9, "注意"),
                not_evaluated(Language::En, 4, 9, "notes"),
            ),
            (
                versus_runner_up(Language::Zh, &versus(true)),
                versus_runner_up(Language::En, &versus(true)),
            ),
            (
                versus_runner_up(Language::Zh, &versus(false)),
                versus_runner_up(Language::En, &versus(false)),
            ),
            (
                ranking(Language::Zh, ("a", "b"), "0.4", "[0.1, 0.9]", "0.5", 9),
                ranking(Language::En, ("a", "b"), "0.4", "[0.1, 0.9]", "0.5", 9),
            ),
            (
                no_order_flip(Language::Zh, 4),
                no_order_flip(Language::En, 4),
            ),
            (
                cases_finished(Language::Zh, 4, 9),
                cases_finished(Language::En, 4, 9),
            ),
            (
                incomplete_banner(Language::Zh, 4, 9, true),
                incomplete_banner(Language::En, 4, 9, true),
            ),
            (
                not_evaluated_heading(Language::Zh, 4),
                not_evaluated_heading(Language::En, 4),
            ),
            (
                note_flags(Language::Zh, &counts()),
                note_flags(Language::En, &counts()),
            ),
        ] {
            assert!(han(&zh) && !han(&en), "{zh} / {en}");
            for line in [&zh, &en] {
                assert!(line.contains('4'), "{line}");
            }
        }
    }

    fn counts() -> Notes<'static> {
        static NONE: [String; 0] = [];
        static REASONS: BTreeMap<String, usize> = BTreeMap::new();
        Notes {
            api_errors: Some(1),
            not_evaluated: 4,
            not_evaluated_reasons: &REASONS,
            cut_prompts: 2,
            cut_replies: 3,
            suspect: &NONE,
            unstable: &NONE,
        }
    }

    #[test]
    fn notes_lead_with_their_sign_and_count_in_both_languages() {
        let unstable: Vec<String> = ["q1", "q2", "q3", "q4"].map(String::from).into();
        let n = Notes {
            unstable: &unstable,
            ..counts()
        };
        assert_eq!(
            note_flags(Language::En, &n),
            "⚠ 1 api_error, ⚠ 4 not evaluated, ✂ 2 cut prompts, ✂ 3 cut replies, ≠ 4 unstable (q1 q2 q3 …)"
        );
        assert_eq!(
            note_flags(Language::Zh, &n),
            "⚠ 1 api_error; ⚠ 4 個未評測; ✂ 2 個提示被截斷; ✂ 3 個回覆被截斷; ≠ 4 個不穩定 (q1 q2 q3 …)"
        );
        let nothing = Notes {
            api_errors: None,
            not_evaluated: 0,
            cut_prompts: 0,
            cut_replies: 0,
            ..counts()
        };
        assert_eq!(note_flags(Language::Zh, &nothing), "");
        assert!(warnings(Language::En, &nothing).is_empty());
    }

    #[test]
    fn each_warning_is_said_in_both_languages_with_its_count() {
        let ids: Vec<String> = ["q7"].map(String::from).into();
        let reasons = BTreeMap::from([("template changed".to_string(), 4)]);
        let n = Notes {
            not_evaluated_reasons: &reasons,
            suspect: &ids,
            unstable: &ids,
            ..counts()
        };
        let han = |s: &str| s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        let (zh, en) = (warnings(Language::Zh, &n), warnings(Language::En, &n));
        assert_eq!(zh.len(), 6);
        assert_eq!(en.len(), 6);
        for (z, e) in zh.iter().zip(&en) {
            assert!(han(z) && !han(e), "{z} / {e}");
            let lead = e.split(' ').next().unwrap();
            assert!(z.starts_with(lead), "{z} / {e}");
        }
        assert_eq!(
            en[1],
            "4 not evaluated (template changed 4): in no accuracy"
        );
        assert!(en[4].ends_with("judged wrong_answer: q7"), "{}", en[4]);
    }
}
