//! Why a suite cannot be used: [`SuiteError`] says where (the file and,
//! when known, the line), [`SuiteProblem`] what is wrong there, with the
//! key, value or question it is about. Every message is written once, here.

use std::path::PathBuf;

use serde_json::Value;

/// Files larger than this are refused: a suite is hand-written text, and a
/// runaway file should not exhaust memory before the first case.
pub const MAX_SUITE_BYTES: usize = 64 << 20;

/// The `settings` keys that are run settings, for messages.
pub const RUN_SETTING_KEYS: &str = "history, language, rounds, samples, temperature, pass_at_k";

/// Machine settings a suite must not set, and where they belong.
pub(super) const MACHINE_KEYS: [(&str, &str); 8] = [
    ("model", "harness.toml `model` or PROMPTEVAL_MODEL"),
    ("backend", "harness.toml `backend` or PROMPTEVAL_BACKEND"),
    ("concurrency", "harness.toml `concurrency`"),
    ("num_ctx", "harness.toml [llm] num_ctx"),
    (
        "timeout_secs",
        "harness.toml [llm] or [sandbox] timeout_secs",
    ),
    ("seed", "harness.toml [llm] seed"),
    ("num_predict", "harness.toml [llm] num_predict"),
    ("result_dir", "harness.toml `result_dir`"),
];

/// A suite that cannot be used, with its location.
#[derive(Debug)]
pub struct SuiteError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub problem: SuiteProblem,
}

impl std::fmt::Display for SuiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.problem),
            None => write!(f, "{}: {}", self.path.display(), self.problem),
        }
    }
}

impl std::error::Error for SuiteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.problem)
    }
}

/// What is wrong with a suite.
#[derive(Debug, thiserror::Error)]
pub enum SuiteProblem {
    /// The file is not there (or cannot be looked at).
    #[error(
        "cannot read the suite: {0}; set PROMPTEVAL_SUITE or `suite` in harness.toml to an existing JSON file"
    )]
    Missing(#[source] std::io::Error),
    /// No suite was set and the default is not there (a crate using
    /// prompteval must name its own): says where to set one.
    #[error("{hint}")]
    NotSet { hint: String },
    #[error(
        "the suite is {bytes} bytes, above the {} MiB limit; split it into several suites",
        MAX_SUITE_BYTES >> 20
    )]
    TooLarge { bytes: u64 },
    #[error("cannot read the suite: {0}")]
    Unreadable(#[source] std::io::Error),
    #[error("the file is not valid UTF-8; save it as UTF-8")]
    NotUtf8,
    #[error(
        "the suite is empty; it needs prompt templates and a `questions` list (see benches-data/example.json)"
    )]
    Empty,
    #[error("invalid JSON at column {column}: {0}", column = .0.column())]
    Json(#[source] serde_json::Error),
    #[error("the suite must be a JSON object of prompt templates and a `questions` list")]
    NotAnObject,
    #[error("`{key}` appears twice at the top level; give each prompt a unique name")]
    DuplicateKey { key: String },
    /// A top-level value that is neither a template, `questions` nor
    /// `settings`; `found` is its JSON type.
    #[error(
        "top-level `{key}` is {found}, but top-level values must be prompt templates (strings, or objects with `template` and `system_prompt`), the `questions` list or the `settings` object{}",
        questions_hint(.key)
    )]
    TopLevelValue { key: String, found: &'static str },
    #[error(
        "no prompt templates: add at least one top-level string such as \"prompt1\": \"Solve: {{question}}\""
    )]
    NoPrompts,
    #[error(
        "no `questions` list: add \"questions\": [{{\"question\": \"...\", \"answer\": \"...\"}}]"
    )]
    NoQuestions,
    #[error("`questions` is {found}, it must be a list")]
    QuestionsNotAList { found: &'static str },
    #[error("`questions` is empty; add at least one question")]
    QuestionsEmpty,
    #[error(
        "question {index} has the id `{id}`, which an earlier question already uses; ids must be unique"
    )]
    DuplicateId { index: usize, id: String },
    #[error(
        "template `{template}` uses `{{entry_point}}`, but question {index} (`{id}`) has no `entry_point`: give every question the function it asks for, or take `{{entry_point}}` out of the template"
    )]
    NoEntryPoint {
        template: String,
        index: usize,
        id: String,
    },
    /// Boxed: a JSON value makes it the largest.
    #[error(transparent)]
    Settings(Box<SettingsError>),
    #[error(transparent)]
    Prompt(#[from] PromptError),
    #[error(transparent)]
    Question(#[from] QuestionError),
    /// The interpreter could not compile-check the questions' Python;
    /// `why` is the checker's error (execute::program's).
    #[error(
        "could not check the questions' Python with {}: {why}; check [sandbox] python",
        .python.display()
    )]
    Uncheckable {
        python: PathBuf,
        #[source]
        why: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A question's `tests` do not compile; `error` is Python's message.
    #[error(
        "question {index} (`{id}`): its `tests` are not valid Python ({error}); every program would fail for the suite's sake, not the model's: fix the tests"
    )]
    InvalidTests {
        index: usize,
        id: String,
        error: String,
    },
    #[error(
        "prompt variants are evaluated without the learning history: with it, the variants of one problem would show each other's prompts and replies; set `\"history\": false` in the suite's settings, PROMPTEVAL_HISTORY=off or `[history] enabled = false`"
    )]
    VariantsWithHistory,
}

