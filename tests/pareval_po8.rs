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
/// recordings' folder): `replayed` of its 336 cases are asked, the rest
/// belong to problems whose stored p_top the leak gate refuses.
fn replay(subset: &str, replayed: usize) -> (serde_json::Value, Scratch) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = Scratch::new("");
    s.write(
        "harness.toml",
        &format!(
            "suite = \"{}\"\nmodel = \"qwen2.5-coder:1.5b\"\nbackend = \"replay\"\n\
             snapshot_dir = \"{}\"\nresult_dir = \"{}\"\ncache = false\n",
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
        replayed,
        "every case of a qualified problem replayed: {}",
        s.summary()
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
/// ParEval's own prompt's pass@1 (0.375 in both subsets: the model's
/// quadratic scan passes validate() and cannot finish ParEval's timing
/// loops in its 120 s), no violation, and the three curves point by point.
/// `[correct, judged]` cases, and the curves' `[problems, original]`.
fn assert_figures(
    summary: &serde_json::Value,
    [correct, judged]: [u64; 2],
    errors: serde_json::Value,
    (problems, original): (u64, f64),
    curves: [(&str, Vec<(String, f64)>); 3],
) {
    let r = &summary["prompt_results"]["pareval_chat"];
    assert_eq!(
        (r["correct_answers"].as_u64(), r["total_questions"].as_u64()),
        (Some(correct), Some(judged)),
        "{summary}"
    );
    assert_eq!(r["error_breakdown"], errors, "{summary}");
    let po = &summary["partial_order"]["pareval_chat"];
    assert_eq!(po["problems"], problems, "{summary}");
    assert_eq!(po["original"]["pass_at_1"], original, "{summary}");
    assert_eq!(po["violations"], serde_json::json!([]));
    for (strategy, points) in curves {
        assert_eq!(curve(summary, strategy), points, "{strategy}: {summary}");
    }
}

#[test]
fn the_serial_run_replays_to_its_curves() {
    let (summary, _) = replay("serial", 336);
    assert_figures(
        &summary,
        [153, 336],
        serde_json::json!({"syntax_error": 83, "timeout": 3, "wrong_answer": 97}),
        (8, 0.375),
        [
            (
                "masking",
                points(&[
                    ("p_bot", 0.375),
                    ("masking_0.8", 0.3125),
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

/// OpenMP: the stored p_top of `03_dense_la_axpy` and of
/// `31_scan_scan_with_min_function` hold their reference in a fenced
/// block; the leak gate leaves both problems out (their 84 cases not
/// asked), and the curves run over the other 6. Without the leaking two,
/// p_top (0.33) is no better than p_bot.
#[test]
fn the_openmp_run_replays_to_its_curves() {
    let (summary, _) = replay("omp", 252);
    let unqualified: Vec<&str> = summary["partial_order"]["pareval_chat"]["unqualified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["problem"].as_str().unwrap())
        .collect();
    assert_eq!(
        unqualified,
        ["03_dense_la_axpy", "31_scan_scan_with_min_function"]
    );
    assert_figures(
        &summary,
        [95, 252],
        serde_json::json!({"runtime_error": 3, "syntax_error": 38, "wrong_answer": 116}),
        (6, 0.3333),
        [
            (
                "masking",
                points(&[
                    ("p_bot", 0.3333),
                    ("masking_0.8", 0.375),
                    ("masking_0.6", 0.4167),
                    ("masking_0.4", 0.4167),
                    ("masking_0.2", 0.375),
                    ("p_top", 0.3333),
                ]),
            ),
            (
                "paragraph",
                points(&[
                    ("p_bot", 0.3333),
                    ("paragraph_0.2", 0.2917),
                    ("paragraph_0.4", 0.3333),
                    ("paragraph_0.6", 0.375),
                    ("paragraph_0.8", 0.375),
                    ("p_top", 0.3333),
                ]),
            ),
            (
                "summary",
                points(&[
                    ("p_bot", 0.3333),
                    ("summary_10w", 0.3333),
                    ("summary_25w", 0.1667),
                    ("summary_50w", 0.1667),
                    ("summary_75w", 0.5),
                    ("summary_100w", 0.6667),
                    ("summary_150w", 0.5),
                    ("summary_200w", 0.6667),
                    ("p_top", 0.3333),
                ]),
            ),
        ],
    );
}
