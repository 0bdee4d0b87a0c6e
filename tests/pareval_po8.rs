//! The live PO-ParEval run of docs/guide/cpp.md (8 ParEval problems per
//! subset, their 42 prompt variants each, Qwen2.5-Coder-1.5B as writer and
//! as model, recorded in tests/snapshots/pareval-{serial,omp}-po8) replays
//! offline from its stored expansion to the curves the live run printed:
//! every case compiled and judged by ParEval's check again, none asked.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

use std::path::Path;

use prompts_cli::Scratch;

/// A replay of the subset's stored expansion (the suite named like its
/// recordings' folder), the timing runs off: their subject is not speed.
fn replay(subset: &str) -> (serde_json::Value, Scratch) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Scratch::new("");
    s.write(
        "harness.toml",
        &format!(
            "suite = \"{}\"\nmodel = \"qwen2.5-coder:1.5b\"\nbackend = \"replay\"\n\
             snapshot_dir = \"{}\"\nresult_dir = \"{}\"\ncache = false\n[cpp]\nspeed = false\n",
            root.join(format!(
                "tests/snapshots/pareval-{subset}-po8/variants.json"
            ))
            .display(),
            root.join("tests/snapshots").display(),
            s.path().join("result").display()
        ),
    );
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let journal = std::fs::read_to_string(s.run_dir().join("journal.jsonl")).unwrap();
    assert_eq!(
        journal.matches("\"snapshot\":\"replayed\"").count(),
        336,
        "every case replayed"
    );
    (s.summary(), s)
}

/// A strategy's curve: (label, pass@1) from p_bot to p_top.
fn curve(summary: &serde_json::Value, strategy: &str) -> Vec<(String, f64)> {
    summary["partial_order"]["pareval_chat"]["curves"][strategy]
        .as_array()
        .unwrap_or_else(|| panic!("no {strategy} curve: {summary}"))
        .iter()
        .map(|p| {
            (
                p["label"].as_str().unwrap().to_string(),
                p["pass_at_1"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn points(labels: &[(&str, f64)]) -> Vec<(String, f64)> {
    labels.iter().map(|(l, p)| (l.to_string(), *p)).collect()
}

/// A replayed run's figures: correct of 336, the verdicts of the rest,
/// ParEval's own prompt's pass@1 (0.5 in both subsets), no violation, and
/// the three curves point by point.
fn assert_figures(
    summary: &serde_json::Value,
    correct: u64,
    errors: serde_json::Value,
    curves: [(&str, Vec<(String, f64)>); 3],
) {
    let r = &summary["prompt_results"]["pareval_chat"];
    assert_eq!(
        (r["correct_answers"].as_u64(), r["total_questions"].as_u64()),
        (Some(correct), Some(336)),
        "{summary}"
    );
    assert_eq!(r["error_breakdown"], errors);
    let po = &summary["partial_order"]["pareval_chat"];
    assert_eq!(po["problems"], 8);
    assert_eq!(po["original"]["pass_at_1"], 0.5);
    assert_eq!(po["violations"], serde_json::json!([]));
    for (strategy, points) in curves {
        assert_eq!(curve(summary, strategy), points, "{strategy}");
    }
}

#[test]
fn the_serial_run_replays_to_its_curves() {
    let (summary, _) = replay("serial");
    assert_figures(
        &summary,
        156,
        serde_json::json!({"syntax_error": 83, "wrong_answer": 97}),
        [
            (
                "masking",
                points(&[
                    ("p_bot", 0.375),
                    ("masking_0.8", 0.375),
                    ("masking_0.6", 0.4375),
                    ("masking_0.4", 0.4688),
                    ("masking_0.2", 0.5313),
                    ("p_top", 0.5),
                ]),
            ),
            (
                "paragraph",
                points(&[
                    ("p_bot", 0.375),
                    ("paragraph_0.2", 0.5),
                    ("paragraph_0.4", 0.5),
                    ("paragraph_0.6", 0.5),
                    ("paragraph_0.8", 0.5),
                    ("p_top", 0.5),
                ]),
            ),
            (
                "summary",
                points(&[
                    ("p_bot", 0.375),
                    ("summary_10w", 0.25),
                    ("summary_25w", 0.375),
                    ("summary_50w", 0.5),
                    ("summary_75w", 0.375),
                    ("summary_100w", 0.375),
                    ("summary_150w", 0.5),
                    ("summary_200w", 0.5),
                    ("p_top", 0.5),
                ]),
            ),
        ],
    );
}

#[test]
fn the_openmp_run_replays_to_its_curves() {
    let (summary, _) = replay("omp");
    assert_figures(
        &summary,
        145,
        serde_json::json!({"runtime_error": 3, "syntax_error": 64, "wrong_answer": 124}),
        [
            (
                "masking",
                points(&[
                    ("p_bot", 0.375),
                    ("masking_0.8", 0.4375),
                    ("masking_0.6", 0.4688),
                    ("masking_0.4", 0.4375),
                    ("masking_0.2", 0.5),
                    ("p_top", 0.5),
                ]),
            ),
            (
                "paragraph",
                points(&[
                    ("p_bot", 0.375),
                    ("paragraph_0.2", 0.3125),
                    ("paragraph_0.4", 0.3125),
                    ("paragraph_0.6", 0.375),
                    ("paragraph_0.8", 0.4688),
                    ("p_top", 0.5),
                ]),
            ),
            (
                "summary",
                points(&[
                    ("p_bot", 0.375),
                    ("summary_10w", 0.375),
                    ("summary_25w", 0.25),
                    ("summary_50w", 0.375),
                    ("summary_75w", 0.625),
                    ("summary_100w", 0.75),
                    ("summary_150w", 0.5),
                    ("summary_200w", 0.625),
                    ("p_top", 0.5),
                ]),
            ),
        ],
    );
}
