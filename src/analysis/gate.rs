//! The gate: what decides the exit status of a run that has one. Three
//! kinds of check, each optional:
//! - a point threshold per prompt (`[gate] min_accuracy`, `[gate.prompts]`);
//! - a threshold on the lower end of the 95 % Wilson interval
//!   (`[gate] min_accuracy_lower_bound`): passes only above it beyond noise;
//! - a baseline (`[gate] baseline`): fails when a prompt lost to the
//!   baseline beyond noise, by exact McNemar on the shared cases at
//!   `[gate] alpha` (the baseline's cases are paired in `crate::baseline`).
//!
//! With none configured there is no gate and the exit status is libtest's.
//! The point rule ([`meets`]) is the one every view uses: summary.json's
//! `gate_passed`, the run's gate lines and a merged run's exit status.

use super::stats::Paired;
use crate::language::{Language, gate as words};
use crate::results::{RunInfo, RunSummary, Summary};

/// A prompt meets its threshold when its accuracy, rounded as summary.json
/// shows it, is at least the threshold; with no evaluated case it cannot.
pub fn meets(accuracy: Option<f64>, threshold: f64) -> bool {
    accuracy.is_some_and(|a| a + 1e-9 >= threshold)
}

/// A point threshold on one prompt's accuracy.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub prompt: String,
    /// Percent, as shown in summary.json; `None` when no case was evaluated.
    pub accuracy: Option<f64>,
    pub threshold: f64,
}

impl Check {
    /// A prompt with no evaluated case cannot meet a threshold.
    pub fn passed(&self) -> bool {
        meets(self.accuracy, self.threshold)
    }
}

/// A threshold on the lower end of one prompt's 95 % Wilson interval.
#[derive(Debug, Clone, PartialEq)]
pub struct LowerBoundCheck {
    pub prompt: String,
    /// Percent, as summary.json's `accuracy_interval[0]`; `None` when no
    /// case was evaluated.
    pub lower_bound: Option<f64>,
    pub accuracy: Option<f64>,
    pub threshold: f64,
}

impl LowerBoundCheck {
    pub fn passed(&self) -> bool {
        meets(self.lower_bound, self.threshold)
    }
}

/// One prompt (of one model) against the baseline, on the cases both
/// evaluated: `paired.only_first` passed only in the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineCheck {
    pub prompt: String,
    pub paired: Paired,
    /// Cases passed over the shared ones, in the baseline and now.
    pub baseline_passed: usize,
    pub run_passed: usize,
    /// Cases of this prompt only one side evaluated: never paired.
    pub only_in_baseline: usize,
    pub only_in_run: usize,
}

impl BaselineCheck {
    /// Lost beyond noise: more of the discordant cases passed only in the
    /// baseline, at p < alpha. A prompt with no shared case cannot be
    /// judged, so it fails too.
    pub fn lost(&self, alpha: f64) -> bool {
        self.paired.shared == 0
            || (self.paired.p_value < alpha && self.paired.only_first > self.paired.only_second)
    }

    /// Gained beyond noise.
    pub fn gained(&self, alpha: f64) -> bool {
        self.paired.p_value < alpha && self.paired.only_second > self.paired.only_first
    }

    fn percent(passed: usize, of: usize) -> f64 {
        if of == 0 {
            0.0
        } else {
            passed as f64 * 100.0 / of as f64
        }
    }

    fn words(&self, alpha: f64) -> words::Compared<'_> {
        let (before, now) = self.accuracies();
        words::Compared {
            prompt: &self.prompt,
            outcome: if self.paired.shared == 0 {
                words::Outcome::NothingShared
            } else if self.lost(alpha) {
                words::Outcome::Lost
            } else if self.gained(alpha) {
                words::Outcome::Gained
            } else {
                words::Outcome::WithinNoise
            },
            before,
            now,
            shared: self.paired.shared,
            only_baseline_passed: self.paired.only_first,
            only_now_passed: self.paired.only_second,
            p_value: self.paired.p_value,
            alpha,
            only_in_baseline: self.only_in_baseline,
            only_in_run: self.only_in_run,
        }
    }

    /// Accuracy over the shared cases, in the baseline and now.
    pub fn accuracies(&self) -> (f64, f64) {
        let n = self.paired.shared;
        (
            Self::percent(self.baseline_passed, n),
            Self::percent(self.run_passed, n),
        )
    }
}

/// The run against its baseline file.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineReport {
    /// The file, as configured.
    pub file: String,
    pub alpha: f64,
    pub checks: Vec<BaselineCheck>,
    /// Prompts (of a model) the baseline has and this run did not run at
    /// all, and the reverse: not gated by it, said.
    pub prompts_not_run: Vec<String>,
    pub prompts_without_baseline: Vec<String>,
}

impl BaselineReport {
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|c| c.lost(self.alpha))
    }
}

/// One check of the gate, as a CI test view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct GateEntry {
    pub name: String,
    pub passed: bool,
    /// Its line(s) in the run's language.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct GateReport {
    pub checks: Vec<Check>,
    pub lower_bounds: Vec<LowerBoundCheck>,
    pub baseline: Option<BaselineReport>,
}

