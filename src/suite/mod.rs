//! The JSON suite of spec §2.1 -> [`Suite`], validated, with errors that name
//! the file, the line and what to fix.
//!
//! Every top-level string is a prompt template (in file order); `questions`
//! is the list of questions. A question may carry an `id` (used in case
//! names) and a `kind`; other fields are kept for later features and ignored.

pub mod code;
mod error;
pub mod import;
mod stream;
pub mod variant;

pub use error::{
    IdError, MAX_SUITE_BYTES, PromptError, QuestionError, RUN_SETTING_KEYS, SettingsError,
    SuiteError, SuiteProblem,
};

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use jsonc_parser::ast;
use serde::Serialize;
use serde_json::Value;

use crate::config::{RunSettings, line_of_offset};
pub use code::{
    CodeLanguage, DescriptionStyle, Grammar, LanguageInfo, MultiplEProblem, Naming, ParEvalCheck,
    ParallelModel,
};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompt {
    pub name: String,
    pub template: String,
    /// The system prompt written for this template (object form:
    /// `{"template": ..., "system_prompt": ...}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

impl Prompt {
    /// The template as `question` is asked with it: `{entry_point}`
    /// replaced by the question's entry point (every question has one when
    /// the template holds it: checked at load), `{question}` still to fill.
    pub fn template_for(&self, question: &Question) -> std::borrow::Cow<'_, str> {
        with_entry_point(&self.template, question.entry_point.as_deref())
    }
}

/// The placeholder a template may hold for the question's `entry_point`
/// (the function it asks for: ParEval's "Complete the C++ function
/// {entry_point}."). A suite whose template holds it while a question has
/// no entry point is refused when it loads.
pub const ENTRY_POINT: &str = "{entry_point}";

/// `template` with every `{entry_point}` replaced by `entry_point`: done
/// before `{question}` is filled, so a question's own text is never
/// touched. Borrowed as written when there is nothing to replace.
pub fn with_entry_point<'a>(
    template: &'a str,
    entry_point: Option<&str>,
) -> std::borrow::Cow<'a, str> {
    match entry_point {
        Some(name) if template.contains(ENTRY_POINT) => {
            std::borrow::Cow::Owned(template.replace(ENTRY_POINT, name))
        }
        _ => std::borrow::Cow::Borrowed(template),
    }
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
    /// What the program prints; empty when only `tests` judge the question.
    pub answer: String,
    /// How stdout is compared with `answer`.
    #[serde(rename = "match")]
    pub matcher: Match,
    /// The tests, in the question's language: for Python, run after the
    /// program in the same process (HumanEval's `check(candidate)`); for a
    /// language of MultiPL-E's, its test program, run after the prompt and
    /// the completion. The question passes when they ran to their end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<String>,
    /// The function the question asks for. The question text is then its
    /// completion-style prompt (signature and docstring), and a reply that
    /// holds only the function's body runs after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<String>,
    /// A correct solution, never sent to the model: checks the question
    /// (it must pass) and is what detailed prompts are written from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The maximally detailed description (PartialOrderEval's p_top), from
    /// which prompt variants are derived; written by a model when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_top: Option<String>,
    /// Set on a question of an expanded suite: which prompt variant of
    /// which question it is (see `variants`).
    /// Boxed: most questions have none, and inline it was 40% of every
    /// question's size (a 100,000-question suite is held all run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Box<variant::Variant>>,
    /// `"language"`: the question's own, else the suite's (resolved when
    /// the suite is parsed); None reads as Python.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<CodeLanguage>,
    /// A ParEval problem's check (C++): `validate` at every thread count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pareval: Option<Box<ParEvalCheck>>,
    /// A MultiPL-E problem's name, stop tokens and known defect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipl_e: Option<Box<MultiplEProblem>>,
}

/// How a program's stdout is compared with the expected answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Match {
    /// The spec's comparison: equal after trimming and CRLF -> LF.
    Exact,
    /// The `answer` is a pattern (regex crate syntax) found in the trimmed
    /// stdout; anchor it with `^...$` for a whole match.
    Regex,
    /// Both parse as numbers within `tolerance` of each other (absolute).
    Numeric { tolerance: f64 },
}

/// The default `tolerance` of `"match": "numeric"`.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

impl Question {
    /// The language its program is written in.
    pub fn code_language(&self) -> CodeLanguage {
        self.language.unwrap_or_default()
    }

    /// What is asked and how it is judged, as a short fingerprint: a
    /// baseline pairs this question's cases with a later run's only when
    /// the two fingerprints agree.
    pub fn fingerprint(&self) -> String {
        // A defect note says why a check may fail, not what it checks.
        let check = self.pareval.as_deref().map(|c| ParEvalCheck {
            defect: None,
            ..c.clone()
        });
        let judged = serde_json::json!([
            self.question,
            self.answer,
            self.matcher,
            self.tests,
            self.entry_point,
            self.language,
            check,
        ]);
        crate::config::fingerprint(&judged.to_string())
    }

