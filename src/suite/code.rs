//! What language a question's program is written in, and, for a ParEval
//! problem, what its check needs (the driver and reference the ParEval
//! authors wrote, and the problem size their runs use).

use serde::{Deserialize, Serialize};

/// The language of the program a question asks for: `"language"` on the
/// question, else the suite's `settings.language` when it names one of
/// these, else Python. Everything a language is (its names, file
/// extension, fence tags, comment syntax) is one row of [`LANGUAGES`];
/// how its programs are built, run and judged lives in its folder under
/// `crate::execute`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CodeLanguage {
    #[default]
    Python,
    Cpp,
    Lua,
    Racket,
    R,
    OCaml,
    Perl,
    D,
    Bash,
    Ruby,
    Php,
    JavaScript,
    Go,
    Java,
    Rust,
}

/// One language's names and syntax.
#[derive(Debug)]
pub struct LanguageInfo {
    pub language: CodeLanguage,
    /// The name in suites and reports (`"language": "lua"`).
    pub id: &'static str,
    /// Other names `"language"` accepts, MultiPL-E's file code among them.
    pub aliases: &'static [&'static str],
    /// MultiPL-E's code in its file names (`humaneval-<code>-reworded.jsonl`).
    pub multipl_e: Option<&'static str>,
    /// The name in prose.
    pub name: &'static str,
    pub extension: &'static str,
    /// Fence tags of a block of its code (the tag's first word, lowercased).
    pub fence_tags: &'static [&'static str],
    /// How a line comment starts.
    pub line_comment: &'static str,
    /// What closes it on the same line (OCaml's ` *)`), else empty.
    pub comment_close: &'static str,
    /// Where a function prompt's description sits.
    pub description: DescriptionStyle,
    /// How the paper's `correct...` renames a function.
    pub naming: Naming,
    /// Who reads the program first, in prose ("the C++ compiler").
    pub checker: &'static str,
    /// The tree-sitter grammar that highlights it in the quick view.
    pub grammar: Option<Grammar>,
    /// Whether a question may carry `tests` in the language (C++ is judged
    /// by its output or its ParEval check).
    pub takes_tests: bool,
    /// What its checker writes on stderr when the program does not parse
    /// (a program that did not parse is shown commented out).
    pub syntax_markers: &'static [&'static str],
}

/// The grammars the quick view highlights with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grammar {
    Python,
    Cpp,
    Lua,
    Bash,
    Ruby,
    Php,
    JavaScript,
    Go,
    Java,
    Rust,
}

/// Where a function prompt's description sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptionStyle {
    /// A docstring under the signature (Python).
    Docstring,
    /// ParEval's `/* */` comment (or `//` lines) before the signature.
    CComments,
    /// Comments before the signature, in the language's syntax (MultiPL-E's
    /// prompts).
    Comments,
}

/// The paper's renaming of the function to `correct...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// `correct_<name>` (HumanEval).
    Snake,
    /// `correct<Name>` (ParEval's baselines).
    Camel,
    /// Camel for a camelCase name, else snake.
    AsTheName,
}

