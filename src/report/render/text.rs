//! The sentences of the findings, each built once (worded in the run's
//! language by language/report.rs) and used by every
//! view that states it (terminal table, markdown job summary, quick view,
//! the multi-model overview): the best prompt with its ties, the best
//! against the runner-up, the cross-model ranking and flips, robustness.

use crate::language::{Labels, Language, report as words};
use crate::results::{BestPrompt, ModelsSummary, VersusRunnerUp};

/// The best prompt and those tied with it, with the accuracy:
/// `a (83.3%)`, or `a = b (tie, 83.3%)` in the run's words.
pub(crate) fn best_names(best: &BestPrompt, l: &Labels) -> String {
    if best.tied_with.is_empty() {
        format!("{} ({:.1}%)", best.name, best.accuracy)
    } else {
        format!(
            "{} = {} ({}, {:.1}%)",
            best.name,
            best.tied_with.join(" = "),
            l.tie,
            best.accuracy
        )
    }
}

/// Whether the best prompt beats the runner-up by more than noise, in words.
pub(crate) fn versus_text(v: &VersusRunnerUp, lang: Language) -> String {
    let runner_up = terminal_safe(&v.runner_up);
    words::versus_runner_up(
        lang,
        &words::VersusRunnerUp {
            runner_up: &runner_up,
            beats_by_more_than_noise: v.beats_by_more_than_noise,
            p_value: &v.p_value.to_string(),
            shared_cases: v.shared_cases,
            only_best_passed: v.only_best_passed,
            only_runner_up_passed: v.only_runner_up_passed,
        },
    )
}

/// Suite text must not drive the terminal: escape sequences and other
/// control characters are shown as `?`.
pub(crate) fn terminal_safe(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The cross-model lines of the table: rank correlation between each pair
/// of models with its interval, the prompt pairs whose order flips beyond
/// noise, and each model's most prompt-dependent questions.
pub(crate) fn transfer_lines(summary: &ModelsSummary, lang: Language) -> String {
    let mut out = String::new();
    if let Some(cross) = &summary.cross_model {
        // Two prompts at least, or there is no order to transfer.
        for t in cross.rank_transfer.iter().filter(|t| t.prompts > 1) {
            out.push_str(&words::ranking(
                lang,
                (&t.model_a, &t.model_b),
                &figure(t.kendall_tau_b),
                &interval(t.kendall_tau_b_interval),
                &figure(t.spearman_rho),
                t.prompts,
            ));
            out.push('\n');
            for f in &t.flips {
                let on_a = format!(
                    "{} > {} on {} ({:.1}% vs {:.1}%, p = {})",
                    f.first,
                    f.second,
                    t.model_a,
                    f.on_a.first_accuracy,
                    f.on_a.second_accuracy,
                    f.on_a.p_value
                );
                let on_b = format!(
                    "{} > {} on {} ({:.1}% vs {:.1}%, p = {})",
                    f.second,
                    f.first,
                    t.model_b,
                    f.on_b.second_accuracy,
                    f.on_b.first_accuracy,
                    f.on_b.p_value
                );
                out.push_str(&words::order_flip(lang, &on_a, &on_b));
                out.push('\n');
            }
            if t.flips.is_empty() {
                out.push_str(&words::no_order_flip(lang, t.flips_within_noise));
                out.push('\n');
            }
        }
    }
    for (model, results) in &summary.models {
        let Some(r) = results.robustness.as_ref().filter(|r| r.prompts > 1) else {
            continue;
        };
        let most: Vec<String> = r
            .questions
            .iter()
            .filter(|q| q.sensitivity.is_some_and(|s| s > 0.0))
            .take(3)
            .map(|q| format!("{} {}", q.question, figure(q.sensitivity)))
            .collect();
        out.push_str(&words::robustness(
            lang,
            &words::Robustness {
                model,
                spread: &figure(r.mean_spread),
                spread_interval: &interval(r.mean_spread_interval),
                sensitivity: &figure(r.mean_sensitivity),
                sensitivity_interval: &interval(r.mean_sensitivity_interval),
                robust_pass_at_1: &figure(r.robust_pass_at_k.get("pass@1").copied()),
                most: &most,
            },
        ));
        out.push('\n');
    }
    out
}

pub(crate) fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

pub(crate) fn interval(value: Option<[f64; 2]>) -> String {
    value.map_or_else(|| "[-]".into(), |[lo, hi]| format!("[{lo:.2}, {hi:.2}]"))
}

/// A figure with its interval: `0.42 [0.30, 0.55]`.
pub(crate) fn with_interval(value: Option<f64>, range: Option<[f64; 2]>) -> String {
    format!("{} {}", figure(value), interval(range))
}