    /// What the report and the history show as expected.
    pub fn expected_text(&self) -> String {
        if let Some(check) = &self.pareval {
            return format!(
                "ParEval's validate() passes ({})",
                check.parallelism_model.as_str()
            );
        }
        match (&self.tests, self.answer.is_empty()) {
            (Some(_), true) => TESTS_PASS.to_string(),
            _ => self.answer.clone(),
        }
    }
}

/// The expected outcome of a question judged by its tests only.
pub const TESTS_PASS: &str = "all tests pass (exit status 0)";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suite {
    pub path: PathBuf,
    pub prompts: Vec<Prompt>,
    pub questions: Vec<Question>,
    /// The system prompt for every template without its own (`settings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The suite's name for its snapshot folder (`settings.name`), when it
    /// is not the file's stem: an expanded suite keeps its source's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How the benchmark is meant to run (`settings`): applied over
    /// harness.toml, under the environment ([`crate::config::Config::apply_suite`]).
    #[serde(skip_serializing_if = "RunSettings::is_empty")]
    pub settings: RunSettings,
    /// `settings.threads`: the thread counts OpenMP questions run at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<u32>>,
}

impl Suite {
    pub fn load(path: &Path) -> Result<Suite, SuiteError> {
        let err = |problem: SuiteProblem| SuiteError {
            path: path.to_path_buf(),
            line: None,
            problem,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(SuiteProblem::Missing(e)))?;
        if meta.len() > MAX_SUITE_BYTES as u64 {
            return Err(err(SuiteProblem::TooLarge { bytes: meta.len() }));
        }
        let bytes = std::fs::read(path).map_err(|e| err(SuiteProblem::Unreadable(e)))?;
        Suite::parse(path, &bytes)
    }

    /// The line of the suite file where question `index` (1-based) starts,
    /// for a message about it found after loading (read again: lines are
    /// looked up only when something is wrong).
    pub fn question_line(&self, index: usize) -> Option<usize> {
        let text = std::fs::read_to_string(&self.path).ok()?;
        Locator::new(&text).question_line(index.checked_sub(1)?)
    }

    /// Parses suite bytes; `path` is only used in messages.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Suite, SuiteError> {
        let err = |line: Option<usize>, problem: SuiteProblem| SuiteError {
            path: path.to_path_buf(),
            line,
            problem,
        };
        let text = suite_text(bytes).map_err(|(line, problem)| err(line, problem))?;
        let json = |e: serde_json::Error| err(Some(e.line()), SuiteProblem::Json(e));
        // serde_json reports syntax with positions but not where a valid value
        // sits; the AST gives the positions for the semantic checks below,
        // parsed only when a message needs a line: for a suite of 100,000
        // questions it is the largest allocation of the whole run.
        let locate = Locator::new(text);
        if !text.trim_start().starts_with('{') {
            // Not an object: a syntax error or another kind of value.
            serde_json::from_str::<Value>(text).map_err(json)?;
            return Err(err(Some(1), SuiteProblem::NotAnObject));
        }
        let (top, questions) = stream::read_top(text, &locate).map_err(json)?;
        let mut top = TopLevel::parse(&top, questions, &locate)
            .map_err(|(line, problem)| err(line, problem))?;
        let language = top.code.language.unwrap_or_default();
        for q in &mut top.questions {
            q.language.get_or_insert(language);
            // `tests` are Python; a suite that makes a question C++ by its
            // settings cannot keep them.
            if q.tests.is_some() && !q.code_language().info().takes_tests {
                let problem = QuestionError::CppTests { index: q.index };
                return Err(err(locate.question_line(q.index - 1), problem.into()));
            }
        }
        check_entry_points(&top.prompts, &top.questions)
            .map_err(|(index, problem)| err(locate.question_line(index - 1), problem))?;
        Ok(Suite {
            path: path.to_path_buf(),
            prompts: top.prompts,
            questions: top.questions,
            system_prompt: top.system_prompt,
            name: top.name,
            settings: top.settings,
            threads: top.code.threads,
        })
    }

    /// The system prompt a case of `prompt` is sent with: the template's
    /// own, else the suite's (`settings`), else harness.toml's
    /// `llm.system_prompt`.
    pub fn system_prompt_for<'a>(
        &'a self,
        prompt: &'a Prompt,
        configured: Option<&'a str>,
    ) -> Option<&'a str> {
        prompt
            .system_prompt
            .as_deref()
            .or(self.system_prompt.as_deref())
            .or(configured)
    }

    /// The name of the suite's snapshot folder: `settings.name`, else the
    /// file stem.
    pub fn stem(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "suite".into())
    }

    /// Question id -> [`Question::fingerprint`], for every question.
    pub fn fingerprints(&self) -> std::collections::BTreeMap<String, String> {
        self.questions
            .iter()
            .map(|q| (q.id.clone(), q.fingerprint()))
            .collect()
    }

    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.name == name)
    }
}