/// Every language, in [`CodeLanguage`]'s order.
pub const LANGUAGES: &[LanguageInfo] = &[
    LanguageInfo {
        language: CodeLanguage::Python,
        id: "python",
        aliases: &["python3", "py"],
        multipl_e: Some("py"),
        name: "Python",
        extension: "py",
        fence_tags: &["python", "py", "python3", "py3", "{.python}"],
        line_comment: "#",
        comment_close: "",
        description: DescriptionStyle::Docstring,
        naming: Naming::Snake,
        checker: "Python",
        grammar: Some(Grammar::Python),
        takes_tests: true,
        syntax_markers: &["SyntaxError", "IndentationError", "TabError"],
    },
    LanguageInfo {
        language: CodeLanguage::Cpp,
        id: "cpp",
        aliases: &["c++", "cxx"],
        multipl_e: Some("cpp"),
        name: "C++",
        extension: "cpp",
        fence_tags: &[
            "cpp", "c++", "c", "cc", "cxx", "hpp", "h", "{.cpp}", "{.c++}",
        ],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::CComments,
        naming: Naming::Camel,
        checker: "the C++ compiler",
        grammar: Some(Grammar::Cpp),
        takes_tests: false,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Lua,
        id: "lua",
        aliases: &[],
        multipl_e: Some("lua"),
        name: "Lua",
        extension: "lua",
        fence_tags: &["lua", "{.lua}"],
        line_comment: "--",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "Lua",
        grammar: Some(Grammar::Lua),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Racket,
        id: "racket",
        aliases: &["rkt"],
        multipl_e: Some("rkt"),
        name: "Racket",
        extension: "rkt",
        fence_tags: &["racket", "rkt", "scheme", "lisp", "{.racket}"],
        line_comment: ";;",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "Racket",
        grammar: None,
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::R,
        id: "r",
        aliases: &[],
        multipl_e: Some("r"),
        name: "R",
        extension: "r",
        fence_tags: &["r", "{r}", "{.r}"],
        line_comment: "#",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "R",
        grammar: None,
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::OCaml,
        id: "ocaml",
        aliases: &["ml"],
        multipl_e: Some("ml"),
        name: "OCaml",
        extension: "ml",
        fence_tags: &["ocaml", "ml", "{.ocaml}"],
        line_comment: "(*",
        comment_close: " *)",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "OCaml",
        grammar: None,
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Perl,
        id: "perl",
        aliases: &["pl"],
        multipl_e: Some("pl"),
        name: "Perl",
        extension: "pl",
        fence_tags: &["perl", "pl", "{.perl}"],
        line_comment: "#",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "Perl",
        grammar: None,
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::D,
        id: "d",
        aliases: &["dlang"],
        multipl_e: Some("d"),
        name: "D",
        extension: "d",
        fence_tags: &["d", "dlang", "{.d}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "the D compiler (gdc)",
        grammar: None,
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Bash,
        id: "bash",
        aliases: &["sh"],
        multipl_e: Some("sh"),
        name: "Bash",
        extension: "sh",
        fence_tags: &["bash", "sh", "shell", "zsh", "{.bash}"],
        line_comment: "#",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "Bash",
        grammar: Some(Grammar::Bash),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Ruby,
        id: "ruby",
        aliases: &["rb"],
        multipl_e: Some("rb"),
        name: "Ruby",
        extension: "rb",
        fence_tags: &["ruby", "rb", "{.ruby}"],
        line_comment: "#",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "Ruby",
        grammar: Some(Grammar::Ruby),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Php,
        id: "php",
        aliases: &[],
        multipl_e: Some("php"),
        name: "PHP",
        extension: "php",
        fence_tags: &["php", "{.php}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "PHP",
        grammar: Some(Grammar::Php),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::JavaScript,
        id: "javascript",
        aliases: &["js", "node"],
        multipl_e: Some("js"),
        name: "JavaScript",
        extension: "js",
        fence_tags: &["javascript", "js", "node", "jsx", "{.javascript}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "JavaScript",
        grammar: Some(Grammar::JavaScript),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Go,
        id: "go",
        aliases: &["golang"],
        multipl_e: Some("go"),
        name: "Go",
        extension: "go",
        fence_tags: &["go", "golang", "{.go}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "the Go compiler",
        grammar: Some(Grammar::Go),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Java,
        id: "java",
        aliases: &[],
        multipl_e: Some("java"),
        name: "Java",
        extension: "java",
        fence_tags: &["java", "{.java}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "the Java compiler",
        grammar: Some(Grammar::Java),
        takes_tests: true,
        syntax_markers: &[],
    },
    LanguageInfo {
        language: CodeLanguage::Rust,
        id: "rust",
        aliases: &["rs"],
        multipl_e: Some("rs"),
        name: "Rust",
        extension: "rs",
        fence_tags: &["rust", "rs", "{.rust}"],
        line_comment: "//",
        comment_close: "",
        description: DescriptionStyle::Comments,
        naming: Naming::AsTheName,
        checker: "the Rust compiler",
        grammar: Some(Grammar::Rust),
        takes_tests: true,
        syntax_markers: &[],
    },
];

impl CodeLanguage {
    /// The value of `"language"` that names a code language (its id, or
    /// one of its aliases, in any case); None for anything else (`"zh"`,
    /// `"en"` name the labels' language in `settings`).
    pub fn parse(value: &str) -> Option<CodeLanguage> {
        let value = value.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|l| l.id == value || l.aliases.contains(&value.as_str()))
            .map(|l| l.language)
    }

    /// Every language's id, for an error that lists them.
    pub fn known() -> String {
        LANGUAGES
            .iter()
            .map(|l| l.id)
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn info(self) -> &'static LanguageInfo {
        LANGUAGES
            .iter()
            .find(|l| l.language == self)
            .expect("every language has a row")
    }

    pub fn as_str(self) -> &'static str {
        self.info().id
    }

    /// The language's name in prose (prompts to a writer model).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The extension of a case's program file in the report.
    pub fn extension(self) -> &'static str {
        self.info().extension
    }

    /// The tags of a fenced block holding this language's code (the
    /// tag's first word, lowercased).
    pub fn fence_tags(self) -> &'static [&'static str] {
        self.info().fence_tags
    }

    /// How a line comment starts (the report's file headers).
    pub fn line_comment(self) -> &'static str {
        self.info().line_comment
    }

    /// `text` as one line comment of the language.
    pub fn comment(self, text: &str) -> String {
        let info = self.info();
        format!("{} {text}{}", info.line_comment, info.comment_close)
            .trim_end()
            .to_string()
    }
}

