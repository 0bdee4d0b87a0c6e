//! Realistic records for the report's tests: the spec's three questions
//! under three prompts. Public for tests/report.rs, not part of the API.

use std::collections::BTreeMap;

use crate::case::{ApiFailure, CaseId, CaseRecord, ExecutionRecord, Verdict};

use super::run_info::RunInfo;

pub const QUESTIONS: [(&str, &str, &str); 3] = [
    (
        "q1_two_sum",
        "實作Two Sum演算法：給定一個整數陣列nums=[2,7,11,15]和目標值target=9，找出陣列中兩個數字的索引，使得這兩個數字相加等於目標值。請實作函式並測試：nums=[2,7,11,15], target=9，輸出結果。",
        "[0, 1]",
    ),
    (
        "q2_indent",
        "修復以下程式碼的縮排問題，然後執行 greet('World')：\n```python\ndef greet(name):\nprint(f'Hello, {name}!')\n```",
        "Hello, World!\nWelcome to Python!",
    ),
    (
        "q3_average",
        "找出以下程式碼的bug並修復，然後測試空列表 calculate_average([])",
        "0",
    ),
];

pub fn template(prompt: &str) -> String {
    match prompt {
        "prompt1" => {
            "你是專業的程式設計師，請根據以下問題寫出完整的Python程式碼：{question}".into()
        }
        "prompt2" => "請仔細分析問題並提供最佳解法：{question}".into(),
        _ => "作為演算法專家，請解決以下程式設計挑戰：{question}".into(),
    }
}

pub fn info(rounds: u32) -> RunInfo {
    let prompts = ["prompt1", "prompt2", "prompt3"]
        .map(|p| (p.to_string(), template(p)))
        .to_vec();
    RunInfo {
        test_id: "test_20250814_012345".into(),
        timestamp: "2025-08-14T01:23:45".into(),
        total_execution_time: 45.671,
        suite: "benches-data/sample.json".into(),
        model: "gpt-oss:20b".into(),
        backend: "ollama".into(),
        endpoint: "http://127.0.0.1:11434".into(),
        rounds,
        samples: 1,
        variants: Default::default(),
        prompts,
        question_count: 3,
        planned_cases: 9 * rounds as usize,
        complete: true,
        isolation: serde_json::json!({
            "network": "none (user+net namespace)",
            "filesystem": "landlock: temp dir only",
            "warnings": []
        }),
        thresholds: BTreeMap::new(),
        pass_at_k: vec![1, 5, 10],
        language: crate::config::Language::Zh,
        models: Vec::new(),
        question_ids: Vec::new(),
        kinds: Default::default(),
        code_languages: Default::default(),
        not_evaluated: Vec::new(),
        cache: None,
        settings: Default::default(),
        question_fingerprints: Default::default(),
        gate: Default::default(),
        toolchains: BTreeMap::new(),
        race: None,
        budget: None,
    }
}

fn code_for(question: usize) -> &'static str {
    match question {
        1 => {
            "def two_sum(nums, target):\n    seen = {}\n    for i, n in enumerate(nums):\n        if target - n in seen:\n            return [seen[target - n], i]\n        seen[n] = i\n    return []\n\n# 測試\nprint(two_sum([2,7,11,15], 9))\n"
        }
        2 => {
            "def greet(name):\n    print(f'Hello, {name}!')\n    if name == 'World':\n        print('Welcome to Python!')\n\ngreet('World')\n"
        }
        _ => {
            "def calculate_average(numbers):\n    if not numbers:\n        return 0\n    return sum(numbers) / len(numbers)\n\nprint(calculate_average([]))\n"
        }
    }
}

/// One finished case with fields consistent with its verdict.
pub fn record(prompt: &str, question: usize, round: u32, verdict: Verdict) -> CaseRecord {
    let (question_id, text, expected) = QUESTIONS[(question - 1) % QUESTIONS.len()];
    let code = code_for(question);
    let reply = format!("Here is the solution:\n```python\n{code}```\n");
    let mut rec = CaseRecord {
        case: CaseId {
            model: None,
            prompt: prompt.into(),
            question,
            question_id: question_id.into(),
            round,
            sample: None,
        },
        name: format!("{prompt}::{question_id}::r{round}"),
        verdict,
        question: text.into(),
        expected: expected.into(),
        actual: expected.into(),
        template: template(prompt),
        system_prompt: None,
        prompt: template(prompt).replace("{question}", text),
        reply: Some(reply),
        reasoning: None,
        code: Some(code.into()),
        program: None,
        execution: Some(ExecutionRecord {
            exit_code: Some(0),
            duration_secs: 0.02,
            stdout: format!("{expected}\n"),
            ..ExecutionRecord::default()
        }),
        api_failure: None,
        detail: None,
        model: "gpt-oss:20b".into(),
        backend: "ollama".into(),
        snapshot: None,
        cached: false,
        tokens: None,
        finish_reason: None,
        generation_secs: None,
        llm_secs: 1.5,
        exec_secs: 0.01 + 0.01 * question as f64,
        speed: None,
        finished_at: "2025-08-14T01:24:00+08:00".into(),
    };
    shape_for_verdict(&mut rec, verdict);
    rec
}

