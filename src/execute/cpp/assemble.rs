//! The C++ program of a case: the question's prompt (preamble, description
//! and signature, ending in `{`) and the reply's code, as the ParEval
//! authors' harness puts them together (generate/utils.py
//! `clean_instruct_output`, drivers' `patch_prompt`):
//!
//! - the prompt's last line (the signature) gets `NO_INLINE` after its
//!   first word, so the driver times the candidate as a call;
//! - a reply that defines the entry point (the whole function, perhaps
//!   after the echoed preamble) contributes that function's body, from
//!   after its `{` to its matching `}`: under the prompt's own signature it
//!   never becomes a nested function;
//! - any other reply is the body: it follows the signature, closed by a `}`
//!   when its braces do not close the function themselves.
//!
//! A question without an entry point (a whole program judged by what it
//! prints) runs the reply's code as it is.

use crate::suite::Question;

/// The candidate source of a case: what the report shows and the compiler
/// reads as `question_N.cpp`.
pub fn candidate(question: &Question, code: &str) -> String {
    let Some(name) = &question.entry_point else {
        return code.to_string();
    };
    let prompt = question.question.trim_end();
    if !prompt.ends_with('{') {
        // Not a completion prompt: the reply is the whole program.
        return code.to_string();
    }
    let body = match definition_body(code, name) {
        Some(body) => format!("{body}}}"),
        None => closed(code),
    };
    format!("{}\n{}\n", patch_signature(prompt), body.trim_end())
}

/// The prompt with `NO_INLINE` inserted as the second word of its last
/// line, as ParEval's `patch_prompt` does.
pub fn patch_signature(prompt: &str) -> String {
    let (head, last) = match prompt.rsplit_once('\n') {
        Some((head, last)) => (Some(head), last),
        None => (None, prompt),
    };
    let mut words: Vec<&str> = last.split(' ').collect();
    if words.len() > 1 {
        words.insert(1, "NO_INLINE");
    }
    let last = words.join(" ");
    match head {
        Some(head) => format!("{head}\n{last}"),
        None => last,
    }
}

/// The body of `name`'s definition in `code` (after its `{`, without the
/// matching `}`), when `code` defines it; to the end of the code when the
/// definition is cut off.
fn definition_body<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    let scan = Scan::new(code);
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        if !scan.is_code(at) || !is_word_at(code, at, name.len()) {
            continue;
        }
        let rest = &code[at + name.len()..];
        let open_paren = at + name.len() + (rest.len() - rest.trim_start().len());
        if !code[open_paren..].starts_with('(') {
            continue;
        }
        let close_paren = scan.matching(open_paren, '(', ')')?;
        // After the parameters: qualifiers (const, noexcept, override, a
        // trailing return type) up to `{`; a `;` or anything else makes it
        // a declaration or a call.
        let after = &code[close_paren + 1..];
        let brace = after.find(['{', ';', '}', '='])?;
        if after.as_bytes()[brace] != b'{' || !looks_like_qualifiers(&after[..brace]) {
            continue;
        }
        // A call such as `return name(x) {` cannot happen; a definition
        // has a type before its name.
        if !has_type_before(code, at) {
            continue;
        }
        let open = close_paren + 1 + brace;
        let body_start = open + 1;
        return Some(match scan.matching(open, '{', '}') {
            Some(close) => &code[body_start..close],
            None => &code[body_start..],
        });
    }
    None
}