/// ParEval's parallelism models that run on a CPU with g++ alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParallelModel {
    Serial,
    Omp,
}

impl ParallelModel {
    pub fn as_str(self) -> &'static str {
        match self {
            ParallelModel::Serial => "serial",
            ParallelModel::Omp => "omp",
        }
    }

    pub fn parse(value: &str) -> Option<ParallelModel> {
        match value {
            "serial" => Some(ParallelModel::Serial),
            "omp" => Some(ParallelModel::Omp),
            _ => None,
        }
    }
}

/// What a ParEval problem's check needs, carried by its question
/// (`"pareval": {...}`): the program is ParEval's `cpu.cc` for the problem,
/// with the candidate (the prompt and the reply) where it includes
/// `generated-code.hpp`, its `baseline.hpp`, ParEval's `utilities.hpp`
/// (built in) and the project's own `main`, which calls `init` and
/// `validate` at each thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParEvalCheck {
    /// ParEval's name of the problem (`03_dense_la_axpy`).
    pub name: String,
    /// ParEval's `problem_type` (`dense_la`).
    pub problem_type: String,
    /// Which of ParEval's prompts the question is (serial or omp).
    pub parallelism_model: ParallelModel,
    /// `drivers/cpp/benchmarks/<type>/<name>/cpu.cc`, verbatim.
    pub driver: String,
    /// `baseline.hpp` of the problem, verbatim: the reference `correct...`.
    pub baseline: String,
    /// `DRIVER_PROBLEM_SIZE` as `drivers/problem-sizes.json` gives it.
    pub problem_size: String,
    /// Thread counts this question runs at (omp only); the suite's
    /// `settings.threads`, else `[cpp] threads`, when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<u32>>,
    /// A known defect of ParEval's own data for this problem, in one
    /// sentence (`prompteval import pareval` writes them): shown beside the
    /// question's cases, since even a correct reply may fail its check.
    /// Says nothing about what is asked or how it is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<String>,
}

/// Where a question of MultiPL-E's comes from and what its completion
/// needs (`"multipl_e": {...}`, written by `prompteval import multipl-e`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiplEProblem {
    /// MultiPL-E's name of the problem (`HumanEval_0_has_close_elements`).
    pub name: String,
    /// Where MultiPL-E ends a completion: the program is the prompt, the
    /// completion up to the first of these, and the tests.
    #[serde(default)]
    pub stop_tokens: Vec<String>,
    /// A known defect of MultiPL-E's own data for this problem, in one
    /// sentence: shown beside its cases, since even a correct reply may
    /// fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<String>,
}