/// A template that holds `{entry_point}` while a question has none: the
/// question's 1-based index and the problem.
fn check_entry_points(
    prompts: &[Prompt],
    questions: &[Question],
) -> Result<(), (usize, SuiteProblem)> {
    let Some(prompt) = prompts.iter().find(|p| p.template.contains(ENTRY_POINT)) else {
        return Ok(());
    };
    match questions.iter().find(|q| q.entry_point.is_none()) {
        Some(q) => Err((
            q.index,
            SuiteProblem::NoEntryPoint {
                template: prompt.name.clone(),
                index: q.index,
                id: q.id.clone(),
            },
        )),
        None => Ok(()),
    }
}

/// The top-level key of the suite's own settings. Every other top-level
/// string is a template, as the spec says; an object is a template with its
/// system prompt.
pub const SETTINGS: &str = "settings";

/// The suite's settings about its programs' language.
#[derive(Debug, Clone, Default, PartialEq)]
struct CodeSettings {
    /// `"language": "cpp"` (or `"python"`): every question's without its own.
    language: Option<CodeLanguage>,
    /// `"threads": [1, 2, 4, 8]`: OpenMP questions' thread counts.
    threads: Option<Vec<u32>>,
}

/// `settings`: (system prompt, name, run settings, code settings).
fn parse_settings(
    settings: &serde_json::Map<String, Value>,
) -> Result<(Option<String>, Option<String>, RunSettings, CodeSettings), SettingsError> {
    let mut system_prompt = None;
    let mut name = None;
    let mut run = RunSettings::default();
    let mut code = CodeSettings::default();
    for (field, v) in settings {
        match (field.as_str(), v) {
            ("name", Value::String(s)) if check_prompt_name(s).is_ok() => name = Some(s.clone()),
            ("name", other) => return Err(SettingsError::Name(other.clone())),
            ("system_prompt", Value::String(s)) if !s.trim().is_empty() => {
                system_prompt = Some(s.clone())
            }
            ("system_prompt", Value::Null) => {}
            ("system_prompt", other) => {
                return Err(SettingsError::SystemPrompt {
                    found: type_name(other),
                });
            }
            // `"history": false`, or harness.toml's table shape
            // `"history": {"enabled": false, "language": "en"}`.
            ("history", Value::Object(table)) => {
                for (key, v) in table {
                    match key.as_str() {
                        "enabled" => run.history = Some(switch(v)?),
                        "language" => run.language = Some(language(v)?),
                        "drop_block" => {
                            run.drop_block = Some(
                                v.as_u64()
                                    .filter(|n| (1..=10_000).contains(n))
                                    .map(|n| n as usize)
                                    .ok_or_else(|| SettingsError::DropBlock(v.clone()))?,
                            )
                        }
                        other => {
                            return Err(SettingsError::HistoryField {
                                field: other.to_string(),
                            });
                        }
                    }
                }
            }
            ("history", v) => run.history = Some(switch(v)?),
            // One key, two meanings told apart by the value: `"cpp"` or
            // `"python"` is the programs' language, `"zh"` or `"en"` the
            // labels' (as it always was).
            ("language", Value::String(s)) if CodeLanguage::parse(s).is_some() => {
                code.language = CodeLanguage::parse(s)
            }
            ("language", v) => run.language = Some(language(v)?),
            ("threads", v) => {
                let threads: Option<Vec<u32>> =
                    v.as_array().filter(|a| !a.is_empty()).and_then(|a| {
                        a.iter()
                            .map(|t| {
                                t.as_u64()
                                    .filter(|t| (1..=1024).contains(t))
                                    .map(|t| t as u32)
                            })
                            .collect()
                    });
                code.threads = Some(threads.ok_or_else(|| SettingsError::Threads(v.clone()))?);
            }
            ("rounds", v) => run.rounds = Some(count(field, v)?),
            ("samples", v) => run.samples = Some(count(field, v)?),
            ("temperature", v) => {
                run.temperature = Some(
                    v.as_f64()
                        .filter(|t| (0.0..=2.0).contains(t))
                        .ok_or_else(|| SettingsError::Temperature(v.clone()))?,
                )
            }
            ("pass_at_k", v) => {
                let ks = v
                    .as_array()
                    .filter(|a| !a.is_empty())
                    .map(|a| {
                        a.iter()
                            .map(|k| count(field, k).map(|k| k as usize))
                            .collect()
                    })
                    .unwrap_or_else(|| Err(SettingsError::PassAtK(v.clone())))?;
                run.pass_at_k = Some(ks);
            }
            (other, _) => return Err(SettingsError::unknown_field(other)),
        }
    }
    Ok((system_prompt, name, run, code))
}

