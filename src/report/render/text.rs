//! The sentences of the findings, each written once and used by every
//! view that states it (terminal table, markdown job summary, quick view,
//! the multi-model overview): the best prompt with its ties, the best
//! against the runner-up, the cross-model ranking and flips, robustness.

use crate::language::Labels;
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
pub(crate) fn versus_text(v: &VersusRunnerUp) -> String {
    let test = format!(
        "exact McNemar p = {} over {} shared cases: {} passed only with the best, {} only with {}",
        v.p_value, v.shared_cases, v.only_best_passed, v.only_runner_up_passed, v.runner_up
    );
    if v.beats_by_more_than_noise {
        format!(
            "beats {} by more than noise ({test})",
            terminal_safe(&v.runner_up)
        )
    } else {
        format!(
            "not distinguishable from {} on this run ({test}); more questions or rounds would tell",
            terminal_safe(&v.runner_up)
        )
    }
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
pub(crate) fn transfer_lines(summary: &ModelsSummary) -> String {
    let mut out = String::new();
    if let Some(cross) = &summary.cross_model {
        // Two prompts at least, or there is no order to transfer.
        for t in cross.rank_transfer.iter().filter(|t| t.prompts > 1) {
            out.push_str(&format!(
                "ranking {} vs {}: Kendall tau-b {} (95% CI {}), Spearman rho {} over {} prompts\n",
                t.model_a,
                t.model_b,
                figure(t.kendall_tau_b),
                interval(t.kendall_tau_b_interval),
                figure(t.spearman_rho),
                t.prompts
            ));
            for f in &t.flips {
                out.push_str(&format!(
                    "  ⚠ order flips beyond noise: {} > {} on {} ({:.1}% vs {:.1}%, p = {}), {} > {} on {} ({:.1}% vs {:.1}%, p = {})\n",
                    f.first, f.second, t.model_a, f.on_a.first_accuracy, f.on_a.second_accuracy, f.on_a.p_value,
                    f.second, f.first, t.model_b, f.on_b.second_accuracy, f.on_b.first_accuracy, f.on_b.p_value
                ));
            }
            if t.flips.is_empty() {
                out.push_str(&format!(
                    "  no prompt pair flips order beyond noise ({} flip(s) within noise)\n",
                    t.flips_within_noise
                ));
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
        out.push_str(&format!(
            "robustness {model}: mean spread {} {}, PromptSensiScore {} {}, robust pass@1 {}{}\n",
            figure(r.mean_spread),
            interval(r.mean_spread_interval),
            figure(r.mean_sensitivity),
            interval(r.mean_sensitivity_interval),
            figure(r.robust_pass_at_k.get("pass@1").copied()),
            match most.is_empty() {
                true => String::new(),
                false => format!("; most prompt-dependent: {}", most.join(", ")),
            }
        ));
    }
    out
}

pub(crate) fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

pub(crate) fn interval(value: Option<[f64; 2]>) -> String {
    value.map_or_else(|| "[-]".into(), |[lo, hi]| format!("[{lo:.2}, {hi:.2}]"))
}