/// What follows the brace that closes the open function `body` belongs
/// to (code at file scope), when its braces close it.
pub fn after_function(body: &str) -> Option<&str> {
    let scan = Scan::new(body);
    let mut depth: i64 = 0;
    for (i, c) in body.char_indices() {
        if !scan.is_code(i) {
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return Some(&body[i + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `code` as the body of an open function: closed with a `}` unless its
/// own braces close it.
fn closed(code: &str) -> String {
    match after_function(code) {
        // The function's own closing brace: keep the reply as it is.
        Some(_) => code.to_string(),
        None => format!("{}\n}}", code.trim_end()),
    }
}

fn is_word_at(text: &str, at: usize, len: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let before = text[..at].chars().next_back();
    let after = text[at + len..].chars().next();
    !before.is_some_and(|c| word(c) || c == '.' || c == ':' && text[..at].ends_with("::"))
        && !after.is_some_and(word)
}

/// Whether the text between a parameter list and `{` is what a function
/// definition may hold there.
fn looks_like_qualifiers(text: &str) -> bool {
    text.split_whitespace().all(|w| {
        matches!(
            w,
            "const" | "noexcept" | "override" | "final" | "->" | "&" | "&&"
        ) || w.starts_with("noexcept(")
            || w.chars()
                .all(|c| c.is_alphanumeric() || "_:<>,*&".contains(c))
    })
}

/// Whether a type (a word, `>`, `*` or `&`) ends right before `at`, on the
/// same statement: a definition, not a call.
fn has_type_before(code: &str, at: usize) -> bool {
    let before = code[..at].trim_end();
    let before = before
        .strip_suffix("NO_INLINE")
        .unwrap_or(before)
        .trim_end();
    match before.chars().next_back() {
        Some(c) if c.is_alphanumeric() || c == '_' => {
            let word: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            !matches!(
                word.as_str(),
                "return" | "else" | "new" | "delete" | "throw" | "case" | "co_return"
            )
        }
        Some('>' | '*' | '&') => true,
        _ => false,
    }
}

/// Which bytes of a C++ text are code (not a comment, string or character
/// literal), so braces and names inside those are not counted.
struct Scan<'a> {
    bytes: &'a [u8],
    code: Vec<bool>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Scan<'a> {
        let bytes = text.as_bytes();
        let mut code = vec![true; bytes.len()];
        let mut i = 0;
        while i < bytes.len() {
            let end = match bytes[i] {
                b'/' if bytes.get(i + 1) == Some(&b'/') => bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |p| i + p),
                b'/' if bytes.get(i + 1) == Some(&b'*') => text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |p| i + 2 + p + 2),
                q @ (b'"' | b'\'') => {
                    let mut j = i + 1;
                    while j < bytes.len() && bytes[j] != q && bytes[j] != b'\n' {
                        j += if bytes[j] == b'\\' { 2 } else { 1 };
                    }
                    (j + 1).min(bytes.len())
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            for flag in &mut code[i..end] {
                *flag = false;
            }
            i = end.max(i + 1);
        }
        Scan { bytes, code }
    }

    fn is_code(&self, at: usize) -> bool {
        self.code.get(at).copied().unwrap_or(false)
    }

    /// The index of the bracket closing the one at `open`.
    fn matching(&self, open: usize, opening: char, closing: char) -> Option<usize> {
        let mut depth = 0usize;
        for i in open..self.bytes.len() {
            if !self.code[i] {
                continue;
            }
            let c = self.bytes[i] as char;
            if c == opening {
                depth += 1;
            } else if c == closing {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "#include <vector>\n\n/* Compute z = alpha*x+y.\n*/\nvoid axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {";

    fn question() -> Question {
        Question {
            index: 3,
            id: "03_dense_la_axpy".into(),
            kind: None,
            question: PROMPT.into(),
            answer: String::new(),
            matcher: crate::suite::Match::Exact,
            tests: None,
            entry_point: Some("axpy".into()),
            reference: None,
            p_top: None,
            variant: None,
            language: Some(crate::suite::CodeLanguage::Cpp),
            pareval: None,
            multipl_e: None,
        }
    }

    const BODY: &str =
        "    for (size_t i = 0; i < x.size(); i++) {\n        z[i] = alpha * x[i] + y[i];\n    }";

    fn expected() -> String {
        format!(
            "{}\n{BODY}\n}}\n",
            PROMPT.replace("void axpy(", "void NO_INLINE axpy(")
        )
    }

    #[test]
    fn a_body_without_its_closing_brace_is_closed() {
        assert_eq!(candidate(&question(), BODY), expected());
    }

    #[test]
    fn a_body_with_its_closing_brace_is_kept() {
        assert_eq!(candidate(&question(), &format!("{BODY}\n}}\n")), expected());
    }

    #[test]
    fn a_whole_function_gives_its_body_never_a_nested_function() {
        let whole = format!(
            "#include <vector>\n\nvoid axpy(double alpha, std::vector<double> const& x, std::vector<double> const& y, std::vector<double> &z) {{\n{BODY}\n}}\n\nint main() {{ return 0; }}\n"
        );
        assert_eq!(
            candidate(&question(), &whole),
            // As ParEval's clean_instruct_output: what follows the `{`, its
            // own newline included.
            format!("{}\n\n{BODY}\n}}\n", patch_signature(PROMPT))
        );
        let program = candidate(&question(), &whole);
        assert_eq!(program.matches("axpy(").count(), 1, "{program}");
        assert!(!program.contains("main"), "{program}");
    }

    #[test]
    fn calls_and_comments_naming_the_function_are_not_its_definition() {
        let recursive = "    // axpy(alpha, x, y, z) { is what we compute\n    if (x.empty()) return;\n    z[0] = alpha; axpy(alpha, x, y, z);";
        let program = candidate(&question(), recursive);
        assert!(program.ends_with("axpy(alpha, x, y, z);\n}\n"), "{program}");
    }

    #[test]
    fn the_signature_gets_no_inline_after_its_first_word() {
        assert_eq!(
            patch_signature("#include <x>\nstd::vector<int> f(int a) {"),
            "#include <x>\nstd::vector<int> NO_INLINE f(int a) {"
        );
    }

    #[test]
    fn a_question_without_an_entry_point_runs_the_code_as_it_is() {
        let q = Question {
            entry_point: None,
            ..question()
        };
        assert_eq!(candidate(&q, "int main() {}\n"), "int main() {}\n");
    }
}