/// `true`/`false` or `"on"`/`"off"`, as PROMPTEVAL_HISTORY reads.
fn switch(v: &Value) -> Result<bool, SettingsError> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) if s == "on" => Ok(true),
        Value::String(s) if s == "off" => Ok(false),
        other => Err(SettingsError::History(other.clone())),
    }
}

/// `"zh"` or `"en"`.
fn language(v: &Value) -> Result<crate::config::Language, SettingsError> {
    // The names harness.toml's `[history] language` takes (serde's).
    serde_json::from_value(v.clone()).map_err(|_| SettingsError::Language(v.clone()))
}

/// A whole number of at least 1.
fn count(field: &str, v: &Value) -> Result<u32, SettingsError> {
    v.as_u64()
        .filter(|n| (1..=u64::from(u32::MAX)).contains(n))
        .map(|n| n as u32)
        .ok_or_else(|| SettingsError::Count {
            field: field.to_string(),
            value: v.clone(),
        })
}

fn parse_prompt(name: &str, v: &Value) -> Result<Prompt, PromptError> {
    let (template, system_prompt) = match v {
        Value::String(t) => (t.clone(), None),
        Value::Object(obj) => {
            if let Some(unknown) = obj
                .keys()
                .find(|k| !["template", "system_prompt"].contains(&k.as_str()))
            {
                return Err(PromptError::UnknownField {
                    name: name.to_string(),
                    field: unknown.clone(),
                });
            }
            let template = match obj.get("template") {
                Some(Value::String(t)) => t.clone(),
                Some(other) => {
                    return Err(PromptError::Template {
                        name: name.to_string(),
                        found: type_name(other),
                    });
                }
                None => {
                    return Err(PromptError::NoTemplate {
                        name: name.to_string(),
                    });
                }
            };
            let system = match obj.get("system_prompt") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
                Some(other) => {
                    return Err(PromptError::SystemPrompt {
                        name: name.to_string(),
                        found: type_name(other),
                    });
                }
            };
            (template, system)
        }
        _ => unreachable!("only strings and objects are prompts"),
    };
    if !template.contains("{question}") {
        return Err(PromptError::NoPlaceholder {
            name: name.to_string(),
        });
    }
    Ok(Prompt {
        name: name.to_string(),
        template,
        system_prompt,
    })
}

/// A problem found while parsing, with the line it is on when known.
type Located = (Option<usize>, SuiteProblem);

/// The suite's text: UTF-8 (the line of the first bad byte otherwise),
/// without a byte-order mark, not blank.
fn suite_text(bytes: &[u8]) -> Result<&str, Located> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        (Some(line), SuiteProblem::NotUtf8)
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err((None, SuiteProblem::Empty));
    }
    Ok(text)
}

/// The suite's top-level keys: its templates, its settings and its
/// questions.
struct TopLevel {
    prompts: Vec<Prompt>,
    questions: Vec<Question>,
    system_prompt: Option<String>,
    name: Option<String>,
    settings: RunSettings,
    code: CodeSettings,
}

impl TopLevel {
    /// Checks the keys other than `questions` (in `top`), then that
    /// `questions` is a list that is not empty, then its first invalid
    /// question: the order the problems were always reported in.
    fn parse(
        top: &serde_json::Map<String, Value>,
        questions: Option<stream::Questions>,
        locate: &Locator,
    ) -> Result<TopLevel, Located> {
        if let Some((name, line)) = locate.duplicate_top_key() {
            let key = name.to_string();
            return Err((Some(line), SuiteProblem::DuplicateKey { key }));
        }
        let mut prompts = Vec::new();
        let (mut system_prompt, mut name, mut settings, mut code) =
            (None, None, RunSettings::default(), CodeSettings::default());
        for (key, v) in top {
            // Looked up only for a message (see Locator).
            let line = || locate.top_key_line(key);
            match (key.as_str(), v) {
                (SETTINGS, Value::Object(fields)) if !fields.contains_key("template") => {
                    (system_prompt, name, settings, code) =
                        parse_settings(fields).map_err(|e| (line(), e.into()))?;
                }
                (_, Value::String(_)) | (_, Value::Object(_)) => {
                    check_prompt_name(key).map_err(|e| (line(), e.into()))?;
                    prompts.push(parse_prompt(key, v).map_err(|e| (line(), e.into()))?);
                }
                (_, other) => {
                    let (key, found) = (key.clone(), type_name(other));
                    return Err((line(), SuiteProblem::TopLevelValue { key, found }));
                }
            }
        }
        if prompts.is_empty() {
            return Err((Some(1), SuiteProblem::NoPrompts));
        }
        let line = || locate.top_key_line("questions");
        let questions = match questions {
            None => return Err((Some(1), SuiteProblem::NoQuestions)),
            Some(stream::Questions::Other(value)) => {
                let found = type_name(&value);
                return Err((line(), SuiteProblem::QuestionsNotAList { found }));
            }
            Some(stream::Questions::Parsed { items: 0, .. }) => {
                return Err((line(), SuiteProblem::QuestionsEmpty));
            }
            Some(stream::Questions::Parsed {
                first_error: Some(problem),
                ..
            }) => return Err(problem),
            Some(stream::Questions::Parsed { questions, .. }) => questions,
        };
        Ok(TopLevel {
            prompts,
            questions,
            system_prompt,
            name,
            settings,
            code,
        })
    }
}

