//! PartialOrderEval's prompt variants end to end, with a scripted model of
//! known behaviour: the writer (Appendix B p_top, summaries) and the model
//! under test are the same stub server, which solves a problem exactly
//! when its prompt holds the description's key sentence (`STEP3 ...`) or
//! the original docstring. Every case's verdict is then known from the
//! stored variant's definition (kept paragraphs, masked sentences, summary
//! length), and the curves in summary.json, report/partial_order.csv and
//! quick_view.html must be the means of those verdicts.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use std::collections::BTreeMap;

use prompts_cli::Scratch;
use serde_json::Value;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

/// p_top as the writer writes it: five paragraphs, seven sentences; the
/// key sentence is the 4th (index 3) and in the 3rd paragraph (index 2).
const P_TOP: &str = "First STEP1 sentence. More words.\n\nSecond STEP2.\n\nThird STEP3 key. Also.\n\nFourth STEP4.\n\nFifth STEP5.";
const KEY_SENTENCE: usize = 3;
const KEY_PARAGRAPH: usize = 2;

const SUITE: &str = r#"{
  "settings": {"system_prompt": "Complete the function."},
  "complete": "Complete this:\n{question}",
  "questions": [
    {"id": "inc", "question": "def inc(x):\n    \"\"\"ORIGINAL add one.\"\"\"\n", "entry_point": "inc",
     "tests": "assert inc(1) == 2", "reference": "    return x + 1\n"},
    {"id": "dbl", "question": "def dbl(x):\n    \"\"\"ORIGINAL double it.\"\"\"\n", "entry_point": "dbl",
     "tests": "assert dbl(3) == 6", "reference": "    return x * 2\n"},
    {"id": "neg", "question": "def neg(x):\n    \"\"\"ORIGINAL negate.\"\"\"\n", "entry_point": "neg",
     "tests": "assert neg(2) == -2", "reference": "    return -x\n", "p_top": "__P_TOP__"}
  ]
}"#;

/// The writer's p_top requests (Appendix B) among the chats.
fn p_top_requests(chats: &[Request]) -> Vec<&Request> {
    chats
        .iter()
        .filter(|r| system(r).contains("**correct**"))
        .collect()
}

