//! `language = "en"` (PROMPTEVAL_LANGUAGE=en) switches every label a person
//! reads to English and nothing a machine reads or the model is asked: the
//! same recordings replay, summary.json and the CSV keep their names.

#[path = "support/prompts_cli.rs"]
mod prompts_cli;

use prompts_cli::{Run, Scratch};

fn has_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn keys(value: &serde_json::Value) -> Vec<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

/// The example suite replayed from its recordings, in `language`.
fn replay(language: &str) -> (Scratch, Run) {
    let s = Scratch::recorded(
        "benches-data/example.json",
        &format!("backend = \"replay\"\nlanguage = \"{language}\""),
    );
    let run = s.prompts(&[], &[]);
    assert!(matches!(run.status, Some(0 | 101)), "{}", run.both());
    (s, run)
}

#[test]
fn english_labels_everywhere_a_person_reads_and_nowhere_a_machine_reads() {
    let (zh, zh_run) = replay("zh");
    let (en, en_run) = replay("en");

    // The console: the spec's lines by default, English on request.
    for (run, line) in [
        (&zh_run, "✅ 載入完成: 3 個 Prompts, 3 個問題"),
        (&zh_run, "| Prompt   | 準確率"),
        (&en_run, "✅ Loaded: 3 prompts, 3 questions"),
        (&en_run, "| Prompt   | Accuracy"),
        (&en_run, "🏆 Best prompt: "),
    ] {
        assert!(run.stdout.contains(line), "{line}: {}", run.stdout);
    }
    let chinese_lines: Vec<&str> = en_run
        .stdout
        .lines()
        .filter(|l| has_chinese(l))
        // Prompt names and questions are the suite's text, not labels.
        .filter(|l| !l.contains("::"))
        .collect();
    assert!(chinese_lines.is_empty(), "{chinese_lines:#?}");

    // The views: the quick view and each case's .py file.
    let page = std::fs::read_to_string(en.run_dir().join("quick_view.html")).unwrap();
    assert!(page.contains("Prompt performance comparison"));
    assert!(!page.contains("效能比較報告") && !page.contains("完整 Prompt 模板"));
    let py = std::fs::read_to_string(en.run_dir().join("prompt1/question_1.py")).unwrap();
    assert!(py.contains("# Full prompt template:"), "{py}");
    assert!(py.contains("# Execution result:"), "{py}");
    let zh_py = std::fs::read_to_string(zh.run_dir().join("prompt1/question_1.py")).unwrap();
    assert!(zh_py.contains("# 完整 Prompt 模板:"), "{zh_py}");

    // What machines read: the same names and the same verdicts.
    let (zs, es) = (zh.summary(), en.summary());
    assert_eq!(keys(&zs), keys(&es));
    // Execution times are the machine's; every other figure is the same.
    let figures = |s: &serde_json::Value| {
        let mut results = s["prompt_results"].clone();
        for r in results.as_object_mut().unwrap().values_mut() {
            r.as_object_mut().unwrap().remove("avg_execution_time");
        }
        results
    };
    assert_eq!(figures(&zs), figures(&es));
    let csv = |s: &Scratch| {
        let text = std::fs::read_to_string(s.run_dir().join("report/summary.csv")).unwrap();
        text.lines().next().unwrap().to_string()
    };
    assert_eq!(csv(&zh), csv(&en));
}

#[test]
fn an_unknown_language_is_refused_naming_the_variable() {
    let s = Scratch::recorded("benches-data/example.json", "backend = \"replay\"");
    let run = s.prompts(&[], &[("PROMPTEVAL_LANGUAGE", "fr")]);
    assert_eq!(run.status, Some(2), "{}", run.both());
    assert!(run.stderr.contains("PROMPTEVAL_LANGUAGE"), "{}", run.stderr);
    assert!(
        run.stderr.contains("zh") && run.stderr.contains("en"),
        "{}",
        run.stderr
    );
}