fn parse_question(index: usize, item: &Value) -> Result<Question, QuestionError> {
    let Value::Object(obj) = item else {
        return Err(QuestionError::NotAnObject {
            index,
            found: type_name(item),
        });
    };
    let fields = Fields { index, obj };
    // A variant may have no description at all (p_bot of a plain question).
    let question = match obj.get("question") {
        Some(Value::String(s)) if obj.contains_key("variant") => s.clone(),
        _ => fields.text("question")?,
    };
    let tests = fields.optional_text("tests")?;
    let judged_by_check = obj.get("pareval").is_some_and(|v| !v.is_null());
    let answer = match (fields.optional_text("answer")?, &tests) {
        (Some(a), _) => a,
        (None, Some(_)) => String::new(),
        (None, None) if judged_by_check => String::new(),
        (None, None) => return Err(QuestionError::NoAnswer { index }),
    };
    let entry_point = match fields.optional_text("entry_point")? {
        Some(name) if !is_identifier(&name) => {
            return Err(QuestionError::EntryPoint { index, name });
        }
        other => other,
    };
    // In this order, so that the first problem reported stays the same.
    let matcher = parse_match(index, obj, &answer)?;
    let reference = fields.optional_text("reference")?;
    let p_top = fields.optional_text("p_top")?;
    let variant = fields.variant()?;
    let language = fields.language()?;
    let pareval = fields.pareval()?;
    let multipl_e = fields.multipl_e()?;
    if pareval.is_some() && language == Some(CodeLanguage::Python) {
        return Err(QuestionError::ParEvalNotCpp { index });
    }
    // `tests` are Python run in the program's process; a C++ question is
    // judged by what it prints or by its ParEval check.
    if tests.is_some() && (pareval.is_some() || language.is_some_and(|l| !l.info().takes_tests)) {
        return Err(QuestionError::CppTests { index });
    }
    Ok(Question {
        index,
        id: fields.id(&question)?,
        kind: fields.kind()?,
        question,
        answer,
        matcher,
        tests,
        entry_point,
        reference,
        p_top,
        variant,
        // A ParEval check is C++ whatever the suite says.
        language: language.or(pareval.as_ref().map(|_| CodeLanguage::Cpp)),
        pareval,
        multipl_e,
    })
}

/// The fields of question `index`, read one by one.
struct Fields<'a> {
    index: usize,
    obj: &'a serde_json::Map<String, Value>,
}

