//! Several models in one run (issue #20), end to end through
//! `cargo test --test prompts` against two scripted servers with different
//! models and known answers: per-model verdicts, names, filters, reports,
//! per-model options, the gate, an unreachable model, resume, retry,
//! shard/merge, samples, snapshots and replay; and the scheduling a server
//! sees (one model resident at a time on a shared Ollama, both servers busy
//! when each has its own).

#[path = "support/example_model.rs"]
mod example_model;
#[path = "support/meter.rs"]
mod meter;
#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use example_model::{AVERAGE, AVERAGE_WRONG, GREET, TWO_SUM};
use meter::{Meter, metered};
use prompts_cli::{Scratch, example_suite};
use serde_json::Value;
use stub_server::{Behaviour, Request, StubServer, dead_host};

/// Answers every question right.
const A: &str = "alpha:1b";
/// Wrong on the average question under every prompt, and on Two Sum under
/// prompt2: prompt1 2/3, prompt2 1/3, prompt3 2/3.
const B: &str = "beta:2b";
/// Their folders in a run folder (':' is not portable in a path).
const A_DIR: &str = "alpha_1b";
const B_DIR: &str = "beta_2b";
const PROMPTS: [&str; 3] = ["prompt1", "prompt2", "prompt3"];

/// prompt2's template starts the user message of every prompt2 request.
const PROMPT2_START: &str = "請仔細分析問題並提供最佳解法";

/// Which question a chat request asks: 1, 2 or 3.
fn question_of(req: &Request) -> usize {
    let current = req.current_question();
    if current.contains("Two Sum") {
        1
    } else if current.contains("greet") {
        2
    } else {
        3
    }
}

fn is_prompt2(req: &Request) -> bool {
    req.last_user_message()
        .is_some_and(|m| m.starts_with(PROMPT2_START))
}

/// The scripted truth: does `model` answer question `q` under `prompt` right?
fn right(model: &str, prompt: &str, q: usize) -> bool {
    match model {
        A => true,
        B => q == 2 || (q == 1 && prompt != "prompt2"),
        _ => unreachable!(),
    }
}

/// Both models' answers, on either protocol, chosen by the model the
/// request names; any other model is left to the stub's default (a 404 on
/// Ollama's protocol when the server does not list it).
fn models_script(req: &Request) -> Behaviour {
    if !matches!(req.path.as_str(), "/api/chat" | "/v1/chat/completions") {
        return Behaviour::Default;
    }
    let model = req.json["model"].as_str().unwrap_or_default();
    if model != A && model != B {
        return Behaviour::Default;
    }
    let prompt = if is_prompt2(req) {
        "prompt2"
    } else {
        "prompt1"
    };
    let q = question_of(req);
    let ok = right(model, prompt, q);
    Behaviour::Reply(
        match (q, ok) {
            (1, true) => TWO_SUM,
            (1, false) => "```python\nprint([1, 0])\n```",
            (2, _) => GREET,
            (_, true) => AVERAGE,
            (_, false) => AVERAGE_WRONG,
        }
        .to_string(),
    )
}

/// The server of one model: it lists only that model.
fn server_of(model: &str) -> StubServer {
    let s = StubServer::start(models_script);
    s.set_models(&[model]);
    s
}

/// `[[models]]` tables: alpha on an Ollama at `a_url` with its own
/// temperature, num_ctx and system prompt; beta on an OpenAI-compatible
/// server at `b_url` with the run's. `extra` goes first (top-level keys).
fn two_model_toml(a_url: &str, b_url: &str, extra: &str, tables: &str) -> String {
    format!(
        "suite = \"{suite}\"\n{extra}\n[llm]\ntemperature = 0.0\nsystem_prompt = \"RUN SYSTEM\"\nretries = 0\ntimeout_secs = 30\n\
         [[models]]\nname = \"{A}\"\nbackend = \"ollama\"\nurl = \"{a_url}\"\ntemperature = 0.5\nnum_ctx = 4096\nsystem_prompt = \"ALPHA SYSTEM\"\n\
         [[models]]\nname = \"{B}\"\nbackend = \"openai\"\nurl = \"{b_url}\"\n{tables}",
        suite = example_suite().display()
    )
}

