//! The gate's lines, in the run's language. Both keep the keywords a CI
//! log is searched for (`gate: passed`, `gate: FAILED`, `McNemar p`,
//! `alpha`) and every number.

use super::Language;

/// How many checks of each kind ran and failed (the verdict line).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counts {
    pub thresholds: usize,
    pub thresholds_failed: usize,
    pub lower_bounds: usize,
    pub lower_bounds_failed: usize,
    /// Prompts compared with a baseline, when one was.
    pub baseline: Option<usize>,
    pub baseline_lost: usize,
    pub baseline_gained: usize,
}

/// A gate line: CI scripts search the log for its English words, so the
/// English line stays whole in every language and a zh run adds its
/// Chinese after it.
fn both(lang: Language, en: String, zh_gloss: impl FnOnce() -> String) -> String {
    match lang {
        Language::En => en,
        Language::Zh => format!("{en} · {}", zh_gloss()),
    }
}

/// One threshold on a prompt's accuracy (`None`: nothing evaluated).
pub struct Threshold<'a> {
    pub prompt: &'a str,
    pub value: Option<f64>,
    pub accuracy: Option<f64>,
    pub threshold: f64,
    pub passed: bool,
}

pub fn threshold(lang: Language, c: &Threshold) -> String {
    let (p, t) = (c.prompt, c.threshold);
    match (c.accuracy, c.passed) {
        (Some(a), true) => both(
            lang,
            format!("gate: {p} passed: accuracy {a:.1}% >= threshold {t:.1}%"),
            || format!("通過: 準確率 {a:.1}% >= 門檻 {t:.1}%"),
        ),
        (Some(a), false) => both(
            lang,
            format!("gate: {p} FAILED: accuracy {a:.1}% is below the threshold {t:.1}%"),
            || format!("未通過: 準確率 {a:.1}% 低於門檻 {t:.1}%"),
        ),
        (None, _) => both(
            lang,
            format!(
                "gate: {p} FAILED: no case was evaluated, so it cannot meet the threshold {t:.1}%"
            ),
            || format!("未通過: 沒有評測任何案例, 無法達到門檻 {t:.1}%"),
        ),
    }
}

/// `value` is the lower end of the 95 % interval.
pub fn lower_bound(lang: Language, c: &Threshold) -> String {
    let (p, t) = (c.prompt, c.threshold);
    match (c.value, c.accuracy) {
        (Some(lo), Some(a)) => {
            let (word, sign, zh_word, zh_sign) = if c.passed {
                ("passed", ">=", "通過", ">=")
            } else {
                ("FAILED", "is below", "未通過", "低於")
            };
            both(
                lang,
                format!(
                    "gate: {p} {word}: accuracy {a:.1}%, 95% lower bound {lo:.1}% {sign} {t:.1}%"
                ),
                || format!("{zh_word}: 準確率 {a:.1}%, 95% 下界 {lo:.1}% {zh_sign} {t:.1}%"),
            )
        }
        _ => both(
            lang,
            format!(
                "gate: {p} FAILED: no case was evaluated, so its lower bound cannot reach {t:.1}%"
            ),
            || format!("未通過: 沒有評測任何案例, 下界無法達到 {t:.1}%"),
        ),
    }
}

/// How one prompt fared against the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// No case evaluated on both sides: it cannot be compared (fails).
    NothingShared,
    Lost,
    Gained,
    WithinNoise,
}

/// One prompt against the baseline, its figures written out.
pub struct Compared<'a> {
    pub prompt: &'a str,
    pub outcome: Outcome,
    /// Accuracy over the shared cases, in the baseline and now.
    pub before: f64,
    pub now: f64,
    pub shared: usize,
    pub only_baseline_passed: usize,
    pub only_now_passed: usize,
    pub p_value: f64,
    pub alpha: f64,
    /// Cases only one side evaluated.
    pub only_in_baseline: usize,
    pub only_in_run: usize,
}

