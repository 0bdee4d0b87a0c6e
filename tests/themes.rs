//! The theme analysis end to end (`[variants.themes]`, PartialOrderEval
//! §5 and the ablation it left for future work), against a scripted
//! server that is writer, labeler and model at once: the labeler labels
//! by keywords as a person would, and the model solves a problem exactly
//! when its prompt holds the `STEP3` sentence (the edge case, theme 2.3).
//! Checked: every description's labels, p_top's sentences, the ablation
//! texts (exactly the labeled sentences gone), the shares per level, the
//! effects against values computed here, a reply outside the taxonomy
//! asked once more then left unlabeled, and the labeled run replayed
//! offline to the same figures.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;
#[path = "support/stub_server.rs"]
mod stub_server;

use prompts_cli::Scratch;
use serde_json::Value;
use stub_server::{Behaviour, Request, STUB_MODEL, StubServer};

const P_TOP: &str = "First STEP1 sentence. More words.\n\nSecond STEP2.\n\nThird STEP3 key. Also.\n\nFourth STEP4.\n\nFifth STEP5.";

const SUITE: &str = r#"{
  "settings": {"system_prompt": "Complete the function."},
  "complete": "Complete this:\n{question}",
  "questions": [
    {"id": "inc", "question": "def inc(x):\n    \"\"\"ORIGINAL add one.\"\"\"\n", "entry_point": "inc",
     "tests": "assert inc(1) == 2", "reference": "    return x + 1\n"},
    {"id": "neg", "question": "def neg(x):\n    \"\"\"ORIGINAL negate.\"\"\"\n", "entry_point": "neg",
     "tests": "assert neg(2) == -2", "reference": "    return -x\n", "p_top": "__P_TOP__"}
  ]
}"#;

/// The labeler's keywords: what a person would label each sentence.
fn themes_of(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (word, code) in [
        ("STEP1", "1.1 Task Goal"),
        ("ORIGINAL", "1.1 Task Goal"),
        ("STEP2", "1.3 Input Specification"),
        ("STEP3", "2.3 Edge Case Handling"),
        ("STEP4", "3.4 Implementation Sketch or Step Breakdown"),
        ("STEP5", "1.5 Core Behaviour"),
    ] {
        if text.contains(word) && !out.contains(&code) {
            out.push(code);
        }
    }
    out
}

