use super::*;

fn check(prompt: &str, accuracy: f64, threshold: f64) -> Check {
    Check {
        prompt: prompt.into(),
        accuracy: Some(accuracy),
        threshold,
    }
}

fn against_baseline(only_first: usize, only_second: usize) -> BaselineCheck {
    let shared = 40;
    let both = 20;
    BaselineCheck {
        prompt: "prompt1".into(),
        paired: Paired::of(
            std::iter::repeat_n((true, true), both)
                .chain(std::iter::repeat_n((true, false), only_first))
                .chain(std::iter::repeat_n((false, true), only_second))
                .chain(std::iter::repeat_n(
                    (false, false),
                    shared - both - only_first - only_second,
                )),
        ),
        baseline_passed: both + only_first,
        run_passed: both + only_second,
        only_in_baseline: 0,
        only_in_run: 0,
    }
}

fn with_baseline(checks: Vec<BaselineCheck>) -> GateReport {
    GateReport {
        baseline: Some(BaselineReport {
            file: "baseline.toml".into(),
            alpha: 0.05,
            checks,
            prompts_not_run: Vec::new(),
            prompts_without_baseline: Vec::new(),
        }),
        ..GateReport::default()
    }
}

#[test]
fn failing_prompt_is_named_with_accuracy_and_threshold() {
    let g = GateReport {
        checks: vec![check("prompt1", 66.7, 80.0), check("prompt2", 100.0, 80.0)],
        ..GateReport::default()
    };
    assert!(!g.passed());
    let lines = g.lines(Language::En);
    assert_eq!(
        lines[0],
        "gate: prompt1 FAILED: accuracy 66.7% is below the threshold 80.0%"
    );
    assert_eq!(
        lines.last().unwrap(),
        "gate: FAILED: 1 of 2 prompt(s) below their accuracy threshold"
    );
    // A zh run keeps the English line whole (CI scripts search it) and
    // adds the Chinese.
    let zh = g.lines(Language::Zh);
    assert_eq!(
        zh[0],
        "gate: prompt1 FAILED: accuracy 66.7% is below the threshold 80.0% · 未通過: 準確率 66.7% 低於門檻 80.0%"
    );
    assert!(
        zh.last().unwrap().contains("2 個 prompt 中有 1 個"),
        "{zh:?}"
    );
}

#[test]
fn equal_accuracy_passes() {
    assert!(check("p", 66.7, 66.7).passed());
}

#[test]
fn a_loss_within_noise_passes_and_says_so() {
    // 2 of 40 lost, none gained: p = 0.5.
    let g = with_baseline(vec![against_baseline(2, 0)]);
    assert!(g.passed());
    let lines = g.lines(Language::En);
    assert_eq!(
        lines[0],
        "gate: prompt1 within noise of the baseline: baseline 55.0% → now 50.0% over 40 shared cases: 2 passed only in the baseline, 0 only now (exact McNemar p = 0.5000 >= alpha 0.05)"
    );
    assert!(
        lines.last().unwrap().starts_with("gate: passed"),
        "{lines:?}"
    );
}

#[test]
fn a_loss_beyond_noise_fails_naming_the_prompt_and_p() {
    // 15 of 40 lost, none gained: p = 2^-14.
    let g = with_baseline(vec![against_baseline(15, 0)]);
    assert!(!g.passed());
    let lines = g.lines(Language::En);
    assert!(
        lines[0].starts_with("gate: prompt1 FAILED: lost to the baseline beyond noise: baseline 87.5% → now 50.0% over 40 shared cases: 15 passed only in the baseline, 0 only now (exact McNemar p = 6.1e-5 < alpha 0.05)"),
        "{}",
        lines[0]
    );
    assert_eq!(
        lines.last().unwrap(),
        "gate: FAILED: 1 of 1 prompt(s) lost to the baseline beyond noise"
    );
}

#[test]
fn a_gain_beyond_noise_is_reported_and_passes() {
    let g = with_baseline(vec![against_baseline(0, 12)]);
    assert!(g.passed());
    assert!(g.lines(Language::En)[0].contains("gained on the baseline beyond noise"));
}

#[test]
fn a_prompt_with_no_shared_case_cannot_pass() {
    let mut c = against_baseline(0, 0);
    c.paired = Paired::of([]);
    c.only_in_run = 3;
    let g = with_baseline(vec![c]);
    assert!(!g.passed());
    let lines = g.lines(Language::En);
    assert!(lines[0].contains("cannot be compared"), "{lines:?}");
    assert!(lines[1].contains("3 only in this run"), "{lines:?}");
}

#[test]
fn the_lower_bound_fails_a_lucky_small_sample() {
    // 4 of 4 is 100 %, but its 95 % Wilson lower bound is 51.0 %.
    let c = LowerBoundCheck {
        prompt: "p".into(),
        lower_bound: Some(51.0),
        accuracy: Some(100.0),
        threshold: 60.0,
    };
    assert!(!c.passed());
    let g = GateReport {
        lower_bounds: vec![c],
        ..GateReport::default()
    };
    assert_eq!(
        g.lines(Language::En)[0],
        "gate: p FAILED: accuracy 100.0%, 95% lower bound 51.0% is below 60.0%"
    );
}
