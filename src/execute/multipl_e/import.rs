//! MultiPL-E's HumanEval translations -> suites: `prompteval import
//! multipl-e --from DIR --languages LIST --out FILE`. Beside the runner,
//! not under `crate::suite::import`: it checks each problem against its
//! language's [`super::Spec`] (the tests must end where the proof goes).
//!
//! MultiPL-E (nuprl/MultiPL-E, BSD-3-Clause with a clause forbidding use as
//! training data) ships per language `prompts/humaneval-<code>-reworded.jsonl`:
//! each line a problem's `name`, `prompt` (the description as comments in
//! the language, then the signature), `tests` (a program that exits
//! non-zero on a failure) and `stop_tokens`. It ships no reference
//! solutions. Each problem becomes a question in its language whose
//! program is the prompt, the model's completion and the tests
//! (execute/multipl_e).
//!
//! Two defects of MultiPL-E's stored files are repaired, and said: some
//! files mark only the first line of the description as a comment (so
//! prompt + completion + tests does not parse); the other lines get the
//! first line's marker back, as MultiPL-E's other files have them. A known
//! defect that cannot be repaired is kept and named on the question
//! (`multipl_e.defect`).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::execute::language::{MULTIPL_E, Side, side};
use crate::suite::CodeLanguage;
use crate::suite::import::ImportError;

/// The template's name in the suite.
pub const TEMPLATE_NAME: &str = "appendix_c";

/// The paper's Appendix C, in the question's language.
pub fn system_prompt(language: CodeLanguage) -> String {
    format!(
        "You are a helpful programming expert that generates clean, idiomatic {} code \
         according to the user's instructions.",
        language.name()
    )
}

/// The paper's Appendix C user prompt, in the question's language.
pub fn template(language: CodeLanguage) -> String {
    format!(
        "Complete the following {} function. Write only the body of the function, do not \
         include any other text, e.g. do not include any other text before or after the \
         function body. Enclose your solution in ```{} and ```.\n{{question}}",
        language.name(),
        language.fence_tags()[0]
    )
}

/// Defects of MultiPL-E's own data that no repair can take away.
const KNOWN_DEFECTS: &[(&str, &str, &str)] = &[(
    "js",
    "HumanEval_51_remove_vowels",
    "its tests hold a raw newline inside a string literal, which does not parse: no reply can \
     pass",
)];

/// One line of a MultiPL-E prompts file.
#[derive(Debug, Clone, Deserialize)]
pub struct Problem {
    pub name: String,
    pub prompt: String,
    pub tests: String,
    pub stop_tokens: Vec<String>,
}

/// A problem ready to be a question.
#[derive(Debug, Clone)]
pub struct Converted {
    pub language: CodeLanguage,
    pub name: String,
    pub prompt: String,
    pub entry_point: String,
    pub tests: String,
    pub stop_tokens: Vec<String>,
    /// Description lines that got their comment marker back.
    pub repaired_lines: usize,
    pub defect: Option<String>,
    /// `file:line` it came from.
    pub origin: String,
}