fn system(req: &Request) -> String {
    req.json["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn script(req: &Request) -> Behaviour {
    if req.path != "/api/chat" {
        return Behaviour::Default;
    }
    let user = req.json["messages"][1]["content"].as_str().unwrap_or("");
    let sys = system(req);
    if sys.contains("List of taxonomies") {
        // A summary marked ODD is labeled outside the taxonomy, every time.
        if user.contains("ODD") {
            return Behaviour::Reply(
                r#"[{"prompt": "", "taxonomies": ["1.1 Task Goal", "7.1 Vibes"]}]"#.into(),
            );
        }
        if sys.contains("numbered sentences") {
            let entries: Vec<String> = user
                .lines()
                .filter_map(|l| {
                    l.split_once(". ")
                        .filter(|(n, _)| n.parse::<usize>().is_ok())
                })
                .map(|(n, s)| format!(r#"{{"sentence": {n}, "taxonomies": {:?}}}"#, themes_of(s)))
                .collect();
            return Behaviour::Reply(format!("```json\n[{}]\n```", entries.join(", ")));
        }
        let prompt = user.split("Prompt:\n").nth(1).unwrap_or("");
        let mut themes = themes_of(prompt);
        if themes.is_empty() {
            themes.push("1.1 Task Goal");
        }
        return Behaviour::Reply(format!(
            "```json\n[{{\"prompt\": \"\", \"taxonomies\": {themes:?}}}]\n```"
        ));
    }
    if sys.contains("**correct**") {
        return Behaviour::Reply(P_TOP.into());
    }
    if sys.contains("condense") {
        let words: usize = user
            .split("at most ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let key = match words {
            25 => "ODD",
            w if w >= 100 => "STEP2 STEP3 key",
            _ => "vague",
        };
        return Behaviour::Reply(format!("Summary {key} of it."));
    }
    let user = req.last_user_message().unwrap_or("");
    let body = |right: &str| Behaviour::Reply(format!("```python\n{right}\n```"));
    let knows = user.contains("STEP3") || user.contains("ORIGINAL");
    match (user.contains("def inc"), knows) {
        (true, true) => body("    return x + 1"),
        (false, true) => body("    return -x"),
        _ => body("    return 0"),
    }
}

fn scratch() -> Scratch {
    let s = Scratch::new("");
    let path = s.write(
        "po.json",
        &SUITE.replace("__P_TOP__", &P_TOP.replace('\n', "\\n")),
    );
    s.write(
        "harness.toml",
        &format!(
            "suite = \"{}\"\nmodel = \"{STUB_MODEL}\"\nbackend = \"ollama\"\n[history]\nenabled = false\n\
             [variants]\nenabled = true\nseed = 7\n[variants.themes]\nenabled = true\nablate = [\"1.3\", \"2.3\", \"3.4\", \"4.1\"]\n",
            path.display()
        ),
    );
    s
}

fn questions(stored: &Value) -> &Vec<Value> {
    stored["questions"].as_array().unwrap()
}

fn find<'a>(stored: &'a Value, id: &str) -> &'a Value {
    questions(stored)
        .iter()
        .find(|q| q["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

#[test]
fn a_labeled_run_draws_the_shares_ablates_each_theme_and_replays_offline() {
    let server = StubServer::start(script);
    let s = scratch();
    let env = [("OLLAMA_HOST", server.url())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();

    // Named before any model is asked: 42 per problem and 4 ablations each.
    let list = s.prompts(&["--list"], &env);
    assert_eq!(list.status, Some(0), "{}", list.both());
    assert_eq!(
        list.stdout
            .lines()
            .filter(|l| l.ends_with(": test"))
            .count(),
        2 * 46
    );
    assert!(
        list.stdout.contains("complete::neg.ablate_2.3::r1: test"),
        "{}",
        list.stdout
    );
    assert!(
        server.requests_to("/api/chat").is_empty(),
        "listing asked a model"
    );

    let mut env_run = env.clone();
    env_run.push(("INSTA_UPDATE", "always"));
    let run = s.prompts(&[], &env_run);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(s.run_dir().join("variants.json")).unwrap())
            .unwrap();

    // p_top: its 7 sentences, each with the keywords' themes.
    let top = find(&stored, "inc.p_top");
    let sentences = top["variant"]["sentences"].as_array().unwrap();
    let texts: Vec<&str> = sentences
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "First STEP1 sentence.",
            "More words.",
            "Second STEP2.",
            "Third STEP3 key.",
            "Also.",
            "Fourth STEP4.",
            "Fifth STEP5."
        ]
    );
    assert_eq!(sentences[3]["themes"], serde_json::json!(["2.3"]));
    assert_eq!(sentences[1]["themes"], serde_json::json!([]));
    assert_eq!(
        top["variant"]["themes"],
        serde_json::json!(["1.1", "1.3", "1.5", "2.3", "3.4"])
    );

    // Each ablation: exactly its theme's sentence gone, the rest as written.
    for (theme, removed, gone) in [
        ("1.3", 2, "Second STEP2."),
        ("2.3", 3, "Third STEP3 key."),
        ("3.4", 5, "Fourth STEP4."),
    ] {
        for problem in ["inc", "neg"] {
            let q = find(&stored, &format!("{problem}.ablate_{theme}"));
            let v = &q["variant"];
            assert_eq!(v["strategy"], "ablate");
            assert_eq!(v["theme"], theme);
            assert_eq!(v["removed"], serde_json::json!([removed]));
            let text = q["question"].as_str().unwrap();
            assert!(!text.contains(gone), "{text}");
            for (i, kept) in texts.iter().enumerate() {
                if i != removed {
                    assert!(text.contains(kept), "{kept} missing from {text}");
                }
            }
            assert!(text.starts_with(&format!("def {problem}(x):\n")), "{text}");
        }
    }
    // No sentence of 4.1: no variant, and its planned cases say why.
    assert!(
        !questions(&stored)
            .iter()
            .any(|q| q["id"].as_str().unwrap().contains("ablate_4.1"))
    );
    assert!(
        run.stdout.contains("complete::inc.ablate_4.1::r1      ... ignored (not run: no sentence of inc's p_top carries theme 4.1 Sample I/O Pairs)"),
        "{}",
        run.stdout
    );

    // ODD (the 25-word summary) was asked twice, then left unlabeled.
    let odd: Vec<Request> = server
        .requests_to("/api/chat")
        .into_iter()
        .filter(|r| system(r).contains("List of taxonomies"))
        .filter(|r| {
            r.json["messages"][1]["content"]
                .as_str()
                .unwrap()
                .contains("ODD")
        })
        .collect();
    assert_eq!(odd.len(), 2 * 2, "each problem's ODD summary asked twice");
    assert!(
        odd.iter()
            .any(|r| r.json["messages"].as_array().unwrap().len() == 4)
    );
    let unlabeled = &find(&stored, "inc.summary_25w")["variant"];
    assert!(unlabeled.get("themes").is_none(), "{unlabeled}");
    assert!(
        unlabeled["unlabeled"]
            .as_str()
            .unwrap()
            .contains("`7.1 Vibes` is not a theme of the taxonomy"),
        "{unlabeled}"
    );
    for q in questions(&stored) {
        let v = &q["variant"];
        if q["id"].as_str().unwrap().ends_with("summary_25w") {
            continue;
        }
        assert!(v["themes"].is_array(), "{} unlabeled: {v}", q["id"]);
    }

    let summary = s.summary();
    let t = &summary["themes"]["complete"];
    let share = |level: &str, code: &str| t["shares"][level][code].as_f64().unwrap();
    assert_eq!(share("p_top", "2.3"), 1.0);
    assert_eq!(share("summary_150w", "2.3"), 1.0);
    assert_eq!(share("summary_10w", "2.3"), 0.0);
    assert_eq!(share("summary_10w", "1.1"), 1.0);
    assert!(
        t["shares"].get("summary_25w").is_none(),
        "unlabeled: not in the shares"
    );
    assert_eq!(t["unlabeled"], 2);
    // Masking at 0.2 (1 of 7 sentences) loses STEP3 in one of its 4 positions.
    let masked: Vec<(Value, &str)> = questions(&stored)
        .iter()
        .filter(|q| q["variant"]["strategy"] == "masking" && q["variant"]["level"] == 0.2)
        .map(|q| {
            (
                q["variant"]["themes"].clone(),
                q["question"].as_str().unwrap(),
            )
        })
        .collect();
    let holding = masked
        .iter()
        .filter(|(_, text)| text.contains("STEP3"))
        .count() as f64;
    assert_eq!(share("masking_0.2", "2.3"), holding / masked.len() as f64);
    assert_eq!(t["descriptions"]["masking_0.2"], 8);

    // The effects: the model needs STEP3, so ablate_2.3 fails everywhere.
    let ablation = |theme: &str| -> Value {
        t["ablations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["theme"] == theme)
            .unwrap()
            .clone()
    };
    let edge = ablation("2.3");
    assert_eq!(
        (
            edge["problems"].as_u64(),
            edge["p_top"].as_f64(),
            edge["ablated"].as_f64()
        ),
        (Some(2), Some(1.0), Some(0.0))
    );
    assert_eq!(edge["effect"], 1.0);
    assert_eq!(edge["interval"], serde_json::json!([1.0, 1.0]));
    // One attempt each: never beyond noise on its own.
    assert_eq!(edge["beyond_noise"], serde_json::json!([]));
    assert_eq!(ablation("1.3")["effect"], 0.0);
    assert_eq!(ablation("3.4")["effect"], 0.0);
    assert!(
        t["ablations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["theme"] != "4.1")
    );
    // 2.3 is in every passing description and no failing one: within both
    // problems the odds ratio is undefined (no discordant case), never made up.
    let edge_assoc = t["associations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["theme"] == "2.3")
        .unwrap();
    assert_eq!(edge_assoc["odds_ratio"], Value::Null, "{edge_assoc}");
    assert_eq!(edge_assoc["strata"], 2);

    // The CSV and the lines under the table say the same.
    let csv = std::fs::read_to_string(s.run_dir().join("report/themes.csv")).unwrap();
    assert!(
        csv.lines()
            .any(|l| l == "complete,ablation,ablate_2.3,2.3,Edge Case Handling,1,1,1,2,1,0"),
        "{csv}"
    );
    assert!(run.stdout.contains("ablation, pass@1(p_top) − pass@1(p_top without the theme's sentences), 95% CI over problems: 1.3 +0.00"), "{}", run.stdout);
    let html = std::fs::read_to_string(s.run_dir().join("quick_view.html")).unwrap();
    assert!(
        html.contains(r#"<figure class="radar" data-prompt="complete" data-strategy="summary""#)
    );
    assert!(html.contains(r#"data-level="p_top""#));

    // Replayed offline from the run's variants.json: no model, no labeler,
    // the same figures.
    let asked = server.requests_to("/api/chat").len();
    let replay_suite = s.run_dir().join("variants.json");
    let replay = s.prompts(
        &[],
        &[
            ("PROMPTEVAL_BACKEND", "replay"),
            ("PROMPTEVAL_SUITE", replay_suite.to_str().unwrap()),
            ("OLLAMA_HOST", "http://127.0.0.1:9"),
        ],
    );
    assert_eq!(replay.status, Some(101), "{}", replay.both());
    assert_eq!(
        server.requests_to("/api/chat").len(),
        asked,
        "the replay asked a server"
    );
    let again = s.summary();
    assert_eq!(again["themes"], summary["themes"]);
    assert_eq!(
        again["prompt_results"]["complete"]["correct_answers"],
        summary["prompt_results"]["complete"]["correct_answers"]
    );
}

/// The committed expansion (docs/guide/variants.md): every description
/// labeled by the 1.5B, p_top's sentences by hand, its 26 ablations
/// recorded live; replayed offline to the figures the docs quote.
#[test]
fn the_committed_labeled_expansion_replays_to_its_ablation_figures() {
    let s = Scratch::recorded(
        "benches-data/humaneval-po8-variants.json",
        "backend = \"replay\"\n[history]\nenabled = false",
    );
    let run = s.prompts(&[], &[]);
    assert_eq!(run.status, Some(101), "{}", run.both());
    let summary = s.summary();
    let t = &summary["themes"]["appendix_c"];
    let effects: Vec<(String, u64, f64)> = t["ablations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["theme"].as_str().unwrap().to_string(),
                a["problems"].as_u64().unwrap(),
                a["effect"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        effects,
        [
            ("1.3".to_string(), 8, 0.125),
            ("1.4".to_string(), 7, 0.1429),
            ("1.5".to_string(), 1, 0.0),
            ("2.3".to_string(), 3, 0.0),
            ("3.4".to_string(), 7, 0.1429),
        ]
    );
    assert!(
        t["ablations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["beyond_noise"] == serde_json::json!([]))
    );
    assert_eq!(t["unlabeled"], 1);
    assert_eq!(t["descriptions"]["p_top"], 8);
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("benches-data/humaneval-po8-variants.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let ablations: Vec<&Value> = questions(&stored)
        .iter()
        .filter(|q| q["variant"]["strategy"] == "ablate")
        .collect();
    assert_eq!(ablations.len(), 26);
    for top in questions(&stored)
        .iter()
        .filter(|q| q["variant"]["strategy"] == "p_top")
    {
        let v = &top["variant"];
        assert!(
            v["sentences_by"].as_str().unwrap().starts_with("hand ("),
            "{v}"
        );
        assert_eq!(v["labeled_by"], "qwen2.5-coder:1.5b");
    }
    // Each ablation is its p_top without exactly the hand's sentences of its theme.
    for a in ablations {
        let v = &a["variant"];
        let top = find(&stored, &format!("{}.p_top", v["of"].as_str().unwrap()));
        let sentences = top["variant"]["sentences"].as_array().unwrap();
        let theme = v["theme"].as_str().unwrap();
        let removed: Vec<u64> = v["removed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap())
            .collect();
        for (i, sentence) in sentences.iter().enumerate() {
            let carries = sentence["themes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t == theme);
            assert_eq!(
                carries,
                removed.contains(&(i as u64)),
                "{} sentence {i}",
                a["id"]
            );
        }
    }
}
