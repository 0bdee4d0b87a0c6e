//! The JSON suite of spec §2.1 -> [`Suite`], validated, with errors that name
//! the file, the line and what to fix.
//!
//! Every top-level string is a prompt template (in file order); `questions`
//! is the list of questions. A question may carry an `id` (used in case
//! names) and a `kind`; other fields are kept for later features and ignored.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use jsonc_parser::ast;
use serde::Serialize;
use serde_json::Value;

use crate::config::line_of_offset;

/// Files larger than this are refused: a suite is hand-written text, and a
/// runaway file should not exhaust memory before the first case.
pub const MAX_SUITE_BYTES: usize = 64 << 20;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub name: String,
    pub template: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// 1-based position in the file.
    pub index: usize,
    /// Given in the file or derived (`q1_two_sum`): stable while the file's
    /// order and text stay the same.
    pub id: String,
    pub kind: Option<String>,
    pub question: String,
    pub answer: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suite {
    pub path: PathBuf,
    pub prompts: Vec<Prompt>,
    pub questions: Vec<Question>,
}

/// A suite that cannot be used, with its location.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for SuiteError {}

impl Suite {
    pub fn load(path: &Path) -> Result<Suite, SuiteError> {
        let err = |line: Option<usize>, message: String| SuiteError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| {
            err(
                None,
                format!("cannot read the suite: {e}; set PROMPTEVAL_SUITE or `suite` in harness.toml to an existing JSON file"),
            )
        })?;
        if meta.len() > MAX_SUITE_BYTES as u64 {
            return Err(err(
                None,
                format!(
                    "the suite is {} bytes, above the {} MiB limit; split it into several suites",
                    meta.len(),
                    MAX_SUITE_BYTES >> 20
                ),
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|e| err(None, format!("cannot read the suite: {e}")))?;
        Suite::parse(path, &bytes)
    }

    /// Parses suite bytes; `path` is only used in messages.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Suite, SuiteError> {
        let err = |line: Option<usize>, message: String| SuiteError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            err(
                Some(line),
                "the file is not valid UTF-8; save it as UTF-8".into(),
            )
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Err(err(
                None,
                "the suite is empty; it needs prompt templates and a `questions` list (see benches-data/example.json)".into(),
            ));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            err(
                Some(e.line()),
                format!("invalid JSON at column {}: {e}", e.column()),
            )
        })?;
        // serde_json reports syntax with positions but not where a valid value
        // sits; the AST gives the positions for the semantic checks below.
        let ast = jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default())
            .ok()
            .and_then(|r| r.value);
        let locate = Locator {
            text,
            ast: ast.as_ref(),
        };

        let Value::Object(top) = value else {
            return Err(err(
                Some(1),
                "the suite must be a JSON object of prompt templates and a `questions` list".into(),
            ));
        };
        if let Some((name, line)) = locate.duplicate_top_key() {
            return Err(err(
                Some(line),
                format!("`{name}` appears twice at the top level; give each prompt a unique name"),
            ));
        }

        let mut prompts = Vec::new();
        let mut questions_value = None;
        for (key, v) in &top {
            let line = locate.top_key_line(key);
            match (key.as_str(), v) {
                ("questions", v) => questions_value = Some(v),
                (_, Value::String(template)) => {
                    check_prompt_name(key).map_err(|m| err(line, m))?;
                    if !template.contains("{question}") {
                        return Err(err(
                            line,
                            format!(
                                "prompt template `{key}` has no `{{question}}` placeholder; add it where the question goes"
                            ),
                        ));
                    }
                    prompts.push(Prompt {
                        name: key.clone(),
                        template: template.clone(),
                    });
                }
                (_, other) => {
                    let hint = if key.eq_ignore_ascii_case("question")
                        || key.eq_ignore_ascii_case("Questions")
                    {
                        " (did you mean `questions`?)"
                    } else {
                        ""
                    };
                    return Err(err(
                        line,
                        format!(
                            "top-level `{key}` is {}, but top-level values must be prompt template strings or the `questions` list{hint}",
                            type_name(other)
                        ),
                    ));
                }
            }
        }
        if prompts.is_empty() {
            return Err(err(
                Some(1),
                "no prompt templates: add at least one top-level string such as \"prompt1\": \"Solve: {question}\"".into(),
            ));
        }
        let Some(questions_value) = questions_value else {
            return Err(err(
                Some(1),
                "no `questions` list: add \"questions\": [{\"question\": \"...\", \"answer\": \"...\"}]".into(),
            ));
        };
        let questions_line = locate.top_key_line("questions");
        let Value::Array(items) = questions_value else {
            return Err(err(
                questions_line,
                format!(
                    "`questions` is {}, it must be a list",
                    type_name(questions_value)
                ),
            ));
        };
        if items.is_empty() {
            return Err(err(
                questions_line,
                "`questions` is empty; add at least one question".into(),
            ));
        }

        let mut questions = Vec::with_capacity(items.len());
        let mut seen = HashSet::new();
        for (i, item) in items.iter().enumerate() {
            let index = i + 1;
            // Lines are looked up only for a message: finding one scans the
            // text, and doing it for every question made loading quadratic.
            let line = || locate.question_line(i).or(questions_line);
            let q = parse_question(index, item).map_err(|m| err(line(), m))?;
            if !seen.insert(q.id.clone()) {
                return Err(err(
                    line(),
                    format!(
                        "question {index} has the id `{}`, which an earlier question already uses; ids must be unique",
                        q.id
                    ),
                ));
            }
            questions.push(q);
        }
        Ok(Suite {
            path: path.to_path_buf(),
            prompts,
            questions,
        })
    }

    /// The name of the suite's snapshot folder: the file stem.
    pub fn stem(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "suite".into())
    }

    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.name == name)
    }
}