fn system(req: &Request) -> String {
    req.json["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Writer and model under test in one.
fn model(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let user = req.last_user_message().unwrap_or("");
    if system(req).contains("**correct**") {
        return Behaviour::Reply(P_TOP.into());
    }
    if system(req).contains("condense") {
        let words: usize = user
            .split("at most ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        // Short summaries lose the key; every summary is too long by 5
        // words, which the harness cuts.
        let key = if words >= 50 { "STEP3 key" } else { "vague" };
        let filler = vec!["word"; words + 3].join(" ");
        return Behaviour::Reply(format!("Summary {key} {filler}"));
    }
    let body = |right: &str| format!("```python\n{right}\n```");
    let knows = user.contains("STEP3 key") || user.contains("ORIGINAL");
    let reply = match (user.contains("def inc"), user.contains("def dbl"), knows) {
        (true, _, true) => body("    return x + 1"),
        (_, true, true) => body("    return x * 2"),
        (false, false, true) => body("    return -x"),
        _ => body("    return 0"),
    };
    Behaviour::Reply(reply)
}

/// Whether a variant's prompt holds the key sentence, by its definition.
fn expected_pass(variant: &Value) -> bool {
    match variant["strategy"].as_str().unwrap() {
        "original" | "p_top" => true,
        "p_bot" => false,
        "summary" => variant["level"].as_f64().unwrap() >= 50.0,
        "paragraph" => variant["kept"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i.as_u64() == Some(KEY_PARAGRAPH as u64)),
        "masking" => {
            let m = variant["masked"].as_array().unwrap();
            let (start, end) = (
                m[0].as_u64().unwrap() as usize,
                m[1].as_u64().unwrap() as usize,
            );
            !(start..end).contains(&KEY_SENTENCE)
        }
        other => panic!("unknown strategy {other}"),
    }
}

fn scratch(suite: &str) -> Scratch {
    let s = Scratch::new("");
    let path = s.write("po.json", suite);
    s.write(
        "harness.toml",
        &format!(
            "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n[variants]\nenabled = true\nseed = 7\n",
            path.display()
        ),
    );
    s
}

fn read_csv(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).expect("csv");
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|row| {
            header
                .iter()
                .cloned()
                .zip(row.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn variants_are_the_papers_definitions_and_the_curves_are_their_verdicts() {
    let server = StubServer::start(model);
    let s = scratch(&SUITE.replace("__P_TOP__", &P_TOP.replace('\n', "\\n")));
    let env = [("OLLAMA_HOST", server.url())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    // Names need no model: 3 questions x 42, and a level selects its 4 x 3.
    let list = s.prompts(&["--list"], &env);
    assert_eq!(list.status, Some(0), "{}", list.both());
    assert_eq!(
        list.stdout
            .lines()
            .filter(|l| l.ends_with(": test"))
            .count(),
        126
    );
    assert!(
        server.requests_to("/api/chat").is_empty(),
        "listing asked a model"
    );
    assert!(
        list.stdout
            .contains("complete::inc.paragraph_0.4-2::r1: test"),
        "{}",
        list.stdout
    );

    let run = s.prompts(&[], &env);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let chats = server.requests_to("/api/chat");
    let writer = p_top_requests(&chats);
    // inc and dbl had no p_top; neg's is in the suite.
    assert_eq!(writer.len(), 2);
    assert!(
        writer
            .iter()
            .all(|r| r.json["options"]["temperature"] == 0.7)
    );
    assert!(
        writer[0]
            .last_user_message()
            .unwrap()
            .contains("def correct_")
    );
    let summaries: Vec<&Request> = chats
        .iter()
        .filter(|r| system(r).contains("condense"))
        .collect();
    assert_eq!(summaries.len(), 3 * 7);
    assert!(
        summaries
            .iter()
            .all(|r| r.json["options"]["temperature"] == 0.2)
    );

    // The stored variants: the paper's counts and definitions.
    let run_dir = s.run_dir();
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("variants.json")).unwrap())
            .unwrap();
    let questions = stored["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 126);
    for base in ["inc", "dbl", "neg"] {
        let of: Vec<&Value> = questions
            .iter()
            .filter(|q| q["variant"]["of"] == base)
            .collect();
        assert_eq!(of.len(), 42, "{base}");
        for q in &of {
            let v = &q["variant"];
            let text = q["question"].as_str().unwrap();
            // Preamble and signature stay.
            assert!(text.starts_with(&format!("def {base}(x):\n")), "{text}");
            match v["strategy"].as_str().unwrap() {
                "paragraph" => {
                    let r = v["level"].as_f64().unwrap();
                    assert_eq!(v["units"], 5);
                    let kept = v["kept"].as_array().unwrap().len();
                    assert_eq!(kept, ((r * 5.0).round() as usize).max(1), "{v}");
                }
                "masking" => {
                    let r = v["level"].as_f64().unwrap();
                    assert_eq!(v["units"], 7);
                    let block = ((r * 7.0).round() as usize).max(1);
                    let i = v["sample"].as_u64().unwrap() as f64 - 1.0;
                    let start = (i * (7 - block) as f64 / 3.0).round() as u64;
                    assert_eq!(
                        v["masked"],
                        serde_json::json!([start, start + block as u64]),
                        "{v}"
                    );
                    assert!(text.contains("[REDACTED]"));
                }
                "summary" => {
                    let words = v["level"].as_f64().unwrap() as u64;
                    assert_eq!(v["words"], words, "cut to L words");
                }
                "p_bot" => assert_eq!(text, format!("def {base}(x):\n")),
                _ => {}
            }
        }
        let ratios: Vec<String> = of
            .iter()
            .filter(|q| q["variant"]["strategy"] == "paragraph")
            .map(|q| q["variant"]["level"].as_f64().unwrap().to_string())
            .collect();
        for r in ["0.2", "0.4", "0.6", "0.8"] {
            assert_eq!(
                ratios.iter().filter(|x| *x == r).count(),
                4,
                "paragraph {r}"
            );
        }
    }

    // Every verdict is what the definition says.
    let cases = read_csv(&run_dir.join("report/cases.csv"));
    assert_eq!(cases.len(), 126);
    let variant_of: BTreeMap<&str, &Value> = questions
        .iter()
        .map(|q| (q["id"].as_str().unwrap(), &q["variant"]))
        .collect();
    for c in &cases {
        let v = variant_of[c["question_id"].as_str()];
        let expected = if expected_pass(v) {
            "correct"
        } else {
            "wrong_answer"
        };
        assert_eq!(c["verdict"], expected, "{c:?} {v}");
    }

    // The curves are the means of those verdicts, in summary.json, the CSV
    // and the page alike.
    let summary = s.summary();
    let po = &summary["partial_order"]["complete"];
    let mut by_level: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for q in questions {
        let v = &q["variant"];
        let level = match v["strategy"].as_str().unwrap() {
            "summary" => format!("summary_{}w", v["level"].as_f64().unwrap()),
            "paragraph" | "masking" => {
                format!(
                    "{}_{}",
                    v["strategy"].as_str().unwrap(),
                    v["level"].as_f64().unwrap()
                )
            }
            other => other.to_string(),
        };
        // Per problem the share of its samples, then the mean over the 3.
        let e = by_level.entry(level).or_insert((0.0, 0.0));
        let n = if matches!(v["strategy"].as_str().unwrap(), "paragraph" | "masking") {
            4.0
        } else {
            1.0
        };
        e.0 += f64::from(u8::from(expected_pass(v))) / n / 3.0;
        e.1 += 1.0;
    }
    let csv_rows = read_csv(&run_dir.join("report/partial_order.csv"));
    let html = std::fs::read_to_string(run_dir.join("quick_view.html")).unwrap();
    for strategy in ["summary", "paragraph", "masking"] {
        let points = po["curves"][strategy].as_array().unwrap();
        let labels: Vec<&str> = points
            .iter()
            .map(|p| p["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels.first(), Some(&"p_bot"));
        assert_eq!(labels.last(), Some(&"p_top"));
        for p in points {
            let label = p["label"].as_str().unwrap();
            let want = (by_level[label].0 * 10000.0).round() / 10000.0;
            assert_eq!(p["pass_at_1"].as_f64().unwrap(), want, "{label}");
            let row = csv_rows
                .iter()
                .find(|r| r["strategy"] == strategy && r["label"] == label)
                .unwrap_or_else(|| panic!("{strategy} {label} in the CSV"));
            assert_eq!(row["pass_at_1"].parse::<f64>().unwrap(), want);
            assert!(
                html.contains(&format!(
                    "data-label=\"{label}\" data-pass-at-1=\"{}\"",
                    row["pass_at_1"]
                )),
                "{label} drawn with the CSV's value"
            );
        }
    }
    assert_eq!(po["original"]["pass_at_1"], 1.0);
    assert!(html.contains("class=\"original\""));
    // Least detailed masking (0.8) keeps the key less often than 0.2: no
    // level of this model is worse with more detail, so no violation.
    assert_eq!(po["violations"], serde_json::json!([]), "{po}");

    // The stored variants are a suite: run as one, they ask the same
    // prompts, and no writer.
    let again = Scratch::new(&format!(
        "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n",
        run_dir.join("variants.json").display()
    ));
    let before = server.requests_to("/api/chat").len();
    let rerun = again.prompts(&["paragraph_0.4"], &env);
    assert_eq!(rerun.status, Some(101), "{}", rerun.both());
    let asked = &server.requests_to("/api/chat")[before..];
    assert_eq!(asked.len(), 12, "3 problems x 4 samples of paragraph_0.4");
    assert!(
        asked
            .iter()
            .all(|r| !system(r).contains("**correct**") && !system(r).contains("condense"))
    );
    let first_run: Vec<&Request> = chats
        .iter()
        .filter(|r| {
            r.last_user_message().unwrap_or("").contains("def ")
                && !system(r).contains("**correct**")
        })
        .collect();
    for r in asked {
        assert!(
            first_run
                .iter()
                .any(|f| f.json["messages"] == r.json["messages"]),
            "the stored suite asks what the run asked"
        );
    }
}

#[test]
fn variants_refuse_the_learning_history_and_need_a_p_top_or_a_reference() {
    let server = StubServer::start(model);
    let env = [("OLLAMA_HOST", server.url())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let s = scratch(&SUITE.replace("__P_TOP__", "x"));
    let run = s.prompts(&[], &[env[0], ("PROMPTEVAL_HISTORY", "on")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("PROMPTEVAL_HISTORY=off"),
        "{}",
        run.stderr
    );

    let no_reference = SUITE
        .replace("__P_TOP__", "x")
        .replace(", \"reference\": \"    return x + 1\\n\"", "");
    let s = scratch(&no_reference);
    let run = s.prompts(&[], &env);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(
        run.stderr.contains("question `inc`") && run.stderr.contains("`p_top`"),
        "{}",
        run.stderr
    );
}

/// The live run of docs/guide/variants.md (8 HumanEval problems,
/// Qwen2.5-Coder-1.5B as writer and as model, recorded in
/// tests/snapshots/humaneval-po8) replays offline from its stored variants
/// to the same curves, over all 8 problems: HumanEval_20's first p_top
/// quoted its reference in a fenced block, and the expansion was made
/// again through the leak gate (its second try, its 42 cases re-recorded
/// live).
#[test]
fn the_recorded_live_variants_replay_to_their_curves() {
    let s = Scratch::recorded(
        "benches-data/humaneval-po8-variants.json",
        "backend = \"replay\"\n[history]\nenabled = false",
    );
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let r = &summary["prompt_results"]["appendix_c"];
    // 216 of the 336 of the partial order, and 17 of its 26 ablations.
    assert_eq!(
        (r["correct_answers"].as_u64(), r["total_questions"].as_u64()),
        (Some(233), Some(362)),
        "{summary}"
    );
    let po = &summary["partial_order"]["appendix_c"];
    assert_eq!(po["problems"], 8);
    assert!(po.get("unqualified").is_none(), "{summary}");
    // HumanEval_20's first p_top quoted its reference and was written
    // again; the committed expansion keeps both tries.
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("benches-data/humaneval-po8-variants.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let top = stored["questions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["id"] == "HumanEval_20.p_top")
        .unwrap();
    assert_eq!(top["variant"]["accepted"], true);
    assert!(
        top["variant"]["tries"][0]["refused"]
            .as_str()
            .unwrap()
            .contains("fenced code block")
    );
    assert!(!top["question"].as_str().unwrap().contains("```"));
    assert!(!run.stdout.contains("is unqualified"), "{}", run.stdout);
    assert_eq!(po["original"]["pass_at_1"], 0.5);
    let curve = |strategy: &str| -> Vec<(String, f64)> {
        po["curves"][strategy]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["label"].as_str().unwrap().to_string(),
                    p["pass_at_1"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let paragraph = curve("paragraph");
    // p_bot: a whole-function reply runs after the preamble (with a stub
    // body under the bare signature), not as a syntax error of the harness.
    assert_eq!(paragraph.first().unwrap(), &("p_bot".to_string(), 0.25));
    assert_eq!(paragraph.last().unwrap(), &("p_top".to_string(), 0.75));
    assert_eq!(paragraph[1], ("paragraph_0.2".to_string(), 0.7813));
    assert_eq!(curve("summary")[1], ("summary_10w".to_string(), 0.5));
    assert_eq!(po["violations"], serde_json::json!([]));
}

/// The paper's future work, PO-8 where code is rare: the same 8 HumanEval
/// problems in MultiPL-E's Lua and Racket, the variants on, the local 1.5B
/// as writer and as model (docs/guide/languages.md), replayed offline from
/// their stored expansions to the curves the docs quote, judged by
/// MultiPL-E's tests with the proof that they ran to their end.
#[test]
fn the_recorded_low_resource_partial_orders_replay_to_their_curves() {
    // (expansion, correct of 336, original, p_bot, p_top, summary_10w, masking_0.8)
    let runs = [
        (
            "benches-data/multipl-e/humaneval-lua-po8-variants.json",
            212,
            0.625,
            0.125,
            0.875,
            0.0,
            0.375,
        ),
        (
            "benches-data/multipl-e/humaneval-racket-po8-variants.json",
            42,
            0.0,
            0.0,
            0.125,
            0.0,
            0.0625,
        ),
    ];
    for (suite, correct, original, bottom, top, summary_10w, masking_08) in runs {
        let s = Scratch::recorded(suite, "backend = \"replay\"\n[history]\nenabled = false");
        let run = s.prompts(&[], &[]);
        assert_eq!(run.status, Some(101), "{suite}: {}", run.both());
        let summary = s.summary();
        let r = &summary["prompt_results"]["appendix_c"];
        assert_eq!(
            (r["correct_answers"].as_u64(), r["total_questions"].as_u64()),
            (Some(correct), Some(336)),
            "{suite}: {summary}"
        );
        assert_eq!(summary["not_evaluated"], 0, "{suite}: {summary}");
        let po = &summary["partial_order"]["appendix_c"];
        assert_eq!(po["problems"], 8, "{suite}");
        assert!(po.get("unqualified").is_none(), "{suite}: {summary}");
        assert_eq!(po["original"]["pass_at_1"], original, "{suite}");
        let point = |strategy: &str, label: &str| -> f64 {
            po["curves"][strategy]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["label"] == label)
                .and_then(|p| p["pass_at_1"].as_f64())
                .unwrap_or_else(|| panic!("{suite}: no {strategy} {label}"))
        };
        assert_eq!(point("paragraph", "p_bot"), bottom, "{suite}");
        assert_eq!(point("paragraph", "p_top"), top, "{suite}");
        assert_eq!(point("summary", "summary_10w"), summary_10w, "{suite}");
        assert_eq!(point("masking", "masking_0.8"), masking_08, "{suite}");
    }
}

/// PO-ParEval end to end: ParEval's OpenMP axpy (the committed suite's
/// problem, ParEval's own check) under the same scripted writer and model,
/// which writes the correct OpenMP body exactly when the prompt holds the
/// key sentence or ParEval's own description. Only the description comment
/// changes in what the model is asked, the writer is asked in C++ with the
/// reference named `correctAxpy`, and each case's verdict (ParEval's
/// check at 1 and 2 threads) is the one the variant's definition
/// predicts.
#[test]
fn a_pareval_problem_varies_its_description_comment_only() {
    let suite: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("benches-data/pareval-omp-po8.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut one = suite.clone();
    one["questions"] = Value::Array(
        suite["questions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|q| q["id"] == "03_dense_la_axpy")
            .cloned()
            .collect(),
    );
    // Two thread counts keep the 42 cases' runs short; the check is still
    // ParEval's, run at more than one thread.
    one["settings"]["threads"] = serde_json::json!([1, 2]);
    let original = one["questions"][0]["question"]
        .as_str()
        .unwrap()
        .to_string();
    let open = original.rfind("/*").unwrap();
    let (preamble, signature) = (&original[..open], original.lines().last().unwrap());
    let cpp_model = |req: &Request| {
        if req.path != "/api/chat"
            || system(req).contains("**correct**")
            || system(req).contains("condense")
        {
            return model(req);
        }
        let user = req.last_user_message().unwrap_or("");
        let knows = user.contains("STEP3 key") || user.contains("Compute z = alpha*x+y");
        let line = if knows {
            "z[i] = alpha*x[i] + y[i];"
        } else {
            "z[i] = x[i];"
        };
        Behaviour::Reply(format!(
            "```cpp\n#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); i += 1) {{\n    {line}\n}}\n```"
        ))
    };
    let server = StubServer::start(cpp_model);
    let s = scratch(&one.to_string());
    let env = [("OLLAMA_HOST", server.url())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let run = s.prompts(&[], &env);
    assert_eq!(run.status, Some(101), "{}", run.both());

    let chats = server.requests_to("/api/chat");
    let writer = p_top_requests(&chats);
    assert_eq!(writer.len(), 1);
    assert!(
        system(writer[0]).starts_with("You are an expert in C++. "),
        "{}",
        system(writer[0])
    );
    let snippet = writer[0].last_user_message().unwrap();
    assert!(
        snippet.starts_with(&original[..original.len() - signature.len()]),
        "{snippet}"
    );
    assert!(
        snippet.contains("void correctAxpy(double alpha"),
        "{snippet}"
    );
    assert!(
        chats
            .iter()
            .filter(|r| system(r).contains("condense"))
            .all(|r| system(r).contains("C++ functions"))
    );

    // What the model under test was asked: ParEval's template around the
    // variant, whose preamble and signature are the original's.
    let asked: Vec<&str> = chats
        .iter()
        .filter(|r| !system(r).contains("**correct**") && !system(r).contains("condense"))
        .map(|r| r.last_user_message().unwrap())
        .collect();
    assert_eq!(asked.len(), 42);
    for user in &asked {
        assert!(
            user.starts_with("Complete the C++ function axpy."),
            "{user}"
        );
        let code = user
            .split("```cpp\n")
            .nth(1)
            .unwrap()
            .trim_end()
            .trim_end_matches("```")
            .trim_end();
        assert!(
            code.starts_with(preamble) && code.ends_with(signature),
            "{code}"
        );
        let middle = &code[preamble.len()..code.len() - signature.len()];
        assert!(
            middle.is_empty() || (middle.starts_with("/* ") && middle.ends_with("*/\n")),
            "{middle:?}"
        );
    }

    let run_dir = s.run_dir();
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("variants.json")).unwrap())
            .unwrap();
    let journal = std::fs::read_to_string(run_dir.join("journal.jsonl")).unwrap();
    let verdicts: BTreeMap<String, String> = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| {
            (
                r["case"]["question_id"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut passed = 0;
    for q in stored["questions"].as_array().unwrap() {
        let want = expected_pass(&q["variant"]);
        let got = &verdicts[q["id"].as_str().unwrap()];
        assert_eq!(got == "correct", want, "{}: {got}", q["id"]);
        assert!(want || got == "wrong_answer", "{}: {got}", q["id"]);
        passed += usize::from(want);
    }
    let summary = s.summary();
    assert_eq!(
        summary["prompt_results"]["pareval_chat"]["correct_answers"],
        passed
    );
    let curves = &summary["partial_order"]["pareval_chat"]["curves"];
    for strategy in ["summary", "paragraph", "masking"] {
        let points = curves[strategy].as_array().unwrap();
        assert_eq!(points.first().unwrap()["label"], "p_bot");
        assert_eq!(points.first().unwrap()["pass_at_1"], 0.0);
        assert_eq!(points.last().unwrap()["label"], "p_top");
        assert_eq!(points.last().unwrap()["pass_at_1"], 1.0);
    }
}

/// The leak gate end to end (the paper's §3.2), with a scripted writer:
/// `inc`'s first p_top pastes the reference in a fenced block and its
/// second is clean; `dbl`'s always does; `neg`'s is the suite's own. The
/// refused text is written again as a request of its own (the next seed),
/// `variants.json` keeps every try, `dbl` is never accepted: none of its
/// 42 variants is asked, each is reported as not run with the reason, and
/// the curves run over the two other problems and name it.
#[test]
fn a_p_top_that_quotes_its_solution_is_written_again_and_a_problem_never_accepted_is_left_out() {
    fn leaky(req: &Request) -> Behaviour {
        if req.path == "/api/chat" && system(req).contains("**correct**") {
            let user = req.last_user_message().unwrap_or("");
            let first = req.json["options"]["seed"] == 42;
            let dbl = user.contains("correct_dbl(");
            if dbl || (user.contains("correct_inc(") && first) {
                return Behaviour::Reply(format!(
                    "It works like this.\n\n```python\n{}\n```\n\nThat is all.",
                    if dbl { "return x * 2" } else { "return x + 1" }
                ));
            }
        }
        model(req)
    }
    let server = StubServer::start(leaky);
    let s = scratch(&SUITE.replace("__P_TOP__", &P_TOP.replace('\n', "\\n")));
    let run = s.prompts(&[], &[("OLLAMA_HOST", &server.url())]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let chats = server.requests_to("/api/chat");
    let writes = p_top_requests(&chats);
    let seeds = |name: &str| -> Vec<i64> {
        writes
            .iter()
            .filter(|r| {
                r.last_user_message()
                    .unwrap_or("")
                    .contains(&format!("correct_{name}("))
            })
            .map(|r| r.json["options"]["seed"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        seeds("inc"),
        [42, 43],
        "refused once, written again with the next seed"
    );
    assert_eq!(seeds("dbl"), [42, 43, 44], "p_top_tries = 3");
    assert_eq!(
        seeds("neg"),
        Vec::<i64>::new(),
        "the suite's own p_top is never rewritten"
    );

    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(s.run_dir().join("variants.json")).unwrap())
            .unwrap();
    let top = |of: &str| -> Value {
        stored["questions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["id"] == format!("{of}.p_top"))
            .unwrap()["variant"]
            .clone()
    };
    let inc = top("inc");
    assert_eq!(inc["accepted"], true, "{inc}");
    assert!(
        inc["tries"][0]["refused"]
            .as_str()
            .unwrap()
            .contains("fenced code block")
    );
    assert_eq!(inc["tries"][1]["refused"], Value::Null);
    let dbl = top("dbl");
    assert_eq!(dbl["accepted"], false, "{dbl}");
    assert_eq!(dbl["tries"].as_array().unwrap().len(), 3);
    assert_eq!(top("neg")["accepted"], true);

    // Nothing of dbl is asked of the model under test.
    let asked_dbl = chats
        .iter()
        .filter(|r| !system(r).contains("**correct**") && !system(r).contains("condense"))
        .filter(|r| r.last_user_message().unwrap_or("").contains("def dbl"))
        .count();
    assert_eq!(asked_dbl, 0);
    assert_eq!(
        run.stdout
            .matches("not run: problem dbl is unqualified")
            .count(),
        42,
        "{}",
        run.stdout
    );
    let summary = s.summary();
    let po = &summary["partial_order"]["complete"];
    assert_eq!(po["problems"], 2, "{summary}");
    assert_eq!(po["unqualified"][0]["problem"], "dbl");
    assert!(
        po["unqualified"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("none of its 3 p_top texts passed"),
        "{summary}"
    );
    assert_eq!(summary["prompt_results"]["complete"]["total_questions"], 84);
    assert!(
        run.stdout
            .contains("the curves run over 2 problems; left out")
    );
    let page = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
    assert!(page.contains("left out, no p_top of theirs passed the gates: dbl"));
}

/// The qualification gate end to end (the paper's second gate, §3.2),
/// with a scripted writer and model: `inc`'s first p_top is solved by 3 of
/// its 5 samples (below 0.8) and is written again, its second by all 5;
/// `dbl`'s p_top never helps the model (0 of 5, three tries); `neg`'s is
/// the suite's own, qualified and never rewritten. Each try is asked 5
/// times at the gate's temperature, judged in the sandbox; `variants.json`
/// keeps `passed` and `samples`; nothing of `dbl` is asked as a case.
#[test]
fn a_p_top_the_model_cannot_solve_from_is_written_again_and_a_problem_never_qualified_is_left_out()
{
    const HALF: &str = "First STEP1 sentence.\n\nThird STEP3 HALFKEY. Also.";
    const NONE: &str = "First STEP1 sentence.\n\nThird vague. Also.";
    fn scripted(req: &Request) -> Behaviour {
        if req.path != "/api/chat" {
            return Behaviour::Default;
        }
        let user = req.last_user_message().unwrap_or("");
        let seed = req.json["options"]["seed"].as_i64().unwrap_or(0);
        if system(req).contains("**correct**") {
            if user.contains("correct_dbl(") {
                return Behaviour::Reply(NONE.into());
            }
            if user.contains("correct_inc(") && seed == 42 {
                return Behaviour::Reply(HALF.into());
            }
        }
        // The half-helpful text: the model solves it at 3 of the 5 seeds.
        if user.contains("HALFKEY") && user.contains("def inc") && seed <= 44 {
            return Behaviour::Reply("```python\n    return x + 1\n```".into());
        }
        model(req)
    }
    let server = StubServer::start(scripted);
    let s = scratch(&SUITE.replace("__P_TOP__", &P_TOP.replace('\n', "\\n")));
    let toml = std::fs::read_to_string(s.path().join("harness.toml")).unwrap();
    s.write(
        "harness.toml",
        &format!("{toml}[variants.qualify]\nsamples = 5\ntemperature = 0.2\n"),
    );
    let run = s.prompts(
        &[],
        &[("OLLAMA_HOST", &server.url()), ("PROMPTEVAL_QUALIFY", "on")],
    );
    assert_eq!(run.status, Some(101), "{}", run.both());
    let chats = server.requests_to("/api/chat");
    let writes = p_top_requests(&chats);
    let written = |name: &str| -> Vec<i64> {
        writes
            .iter()
            .filter(|r| {
                r.last_user_message()
                    .unwrap_or("")
                    .contains(&format!("correct_{name}("))
            })
            .map(|r| r.json["options"]["seed"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(written("inc"), [42, 43], "refused once by qualification");
    assert_eq!(written("dbl"), [42, 43, 44], "never qualified: 3 tries");
    assert!(
        written("neg").is_empty(),
        "the suite's own is never rewritten"
    );

    // The gate's calls: the suite's prompt at the gate's temperature (the
    // writer's summaries are at 0.2 too), 5 seeds per text.
    let qualifying: Vec<&Request> = chats
        .iter()
        .filter(|r| system(r) == "Complete the function.")
        .filter(|r| r.json["options"]["temperature"].as_f64() == Some(0.2))
        .collect();
    let asked = |function: &str, text: &str| -> Vec<i64> {
        qualifying
            .iter()
            .filter(|r| {
                let user = r.last_user_message().unwrap_or("");
                user.contains(function) && user.contains(text)
            })
            .map(|r| r.json["options"]["seed"].as_i64().unwrap())
            .collect()
    };
    let seeds = vec![42, 43, 44, 45, 46];
    assert_eq!(asked("def inc", "HALFKEY"), seeds);
    assert_eq!(asked("def inc", "STEP3 key"), seeds);
    assert_eq!(asked("def dbl", "vague").len(), 15);
    assert_eq!(asked("def neg", "STEP3 key"), seeds);
    assert_eq!(qualifying.len(), 5 + 5 + 15 + 5, "no other call qualifies");

    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(s.run_dir().join("variants.json")).unwrap())
            .unwrap();
    let top = |of: &str| -> (Value, String) {
        let q = stored["questions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["id"] == format!("{of}.p_top"))
            .unwrap();
        (q["variant"].clone(), q["question"].as_str().unwrap().into())
    };
    let (inc, inc_text) = top("inc");
    assert_eq!(inc["accepted"], true, "{inc}");
    assert_eq!(inc["tries"][0]["passed"], 3);
    assert_eq!(inc["tries"][0]["samples"], 5);
    assert!(
        inc["tries"][0]["refused"].as_str().unwrap().contains(
            "3 of 5 replies to it passed (pass@1 0.60), below [variants.qualify] min_pass = 0.8"
        ),
        "{inc}"
    );
    assert_eq!(inc["tries"][1]["refused"], Value::Null);
    assert_eq!(inc["tries"][1]["passed"], 5);
    assert!(inc_text.contains("STEP3 key"), "cut from the accepted text");
    let (dbl, _) = top("dbl");
    assert_eq!(dbl["accepted"], false, "{dbl}");
    let tries = dbl["tries"].as_array().unwrap();
    assert_eq!(tries.len(), 3);
    assert!(tries.iter().all(|t| t["passed"] == 0 && t["samples"] == 5));
    let (neg, _) = top("neg");
    assert_eq!(neg["accepted"], true);
    assert_eq!(neg["tries"][0]["passed"], 5);

    // dbl's cases are never asked (the model's own temperature is 0).
    let dbl_cases = chats
        .iter()
        .filter(|r| r.json["options"]["temperature"].as_f64() == Some(0.0))
        .filter(|r| r.last_user_message().unwrap_or("").contains("def dbl"))
        .count();
    assert_eq!(dbl_cases, 0);
    assert_eq!(
        run.stdout
            .matches("not run: problem dbl is unqualified")
            .count(),
        42
    );
    let summary = s.summary();
    let po = &summary["partial_order"]["complete"];
    assert_eq!(po["problems"], 2, "{summary}");
    assert!(
        po["unqualified"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("below [variants.qualify] min_pass"),
        "{summary}"
    );
    assert!(
        run.stderr.contains("qualification gate on"),
        "{}",
        run.stderr
    );
}
