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

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            assert!(han(&zh) && !han(&en), "{zh} / {en}");
            for line in [&zh, &en] {
                assert!(line.contains('4') && line.contains('9'), "{line}");
            }
        }
    }
}