impl GateReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Check::passed)
            && self.lower_bounds.iter().all(LowerBoundCheck::passed)
            && self.baseline.as_ref().is_none_or(BaselineReport::passed)
    }

    fn is_empty(&self) -> bool {
        self.checks.is_empty() && self.lower_bounds.is_empty() && self.baseline.is_none()
    }

    /// One line per check, then the verdict; the failing ones say by how
    /// much they missed, in the run's language (keywords `gate: passed`,
    /// `gate: FAILED` in both).
    pub fn lines(&self, lang: Language) -> Vec<String> {
        let mut lines: Vec<String> = self
            .entries(lang)
            .iter()
            .flat_map(|e| e.text.lines().map(String::from))
            .collect();
        if let Some(b) = &self.baseline {
            lines.extend(words::not_compared(
                lang,
                &b.prompts_not_run,
                &b.prompts_without_baseline,
                &b.file,
            ));
        }
        lines.push(words::verdict(lang, &self.counts()));
        lines
    }

    /// Each check on its own, named by its kind and prompt (junit.xml's
    /// gate testcases).
    pub fn entries(&self, lang: Language) -> Vec<GateEntry> {
        fn threshold(c: &Check) -> words::Threshold<'_> {
            words::Threshold {
                prompt: &c.prompt,
                value: c.accuracy,
                accuracy: c.accuracy,
                threshold: c.threshold,
                passed: c.passed(),
            }
        }
        let mut out: Vec<GateEntry> = self
            .checks
            .iter()
            .map(|c| GateEntry {
                name: format!("threshold · {}", c.prompt),
                passed: c.passed(),
                text: words::threshold(lang, &threshold(c)),
            })
            .collect();
        out.extend(self.lower_bounds.iter().map(|c| GateEntry {
            name: format!("lower bound · {}", c.prompt),
            passed: c.passed(),
            text: words::lower_bound(
                lang,
                &words::Threshold {
                    prompt: &c.prompt,
                    value: c.lower_bound,
                    accuracy: c.accuracy,
                    threshold: c.threshold,
                    passed: c.passed(),
                },
            ),
        }));
        if let Some(b) = &self.baseline {
            out.extend(b.checks.iter().map(|c| GateEntry {
                name: format!("baseline · {}", c.prompt),
                passed: !c.lost(b.alpha),
                text: words::compared(lang, &c.words(b.alpha), &b.file).join("\n"),
            }));
        }
        out
    }

    /// How many checks of each kind ran and failed.
    pub fn counts(&self) -> words::Counts {
        let alpha = self.baseline.as_ref().map_or(0.0, |b| b.alpha);
        let base = self
            .baseline
            .as_ref()
            .map(|b| b.checks.as_slice())
            .unwrap_or(&[]);
        words::Counts {
            thresholds: self.checks.len(),
            thresholds_failed: self.checks.iter().filter(|c| !c.passed()).count(),
            lower_bounds: self.lower_bounds.len(),
            lower_bounds_failed: self.lower_bounds.iter().filter(|c| !c.passed()).count(),
            baseline: self.baseline.as_ref().map(|_| base.len()),
            baseline_lost: base.iter().filter(|c| c.lost(alpha)).count(),
            baseline_gained: base.iter().filter(|c| c.gained(alpha)).count(),
        }
    }
}

/// The run's point and lower-bound checks (summary.json's `threshold`,
/// run_info.json's `gate`), with the baseline's report when one was
/// compared; `None` when no check applies.
pub fn evaluate(
    summary: &RunSummary,
    info: &RunInfo,
    baseline: Option<BaselineReport>,
) -> Option<GateReport> {
    let bound = info.gate.min_accuracy_lower_bound;
    let mut report = GateReport {
        baseline,
        ..GateReport::default()
    };
    let mut add = |summary: &Summary, model: Option<&str>| {
        let (checks, lower) = checks_of(summary, model, bound);
        report.checks.extend(checks);
        report.lower_bounds.extend(lower);
    };
    match summary {
        RunSummary::OneModel(summary) => add(summary, None),
        RunSummary::Models(m) => {
            for (model, results) in &m.models {
                add(results, Some(model));
            }
        }
    }
    (!report.is_empty()).then_some(report)
}

/// A prompt of a model as the gate names it: `<model> · <prompt>` in a
/// multi-model run.
pub fn subject(model: Option<&str>, prompt: &str) -> String {
    match model {
        Some(m) => format!("{m} · {prompt}"),
        None => prompt.to_string(),
    }
}

fn checks_of(
    summary: &Summary,
    model: Option<&str>,
    bound: Option<f64>,
) -> (Vec<Check>, Vec<LowerBoundCheck>) {
    // A prompt the race eliminated answered only part of the questions:
    // the gate checks the prompts that ran to the end.
    let ran = summary
        .prompt_results
        .iter()
        .filter(|(_, r)| r.total_questions + r.not_evaluated > 0)
        .filter(|(name, _)| !crate::results::race::eliminated_by_race(summary.race.as_ref(), name));
    let mut checks = Vec::new();
    let mut lower = Vec::new();
    for (name, r) in ran {
        if let Some(threshold) = r.threshold {
            checks.push(Check {
                prompt: subject(model, name),
                accuracy: r.accuracy,
                threshold,
            });
        }
        if let Some(threshold) = bound {
            lower.push(LowerBoundCheck {
                prompt: subject(model, name),
                lower_bound: r.accuracy_interval.map(|i| i[0]),
                accuracy: r.accuracy,
                threshold,
            });
        }
    }
    (checks, lower)
}

#[cfg(test)]
mod tests;