struct Pair {
    a: StubServer,
    b: StubServer,
}

impl Pair {
    fn new() -> Pair {
        Pair {
            a: server_of(A),
            b: server_of(B),
        }
    }

    fn scratch(&self, extra: &str, tables: &str) -> Scratch {
        Scratch::new(&two_model_toml(
            &self.a.url(),
            &self.b.openai_url(),
            extra,
            tables,
        ))
    }

    fn chats(&self) -> (Vec<Request>, Vec<Request>) {
        (
            self.a.requests_to("/api/chat"),
            self.b.requests_to("/v1/chat/completions"),
        )
    }
}

/// libtest's per-case lines with the padding collapsed, sorted.
fn case_lines(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.contains(" ... "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    v.sort();
    v
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// A value without what depends on time (durations, speeds, timestamps):
/// what must be the same whichever way the same answers were obtained.
fn timeless(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !(k.contains("time") || k.contains("secs") || k.contains("speed")))
                .map(|(k, v)| (k.clone(), timeless(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(timeless).collect()),
        other => other.clone(),
    }
}

/// The scripted truth of one model's prompt_results: correct answers of 3.
fn expected_correct(model: &str, prompt: &str) -> usize {
    (1..=3).filter(|&q| right(model, prompt, q)).count()
}

fn accuracy(correct: usize) -> f64 {
    (correct as f64 * 1000.0 / 3.0).round() / 10.0
}

/// summary.json's `models.<m>.prompt_results` say what the script says.
fn assert_numbers_match_the_script(summary: &Value) {
    for model in [A, B] {
        let results = &summary["models"][model]["prompt_results"];
        for p in PROMPTS {
            let r = &results[p];
            let c = expected_correct(model, p);
            assert_eq!(r["correct_answers"], c, "{model} {p}: {r}");
            assert_eq!(r["total_questions"], 3, "{model} {p}: {r}");
            assert_eq!(r["accuracy"], accuracy(c), "{model} {p}: {r}");
        }
    }
}

fn prompteval(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompteval"));
    prompts_cli::without_test_runner_env(&mut cmd);
    cmd.args(args).output().expect("prompteval runs")
}

#[test]
fn two_models_give_their_own_verdicts_reports_names_and_options() {
    let pair = Pair::new();
    let s = pair.scratch("", "");
    let run = s.prompts(&[], &[]);
    // beta fails cases: libtest's status.
    assert_eq!(run.status, Some(101), "{}", run.both());

    // Case names start with the model; each verdict is the script's.
    let lines = case_lines(&run.stdout);
    assert_eq!(lines.len(), 18, "{lines:#?}");
    for model in [A, B] {
        for p in PROMPTS {
            for (q, id) in [(1, "q1_"), (2, "q2_"), (3, "q3_")] {
                let verdict = if right(model, p, q) { "ok" } else { "FAILED" };
                let prefix = format!("test {model}::{p}::{id}");
                let line = lines
                    .iter()
                    .find(|l| l.starts_with(&prefix))
                    .unwrap_or_else(|| panic!("no case {prefix}: {lines:#?}"));
                assert!(line.ends_with(&format!("... {verdict}")), "{line}");
            }
        }
    }

    let summary = s.summary();
    assert_numbers_match_the_script(&summary);
    assert_eq!(
        summary["prompt_results"],
        serde_json::json!({}),
        "{summary}"
    );
    let dir = s.run_dir();
    for (model, folder) in [(A, A_DIR), (B, B_DIR)] {
        let own = read_json(&dir.join(folder).join("summary.json"));
        assert_eq!(own["model"], model, "{own}");
        assert_eq!(
            timeless(&own["prompt_results"]),
            timeless(&summary["models"][model]["prompt_results"])
        );
        for f in [
            "quick_view.html",
            "report/summary.csv",
            "report/cases.csv",
            "report/detailed_report.json",
            "prompt1/question_1.py",
            "prompt3/question_3.py",
        ] {
            assert!(dir.join(folder).join(f).is_file(), "{folder}/{f} missing");
        }
    }
    let q = std::fs::read_to_string(dir.join(B_DIR).join("prompt2/question_1.py")).unwrap();
    assert!(q.contains("FAILED"), "{q}");

    // report/summary.csv: a row per model x prompt, with the model first.
    let mut csv = csv::Reader::from_path(dir.join("report/summary.csv")).unwrap();
    assert_eq!(&csv.headers().unwrap()[0], "model");
    let rows: Vec<(String, String, String)> = csv
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].to_string(), r[2].to_string())
        })
        .collect();
    let want: Vec<(String, String, String)> = [A, B]
        .iter()
        .flat_map(|m| {
            PROMPTS.iter().map(move |p| {
                (
                    m.to_string(),
                    p.to_string(),
                    format!("{:.1}", accuracy(expected_correct(m, p))),
                )
            })
        })
        .collect();
    assert_eq!(rows, want);

    // Each server got its own model's nine requests, with that model's options.
    let (a, b) = pair.chats();
    assert_eq!(a.len(), 9);
    assert_eq!(b.len(), 9);
    assert!(pair.a.requests_to("/v1/chat/completions").is_empty());
    assert!(pair.b.requests_to("/api/chat").is_empty());
    let system = |r: &Request| {
        r.json["messages"][0]["role"]
            .as_str()
            .filter(|role| *role == "system")
            .and_then(|_| r.json["messages"][0]["content"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    for r in &a {
        assert_eq!(r.json["model"], A);
        assert_eq!(r.json["options"]["temperature"], 0.5, "{}", r.body);
        assert_eq!(r.json["options"]["num_ctx"], 4096, "{}", r.body);
        assert_eq!(system(r), "ALPHA SYSTEM", "{}", r.body);
    }
    for r in &b {
        assert_eq!(r.json["model"], B);
        assert_eq!(r.json["temperature"], 0.0, "{}", r.body);
        assert_eq!(system(r), "RUN SYSTEM", "{}", r.body);
    }

    // `-- beta:2b` runs beta's cases only: alpha's server is not asked.
    let run = s.prompts(&[B], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let lines = case_lines(&run.stdout);
    assert_eq!(lines.len(), 9, "{lines:#?}");
    assert!(lines.iter().all(|l| l.starts_with(&format!("test {B}::"))));
    let (a2, b2) = pair.chats();
    assert_eq!(a2.len(), 9, "alpha's server got a chat request");
    assert_eq!(b2.len(), 18);

    // `-- prompt1` runs prompt1 on both models.
    let run = s.prompts(&["prompt1"], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let lines = case_lines(&run.stdout);
    assert_eq!(lines.len(), 6, "{lines:#?}");
    for model in [A, B] {
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(&format!("test {model}::prompt1::")))
                .count(),
            3,
            "{lines:#?}"
        );
    }
    let (a3, b3) = pair.chats();
    assert_eq!((a3.len(), b3.len()), (12, 21));
}

#[test]
fn the_gate_holds_each_model_to_its_own_threshold() {
    let pair = Pair::new();
    let s = pair.scratch("", &format!("[gate.models.\"{B}\"]\nmin_accuracy = 60\n"));
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let out = run.both();
    assert!(
        out.contains(&format!("gate: {B} · prompt2 FAILED")),
        "beta's prompt2 (33.3%) is below 60%: {out}"
    );
    assert!(
        out.contains(&format!("gate: {B} · prompt1 passed")),
        "beta's prompt1 (66.7%) meets 60%: {out}"
    );
    assert!(
        !out.contains(&format!("gate: {A} ·")),
        "alpha has no threshold: {out}"
    );

    // Alpha alone, held to 100%, passes: the gate is per model.
    let s = pair.scratch("", &format!("[gate.models.\"{A}\"]\nmin_accuracy = 100\n"));
    let run = s.prompts(&[A], &[]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    assert!(
        run.both().contains(&format!("gate: {A} · prompt1 passed")),
        "{}",
        run.both()
    );

    // Keys that name no model of the run, or no prompt, are refused.
    for (table, key) in [
        (
            "[gate.models.\"gamma:3b\"]\nmin_accuracy = 50\n",
            "gamma:3b",
        ),
        (
            &*format!("[gate.models.\"{B}\".prompts]\nprompt9 = 50\n"),
            "prompt9",
        ),
    ] {
        let s = pair.scratch("", table);
        let before = pair.chats();
        let run = s.prompts(&[], &[]);
        assert_eq!(run.status, Some(2), "{table}: {}", run.both());
        let err = run.both();
        assert!(err.contains("harness.toml"), "names the file: {err}");
        assert!(err.contains(key), "names the key {key}: {err}");
        let after = pair.chats();
        assert_eq!(
            (before.0.len(), before.1.len()),
            (after.0.len(), after.1.len()),
            "no model is asked"
        );
    }
}

#[test]
fn an_unreachable_model_leaves_the_other_unchanged_and_is_not_a_failure() {
    let a = server_of(A);
    let dead = format!("http://{}/v1", dead_host());
    let s = Scratch::new(&two_model_toml(&a.url(), &dead, "", ""));
    let run = s.prompts(&[], &[]);
    assert_eq!(
        run.status,
        Some(0),
        "alpha passes everything; beta's cases are not failures: {}",
        run.both()
    );
    let warned = run
        .both()
        .matches(&format!("model {B}: cannot be asked"))
        .count();
    assert_eq!(warned, 1, "said once: {}", run.both());
    // On stderr, where the setup's warnings go (the order against
    // libtest's stdout lines is not observable from here).
    assert!(
        run.stderr.contains(&format!("model {B}: cannot be asked")),
        "{}",
        run.both()
    );
    let lines = case_lines(&run.stdout);
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with(&format!("test {B}::")))
            .all(|l| l.contains("... ignored")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.ends_with("FAILED")), "{lines:#?}");
    let summary = s.summary();
    let beta = &summary["models"][B];
    assert_eq!(beta["finished_cases"], 0, "{beta}");
    assert_eq!(beta["not_evaluated"], 9, "{beta}");
    for p in PROMPTS {
        assert_eq!(beta["prompt_results"][p]["correct_answers"], 0, "{beta}");
        assert!(
            beta["prompt_results"][p]["accuracy"].is_null(),
            "nothing evaluated is no accuracy: {beta}"
        );
    }

    // Alpha's numbers are those of a run of alpha alone.
    let alone = Scratch::new(&format!(
        "suite = \"{}\"\n[llm]\ntemperature = 0.0\nsystem_prompt = \"RUN SYSTEM\"\nretries = 0\n\
         [[models]]\nname = \"{A}\"\nbackend = \"ollama\"\nurl = \"{}\"\ntemperature = 0.5\nnum_ctx = 4096\nsystem_prompt = \"ALPHA SYSTEM\"\n",
        example_suite().display(),
        a.url()
    ));
    let run = alone.prompts(&[], &[]);
    assert_eq!(run.status, Some(0), "{}", run.both());
    let alone = alone.summary();
    assert_eq!(
        serde_json::to_string(&timeless(&summary["models"][A]["prompt_results"])).unwrap(),
        serde_json::to_string(&timeless(&alone["prompt_results"])).unwrap()
    );
}

#[test]
fn resume_finishes_each_models_missing_cases() {
    let pair = Pair::new();
    let s = pair.scratch("", "");
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let whole = s.summary();
    let dir = s.run_dir();

    // A journal without the last question of every chain: an interrupted run.
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let kept: Vec<&str> = journal.lines().filter(|l| !l.contains("\"q3_")).collect();
    assert_eq!(kept.len(), 12, "{journal}");
    std::fs::write(dir.join("journal.jsonl"), kept.join("\n") + "\n").unwrap();
    let before = pair.chats();
    let run = s.prompts(&[], &[("PROMPTEVAL_RESUME", dir.to_str().unwrap())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let after = pair.chats();
    let a: Vec<&Request> = after.0.iter().skip(before.0.len()).collect();
    let b: Vec<&Request> = after.1.iter().skip(before.1.len()).collect();
    assert_eq!((a.len(), b.len()), (3, 3), "only the missing cases run");
    assert!(a.iter().chain(&b).all(|r| question_of(r) == 3));
    assert!(a.iter().all(|r| r.json["model"] == A));
    assert!(b.iter().all(|r| r.json["model"] == B));
    // Each resumed case sees its own model's earlier answers in its history.
    assert!(
        b.iter()
            .filter(|r| is_prompt2(r))
            .all(|r| r.last_user_message().unwrap().contains("print([1, 0])")),
        "beta's prompt2 history shows beta's wrong Two Sum"
    );
    assert!(
        a.iter()
            .all(|r| !r.last_user_message().unwrap().contains("print([1, 0])"))
    );
    assert_eq!(s.run_dirs(), 1);
    let resumed = s.summary();
    assert_eq!(resumed["complete"], true);
    assert_numbers_match_the_script(&resumed);
    for m in [A, B] {
        assert_eq!(
            timeless(&resumed["models"][m]["prompt_results"]),
            timeless(&whole["models"][m]["prompt_results"])
        );
    }
}

#[test]
fn retry_errors_asks_again_only_the_model_that_failed() {
    let pair = Pair::new();
    let s = pair.scratch("", "");
    // Beta's server fails greet (q2) under prompt3.
    pair.b.set_script(|req: &Request| {
        if req.path == "/v1/chat/completions"
            && question_of(req) == 2
            && req
                .last_user_message()
                .is_some_and(|m| m.starts_with("作為演算法專家"))
        {
            return Behaviour::Status(500, "{\"error\":\"overloaded\"}".into());
        }
        models_script(req)
    });
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let dir = s.run_dir();
    let failed = s.summary();
    assert_eq!(
        failed["models"][B]["prompt_results"]["prompt3"]["error_breakdown"]["api_error"], 1,
        "{failed}"
    );

    pair.b.set_script(models_script);
    let before = pair.chats();
    let retry = s.prompts(
        &[],
        &[
            ("PROMPTEVAL_RESUME", dir.to_str().unwrap()),
            ("PROMPTEVAL_RETRY", "errors"),
        ],
    );
    assert_eq!(retry.status, Some(101), "{}", retry.both());
    let after = pair.chats();
    assert_eq!(after.0.len(), before.0.len(), "alpha had no error to retry");
    let asked: Vec<&Request> = after.1.iter().skip(before.1.len()).collect();
    // q2 and the later q3 of beta's prompt3 chain.
    assert_eq!(asked.len(), 2, "{}", retry.stdout);
    assert!(
        asked
            .iter()
            .all(|r| r.last_user_message().unwrap().starts_with("作為演算法專家"))
    );
    let summary = s.summary();
    assert_numbers_match_the_script(&summary);
    let errors = &summary["models"][B]["prompt_results"]["prompt3"]["error_breakdown"];
    assert!(errors.get("api_error").is_none(), "{summary}");
}

#[test]
fn shards_of_a_two_model_run_merge_into_the_unsharded_report() {
    let pair = Pair::new();
    let whole_run = pair.scratch("", "");
    let run = whole_run.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let whole = whole_run.summary();

    // Two parts hold both models; of four, parts 3 and 4 hold one model
    // each (6 chains dealt round-robin: alpha's 3, then beta's 3).
    for n in [2, 4] {
        check_merge(&pair, &whole_run, &whole, n);
    }
}

fn check_merge(pair: &Pair, whole_run: &Scratch, whole: &Value, n: usize) {
    let mut parts: Vec<(Scratch, PathBuf)> = Vec::new();
    for k in 1..=n {
        let s = pair.scratch("", "");
        let shard = format!("{k}/{n}");
        let run = s.prompts(&[], &[("PROMPTEVAL_SHARD", &shard)]);
        assert!(
            matches!(run.status, Some(0 | 101)),
            "{shard}: {}",
            run.both()
        );
        let dir = s.run_dir();
        parts.push((s, dir));
    }
    let out = tempfile::tempdir().unwrap();
    let merged = out.path().join("merged");
    let mut args: Vec<&str> = vec!["merge"];
    // Last part first: the order the parts are given in does not matter.
    args.extend(parts.iter().rev().map(|(_, d)| d.to_str().unwrap()));
    args.extend(["--out", merged.to_str().unwrap()]);
    let done = prompteval(&args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    // As for a one-model merge: no gate, so failed cases do not fail it.
    assert_eq!(done.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("merged {n} part(s), 18 case(s)")),
        "{text}"
    );
    let summary = read_json(&merged.join("summary.json"));
    assert_numbers_match_the_script(&summary);
    for m in [A, B] {
        let (got, want) = (&summary["models"][m], &whole["models"][m]);
        assert_eq!(
            timeless(&got["prompt_results"]),
            timeless(&want["prompt_results"]),
            "{n} parts: {m}"
        );
        for k in [
            "planned_cases",
            "finished_cases",
            "not_evaluated",
            "complete",
            "backend",
        ] {
            assert_eq!(got[k], want[k], "{n} parts: {m}: {k}: {got}");
        }
    }
    for k in [
        "planned_cases",
        "finished_cases",
        "complete",
        "model",
        "backend",
        "endpoint",
    ] {
        assert_eq!(summary[k], whole[k], "{n} parts: {k}");
    }
    for folder in [A_DIR, B_DIR] {
        assert!(merged.join(folder).join("summary.json").is_file());
        assert!(merged.join(folder).join("quick_view.html").is_file());
    }
    // report/summary.csv: the same rows, but for the time column.
    let rows = |p: &Path| -> Vec<Vec<String>> {
        let mut r = csv::Reader::from_path(p.join("report/summary.csv")).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let time = header.iter().position(|h| h == "avg_execution_time");
        r.records()
            .map(|row| {
                row.unwrap()
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| Some(*i) != time)
                    .map(|(_, c)| c.to_string())
                    .collect()
            })
            .collect()
    };
    let merged_rows = rows(&merged);
    assert_eq!(merged_rows.len(), 6);
    assert_eq!(merged_rows, rows(&whole_run.run_dir()));
}

#[test]
fn samples_are_drawn_per_model_with_each_models_seeds() {
    let pair = Pair::new();
    let s = pair.scratch("samples = 2\n", "");
    // Alpha's table sets its own seed; beta takes the run's.
    let toml = std::fs::read_to_string(s.path().join("harness.toml")).unwrap();
    let toml = toml
        .replace("retries = 0\n", "retries = 0\nseed = 42\n")
        .replace("num_ctx = 4096\n", "num_ctx = 4096\nseed = 100\n");
    s.write("harness.toml", &toml);
    let run = s.prompts(&["prompt1"], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let lines = case_lines(&run.stdout);
    assert_eq!(lines.len(), 12, "{lines:#?}");
    for model in [A, B] {
        for sample in 1..=2 {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("test {model}::prompt1::q2_"))
                        && l.contains(&format!("::r1::s{sample} ... ok"))),
                "{lines:#?}"
            );
        }
    }
    let (a, b) = pair.chats();
    let seeds = |rs: &[Request], field: fn(&Value) -> &Value| {
        let mut v: Vec<i64> = rs
            .iter()
            .map(|r| field(&r.json).as_i64().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        seeds(&a, |j| &j["options"]["seed"]),
        [100, 100, 100, 101, 101, 101]
    );
    assert_eq!(seeds(&b, |j| &j["seed"]), [42, 42, 42, 43, 43, 43]);
    let summary = s.summary();
    for m in [A, B] {
        let r = &summary["models"][m]["prompt_results"]["prompt1"];
        let c = expected_correct(m, "prompt1");
        let pass_at_1 = (c as f64 / 3.0 * 10_000.0).round() / 10_000.0;
        assert_eq!(r["pass_at_k"]["pass@1"], pass_at_1, "{m}: {r}");
        assert_eq!(summary["models"][m]["samples"], 2);
    }
}

#[test]
fn each_models_recordings_replay_its_numbers_without_a_server() {
    let pair = Pair::new();
    let s = pair.scratch("", "");
    let run = s.prompts(&[], &[("INSTA_UPDATE", "always")]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let live = s.summary();
    let stem = example_suite()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let snaps = s.path().join("snapshots").join(&stem);
    let mut recorded: BTreeMap<String, usize> = BTreeMap::new();
    for e in std::fs::read_dir(&snaps).unwrap_or_else(|e| panic!("{}: {e}", snaps.display())) {
        let e = e.unwrap();
        let n = std::fs::read_dir(e.path())
            .unwrap()
            .filter(|f| {
                f.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "snap")
            })
            .count();
        recorded.insert(e.file_name().to_string_lossy().into_owned(), n);
    }
    assert_eq!(
        recorded,
        BTreeMap::from([(A_DIR.to_string(), 9), (B_DIR.to_string(), 9)]),
        "{}",
        snaps.display()
    );

    drop(pair);
    let run = s.prompts(&[], &[("PROMPTEVAL_BACKEND", "replay")]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let replayed = s.summary();
    assert_ne!(live["test_id"], replayed["test_id"]);
    assert_numbers_match_the_script(&replayed);
    for m in [A, B] {
        assert_eq!(replayed["models"][m]["backend"], "replay", "{replayed}");
        assert_eq!(
            timeless(&replayed["models"][m]["prompt_results"]),
            timeless(&live["models"][m]["prompt_results"]),
            "{m}"
        );
    }
}

#[test]
fn one_model_runs_are_named_and_reported_as_before() {
    let a = server_of(A);
    let plain = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{A}\"\nbackend = \"ollama\"\n[ollama]\nhost = \"{}\"\n",
        example_suite().display(),
        a.url()
    ));
    let table = Scratch::new(&format!(
        "suite = \"{}\"\n[[models]]\nname = \"{A}\"\nbackend = \"ollama\"\nurl = \"{}\"\n",
        example_suite().display(),
        a.url()
    ));
    for s in [plain, table] {
        let run = s.prompts(&[], &[]);
        assert_eq!(run.status, Some(0), "{}", run.both());
        let lines = case_lines(&run.stdout);
        assert_eq!(lines.len(), 9, "{lines:#?}");
        assert!(
            lines.iter().all(|l| l.starts_with("test prompt")),
            "{lines:#?}"
        );
        let summary = s.summary();
        assert!(summary.get("models").is_none(), "{summary}");
        assert_eq!(summary["model"], A);
        assert_eq!(summary["prompt_results"]["prompt1"]["accuracy"], 100.0);
        let dir = s.run_dir();
        assert!(dir.join("prompt1/question_1.py").is_file());
        assert!(!dir.join(A_DIR).exists());
    }
}

