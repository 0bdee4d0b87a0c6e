//! `prompteval compare RUN_A RUN_B`: two run folders side by side, from
//! their files only (summary.json and the journal, read typed through
//! `results::run_folder`; no model, no suite). Per prompt: the accuracy of each run with its 95 % interval, the
//! change, and whether it is more than noise (an exact McNemar test over
//! the cases both runs evaluated, paired by prompt, question, round and
//! sample); the cases whose verdict flipped; the cases only one run has.

mod read;

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use crate::analysis::stats::{Paired, round_to};
pub use crate::results::run_folder::RunFolderError;
use crate::results::run_folder::{model_folder, models_of};
use read::{CaseKey, Run};
pub use read::{RunLabel, Score};

/// Two runs side by side.
#[derive(Debug, Serialize)]
pub struct RunComparison {
    pub a: RunLabel,
    pub b: RunLabel,
    pub prompts: Vec<PromptChange>,
    /// Cases evaluated in both whose pass/fail changed, A's verdict -> B's.
    pub flipped: Vec<VerdictFlip>,
    /// Cases B has and A has not, and the reverse.
    pub new_cases: Vec<String>,
    pub missing_cases: Vec<String>,
    /// What a reader must know first (different models or suites...).
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct PromptChange {
    pub prompt: String,
    /// Percent, and the 95 % Wilson interval, per run (`None`: absent or
    /// nothing evaluated there).
    pub a: Option<Score>,
    pub b: Option<Score>,
    /// B - A in points.
    pub delta: Option<f64>,
    /// Cases both runs evaluated, and those only one of them passed.
    pub shared: usize,
    pub only_a_passed: usize,
    pub only_b_passed: usize,
    /// Exact McNemar over the shared cases.
    pub p_value: Option<f64>,
    pub more_than_noise: bool,
    /// In words, as the terminal prints it.
    pub verdict: String,
}

/// A case whose pass/fail differs between the runs.
#[derive(Debug, Serialize)]
pub struct VerdictFlip {
    pub case: String,
    pub from: String,
    pub to: String,
}

/// Reads both folders and compares them; an unreadable folder is an error
/// naming the file.
pub fn compare(a: &Path, b: &Path) -> Result<RunComparison, RunFolderError> {
    let (ra, rb) = (Run::read(&one_model(a)?)?, Run::read(&one_model(b)?)?);
    Ok(between(&ra, &rb))
}

/// Two models of one multi-model run (`models` of two), or the same model
/// of two runs (`runs` of two, one model): each model's folder of its run.
pub fn compare_models(
    runs: (&Path, &Path),
    models: (&str, &str),
) -> Result<RunComparison, RunFolderError> {
    let a = model_folder(runs.0, models.0)?;
    let b = model_folder(runs.1, models.1)?;
    compare(&a, &b)
}

/// A run folder of one model as it is; a multi-model run folder is refused
/// with the ways to say which model.
fn one_model(dir: &Path) -> Result<std::path::PathBuf, RunFolderError> {
    match models_of(dir) {
        Some((models, dirs)) if !models.is_empty() => Err(RunFolderError::SeveralModels {
            path: dir.to_path_buf(),
            example: dir.join(&dirs[0]),
            models,
        }),
        _ => Ok(dir.to_path_buf()),
    }
}

fn between(a: &Run, b: &Run) -> RunComparison {
    let mut warnings = Vec::new();
    if a.model != b.model {
        warnings.push(format!(
            "the runs used different models ({} and {}): a change may be the model's, not the prompts'",
            a.model, b.model
        ));
    }
    if a.suite_name() != b.suite_name() {
        warnings.push(format!(
            "the runs used different suites ({} and {}): only the shared cases are paired",
            a.suite, b.suite
        ));
    }
    for r in [a, b] {
        if !r.complete {
            warnings.push(format!(
                "{} is INCOMPLETE (interrupted): its numbers cover its finished cases only",
                r.test_id
            ));
        }
    }
    let prompts: BTreeSet<&String> = a.scores.keys().chain(b.scores.keys()).collect();
    let mut ordered: Vec<&String> = a.prompt_order.iter().chain(b.prompt_order.iter()).collect();
    ordered.dedup();
    let mut seen = BTreeSet::new();
    ordered.retain(|p| prompts.contains(p) && seen.insert(*p));
    let changes = ordered
        .into_iter()
        .map(|p| prompt_change(p, a, b))
        .collect();

    let mut flipped = Vec::new();
    for (key, va) in &a.cases {
        if let Some(vb) = b.cases.get(key)
            && va.evaluated()
            && vb.evaluated()
            && va.passed() != vb.passed()
        {
            flipped.push(VerdictFlip {
                case: key.name(),
                from: va.as_str().to_string(),
                to: vb.as_str().to_string(),
            });
        }
    }
    let only = |x: &Run, y: &Run| -> Vec<String> {
        x.cases
            .keys()
            .filter(|k| !y.cases.contains_key(k))
            .map(CaseKey::name)
            .collect()
    };
    RunComparison {
        a: a.label(),
        b: b.label(),
        prompts: changes,
        flipped,
        new_cases: only(b, a),
        missing_cases: only(a, b),
        warnings,
    }
}

fn prompt_change(prompt: &str, a: &Run, b: &Run) -> PromptChange {
    let (sa, sb) = (a.scores.get(prompt).cloned(), b.scores.get(prompt).cloned());
    let pair = Paired::of(
        a.cases
            .iter()
            .filter(|(k, _)| k.prompt == prompt)
            .filter_map(|(key, va)| Some((va, b.cases.get(key)?)))
            .filter(|(va, vb)| va.evaluated() && vb.evaluated())
            .map(|(va, vb)| (va.passed(), vb.passed())),
    );
    let (shared, only_a, only_b) = (pair.shared, pair.only_first, pair.only_second);
    let p_value = (shared > 0).then_some(pair.p_value);
    let more_than_noise = shared > 0 && pair.beyond_noise();
    let delta = match (&sa, &sb) {
        (Some(x), Some(y)) => Some(((y.accuracy - x.accuracy) * 10.0).round() / 10.0),
        _ => None,
    };
    let verdict = match (delta, p_value) {
        (None, _) if sa.is_none() => "new in B".to_string(),
        (None, _) => "absent from B".to_string(),
        (Some(_), None) => "no shared cases to pair: cannot tell noise from change".to_string(),
        (Some(_), Some(_)) if only_a == 0 && only_b == 0 => {
            format!("unchanged: the same verdicts on all {shared} shared cases")
        }
        (Some(d), Some(p)) if more_than_noise => format!(
            "{} by more than noise (exact McNemar p = {}, {} vs {} of {} shared cases)",
            if d > 0.0 { "better" } else { "worse" },
            round_to(p, 4),
            only_b,
            only_a,
            shared
        ),
        (Some(_), Some(p)) => format!(
            "not distinguishable from noise (exact McNemar p = {}; {} passed only in B, {} only in A, of {} shared)",
            round_to(p, 4),
            only_b,
            only_a,
            shared
        ),
    };
    PromptChange {
        prompt: prompt.to_string(),
        a: sa,
        b: sb,
        delta,
        shared,
        only_a_passed: only_a,
        only_b_passed: only_b,
        p_value: p_value.map(|p| round_to(p, 4)),
        more_than_noise,
        verdict,
    }
}

/// The comparison for a terminal.
pub fn text(c: &RunComparison) -> String {
    let mut out = format!(
        "A: {} ({}, {})\nB: {} ({}, {})\n",
        c.a.test_id, c.a.model, c.a.dir, c.b.test_id, c.b.model, c.b.dir
    );
    for w in &c.warnings {
        out.push_str(&format!("⚠️  {w}\n"));
    }
    let score = |s: &Option<Score>| match s {
        Some(s) => match s.interval {
            Some([lo, hi]) => format!(
                "{:.1}% [{lo:.1}, {hi:.1}] ({}/{})",
                s.accuracy, s.correct, s.total
            ),
            None => format!("{:.1}% ({}/{})", s.accuracy, s.correct, s.total),
        },
        None => "-".to_string(),
    };
    out.push('\n');
    for p in &c.prompts {
        let delta = p.delta.map_or("".into(), |d| format!("  Δ {d:+.1} points"));
        out.push_str(&format!(
            "{}: A {} → B {}{delta}\n    {}\n",
            p.prompt,
            score(&p.a),
            score(&p.b),
            p.verdict
        ));
    }
    out.push_str(&format!("\n{} case(s) flipped", c.flipped.len()));
    out.push_str(if c.flipped.is_empty() { "\n" } else { ":\n" });
    for f in c.flipped.iter().take(50) {
        out.push_str(&format!("  {}: {} → {}\n", f.case, f.from, f.to));
    }
    if c.flipped.len() > 50 {
        out.push_str(&format!(
            "  ... and {} more (see the HTML page)\n",
            c.flipped.len() - 50
        ));
    }
    for (what, list) in [
        ("new in B", &c.new_cases),
        ("missing from B", &c.missing_cases),
    ] {
        if !list.is_empty() {
            let shown: Vec<&str> = list.iter().take(20).map(String::as_str).collect();
            let more = list.len().saturating_sub(20);
            out.push_str(&format!(
                "{} case(s) {what}: {}{}\n",
                list.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}

/// The comparison as a self-contained page (no script, escaped).
pub fn html(c: &RunComparison) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.add_template("compare.html", include_str!("compare.html"))?;
    env.get_template("compare.html")
        .and_then(|t| t.render(minijinja::Value::from_serialize(c)))
}