impl Fields<'_> {
    /// A required text field. A bare number is what the program prints; a
    /// boolean `answer` is what Python prints for it (`print(True)`), not
    /// JSON's `true`.
    fn text(&self, field: &'static str) -> Result<String, QuestionError> {
        let index = self.index;
        match self.obj.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(QuestionError::EmptyField { index, field }),
            Some(Value::Number(n)) if field == "answer" => Ok(n.to_string()),
            Some(Value::Bool(b)) if field == "answer" => {
                Ok(if *b { "True" } else { "False" }.to_string())
            }
            Some(v) => Err(QuestionError::NotAString {
                index,
                field,
                found: type_name(v),
            }),
            None => Err(QuestionError::MissingField { index, field }),
        }
    }

    /// A text field that may be absent or null.
    fn optional_text(&self, field: &'static str) -> Result<Option<String>, QuestionError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            _ => self.text(field).map(Some),
        }
    }

    /// `id`, or one derived from the position and the question's text.
    fn id(&self, question: &str) -> Result<String, QuestionError> {
        let index = self.index;
        match self.obj.get("id") {
            None | Some(Value::Null) => Ok(derive_id(index, question)),
            Some(Value::String(id)) => {
                check_id(id).map_err(|source| QuestionError::Id { index, source })?;
                Ok(id.clone())
            }
            Some(v) => Err(QuestionError::IdType {
                index,
                found: type_name(v),
            }),
        }
    }

    fn kind(&self) -> Result<Option<String>, QuestionError> {
        match self.obj.get("kind") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(k)) => Ok(Some(k.clone())),
            Some(v) => Err(QuestionError::KindType {
                index: self.index,
                found: type_name(v),
            }),
        }
    }

    /// `"language"`: `"python"` or `"cpp"` (`"c++"`).
    fn language(&self) -> Result<Option<CodeLanguage>, QuestionError> {
        match self.obj.get("language") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => {
                CodeLanguage::parse(s)
                    .map(Some)
                    .ok_or_else(|| QuestionError::Language {
                        index: self.index,
                        found: s.clone(),
                    })
            }
            Some(v) => Err(QuestionError::Language {
                index: self.index,
                found: v.to_string(),
            }),
        }
    }

    /// `"pareval"`: what a ParEval problem's check needs.
    fn pareval(&self) -> Result<Option<Box<ParEvalCheck>>, QuestionError> {
        match self.obj.get("pareval") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value::<ParEvalCheck>(v.clone())
                .map(|v| Some(Box::new(v)))
                .map_err(|source| QuestionError::ParEval {
                    index: self.index,
                    source,
                }),
        }
    }

    /// `"multipl_e"`: a MultiPL-E problem's name and stop tokens.
    fn multipl_e(&self) -> Result<Option<Box<MultiplEProblem>>, QuestionError> {
        match self.obj.get("multipl_e") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value::<MultiplEProblem>(v.clone())
                .map(|v| Some(Box::new(v)))
                .map_err(|source| QuestionError::MultiplE {
                    index: self.index,
                    source,
                }),
        }
    }

    fn variant(&self) -> Result<Option<Box<variant::Variant>>, QuestionError> {
        match self.obj.get("variant") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value::<variant::Variant>(v.clone())
                .map(|v| Some(Box::new(v)))
                .map_err(|source| QuestionError::Variant {
                    index: self.index,
                    source,
                }),
        }
    }
}

