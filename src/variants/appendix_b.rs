//! What the writer model is asked for p_top (the paper's Appendix B, in
//! the question's language) and for the summaries: the system prompts and
//! the code snippet with the function renamed as the paper's `correct...`.
//! ask/variant_writer.rs sends them.

use crate::suite::{CodeLanguage, Naming};
use crate::variants::parts::Parts;

/// Appendix B's system prompt; `<C++ or Python, depending on the
/// language>` is the question's.
pub fn appendix_b_system(language: CodeLanguage) -> String {
    format!(
        "You are an expert in {}. The user will provide a code snippet, and the code snippet will contain a function whose name starts with **correct**. You should produce a description of that specific function as a hint for how to implement it. You should only describe the function itself (not the surrounding code), and refer to it as \"the function\" or \"the function provided,\" never by its actual name. If the implementation requires helper functions, your description should still be self-contained.\nYou should describe the function step by step, and include all the details of the function.",
        language.name()
    )
}

/// For a question that is not a function: the same request in words that fit.
pub fn plain_system(language: CodeLanguage) -> String {
    format!(
        "You are an expert in {}. The user will provide a task and a program that solves it. You should produce a description of how the program solves the task, as a hint for how to implement it. Describe it step by step and include all the details, without quoting the program.",
        language.name()
    )
}

pub fn summary_system(language: CodeLanguage) -> String {
    format!(
        "You condense descriptions of {} functions.",
        language.name()
    )
}

/// Appendix B's code snippet: the original prompt and its solution, the
/// function renamed `correct_<name>`.
pub fn snippet(question: &str, parts: &Parts, entry: &str, reference: &str) -> String {
    let renamed = |text: &str| {
        regex::Regex::new(&format!(r"\bdef(\s+){entry}(\s*)\("))
            .map(|re| {
                re.replace_all(text, format!("def${{1}}correct_{entry}${{2}}("))
                    .into_owned()
            })
            .unwrap_or_else(|_| text.to_string())
    };
    let whole_function = reference.contains(&format!("def {entry}"));
    if whole_function {
        format!("{}{}", parts.preamble, renamed(reference))
    } else {
        format!("{}{reference}", renamed(question))
    }
}

/// The name the snippet gives the function: HumanEval's `correct_<name>`,
/// ParEval's own `correct<Name>` (its baselines are written so).
pub fn correct_name(language: CodeLanguage, entry: &str) -> String {
    let camel = match language.info().naming {
        Naming::Snake => false,
        Naming::Camel => true,
        Naming::AsTheName => !entry.contains('_') && entry.chars().any(|c| c.is_ascii_uppercase()),
    };
    if !camel {
        return format!("correct_{entry}");
    }
    let mut chars = entry.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!("correct{}{}", first.unwrap_or_default(), chars.as_str())
}

/// Appendix B's code snippet for a C++ question: the prompt as written
/// (preamble, its description) with the reference as the function's
/// definition, renamed `correct<Name>` as ParEval's baselines name it. A
/// reference that is a body only completes the prompt's signature.
pub fn commented_snippet(
    language: CodeLanguage,
    question: &str,
    parts: &Parts,
    entry: &str,
    reference: &str,
) -> String {
    let head = question
        .strip_suffix(parts.signature.as_str())
        .unwrap_or(&parts.preamble);
    // The first time the name appears is where the function is declared
    // (`sumOf(`, `(define (sum_of n)`, `local function sum_of(`).
    let renamed = |text: &str| {
        regex::Regex::new(&format!(r"\b{}\b", regex::escape(entry)))
            .map(|re| {
                re.replace(text, correct_name(language, entry).as_str())
                    .into_owned()
            })
            .unwrap_or_else(|_| text.to_string())
    };
    let declaration = parts.signature.lines().next().unwrap_or_default().trim();
    let whole_function = regex::Regex::new(&format!(r"\b{}\s*\(", regex::escape(entry)))
        .is_ok_and(|re| re.is_match(reference))
        || (!declaration.is_empty() && reference.contains(declaration));
    if whole_function {
        format!("{head}{}", renamed(reference.trim_start()))
    } else {
        format!("{head}{}\n{}", renamed(&parts.signature), reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_racket_or_lua_snippet_renames_the_declared_function() {
        let question = "#lang racket\n\n;; Sum.\n(define (sum_of n)\n";
        let suite = serde_json::json!({
            "p": "{question}",
            "questions": [{"question": question, "tests": "(sum_of 1)",
                           "entry_point": "sum_of", "language": "racket"}]
        });
        let suite = crate::suite::Suite::parse(
            std::path::Path::new("s.json"),
            suite.to_string().as_bytes(),
        )
        .unwrap();
        let parts = crate::variants::parts::Parts::of_question(&suite.questions[0]);
        assert_eq!(parts.description, "Sum.");
        assert_eq!(
            parts.render(Some("Adds up to n.\nRecursively.")),
            "#lang racket\n\n;; Adds up to n.\n;; Recursively.\n(define (sum_of n)\n"
        );
        let reference = "(define (sum_of n)\n  (if (zero? n) 0 (+ n (sum_of (sub1 n)))))\n";
        assert_eq!(
            commented_snippet(CodeLanguage::Racket, question, &parts, "sum_of", reference),
            "#lang racket\n\n;; Sum.\n(define (correct_sum_of n)\n  (if (zero? n) 0 (+ n (sum_of (sub1 n)))))\n"
        );
    }

    #[test]
    fn the_snippet_is_the_prompt_and_solution_with_the_function_renamed() {
        let question = "import math\n\n\ndef area(r):\n    \"\"\"Area.\"\"\"\n";
        let parts = Parts::of(question, Some("area"));
        assert_eq!(
            snippet(question, &parts, "area", "    return math.pi * r * r\n"),
            "import math\n\n\ndef correct_area(r):\n    \"\"\"Area.\"\"\"\n    return math.pi * r * r\n"
        );
        assert_eq!(
            snippet(
                question,
                &parts,
                "area",
                "def area(r):\n    return 3 * r * r\n"
            ),
            "import math\n\n\ndef correct_area(r):\n    return 3 * r * r\n"
        );
    }

    #[test]
    fn a_cpp_snippet_is_the_prompt_with_the_reference_named_as_pareval_names_it() {
        let question = "#include <vector>\n\n/* Sum x.\n   Example: [1, 2] -> 3\n*/\nint sumOf(std::vector<int> const& x) {";
        let parts = Parts::of_cpp(question, Some("sumOf"));
        let whole = "int sumOf(std::vector<int> const& x) {\n    int s = 0;\n    for (int v : x) s += v;\n    return s;\n}";
        assert_eq!(
            commented_snippet(CodeLanguage::Cpp, question, &parts, "sumOf", whole),
            "#include <vector>\n\n/* Sum x.\n   Example: [1, 2] -> 3\n*/\nint correctSumOf(std::vector<int> const& x) {\n    int s = 0;\n    for (int v : x) s += v;\n    return s;\n}"
        );
        assert!(
            commented_snippet(
                CodeLanguage::Cpp,
                question,
                &parts,
                "sumOf",
                "    return 0;\n}"
            )
            .ends_with("*/\nint correctSumOf(std::vector<int> const& x) {\n    return 0;\n}")
        );
        assert_eq!(correct_name(CodeLanguage::Cpp, "sumOf"), "correctSumOf");
        assert!(
            appendix_b_system(CodeLanguage::Cpp).starts_with("You are an expert in C++. The user")
        );
    }
}