fn parse_question(index: usize, item: &Value) -> Result<Question, String> {
    let Value::Object(obj) = item else {
        return Err(format!(
            "question {index} is {}, it must be an object with `question` and `answer`",
            type_name(item)
        ));
    };
    let text = |field: &str| -> Result<String, String> {
        match obj.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(format!(
                "question {index} has an empty `{field}`; fill it in"
            )),
            // A bare number is what the program prints; a boolean is what
            // Python prints for it (`print(True)`), not JSON's `true`.
            Some(Value::Number(n)) if field == "answer" => Ok(n.to_string()),
            Some(Value::Bool(b)) if field == "answer" => {
                Ok(if *b { "True" } else { "False" }.to_string())
            }
            Some(v) => Err(format!(
                "question {index}: `{field}` is {}, it must be a string",
                type_name(v)
            )),
            None => Err(format!("question {index} has no `{field}` field")),
        }
    };
    let question = text("question")?;
    let answer = text("answer")?;
    let id = match obj.get("id") {
        None | Some(Value::Null) => derive_id(index, &question),
        Some(Value::String(id)) => {
            check_id(id).map_err(|m| format!("question {index}: {m}"))?;
            id.clone()
        }
        Some(v) => {
            return Err(format!(
                "question {index}: `id` is {}, it must be a string",
                type_name(v)
            ));
        }
    };
    let kind = match obj.get("kind") {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) => Some(k.clone()),
        Some(v) => {
            return Err(format!(
                "question {index}: `kind` is {}, it must be a string",
                type_name(v)
            ));
        }
    };
    Ok(Question {
        index,
        id,
        kind,
        question,
        answer,
    })
}

/// `q1_two_sum`: the position keeps it unique, the first two ASCII words of
/// the question make it readable and filterable (`-- two_sum`).
pub fn derive_id(index: usize, question: &str) -> String {
    static WORD: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let word = WORD.get_or_init(|| regex::Regex::new(r"[A-Za-z][A-Za-z0-9_]*").unwrap());
    let words: Vec<String> = word
        .find_iter(question.lines().next().unwrap_or(""))
        .map(|m| m.as_str().to_ascii_lowercase())
        .take(2)
        .collect();
    let mut id = format!("q{index}");
    for w in words {
        if id.len() + w.len() > 32 {
            break;
        }
        id.push('_');
        id.push_str(&w);
    }
    id
}

fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > 64 {
        return Err("`id` must have 1 to 64 characters".into());
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "`id` {id:?} may only use letters, digits, `_` and `-` (it becomes part of test and file names)"
        ));
    }
    Ok(())
}

/// Prompt names become folder names and test-name prefixes.
fn check_prompt_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.starts_with('.')
        || name.contains("::")
        || name
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "/\\:*?\"<>|".contains(c));
    if bad {
        return Err(format!(
            "prompt name {name:?} cannot be used as a folder and test name; use letters, digits, `_`, `-` or `.` (not first)"
        ));
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Finds the lines of keys and list items for messages.
struct Locator<'a> {
    text: &'a str,
    ast: Option<&'a ast::Value<'a>>,
}

