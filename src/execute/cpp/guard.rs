//! The candidate shares its translation unit with ParEval's check (as in
//! ParEval's own harness: the driver includes `generated-code.hpp` before
//! its `validate`), so code after the candidate could change what the
//! check means: a macro (`#define fequal(...) true`), or a function or type
//! the driver would then call instead of its own (an exact-match overload
//! of a helper). A reply that defines, at file scope or as a macro, a name
//! the check's own code uses is refused before it compiles.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

/// The name the reply's part of the candidate (the body, and whatever
/// follows the function's closing brace) redefines, when it redefines one
/// of `check`'s: a macro anywhere, a definition only after the function.
pub fn redefined_name(reply: &str, check: &[&str]) -> Option<String> {
    let tail = super::assemble::after_function(reply).unwrap_or("");
    static MACRO: OnceLock<Regex> = OnceLock::new();
    static DEFINITION: OnceLock<Regex> = OnceLock::new();
    let macro_ =
        MACRO.get_or_init(|| Regex::new(r"(?m)^\s*#\s*(?:define|undef)\s+([A-Za-z_]\w*)").unwrap());
    // `type name(` or `struct name` at the start of a line: the shapes a
    // file-scope definition takes.
    let definition = DEFINITION.get_or_init(|| {
        Regex::new(r"(?m)(?:\b(?:struct|class|union|enum|using|namespace)\s+([A-Za-z_]\w*))|(?:^\s*(?:[\w:<>,\*&]+\s+)+[\*&]*([A-Za-z_]\w*)\s*\()").unwrap()
    });
    let used = identifiers(check);
    let names = macro_
        .captures_iter(reply)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().to_string());
    let defined = definition
        .captures_iter(tail)
        .filter_map(|c| c.get(1).or(c.get(2)))
        .map(|m| m.as_str().to_string())
        .filter(|n| !is_keyword(n));
    names
        .chain(defined)
        .find(|name| used.contains(name.as_str()))
}

fn identifiers<'a>(texts: &[&'a str]) -> HashSet<&'a str> {
    static WORD: OnceLock<Regex> = OnceLock::new();
    let word = WORD.get_or_init(|| Regex::new(r"[A-Za-z_]\w*").unwrap());
    texts
        .iter()
        .flat_map(|t| word.find_iter(t).map(|m| m.as_str()))
        .filter(|w| !is_keyword(w))
        .collect()
}

/// Words that are no definition of the check's names.
fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "for"
            | "while"
            | "switch"
            | "return"
            | "sizeof"
            | "int"
            | "void"
            | "double"
            | "float"
            | "char"
            | "bool"
            | "long"
            | "short"
            | "unsigned"
            | "signed"
            | "auto"
            | "const"
            | "static"
            | "inline"
            | "std"
            | "size_t"
            | "main"
            | "operator"
            | "template"
            | "typename"
            | "decltype"
            | "alignof"
            | "static_assert"
            | "new"
            | "delete"
            | "catch"
            | "defined"
            | "pragma"
            | "omp"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &str = "bool validate(Context *ctx) { return fequal(correct, test, 1e-6); }";

    #[test]
    fn macros_and_overloads_of_the_checks_names_are_refused() {
        assert_eq!(
            redefined_name("#define fequal(a, b, c) true\n", &[CHECK]).as_deref(),
            Some("fequal")
        );
        assert_eq!(
            redefined_name(
                "}\nbool fequal(std::vector<double> const&, std::vector<double> const&, double) { return true; }\n",
                &[CHECK]
            )
            .as_deref(),
            Some("fequal")
        );
        assert_eq!(
            redefined_name("  #undef validate\n", &[CHECK]).as_deref(),
            Some("validate")
        );
    }

    #[test]
    fn ordinary_bodies_and_own_helpers_pass() {
        let body = "for (size_t i = 0; i < n; i++) {\n  if (x[i] > 0) z[i] = helper(x[i]);\n  fequal(a, b, 1e-6);\n}\n}\nstatic double helper(double v) { return v * 2; }\n";
        assert_eq!(redefined_name(body, &[CHECK]), None);
        assert_eq!(redefined_name("#define N 4\n", &[CHECK]), None);
    }
}
