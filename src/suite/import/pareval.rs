//! ParEval (parallelcodefoundry/ParEval, MIT licence) -> suites of C++
//! questions judged by ParEval's own drivers.
//!
//! `prompteval import pareval --from CHECKOUT --models serial,omp --out FILE`
//! reads a ParEval checkout: `prompts/generation-prompts.json` (its 420
//! prompts, 60 per parallelism model), each problem's
//! `drivers/cpp/benchmarks/<problem_type>/<name>/cpu.cc` (the check) and
//! `baseline.hpp` (the authors' solution), and `drivers/problem-sizes.json`.
//! Only the serial and OpenMP models are imported: they need g++ alone.
//!
//! Each question's text is ParEval's prompt exactly (what the model sees is
//! never patched); its `reference` is the solution the check compares with,
//! written as a reply would be (see [`reference`]). The suite asks under the
//! ParEval authors' chat prompt for instruction models
//! (`generate/generate-openai.py`), history off.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::ImportError;
use crate::suite::{ParEvalCheck, ParallelModel};

mod cpp;

/// The system prompt of `generate/generate-openai.py` (`SYSTEM_TEMPLATE`),
/// verbatim.
pub const PAREVAL_SYSTEM: &str = "You are a helpful coding assistant.\nYou are helping a \
     programmer write a C++ function. Write the body of the function and put it in a markdown \
     code block.\nDo not write any other code or explanations.\n";
/// Its `PROMPT_TEMPLATE`, with `{function_name}` -> `{entry_point}` and
/// `{prompt}` -> `{question}`.
pub const PAREVAL_TEMPLATE: &str = "Complete the C++ function {entry_point}. Only write the body \
     of the function {entry_point}.\n\n```cpp\n{question}\n```\n";
/// The template's name in the suite.
pub const PAREVAL_TEMPLATE_NAME: &str = "pareval_chat";
/// What `--models` is when not given.
pub const DEFAULT_MODELS: &str = "serial,omp";

/// ParEval's data defects, by problem name, as found at commit 4c9877f
/// (the references are checked with ParEval's own drivers; see
/// docs/guide/suites.md). Each affected question carries its sentence as
/// `pareval.defect`, so the report shows why even a correct reply may fail.
/// The question text stays ParEval's prompt, unpatched.
pub const KNOWN_DEFECTS: [(&str, &str); 3] = [
    (
        "07_fft_fft_conjugate",
        "ParEval's check compares with fftCooleyTookey, which conjugates at every level of its \
         recursion, not with the conjugated transform the prompt describes, so the authors' own \
         correctFft fails it; the reference is fftCooleyTookey's body.",
    ),
    (
        "22_histogram_count_quadrants",
        "ParEval's prompt uses std::array without #include <array>, and its driver includes the \
         candidate before anything that includes it, so a reply that does not add the include \
         itself (the reference included) does not compile.",
    ),
    (
        "48_sparse_la_sparse_axpy",
        "ParEval's check empties the output vector (test.clear()) before calling the candidate, \
         so a reply that stores into z as the prompt asks (the reference included) writes out \
         of bounds and fails.",
    ),
];

/// One of ParEval's prompts as `generation-prompts.json` holds it.
#[derive(Debug, Clone, Deserialize)]
struct Prompt {
    name: String,
    problem_type: String,
    parallelism_model: String,
    language: String,
    prompt: String,
}

/// A ParEval problem read for one parallelism model, ready to be a question.
#[derive(Debug, Clone)]
pub struct Problem {
    pub check: ParEvalCheck,
    /// ParEval's prompt, verbatim.
    pub prompt: String,
    /// The function the prompt asks for (ParEval's `get_function_name`).
    pub entry_point: String,
    /// The reference, written as a reply would be.
    pub reference: String,
    /// The baseline function the reference's body is from.
    pub reference_from: String,
}

/// `--models`: a comma-separated list of `serial` and `omp`, returned in
/// ParEval's order (serial first), each once.
pub fn parse_models(models: &str) -> Result<Vec<ParallelModel>, ImportError> {
    let mut wanted = Vec::new();
    for value in models.split(',').map(str::trim) {
        let model = ParallelModel::parse(value).ok_or_else(|| {
            ImportError(format!(
                "--models: `{value}` is not a model this importer takes; only serial and omp \
                 (ParEval's models that g++ builds alone), e.g. --models serial,omp"
            ))
        })?;
        wanted.push(model);
    }
    Ok([ParallelModel::Serial, ParallelModel::Omp]
        .into_iter()
        .filter(|m| wanted.contains(m))
        .collect())
}

/// Every problem of `models` in the checkout at `root`: each model's in
/// ParEval's order, the models in the order given.
pub fn read_checkout(root: &Path, models: &[ParallelModel]) -> Result<Vec<Problem>, ImportError> {
    if !root.is_dir() {
        return Err(ImportError(format!(
            "{}: no such folder; --from must be a ParEval checkout (git clone \
             https://github.com/parallelcodefoundry/ParEval)",
            root.display()
        )));
    }
    let prompts_path = root.join("prompts/generation-prompts.json");
    let prompts: Vec<Prompt> = read_json(&prompts_path, "ParEval's prompts")?;
    let sizes_path = root.join("drivers/problem-sizes.json");
    let sizes: HashMap<String, HashMap<String, String>> =
        read_json(&sizes_path, "ParEval's problem sizes")?;
    let mut problems = Vec::new();
    for &model in models {
        let before = problems.len();
        for p in prompts
            .iter()
            .filter(|p| p.parallelism_model == model.as_str())
        {
            let size = sizes
                .get(&p.name)
                .and_then(|s| s.get(model.as_str()))
                .ok_or_else(|| {
                    ImportError(format!(
                        "{}: no {} size for {}; use a checkout whose prompts and drivers match",
                        sizes_path.display(),
                        model.as_str(),
                        p.name
                    ))
                })?;
            problems.push(problem(root, p, model, size)?);
        }
        if problems.len() == before {
            return Err(ImportError(format!(
                "{}: no {} prompts; is it ParEval's generation-prompts.json?",
                prompts_path.display(),
                model.as_str()
            )));
        }
    }
    Ok(problems)
}