/// The languages of `list` (ids, aliases or MultiPL-E's codes, comma
/// separated), each with a side in MultiPL-E's runner.
pub fn parse_languages(list: &str) -> Result<Vec<CodeLanguage>, ImportError> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let language = CodeLanguage::parse(name)
            .filter(|l| matches!(side(*l), Side::MultiplE(_)))
            .ok_or_else(|| {
                ImportError(format!(
                    "--languages: {name:?} is not a language of MultiPL-E's this project runs; \
                     use one of {}",
                    MULTIPL_E
                        .iter()
                        .map(|s| format!(
                            "{} ({})",
                            s.language.as_str(),
                            s.language.info().multipl_e.unwrap_or("")
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        if !out.contains(&language) {
            out.push(language);
        }
    }
    if out.is_empty() {
        return Err(ImportError(
            "--languages is empty: name at least one (e.g. lua,racket)".into(),
        ));
    }
    Ok(out)
}

/// The file of `language` under `from` (a MultiPL-E checkout, its
/// `prompts/`, or a folder of such files).
pub fn file_of(from: &Path, language: CodeLanguage) -> Result<PathBuf, ImportError> {
    let code = language.info().multipl_e.unwrap_or(language.as_str());
    let name = format!("humaneval-{code}-reworded.jsonl");
    [from.join(&name), from.join("prompts").join(&name)]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            ImportError(format!(
                "no {name} in {} or {}/prompts: copy MultiPL-E's prompts/{name} there",
                from.display(),
                from.display()
            ))
        })
}

/// Reads and converts one language's file.
pub fn read(path: &Path, language: CodeLanguage) -> Result<Vec<Converted>, ImportError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ImportError(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let origin = format!("{}:{}", path.display(), i + 1);
        let problem: Problem = serde_json::from_str(line).map_err(|e| {
            ImportError(format!(
                "{origin}: not a MultiPL-E problem ({e}); each line needs name, prompt, tests \
                 and stop_tokens"
            ))
        })?;
        out.push(convert(problem, language, origin)?);
    }
    if out.is_empty() {
        return Err(ImportError(format!(
            "{}: no problems in the file",
            path.display()
        )));
    }
    Ok(out)
}

/// `HumanEval_12_longest` -> `longest`.
fn humaneval_name(name: &str) -> &str {
    let mut parts = name.splitn(3, '_');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(n), Some(rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => name,
    }
}

fn key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

fn convert(p: Problem, language: CodeLanguage, origin: String) -> Result<Converted, ImportError> {
    let Side::MultiplE(spec) = side(language) else {
        return Err(ImportError(format!(
            "{origin}: {} is not run as MultiPL-E runs it",
            language.name()
        )));
    };
    let wanted = key(humaneval_name(&p.name));
    let marker = language.line_comment();
    let lines: Vec<&str> = p.prompt.split_inclusive('\n').collect();
    let is_comment = |l: &str| {
        let t = l.trim_start();
        t.starts_with(marker) || t.starts_with("/*") || t.starts_with("(*")
    };
    // The declaration: the last line that names the function and is
    // neither a comment nor a doctest.
    let declaration = lines
        .iter()
        .enumerate()
        .rfind(|(_, l)| {
            !is_comment(l)
                && !l.trim_start().starts_with(">>>")
                && identifiers(l).any(|w| key(w) == wanted)
        })
        .map(|(i, _)| i)
        .ok_or_else(|| {
            ImportError(format!(
                "{origin}: the prompt of {} declares no function named {:?}; is this MultiPL-E's \
                 humaneval-{}-reworded.jsonl?",
                p.name,
                humaneval_name(&p.name),
                language.info().multipl_e.unwrap_or("")
            ))
        })?;
    let entry_point = identifiers(lines[declaration])
        .find(|w| key(w) == wanted)
        .unwrap_or_default()
        .to_string();
    // The first line comment opens the description: the lines after it up
    // to the declaration are the description's, marked as it is.
    let mut repaired = 0;
    let mut prompt = String::new();
    // (A block comment, OCaml's `(* *)`, needs no marker per line.)
    let first = lines[..declaration]
        .iter()
        .position(|l| l.trim_start().starts_with(marker))
        .filter(|_| language.info().comment_close.is_empty());
    for (i, line) in lines.iter().enumerate() {
        match first {
            Some(f) if i > f && i < declaration && !is_comment(line) => {
                let head = lines[f];
                let indent = &head[..head.len() - head.trim_start().len()];
                let rest = head.trim_start();
                let repeats = rest.len()
                    - rest
                        .trim_start_matches(marker.chars().last().unwrap_or(' '))
                        .len();
                let prefix = format!("{indent}{}", &rest[..repeats.max(marker.len())]);
                let text = line.trim_end_matches('\n');
                if text.trim().is_empty() {
                    prompt.push_str(&prefix);
                } else {
                    prompt.push_str(&format!("{prefix} {text}"));
                }
                prompt.push('\n');
                repaired += 1;
            }
            _ => prompt.push_str(line),
        }
    }
    if spec.proof.insert(&p.tests, "x").is_none() {
        return Err(ImportError(format!(
            "{origin}: the tests of {} do not end as MultiPL-E's {} tests do ({:?} not found): \
             no proof that they ran could be put in",
            p.name,
            language.name(),
            spec.proof
        )));
    }
    let code = language.info().multipl_e.unwrap_or("");
    let defect = KNOWN_DEFECTS
        .iter()
        .find(|(l, n, _)| *l == code && *n == p.name)
        .map(|(_, _, d)| d.to_string());
    Ok(Converted {
        language,
        name: p.name,
        prompt,
        entry_point,
        tests: p.tests,
        stop_tokens: p.stop_tokens,
        repaired_lines: repaired,
        defect,
        origin,
    })
}

/// `HumanEval_0_has_close_elements` -> its question id; `suffix` tells
/// languages apart in a suite of several.
fn question_id(name: &str, suffix: Option<&str>) -> String {
    let base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let id = match suffix {
        Some(s) => format!("{base}-{s}"),
        None => base,
    };
    id.chars().take(64).collect()
}

/// One suite of `problems` (all of one language, or several: then each
/// question says its own and its id ends in the language).
pub fn suite(problems: &[Converted]) -> Result<Value, ImportError> {
    let first = problems
        .first()
        .ok_or_else(|| ImportError("no problems to write".into()))?
        .language;
    let several = problems.iter().any(|p| p.language != first);
    let mut seen = std::collections::HashSet::new();
    let mut questions = Vec::with_capacity(problems.len());
    for p in problems {
        let id = question_id(&p.name, several.then(|| p.language.as_str()));
        if !seen.insert(id.clone()) {
            return Err(ImportError(format!(
                "{}: a second problem named {} (question id {id}); names must be unique",
                p.origin, p.name
            )));
        }
        let mut check = json!({"name": p.name, "stop_tokens": p.stop_tokens});
        if let Some(d) = &p.defect {
            check["defect"] = json!(d);
        }
        questions.push(json!({
            "id": id,
            "kind": "multipl-e",
            "language": p.language.as_str(),
            "question": p.prompt,
            "entry_point": p.entry_point,
            "tests": p.tests,
            "multipl_e": check,
        }));
    }
    let mut suite = Map::new();
    let settings = if several {
        json!({"history": false})
    } else {
        json!({"system_prompt": system_prompt(first), "history": false, "language": first.as_str()})
    };
    suite.insert(crate::suite::SETTINGS.into(), settings);
    let template = if several {
        "Complete the following function. Write only the body of the function, do not include \
         any other text, e.g. do not include any other text before or after the function body. \
         Enclose your solution in a fenced code block in the function's language.\n{question}"
            .to_string()
    } else {
        template(first)
    };
    suite.insert(TEMPLATE_NAME.into(), json!(template));
    suite.insert("questions".into(), Value::Array(questions));
    Ok(Value::Object(suite))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(prompt: &str, tests: &str) -> Problem {
        Problem {
            name: "HumanEval_0_has_close_elements".into(),
            prompt: prompt.into(),
            tests: tests.into(),
            stop_tokens: vec!["\n}".into()],
        }
    }

    #[test]
    fn a_description_marked_on_its_first_line_only_is_marked_throughout() {
        let p = problem(
            "/// Check if in given vector.\ngiven threshold.\n>>> has_close_elements(vec![1.0], 0.5)\nfalse\n\nfn has_close_elements(numbers: Vec<f64>, threshold: f64) -> bool {\n",
            "}\n\nfn main() {\n    let candidate = has_close_elements;\n}\n",
        );
        let c = convert(p, CodeLanguage::Rust, "f:1".into()).unwrap();
        assert_eq!(
            c.prompt,
            "/// Check if in given vector.\n/// given threshold.\n/// >>> has_close_elements(vec![1.0], 0.5)\n/// false\n///\nfn has_close_elements(numbers: Vec<f64>, threshold: f64) -> bool {\n"
        );
        assert_eq!(c.repaired_lines, 4);
        assert_eq!(c.entry_point, "has_close_elements");
    }

    #[test]
    fn java_keeps_its_indentation_and_its_camel_case_name() {
        let p = problem(
            "import java.util.*;\nclass Problem {\n    // Check if.\ngiven threshold.\n    public static boolean hasCloseElements(ArrayList<Float> numbers, float threshold) {\n",
            "    }\n    public static void main(String[] args) {\n    assert(true);\n    }\n\n}\n",
        );
        let c = convert(p, CodeLanguage::Java, "f:1".into()).unwrap();
        assert!(
            c.prompt
                .contains("    // Check if.\n    // given threshold.\n    public static")
        );
        assert_eq!(c.entry_point, "hasCloseElements");
    }

    #[test]
    fn tests_without_the_proofs_anchor_are_refused_naming_the_line() {
        let p = problem(
            "-- Check.\nlocal function has_close_elements(numbers, threshold)\n",
            "lu = require('luaunit')\n",
        );
        let e = convert(
            p,
            CodeLanguage::Lua,
            "humaneval-lua-reworded.jsonl:7".into(),
        )
        .unwrap_err();
        assert!(e.0.starts_with("humaneval-lua-reworded.jsonl:7: the tests of HumanEval_0_has_close_elements do not end"), "{}", e.0);
    }

    #[test]
    fn an_unknown_language_is_refused_with_the_list() {
        let e = parse_languages("lua,cobol").unwrap_err();
        assert!(e.0.contains("\"cobol\" is not a language"), "{}", e.0);
        assert!(e.0.contains("racket (rkt)"), "{}", e.0);
        assert_eq!(
            parse_languages("rkt, ml").unwrap(),
            vec![CodeLanguage::Racket, CodeLanguage::OCaml]
        );
    }
}