/// p as a reader compares it with alpha: four decimals, or an upper bound.
fn p_text(p: f64) -> String {
    if p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Both accuracies over the shared cases, the discordant counts and p.
fn figures(c: &Compared) -> String {
    let (before, now, alpha) = (c.before, c.now, c.alpha);
    let sign = if c.p_value < alpha { "<" } else { ">=" };
    format!(
        "baseline {before:.1}% → now {now:.1}% over {} shared cases: {} passed only in the baseline, {} only now (exact McNemar p = {} {sign} alpha {alpha})",
        c.shared,
        c.only_baseline_passed,
        c.only_now_passed,
        p_text(c.p_value)
    )
}

/// One prompt against the baseline `file`, and what was not paired.
pub fn compared(lang: Language, c: &Compared, file: &str) -> Vec<String> {
    let name = c.prompt;
    let head = match c.outcome {
        Outcome::NothingShared => both(
            lang,
            format!(
                "gate: {name} FAILED: no case was evaluated both here and in the baseline {file}, so it cannot be compared"
            ),
            || "未通過: 與基準沒有共同的已評測案例, 無法比較".into(),
        ),
        Outcome::Lost => both(
            lang,
            format!(
                "gate: {name} FAILED: lost to the baseline beyond noise: {}",
                figures(c)
            ),
            || "未通過: 比基準退步, 超出雜訊".into(),
        ),
        Outcome::Gained => both(
            lang,
            format!(
                "gate: {name} gained on the baseline beyond noise: {}",
                figures(c)
            ),
            || "比基準進步, 超出雜訊".into(),
        ),
        Outcome::WithinNoise => both(
            lang,
            format!("gate: {name} within noise of the baseline: {}", figures(c)),
            || "與基準的差異在雜訊之內".into(),
        ),
    };
    let mut lines = vec![head];
    let (b, r) = (c.only_in_baseline, c.only_in_run);
    if b + r > 0 {
        lines.push(both(
            lang,
            format!(
                "  not paired: {b} case(s) evaluated only in the baseline, {r} only in this run"
            ),
            || format!("未配對: {b} 個只在基準, {r} 個只在本次"),
        ));
    }
    lines
}

/// Prompts one side has and the other did not run: not gated by the
/// baseline, said.
pub fn not_compared(
    lang: Language,
    not_run: &[String],
    without: &[String],
    file: &str,
) -> Vec<String> {
    let mut lines = Vec::new();
    if !not_run.is_empty() {
        let names = not_run.join(", ");
        lines.push(both(
            lang,
            format!("gate: {names} in the baseline did not run here: not gated by it"),
            || "本次沒有執行: 未以基準把關".into(),
        ));
    }
    if !without.is_empty() {
        let names = without.join(", ");
        lines.push(both(
            lang,
            format!("gate: {names} has no case in the baseline {file}: not gated by it"),
            || "基準中沒有案例: 未以基準把關".into(),
        ));
    }
    lines
}

/// The last line: passed or FAILED, with what was checked and what failed.
pub fn verdict(lang: Language, c: &Counts) -> String {
    let mut failed: Vec<(String, String)> = Vec::new();
    if c.thresholds_failed > 0 {
        let (f, n) = (c.thresholds_failed, c.thresholds);
        failed.push((
            format!("{f} of {n} prompt(s) below their accuracy threshold"),
            format!("{n} 個 prompt 中有 {f} 個低於準確率門檻"),
        ));
    }
    if c.lower_bounds_failed > 0 {
        let (f, n) = (c.lower_bounds_failed, c.lower_bounds);
        failed.push((
            format!("{f} of {n} prompt(s) whose 95% lower bound is below the threshold"),
            format!("{n} 個 prompt 中有 {f} 個的 95% 下界低於門檻"),
        ));
    }
    if let Some(n) = c.baseline.filter(|_| c.baseline_lost > 0) {
        let f = c.baseline_lost;
        failed.push((
            format!("{f} of {n} prompt(s) lost to the baseline beyond noise"),
            format!("{n} 個 prompt 中有 {f} 個比基準退步, 超出雜訊"),
        ));
    }
    if !failed.is_empty() {
        let (en, zh): (Vec<String>, Vec<String>) = failed.into_iter().unzip();
        return both(lang, format!("gate: FAILED: {}", en.join("; ")), || {
            format!("未通過: {}", zh.join("; "))
        });
    }
    let checked = c
        .thresholds
        .max(c.lower_bounds)
        .max(c.baseline.unwrap_or(0));
    match c.baseline {
        None => both(
            lang,
            format!("gate: passed ({checked} prompt(s) checked)"),
            || format!("通過 (檢查了 {checked} 個 prompt)"),
        ),
        Some(n) => {
            let gained = c.baseline_gained;
            both(
                lang,
                format!(
                    "gate: passed ({checked} prompt(s) checked; against the baseline, {n} compared: every loss is within noise, {gained} gained beyond it)"
                ),
                || {
                    format!(
                        "通過 (與基準比較 {n} 個 prompt: 每個退步都在雜訊之內, {gained} 個進步超出雜訊)"
                    )
                },
            )
        }
    }
}

/// The job summary's line when no gate is configured.
pub fn no_gate(lang: Language) -> &'static str {
    match lang {
        Language::Zh => "gate: 未設定 (結束狀態由 libtest 決定)",
        Language::En => "gate: none configured (the exit status is libtest's)",
    }
}