/// `match` (`exact`, `regex`, `numeric`) and `tolerance`.
fn parse_match(
    index: usize,
    obj: &serde_json::Map<String, Value>,
    answer: &str,
) -> Result<Match, QuestionError> {
    let tolerance = match obj.get("tolerance") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(t) if t >= 0.0 && t.is_finite() => Some(t),
            _ => return Err(QuestionError::Tolerance { index }),
        },
        Some(v) => {
            return Err(QuestionError::ToleranceType {
                index,
                found: type_name(v),
            });
        }
    };
    let kind = match obj.get("match") {
        None | Some(Value::Null) => "exact",
        Some(Value::String(k)) => k.as_str(),
        Some(v) => {
            return Err(QuestionError::MatchType {
                index,
                found: type_name(v),
            });
        }
    };
    if kind != "exact" && answer.is_empty() {
        return Err(QuestionError::MatchWithoutAnswer { index });
    }
    if tolerance.is_some() && kind != "numeric" {
        return Err(QuestionError::ToleranceWithoutNumeric { index });
    }
    match kind {
        "exact" => Ok(Match::Exact),
        "regex" => {
            regex::Regex::new(answer).map_err(|source| QuestionError::Regex { index, source })?;
            Ok(Match::Regex)
        }
        "numeric" => {
            if answer.trim().parse::<f64>().is_err() {
                return Err(QuestionError::NotANumber {
                    index,
                    answer: answer.to_string(),
                });
            }
            Ok(Match::Numeric {
                tolerance: tolerance.unwrap_or(DEFAULT_TOLERANCE),
            })
        }
        other => Err(QuestionError::UnknownMatch {
            index,
            kind: other.to_string(),
        }),
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

fn check_id(id: &str) -> Result<(), IdError> {
    // 64 for a written id, plus a variant's suffix (`.paragraph_0.4-2`).
    if id.is_empty() || id.len() > 96 {
        return Err(IdError::Length { id: id.to_string() });
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        || id.starts_with('.')
    {
        return Err(IdError::Characters(id.to_string()));
    }
    Ok(())
}

/// Prompt names become folder names and test-name prefixes.
fn check_prompt_name(name: &str) -> Result<(), PromptError> {
    let bad = name.is_empty()
        || name.starts_with('.')
        || name.contains("::")
        || name
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || "/\\:*?\"<>|".contains(c));
    if bad {
        return Err(PromptError::Name(name.to_string()));
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
    ast: std::cell::OnceCell<Option<ast::Value<'a>>>,
}

impl<'a> Locator<'a> {
    fn new(text: &'a str) -> Locator<'a> {
        Locator {
            text,
            ast: std::cell::OnceCell::new(),
        }
    }

    fn top(&self) -> Option<&ast::Object<'a>> {
        let ast = self.ast.get_or_init(|| {
            jsonc_parser::parse_to_ast(self.text, &Default::default(), &Default::default())
                .ok()
                .and_then(|r| r.value)
        });
        match ast.as_ref()? {
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

    /// A top-level key given twice (serde_json keeps the last silently),
    /// with its line. The keys are read without building the values; the
    /// AST is parsed only for the line of one found.
    fn duplicate_top_key(&self) -> Option<(String, usize)> {
        let mut seen = HashSet::new();
        let keys = top_level_keys(self.text)?;
        if keys.iter().all(|k| seen.insert(k.as_str())) {
            return None;
        }
        seen.clear();
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

/// The top-level object's keys in file order, duplicates kept; `None` when
/// the text is not an object.
fn top_level_keys(text: &str) -> Option<Vec<String>> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(
            self,
            mut map: M,
        ) -> Result<Vec<String>, M::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, Keys).ok()
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
    fn questions_with_tests_matches_and_an_entry_point() {
        let s = parse(
            r#"{"p1": "Complete: {question}",
                "questions": [
                  {"id": "t", "question": "def f():\n    \"\"\"One.\"\"\"\n", "entry_point": "f",
                   "tests": "assert f() == 1"},
                  {"id": "r", "question": "Greet", "answer": "^Hello, \\w+!$", "match": "regex"},
                  {"id": "n", "question": "Pi", "answer": 3.14159, "match": "numeric", "tolerance": 0.001},
                  {"id": "b", "question": "True?", "answer": true}
                ]}"#,
        )
        .unwrap();
        let q = &s.questions;
        assert_eq!(q[0].tests.as_deref(), Some("assert f() == 1"));
        assert_eq!(q[0].entry_point.as_deref(), Some("f"));
        assert_eq!(q[0].answer, "");
        assert_eq!(q[0].expected_text(), TESTS_PASS);
        assert_eq!(q[1].matcher, Match::Regex);
        assert_eq!(q[1].answer, r"^Hello, \w+!$");
        assert_eq!(q[2].matcher, Match::Numeric { tolerance: 0.001 });
        assert_eq!(q[3].answer, "True");
        assert_eq!(q[3].matcher, Match::Exact);
    }

    #[test]
    fn bad_question_kinds_are_named_with_their_line() {
        for (question, says) in [
            (r#"{"question": "q"}"#, "neither `answer`"),
            (
                r#"{"question": "q", "answer": "(", "match": "regex"}"#,
                "not a valid regex",
            ),
            (
                r#"{"question": "q", "answer": "pi", "match": "numeric"}"#,
                "is not a number",
            ),
            (
                r#"{"question": "q", "answer": "1", "tolerance": 0.1}"#,
                "only applies",
            ),
            (
                r#"{"question": "q", "answer": "1", "match": "fuzzy"}"#,
                "use \"exact\"",
            ),
            (
                r#"{"question": "q", "tests": "pass", "match": "regex"}"#,
                "which it lacks",
            ),
            (
                r#"{"question": "q", "tests": "pass", "entry_point": "not a name"}"#,
                "not a Python function name",
            ),
        ] {
            let e = error_of(&format!(
                "{{\"p\": \"{{question}}\",\n\"questions\": [\n{question}]}}"
            ));
            assert!(e.starts_with("suite.json:3:"), "{e}");
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_suite_carries_system_prompts_without_breaking_the_template_rule() {
        let s = parse(
            r#"{"settings": {"system_prompt": "You are a Python expert."},
                "plain": "A: {question}",
                "own": {"template": "B: {question}", "system_prompt": "Answer tersely."},
                "questions": [{"question": "q", "answer": "1"}]}"#,
        )
        .unwrap();
        assert_eq!(s.prompts.len(), 2);
        let (plain, own) = (&s.prompts[0], &s.prompts[1]);
        assert_eq!(
            s.system_prompt_for(plain, Some("toml")),
            Some("You are a Python expert.")
        );
        assert_eq!(
            s.system_prompt_for(own, Some("toml")),
            Some("Answer tersely.")
        );
        let bare = parse(r#"{"p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#)
            .unwrap();
        assert_eq!(
            bare.system_prompt_for(&bare.prompts[0], Some("toml")),
            Some("toml")
        );
        for (suite, says) in [
            (
                r#"{"settings": {"num_ctx": 8192}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#,
                "`num_ctx` belongs to the machine running the suite, not to the suite: set it in harness.toml [llm] num_ctx",
            ),
            (
                r#"{"settings": {"history": "maybe"}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#,
                "`settings.history` is \"maybe\"; it must be true or false",
            ),
            (
                r#"{"settings": {"rounds": 0}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#,
                "`settings.rounds` is 0; it must be a whole number, at least 1",
            ),
            (
                r#"{"p": {"system_prompt": "x"}, "questions": [{"question": "q", "answer": "1"}]}"#,
                "no `template` field",
            ),
            (
                r#"{"p": {"template": "no placeholder"}, "questions": [{"question": "q", "answer": "1"}]}"#,
                "no `{question}`",
            ),
        ] {
            let e = error_of(suite);
            assert!(e.contains(says), "{e}");
        }
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
    fn a_template_with_entry_point_needs_it_on_every_question() {
        let text = "{\"p\": \"{question}\",\n \"fn\": \"Complete {entry_point}: {question}\",\n \"questions\": [\n{\"question\": \"def f():\", \"entry_point\": \"f\", \"tests\": \"pass\"},\n{\"id\": \"plain\", \"question\": \"q\", \"answer\": \"1\"}]}";
        let e = error_of(text);
        assert!(e.starts_with("suite.json:5:"), "{e}");
        assert!(
            e.contains("template `fn` uses `{entry_point}`")
                && e.contains("question 2 (`plain`) has no `entry_point`"),
            "{e}"
        );
        let ok = parse(&text.replace(
            "\"answer\": \"1\"}",
            "\"entry_point\": \"g\", \"tests\": \"pass\"}",
        ))
        .unwrap();
        let (fill, q) = (&ok.prompts[1], &ok.questions[1]);
        assert_eq!(fill.template_for(q), "Complete g: {question}");
        // A template without it is the template as written.
        assert_eq!(ok.prompts[0].template_for(q), "{question}");
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
    fn questions_read_one_at_a_time_report_what_the_whole_document_did() {
        // Not a list, whatever it is instead.
        for (value, found) in [
            ("\"x\"", "a string"),
            ("{\"a\": 1}", "an object"),
            ("3", "a number"),
            ("null", "null"),
            ("true", "a boolean"),
        ] {
            let e = error_of(&format!(
                "{{\"p\": \"{{question}}\", \"questions\": {value}}}"
            ));
            assert!(e.contains(found), "{value}: {e}");
        }
        // A bad template after the questions is reported before a bad
        // question, as when every key was read before any question.
        let e = error_of("{\"questions\": [{\"question\": \"q\"}], \"p\": 3}");
        assert!(e.contains("`p`") && !e.contains("answer"), "{e}");
        // A duplicate id far from its first use, among many.
        let mut items: Vec<String> = (0..500)
            .map(|i| format!("{{\"id\":\"q{i}\",\"question\":\"q\",\"answer\":\"a\"}}"))
            .collect();
        items.push("{\"id\":\"q7\",\"question\":\"q\",\"answer\":\"a\"}".into());
        let text = format!(
            "{{\"p\": \"{{question}}\", \"questions\": [\n{}]}}",
            items.join(",\n")
        );
        let e = error_of(&text);
        assert!(
            e.starts_with("suite.json:502:") && e.contains("`q7`"),
            "{e}"
        );
        items.pop();
        let text = format!(
            "{{\"p\": \"{{question}}\", \"questions\": [\n{}]}}",
            items.join(",\n")
        );
        let suite = parse(&text).expect("500 distinct ids");
        assert_eq!(suite.questions.len(), 500);
        assert_eq!(suite.questions[499].id, "q499");
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

    #[test]
    fn a_suite_says_how_it_is_meant_to_run() {
        let s = parse(
            r#"{"settings": {"history": "off", "language": "en", "rounds": 3, "samples": 2,
                 "temperature": 0.8, "pass_at_k": [1, 2]},
                "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#,
        )
        .unwrap();
        assert_eq!(
            s.settings,
            RunSettings {
                history: Some(false),
                language: Some(crate::config::Language::En),
                rounds: Some(3),
                samples: Some(2),
                temperature: Some(0.8),
                pass_at_k: Some(vec![1, 2]),
                drop_block: None,
            }
        );
        let on = parse(r#"{"settings": {"history": true}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#).unwrap();
        assert_eq!(on.settings.history, Some(true));
        let table = parse(r#"{"settings": {"history": {"enabled": false, "language": "en"}}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#).unwrap();
        assert_eq!(
            (table.settings.history, table.settings.language),
            (Some(false), Some(crate::config::Language::En))
        );
        let block = parse(r#"{"settings": {"history": {"drop_block": 1}}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#).unwrap();
        assert_eq!(block.settings.drop_block, Some(1));
        let zero = parse(r#"{"settings": {"history": {"drop_block": 0}}, "p": "{question}", "questions": [{"question": "q", "answer": "1"}]}"#).unwrap_err();
        assert!(
            zero.to_string()
                .contains("`settings.history.drop_block` is 0; it must be a whole number from 1"),
            "{zero}"
        );
        assert!(parse(OK).unwrap().settings.is_empty());
    }
}