fn shape_for_verdict(rec: &mut CaseRecord, verdict: Verdict) {
    match verdict {
        Verdict::Correct => {}
        Verdict::WrongAnswer => {
            rec.actual = "None".into();
            set_output(rec, "None\n", "", Some(0));
            rec.detail = Some("stdout differs from the expected answer".into());
        }
        Verdict::SyntaxError => {
            rec.code = Some("def broken(:\n    print('x'\n".into());
            rec.actual = String::new();
            let stderr = "  File \"main.py\", line 1\n    def broken(:\n               ^\nSyntaxError: invalid syntax\n";
            set_output(rec, "", stderr, Some(1));
            rec.detail = Some("SyntaxError: invalid syntax".into());
        }
        Verdict::RuntimeError => {
            rec.actual = String::new();
            let stderr =
                "Traceback (most recent call last):\nZeroDivisionError: division by zero\n";
            set_output(rec, "", stderr, Some(1));
            rec.detail = Some("ZeroDivisionError: division by zero".into());
        }
        Verdict::NoAnswer => {
            rec.actual = String::new();
            rec.reply = Some(String::new());
            rec.code = None;
            rec.reasoning = Some("Let me think about the indices".into());
            rec.finish_reason = Some("length".into());
            rec.detail = Some("the token budget ran out inside the reasoning: no answer".into());
        }
        Verdict::Timeout => {
            rec.actual = String::new();
            set_output(rec, "", "", None);
            if let Some(exec) = rec.execution.as_mut() {
                exec.timed_out = true;
                exec.signal = Some(9);
            }
            rec.exec_secs = 10.0;
        }
        Verdict::ApiError => {
            rec.reply = None;
            rec.code = None;
            rec.execution = None;
            rec.actual = String::new();
            rec.api_failure = Some(ApiFailure::Timeout);
            rec.detail = Some("no answer from http://127.0.0.1:11434 within 30s (3 tries)".into());
            rec.exec_secs = 0.0;
        }
        Verdict::NotEvaluated => {
            rec.reply = None;
            rec.code = None;
            rec.execution = None;
            rec.actual = String::new();
            rec.api_failure = Some(ApiFailure::NotRecorded);
            rec.detail = Some("the recording answered another request".into());
            rec.exec_secs = 0.0;
        }
    }
}

fn set_output(rec: &mut CaseRecord, stdout: &str, stderr: &str, exit_code: Option<i32>) {
    if let Some(exec) = rec.execution.as_mut() {
        exec.stdout = stdout.into();
        exec.stderr = stderr.into();
        exec.exit_code = exit_code;
    }
}

/// prompt1 2/3 (wrong answer on q3), prompt2 3/3, prompt3 1/3 (syntax
/// error on q2, API timeout on q3).
pub fn three_by_three() -> Vec<CaseRecord> {
    use Verdict::*;
    let plan = [
        ("prompt1", [Correct, Correct, WrongAnswer]),
        ("prompt2", [Correct, Correct, Correct]),
        ("prompt3", [Correct, SyntaxError, ApiError]),
    ];
    plan.iter()
        .flat_map(|(prompt, verdicts)| {
            verdicts
                .iter()
                .enumerate()
                .map(move |(i, v)| record(prompt, i + 1, 1, *v))
        })
        .collect()
}

/// A reply written to break out of every format the report writes.
pub const HOSTILE: &str = "</script><script>alert(1)</script>\n<img src=x onerror=alert(2)>\n<a href=\"javascript:alert(3)\">click</a>\r\nline after CR\rhidden\n\"\"\" unterminated ''' string\n# coding: zzz\n\0nul\n\\";

/// A record of question `question` with its own id (`q<question>`), for a
/// run larger than the three questions.
pub fn numbered(prompt: &str, question: usize, round: u32, verdict: Verdict) -> CaseRecord {
    let mut rec = record(prompt, 1, round, verdict);
    rec.case.question = question;
    rec.case.question_id = format!("q{question}").into();
    rec.name = rec.case.test_name();
    rec
}