impl From<SettingsError> for SuiteProblem {
    fn from(e: SettingsError) -> SuiteProblem {
        SuiteProblem::Settings(Box::new(e))
    }
}

fn questions_hint(key: &str) -> &'static str {
    if key.eq_ignore_ascii_case("question") || key.eq_ignore_ascii_case("Questions") {
        " (did you mean `questions`?)"
    } else {
        ""
    }
}

/// A field of the suite's `settings` object that cannot be used; the value
/// is the one the suite gives.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "`settings.name` is {0}; it names the suite's snapshot folder: letters, digits, `_`, `-` or `.`"
    )]
    Name(Value),
    #[error("`settings.system_prompt` is {found}, it must be a non-empty string")]
    SystemPrompt { found: &'static str },
    #[error(
        "`settings.history` has the field `{field}`; a suite may set its `enabled`, `language` and `drop_block` (the other [history] keys are harness.toml's)"
    )]
    HistoryField { field: String },
    #[error(
        "`settings.history.drop_block` is {0}; it must be a whole number from 1 (slide by one question) up"
    )]
    DropBlock(Value),
    #[error("`settings.history` is {0}; it must be true or false (or \"on\" / \"off\")")]
    History(Value),
    #[error(
        "`settings.language` is {0}; it must be \"zh\" or \"en\" (the history labels' language), \
         or \"python\" or \"cpp\" (the programs' language)"
    )]
    Language(Value),
    #[error(
        "`settings.threads` is {0}; it must be a list of thread counts from 1 to 1024, e.g. [1, 2, 4, 8]"
    )]
    Threads(Value),
    /// `rounds`, `samples` or an entry of `pass_at_k`.
    #[error("`settings.{field}` is {value}; it must be a whole number, at least 1")]
    Count { field: String, value: Value },
    #[error("`settings.temperature` is {0}; it must be a number from 0 to 2")]
    Temperature(Value),
    #[error("`settings.pass_at_k` is {0}; it must be a list of whole numbers, e.g. [1, 10]")]
    PassAtK(Value),
    /// `home` is where a machine setting belongs instead.
    #[error(
        "`settings` has an unknown field `{field}`; it may hold `system_prompt`, `name` and the run settings {}{}",
        RUN_SETTING_KEYS,
        machine_hint(.field, *.home)
    )]
    UnknownField {
        field: String,
        home: Option<&'static str>,
    },
}

impl SettingsError {
    /// An unknown `settings` field, with where it belongs if it is a
    /// machine setting.
    pub fn unknown_field(field: &str) -> SettingsError {
        SettingsError::UnknownField {
            field: field.to_string(),
            home: MACHINE_KEYS
                .iter()
                .find(|(k, _)| *k == field)
                .map(|(_, home)| *home),
        }
    }
}

fn machine_hint(field: &str, home: Option<&str>) -> String {
    home.map(|home| {
        format!(
            "; `{field}` belongs to the machine running the suite, not to the suite: set it in {home}"
        )
    })
    .unwrap_or_default()
}

