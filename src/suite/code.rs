//! What language a question's program is written in, and, for a ParEval
//! problem, what its check needs (the driver and reference the ParEval
//! authors wrote, and the problem size their runs use).

use serde::{Deserialize, Serialize};

/// The language of the program a question asks for: `"language"` on the
/// question, else the suite's `settings.language` when it names one of
/// these, else Python.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeLanguage {
    #[default]
    Python,
    Cpp,
}

impl CodeLanguage {
    /// The value of `"language"` that names a code language (`"c++"` is
    /// taken for `"cpp"`); None for anything else (`"zh"`, `"en"` name the
    /// labels' language in `settings`).
    pub fn parse(value: &str) -> Option<CodeLanguage> {
        match value.to_ascii_lowercase().as_str() {
            "python" | "python3" | "py" => Some(CodeLanguage::Python),
            "cpp" | "c++" | "cxx" => Some(CodeLanguage::Cpp),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CodeLanguage::Python => "python",
            CodeLanguage::Cpp => "cpp",
        }
    }

    /// The language's name in prose (prompts to a writer model).
    pub fn name(self) -> &'static str {
        match self {
            CodeLanguage::Python => "Python",
            CodeLanguage::Cpp => "C++",
        }
    }

    /// The extension of a case's program file in the report.
    pub fn extension(self) -> &'static str {
        match self {
            CodeLanguage::Python => "py",
            CodeLanguage::Cpp => "cpp",
        }
    }

    /// The tags of a fenced block holding this language's code (the
    /// tag's first word, lowercased).
    pub fn fence_tags(self) -> &'static [&'static str] {
        match self {
            CodeLanguage::Python => &["python", "py", "python3", "py3", "{.python}"],
            CodeLanguage::Cpp => &[
                "cpp", "c++", "c", "cc", "cxx", "hpp", "h", "{.cpp}", "{.c++}",
            ],
        }
    }

    /// How a line comment starts (the report's file headers).
    pub fn line_comment(self) -> &'static str {
        match self {
            CodeLanguage::Python => "#",
            CodeLanguage::Cpp => "//",
        }
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
