//! The report's lines around its tables (what the words in labels.rs do
//! not say alone).

use super::Language;

/// An interrupted run: its numbers cover the finished cases only.
pub fn incomplete_run(lang: Language, finished: usize, planned: usize) -> String {
    match lang {
        Language::Zh => {
            format!("⚠️  INCOMPLETE 執行未完成: 完成 {finished}/{planned} 個案例; 本次執行被中斷")
        }
        Language::En => {
            format!("⚠️  INCOMPLETE: {finished}/{planned} cases finished; the run was interrupted")
        }
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
                incomplete_run(Language::Zh, 4, 9),
                incomplete_run(Language::En, 4, 9),
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
        ] {
            assert!(han(&zh) && !han(&en), "{zh} / {en}");
            for line in [&zh, &en] {
                assert!(line.contains('4'), "{line}");
            }
        }
    }
}