/// A prompt template that cannot be used, by its name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PromptError {
    #[error(
        "prompt name {0:?} cannot be used as a folder and test name; use letters, digits, `_`, `-` or `.` (not first)"
    )]
    Name(String),
    #[error(
        "prompt `{name}` has an unknown field `{field}`; a prompt object holds `template` and `system_prompt`"
    )]
    UnknownField { name: String, field: String },
    #[error("prompt `{name}`: `template` is {found}, it must be a string")]
    Template { name: String, found: &'static str },
    #[error("prompt `{name}` has no `template` field")]
    NoTemplate { name: String },
    #[error("prompt `{name}`: `system_prompt` is {found}, it must be a non-empty string")]
    SystemPrompt { name: String, found: &'static str },
    #[error(
        "prompt template `{name}` has no `{{question}}` placeholder; add it where the question goes"
    )]
    NoPlaceholder { name: String },
}

/// A question that cannot be used, by its 1-based index; `found` is the
/// JSON type of a value of the wrong type.
#[derive(Debug, thiserror::Error)]
pub enum QuestionError {
    #[error("question {index} is {found}, it must be an object with `question` and `answer`")]
    NotAnObject { index: usize, found: &'static str },
    #[error("question {index} has an empty `{field}`; fill it in")]
    EmptyField { index: usize, field: &'static str },
    #[error("question {index}: `{field}` is {found}, it must be a string")]
    NotAString {
        index: usize,
        field: &'static str,
        found: &'static str,
    },
    #[error("question {index} has no `{field}` field")]
    MissingField { index: usize, field: &'static str },
    #[error(
        "question {index} has neither `answer` (what the program prints) nor `tests` (Python run after it); add one"
    )]
    NoAnswer { index: usize },
    #[error("question {index}: `entry_point` {name:?} is not a Python function name")]
    EntryPoint { index: usize, name: String },
    #[error(
        "question {index}: `language` is {found}; it must be \"python\" (the default) or \"cpp\""
    )]
    Language { index: usize, found: String },
    #[error(
        "question {index}: `pareval` is not a ParEval check ({source}); write it with \
         `prompteval import pareval`"
    )]
    ParEval {
        index: usize,
        source: serde_json::Error,
    },
    #[error(
        "question {index}: a `pareval` check is C++, but the question says `\"language\": \"python\"`"
    )]
    ParEvalNotCpp { index: usize },
    #[error(
        "question {index}: `tests` are Python, run in the program's process; a C++ question is \
         judged by its `answer` (what it prints) or its `pareval` check: remove `tests`"
    )]
    CppTests { index: usize },
    #[error(
        "question {index}: `multipl_e` is not a MultiPL-E problem's name and stop tokens: {source}"
    )]
    MultiplE {
        index: usize,
        source: serde_json::Error,
    },
    #[error("question {index}: `variant` is not a prompt variant: {source}")]
    Variant {
        index: usize,
        source: serde_json::Error,
    },
    #[error("question {index}: {source}")]
    Id { index: usize, source: IdError },
    #[error("question {index}: `id` is {found}, it must be a string")]
    IdType { index: usize, found: &'static str },
    #[error("question {index}: `kind` is {found}, it must be a string")]
    KindType { index: usize, found: &'static str },
    /// A negative or non-finite `tolerance`.
    #[error("question {index}: `tolerance` must be a number >= 0")]
    Tolerance { index: usize },
    #[error("question {index}: `tolerance` is {found}, it must be a number")]
    ToleranceType { index: usize, found: &'static str },
    #[error("question {index}: `match` is {found}, it must be \"exact\", \"regex\" or \"numeric\"")]
    MatchType { index: usize, found: &'static str },
    #[error("question {index}: `match` is {kind:?}; use \"exact\", \"regex\" or \"numeric\"")]
    UnknownMatch { index: usize, kind: String },
    #[error("question {index}: `match` compares stdout with `answer`, which it lacks")]
    MatchWithoutAnswer { index: usize },
    #[error("question {index}: `tolerance` only applies to \"match\": \"numeric\"")]
    ToleranceWithoutNumeric { index: usize },
    #[error("question {index}: `answer` is not a valid regex for \"match\": \"regex\": {source}")]
    Regex { index: usize, source: regex::Error },
    #[error(
        "question {index}: `answer` {answer:?} is not a number, as \"match\": \"numeric\" needs"
    )]
    NotANumber { index: usize, answer: String },
}

/// A question's `id` that cannot name its cases.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IdError {
    /// Empty, or longer than 96 bytes.
    #[error("`id` must have 1 to 96 characters")]
    Length { id: String },
    #[error(
        "`id` {0:?} may only use letters, digits, `_`, `-` and `.` (it becomes part of test and file names)"
    )]
    Characters(String),
}
