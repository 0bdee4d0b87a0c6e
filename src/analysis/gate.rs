//! Thresholds -> pass/fail with reasons. With no threshold configured there
//! is no gate and the exit status is libtest's. The rule ([`meets`]) is the
//! one every view uses: summary.json's `gate_passed`, the run's gate lines
//! and a merged run's exit status.

use crate::results::{RunSummary, Summary};

/// A prompt meets its threshold when its accuracy, rounded as summary.json
/// shows it, is at least the threshold; with no evaluated case it cannot.
pub fn meets(accuracy: Option<f64>, threshold: f64) -> bool {
    accuracy.is_some_and(|a| a + 1e-9 >= threshold)
}

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

#[derive(Debug, Clone, PartialEq)]
pub struct GateReport {
    pub checks: Vec<Check>,
}

impl GateReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Check::passed)
    }

    /// One line per prompt; the failing ones say by how much they missed.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .checks
            .iter()
            .map(|c| match c.accuracy {
                Some(a) if c.passed() => format!(
                    "gate: {} passed: accuracy {a:.1}% >= threshold {:.1}%",
                    c.prompt, c.threshold
                ),
                Some(a) => format!(
                    "gate: {} FAILED: accuracy {a:.1}% is below the threshold {:.1}%",
                    c.prompt, c.threshold
                ),
                None => format!(
                    "gate: {} FAILED: no case was evaluated, so it cannot meet the threshold {:.1}%",
                    c.prompt, c.threshold
                ),
            })
            .collect();
        let failed = self.checks.iter().filter(|c| !c.passed()).count();
        lines.push(if failed == 0 {
            format!("gate: passed ({} prompt(s) checked)", self.checks.len())
        } else {
            format!(
                "gate: FAILED: {failed} of {} prompt(s) below their accuracy threshold",
                self.checks.len()
            )
        });
        lines
    }
}

/// Checks every prompt of the run that has a threshold (summary.json's
/// `threshold`, from harness.toml's `[gate]` when the run was made); `None`
/// when no threshold applies to any of them.
/// In a multi-model run, every prompt of every model: each check is named
/// `<model> · <prompt>`.
pub fn evaluate(summary: &RunSummary) -> Option<GateReport> {
    let checks: Vec<Check> = match summary {
        RunSummary::OneModel(summary) => checks_of(summary, None),
        RunSummary::Models(m) => m
            .models
            .iter()
            .flat_map(|(model, results)| checks_of(results, Some(model)))
            .collect(),
    };
    (!checks.is_empty()).then_some(GateReport { checks })
}

fn checks_of(summary: &Summary, model: Option<&str>) -> Vec<Check> {
    summary
        .prompt_results
        .iter()
        .filter(|(_, r)| r.total_questions + r.not_evaluated > 0)
        .filter_map(|(name, r)| {
            r.threshold.map(|threshold| Check {
                prompt: match model {
                    Some(m) => format!("{m} · {name}"),
                    None => name.clone(),
                },
                accuracy: r.accuracy,
                threshold,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_prompt_is_named_with_accuracy_and_threshold() {
        let g = GateReport {
            checks: vec![
                Check {
                    prompt: "prompt1".into(),
                    accuracy: Some(66.7),
                    threshold: 80.0,
                },
                Check {
                    prompt: "prompt2".into(),
                    accuracy: Some(100.0),
                    threshold: 80.0,
                },
            ],
        };
        assert!(!g.passed());
        let lines = g.lines();
        assert_eq!(
            lines[0],
            "gate: prompt1 FAILED: accuracy 66.7% is below the threshold 80.0%"
        );
        assert!(lines.last().unwrap().contains("1 of 2"));
    }

    #[test]
    fn equal_accuracy_passes() {
        let c = Check {
            prompt: "p".into(),
            accuracy: Some(66.7),
            threshold: 66.7,
        };
        assert!(c.passed());
    }
}