/// A JSON file of the checkout, with what it is for messages.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ImportError(format!(
            "{}: cannot read {what} ({e}); --from must be the root of a whole ParEval checkout \
             (it holds prompts/ and drivers/)",
            path.display()
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        ImportError(format!(
            "{}:{}: not {what} as ParEval writes them: {e}",
            path.display(),
            e.line()
        ))
    })
}

/// One prompt of one model with its driver, baseline and reference.
fn problem(
    root: &Path,
    p: &Prompt,
    model: ParallelModel,
    size: &str,
) -> Result<Problem, ImportError> {
    let named = |what: String| ImportError(format!("{} ({}): {what}", p.name, model.as_str()));
    if p.language != "cpp" {
        return Err(named(format!("its language is {:?}, not cpp", p.language)));
    }
    // Names become paths and ids: one plain folder name each.
    for part in [&p.name, &p.problem_type] {
        if part.is_empty()
            || part.starts_with('.')
            || !part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(named(format!(
                "{part:?} is not a plain folder name (letters, digits, _ and -)"
            )));
        }
    }
    let signature = p.prompt.lines().last().unwrap_or_default();
    let entry_point = function_name(signature).ok_or_else(|| {
        named(format!(
            "no function name in the prompt's last line {signature:?} (ParEval's \
             get_function_name finds none)"
        ))
    })?;
    let dir: PathBuf = root
        .join("drivers/cpp/benchmarks")
        .join(&p.problem_type)
        .join(&p.name);
    let read = |file: &str| {
        let path = dir.join(file);
        std::fs::read_to_string(&path).map_err(|e| {
            ImportError(format!(
                "{}: cannot read {} of {} ({e}); the checkout lacks a driver its prompts need: \
                 check out ParEval whole again (git checkout -- drivers)",
                path.display(),
                file,
                p.name
            ))
        })
    };
    let driver = read("cpu.cc")?;
    let baseline = read("baseline.hpp")?;
    let (reference, reference_from) =
        cpp::reference(signature, &entry_point, &driver, &baseline).map_err(named)?;
    let defect = KNOWN_DEFECTS
        .iter()
        .find(|(name, _)| *name == p.name)
        .map(|(_, defect)| defect.to_string());
    Ok(Problem {
        check: ParEvalCheck {
            name: p.name.clone(),
            problem_type: p.problem_type.clone(),
            parallelism_model: model,
            driver,
            baseline,
            problem_size: size.to_string(),
            threads: None,
            defect,
        },
        prompt: p.prompt.clone(),
        entry_point,
        reference,
        reference_from,
    })
}

/// ParEval's `get_function_name` for CPU models: `\s*[a-zA-Z_]+
/// ([a-zA-Z0-9_]+)\(` matched at the start of the prompt's last line.
pub fn function_name(line: &str) -> Option<String> {
    static NAME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = NAME.get_or_init(|| regex::Regex::new(r"^\s*[a-zA-Z_]+ ([a-zA-Z0-9_]+)\(").unwrap());
    re.captures(line).map(|c| c[1].to_string())
}

/// The suite of `problems`: ParEval's chat template and system prompt,
/// history off, one C++ question per problem in the given order. A
/// problem's id is its ParEval name; with both models, an omp question's
/// id ends in `_omp` (the serial ones keep the bare name).
pub fn suite(problems: &[Problem]) -> Result<Value, ImportError> {
    let both = problems
        .iter()
        .any(|p| p.check.parallelism_model != problems[0].check.parallelism_model);
    let mut seen = std::collections::HashSet::new();
    let mut questions = Vec::with_capacity(problems.len());
    for p in problems {
        let model = p.check.parallelism_model;
        let id = match (both, model) {
            (true, ParallelModel::Omp) => format!("{}_omp", p.check.name),
            _ => p.check.name.clone(),
        };
        if !seen.insert(id.clone()) {
            return Err(ImportError(format!(
                "two {} prompts are named {}; names must be unique",
                model.as_str(),
                p.check.name
            )));
        }
        let check = serde_json::to_value(&p.check).expect("a ParEval check serialises");
        questions.push(json!({
            "id": id,
            "kind": p.check.problem_type,
            "language": "cpp",
            "question": p.prompt,
            "entry_point": p.entry_point,
            "reference": p.reference,
            "pareval": check,
        }));
    }
    let name = match (both, problems.first().map(|p| p.check.parallelism_model)) {
        (false, Some(model)) => format!("pareval-{}", model.as_str()),
        _ => "pareval".to_string(),
    };
    let mut suite = Map::new();
    suite.insert(
        crate::suite::SETTINGS.into(),
        // As the authors ask instruction models: each problem on its own.
        json!({"name": name, "language": "cpp", "history": false, "system_prompt": PAREVAL_SYSTEM}),
    );
    suite.insert(PAREVAL_TEMPLATE_NAME.into(), json!(PAREVAL_TEMPLATE));
    suite.insert("questions".into(), Value::Array(questions));
    Ok(Value::Object(suite))
}

#[cfg(test)]
mod tests;