impl Locator<'_> {
    fn top(&self) -> Option<&ast::Object<'_>> {
        match self.ast? {
            ast::Value::Object(o) => Some(o),
            _ => None,
        }
    }

    fn top_key_line(&self, key: &str) -> Option<usize> {
        let prop = self
            .top()?
            .properties
            .iter()
            .find(|p| p.name.as_str() == key)?;
        Some(line_of_offset(self.text, prop.range.start))
    }

    fn duplicate_top_key(&self) -> Option<(String, usize)> {
        let mut seen = HashSet::new();
        self.top()?.properties.iter().find_map(|p| {
            (!seen.insert(p.name.as_str())).then(|| {
                (
                    p.name.as_str().to_string(),
                    line_of_offset(self.text, p.range.start),
                )
            })
        })
    }

    fn question_line(&self, i: usize) -> Option<usize> {
        let prop = self
            .top()?
            .properties
            .iter()
            .find(|p| p.name.as_str() == "questions")?;
        match &prop.value {
            ast::Value::Array(a) => {
                let start = match a.elements.get(i)? {
                    ast::Value::Object(o) => o.range.start,
                    ast::Value::StringLit(s) => s.range.start,
                    ast::Value::NumberLit(n) => n.range.start,
                    ast::Value::BooleanLit(b) => b.range.start,
                    ast::Value::Array(a) => a.range.start,
                    ast::Value::NullKeyword(n) => n.range.start,
                };
                Some(line_of_offset(self.text, start))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Suite, SuiteError> {
        Suite::parse(Path::new("suite.json"), text.as_bytes())
    }

    const OK: &str = r#"{
  "p1": "A {question}",
  "p2": "B {question}",
  "questions": [
    {"question": "Implement Two Sum: nums", "answer": "[0, 1]"},
    {"id": "greet", "question": "fix", "answer": "Hello"}
  ]
}"#;

    #[test]
    fn loads_prompts_in_file_order_and_derives_ids() {
        let s = parse(OK).unwrap();
        let names: Vec<_> = s.prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["p1", "p2"]);
        assert_eq!(s.questions[0].id, "q1_implement_two");
        assert_eq!(s.questions[1].id, "greet");
        assert_eq!(s.questions[1].index, 2);
    }

    #[test]
    fn derived_ids_use_ascii_words_of_mixed_text() {
        assert_eq!(derive_id(1, "實作Two Sum演算法：給定"), "q1_two_sum");
        assert_eq!(
            derive_id(2, "修復以下程式碼的縮排問題，然後執行 greet('World')"),
            "q2_greet_world"
        );
        assert_eq!(derive_id(3, "找出以下程式碼的bug並修復"), "q3_bug");
        assert_eq!(derive_id(4, "純中文"), "q4");
    }

    #[test]
    fn the_spec_example_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches-data/example.json");
        if let Ok(s) = Suite::load(&path) {
            assert_eq!(s.prompts.len(), 3);
            assert_eq!(s.questions.len(), 3);
            assert_eq!(s.questions[2].answer, "0");
        }
    }

    fn error_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn missing_placeholder_names_prompt_and_line() {
        let e = error_of(
            "{\n \"p1\": \"A {question}\",\n \"p2\": \"no placeholder\",\n \"questions\": [{\"question\":\"q\",\"answer\":\"a\"}]}",
        );
        assert!(e.starts_with("suite.json:3:"), "{e}");
        assert!(e.contains("`p2`") && e.contains("{question}"), "{e}");
    }

    #[test]
    fn invalid_json_names_line_and_column() {
        let e = error_of(
            "{\n \"p1\": \"A {question}\",\n \"questions\": [\n {\"question\": \"q\" \"answer\": \"a\"}]}",
        );
        assert!(e.starts_with("suite.json:4:"), "{e}");
        assert!(e.contains("invalid JSON"), "{e}");
    }

    #[test]
    fn empty_answer_and_duplicate_ids_name_the_question_line() {
        let e = error_of(
            "{\"p\": \"{question}\", \"questions\": [\n{\"question\":\"q\",\"answer\":\"a\"},\n{\"question\":\"q2\",\"answer\":\"  \"}]}",
        );
        assert!(
            e.starts_with("suite.json:3:") && e.contains("empty `answer`"),
            "{e}"
        );
        let e = error_of(
            "{\"p\": \"{question}\", \"questions\": [\n{\"id\":\"x\",\"question\":\"q\",\"answer\":\"a\"},\n{\"id\":\"x\",\"question\":\"q2\",\"answer\":\"b\"}]}",
        );
        assert!(e.starts_with("suite.json:3:") && e.contains("`x`"), "{e}");
    }

    #[test]
    fn structural_errors_are_explained() {
        assert!(error_of("").contains("empty"));
        assert!(error_of("[]").contains("JSON object"));
        assert!(
            error_of("{\"questions\": [{\"question\":\"q\",\"answer\":\"a\"}]}")
                .contains("no prompt templates")
        );
        assert!(error_of("{\"p\": \"{question}\"}").contains("no `questions`"));
        assert!(error_of("{\"p\": \"{question}\", \"questions\": []}").contains("empty"));
        assert!(
            error_of("{\"p\": \"{question}\", \"question\": []}")
                .contains("did you mean `questions`")
        );
        assert!(error_of("{\"p\": \"{question}\", \"p\": \"{question}\", \"questions\": [{\"question\":\"q\",\"answer\":\"a\"}]}").contains("twice"));
        assert!(
            error_of(
                "{\"a/b\": \"{question}\", \"questions\": [{\"question\":\"q\",\"answer\":\"a\"}]}"
            )
            .contains("folder")
        );
        let e = Suite::parse(Path::new("s.json"), b"{\"p\": \"\xff{question}\"}").unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    #[test]
    fn boolean_answers_mean_what_python_prints() {
        let s = parse(
            "{\"p\": \"{question}\", \"questions\": [{\"question\":\"q\",\"answer\":true}, {\"question\":\"r\",\"answer\":false}]}",
        )
        .unwrap();
        assert_eq!(s.questions[0].answer, "True");
        assert_eq!(s.questions[1].answer, "False");
    }

    #[test]
    fn numeric_answers_are_accepted() {
        let s =
            parse("{\"p\": \"{question}\", \"questions\": [{\"question\":\"q\",\"answer\":0}]}")
                .unwrap();
        assert_eq!(s.questions[0].answer, "0");
    }
}