/// Two models on one Ollama host, two slots: each model's requests come
/// together (the model is loaded once), with the history off and on.
#[test]
fn models_sharing_an_ollama_are_asked_one_after_another() {
    for history in ["false", "true"] {
        let meter = Meter::new();
        let server = StubServer::start(metered(
            vec![meter.clone()],
            Duration::from_millis(40),
            models_script,
        ));
        server.set_models(&[A, B]);
        let s = Scratch::new(&format!(
            "suite = \"{}\"\nconcurrency = 2\nbackend = \"ollama\"\n[ollama]\nhost = \"{}\"\n[history]\nenabled = {history}\n\
             [[models]]\nname = \"{A}\"\n[[models]]\nname = \"{B}\"\n",
            example_suite().display(),
            server.url()
        ));
        let run = s.prompts(&[], &[]);
        assert_eq!(run.status, Some(101), "{}", run.both());
        let log = meter.models();
        assert_eq!(log.len(), 18, "{log:?}");
        assert_eq!(
            meter.switches(),
            1,
            "history {history}: each model loaded once: {log:?}"
        );
        assert_eq!(log[0], A, "the run's order: {log:?}");
        assert_eq!(meter.peak(), 2, "history {history}: {log:?}");
        assert_numbers_match_the_script(&s.summary());
    }
}

/// A server per model: both are asked at once, each at its slots.
#[test]
fn models_on_their_own_servers_are_asked_at_once() {
    let total = Meter::new();
    let (ma, mb) = (Meter::new(), Meter::new());
    let delay = Duration::from_millis(150);
    let a = StubServer::start(metered(
        vec![ma.clone(), total.clone()],
        delay,
        models_script,
    ));
    a.set_models(&[A]);
    let b = StubServer::start(metered(
        vec![mb.clone(), total.clone()],
        delay,
        models_script,
    ));
    b.set_models(&[B]);
    let s = Scratch::new(&two_model_toml(
        &a.url(),
        &b.openai_url(),
        "concurrency = 2\n",
        "[history]\nenabled = false\n",
    ));
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    assert_eq!((ma.peak(), mb.peak()), (2, 2), "each server at its slots");
    assert_eq!(total.peak(), 4, "both servers busy at once");
    assert_numbers_match_the_script(&s.summary());
}
