//! Just enough of C++ to find a ParEval problem's reference: the top-level
//! functions of `baseline.hpp` and `cpu.cc` (comments, string and character
//! literals and preprocessor lines set aside), the calls in the driver's
//! `validate`, and parameter names.

use std::ops::Range;

/// A top-level function definition: byte ranges into the source.
#[derive(Debug, Clone, PartialEq)]
struct Function {
    name: String,
    /// Where the name is.
    name_at: Range<usize>,
    /// From the first character of its declaration to its opening `{`.
    header: Range<usize>,
    /// Inside its parameter list's parentheses.
    params: Range<usize>,
    /// Its opening and its matching closing brace.
    open: usize,
    close: usize,
}

/// The reference for a prompt whose last line is `signature` (ending in
/// `{`), written as a reply would be: a whole function named `entry_point`
/// whose body is that of the baseline function the driver's `validate`
/// compares with, and which baseline function that is.
///
/// The function is the first of `baseline.hpp`'s that `validate` calls and
/// that takes as many parameters as the entry point; else (the check's own
/// function has another shape, as 08_fft_split_fft's in-place
/// `fftCooleyTookey`) `correct<EntryPoint>`. The prompt's signature line is
/// kept when the parameter names agree; else the baseline function's own
/// declaration, renamed to the entry point and without `NO_INLINE`, so the
/// body's names resolve.
pub(super) fn reference(
    signature: &str,
    entry_point: &str,
    driver: &str,
    baseline: &str,
) -> Result<(String, String), String> {
    if !signature.trim_end().ends_with('{') {
        return Err(format!(
            "the prompt's last line {signature:?} does not end in `{{`"
        ));
    }
    let wanted = signature
        .find(&format!("{entry_point}("))
        .map(|at| at + entry_point.len())
        .and_then(|open| closing_paren(signature.as_bytes(), open).map(|close| open + 1..close))
        .map(|params| param_names(&signature[params]))
        .ok_or_else(|| format!("no parameter list in the prompt's last line {signature:?}"))?;

    let masked_driver = mask(driver);
    let validate = functions(&masked_driver)
        .into_iter()
        .find(|f| f.name == "validate")
        .ok_or("cpu.cc has no top-level validate function")?;
    let masked_baseline = mask(baseline);
    let defined = functions(&masked_baseline);
    let params_of = |f: &Function| param_names(&baseline[f.params.clone()]);
    let called = calls(&masked_driver[validate.open..validate.close]);
    let checked_with = called
        .iter()
        .filter(|name| *name != entry_point)
        .filter_map(|name| defined.iter().find(|f| &f.name == name))
        .find(|f| params_of(f).len() == wanted.len());
    let correct = format!("correct{}", capitalised(entry_point));
    let chosen = checked_with
        .or_else(|| {
            defined
                .iter()
                .find(|f| f.name == correct && params_of(f).len() == wanted.len())
        })
        .ok_or_else(|| {
            format!(
                "baseline.hpp has no function that validate calls with {} parameter(s) (it calls \
                 {}), nor a {correct} with them",
                wanted.len(),
                called.join(", ")
            )
        })?;
    let body = &baseline[chosen.open + 1..=chosen.close];
    let declaration = if params_of(chosen) == wanted {
        signature.to_string()
    } else {
        let before = &baseline[chosen.header.start..chosen.name_at.start];
        let after = &baseline[chosen.name_at.end..chosen.open];
        let before: Vec<&str> = before
            .split(' ')
            .filter(|word| *word != "NO_INLINE")
            .collect();
        format!("{}{entry_point}{after}{{", before.join(" "))
    };
    Ok((format!("{declaration}{body}"), chosen.name.clone()))
}

/// `fft` -> `Fft`.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The source with comments and the insides of string and character
/// literals turned to spaces (newlines kept), byte for byte the same
/// length, so ranges found in it index the source.
fn mask(source: &str) -> String {
    let s = source.as_bytes();
    let mut out = s.to_vec();
    let blank = |out: &mut Vec<u8>, range: Range<usize>| {
        for b in &mut out[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'/' if s.get(i + 1) == Some(&b'/') => {
                let end = s[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(s.len(), |p| i + p);
                blank(&mut out, i..end);
                i = end;
            }
            b'/' if s.get(i + 1) == Some(&b'*') => {
                let end = s[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(s.len(), |p| i + 2 + p + 2);
                blank(&mut out, i..end);
                i = end;
            }
            // A quote after a digit or letter is a digit separator (1'000)
            // or a literal's prefix; neither matters here.
            b'\'' if i > 0 && s[i - 1].is_ascii_alphanumeric() => i += 1,
            quote @ (b'"' | b'\'') => {
                let mut j = i + 1;
                while j < s.len() && s[j] != quote && s[j] != b'\n' {
                    j += if s[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(s.len());
                blank(&mut out, i + 1..end);
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).expect("only whole characters are blanked")
}

/// The top-level function definitions of masked source, in order.
fn functions(masked: &str) -> Vec<Function> {
    let s = masked.as_bytes();
    let mut found = Vec::new();
    let mut pending: Option<Function> = None;
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < s.len() {
        match s[i] {
            // A preprocessor line (with its continuations) between
            // declarations.
            b'#' if depth == 0 && at_line_start(s, i) => {
                while i < s.len() && !(s[i] == b'\n' && s[i - 1] != b'\\') {
                    i += 1;
                }
                start = i;
            }
            b'{' => {
                if depth == 0 {
                    pending = definition(masked, start, i);
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some(mut f) = pending.take() {
                        f.close = i;
                        found.push(f);
                    }
                    start = i + 1;
                }
            }
            b';' if depth == 0 => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    found
}

fn at_line_start(s: &[u8], i: usize) -> bool {
    s[..i]
        .iter()
        .rev()
        .take_while(|&&b| b != b'\n')
        .all(|b| b.is_ascii_whitespace())
}

/// The function whose declaration is `masked[start..open]` and whose body
/// opens at `open`; None for anything else (a struct, a namespace).
fn definition(masked: &str, start: usize, open: usize) -> Option<Function> {
    let s = masked.as_bytes();
    let mut header = masked[start..open].trim_end();
    // Qualifiers after the parameter list.
    loop {
        let trimmed = ["const", "noexcept", "override"]
            .iter()
            .find_map(|q| header.strip_suffix(q))
            .map(str::trim_end);
        match trimmed {
            Some(t) => header = t,
            None => break,
        }
    }
    let close = start + header.len().checked_sub(1)?;
    if s[close] != b')' {
        return None;
    }
    let paren = opening_paren(s, close)?;
    let name_end = start + masked[start..paren].trim_end().len();
    let name_start = masked[..name_end]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |p| p + 1);
    let name = &masked[name_start..name_end];
    let keyword = ["if", "for", "while", "switch", "catch", "return"].contains(&name);
    if name.is_empty() || name.as_bytes()[0].is_ascii_digit() || keyword || name_start < start {
        return None;
    }
    let first = start + (masked[start..].len() - masked[start..].trim_start().len());
    Some(Function {
        name: name.to_string(),
        name_at: name_start..name_end,
        header: first..open,
        params: paren + 1..close,
        open,
        close: open,
    })
}

/// The `(` that the `)` at `close` closes.
fn opening_paren(s: &[u8], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        match s[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `)` that closes the `(` at `open`.
fn closing_paren(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in s.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names called in masked code, each once, in order of first call.
fn calls(masked: &str) -> Vec<String> {
    static CALL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = CALL.get_or_init(|| regex::Regex::new(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(").unwrap());
    let mut names: Vec<String> = Vec::new();
    for c in re.captures_iter(masked) {
        if !names.iter().any(|n| n == &c[1]) {
            names.push(c[1].to_string());
        }
    }
    names
}

/// The parameter names of a parameter list (the text inside its
/// parentheses): each parameter's last identifier before any default.
fn param_names(params: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (i, c) in params.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&params[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&params[from..]);
    parts
        .into_iter()
        .map(|p| p.split('=').next().unwrap_or_default().trim())
        .filter(|p| !p.is_empty() && *p != "void")
        .map(|p| {
            let end = p.trim_end_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
            let start = end
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |at| at + 1);
            end[start..].to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASELINE: &str = r#"#pragma once
#include <vector>
// void NO_INLINE correctNot(int x) {
/* Compute "it" { */
void NO_INLINE correctFft(std::vector<double> const& x, std::vector<double> &out) {
    char brace = '}';
    for (size_t i = 0; i < x.size(); i++) { out[i] = x[i]; }
}

void inPlace(std::vector<double> &x) {
    const char *s = "}{";
}

#if defined(USE_CUDA)
__device__ double cexp(double x) { return x; }
#endif
"#;

    fn driver(check: &str) -> String {
        format!(
            "#include \"baseline.hpp\"\nstruct Context {{ int n; }};\nvoid NO_OPTIMIZE best(Context *ctx) {{ correctFft(ctx->x, ctx->y); }}\n\
             bool validate(Context *ctx) {{\n    {check}\n    fft(x, test);\n    return true;\n}}\n"
        )
    }

    #[test]
    fn top_level_functions_skip_comments_literals_and_structs() {
        let names: Vec<String> = functions(&mask(BASELINE))
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["correctFft", "inPlace", "cexp"]);
        let names: Vec<String> = functions(&mask(&driver("")))
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["best", "validate"]);
    }

    #[test]
    fn the_reference_is_the_body_validate_compares_with_under_the_prompts_signature() {
        let signature = "void fft(std::vector<double> const& x, std::vector<double> &out) {";
        let (reference, from) = reference(
            signature,
            "fft",
            &driver("correctFft(x, correct);"),
            BASELINE,
        )
        .unwrap();
        assert_eq!(from, "correctFft");
        assert!(reference.starts_with(&format!("{signature}\n    char brace = '}}';")));
        assert!(reference.ends_with("out[i] = x[i]; }\n}"), "{reference:?}");
    }

    #[test]
    fn a_check_function_of_another_shape_gives_way_to_correct_entry_point() {
        // validate compares with inPlace (one parameter): not the shape of
        // fft (two), so correctFft is the reference.
        let signature = "void fft(std::vector<double> const& x, std::vector<double> &out) {";
        let (_, from) =
            reference(signature, "fft", &driver("inPlace(correct);"), BASELINE).unwrap();
        assert_eq!(from, "correctFft");
        // Of the same shape, it is the reference.
        let (reference, from) = reference(
            "void conj(std::vector<double> &x) {",
            "conj",
            &driver("inPlace(correct);"),
            BASELINE,
        )
        .unwrap();
        assert_eq!(from, "inPlace");
        assert!(reference.starts_with("void conj(std::vector<double> &x) {\n    const char"));
    }

    #[test]
    fn other_parameter_names_keep_the_baselines_declaration_renamed() {
        let (reference, _) = reference(
            "void fft(std::vector<double> const& in, std::vector<double> &result) {",
            "fft",
            &driver("correctFft(x, correct);"),
            BASELINE,
        )
        .unwrap();
        assert!(
            reference.starts_with(
                "void fft(std::vector<double> const& x, std::vector<double> &out) {\n"
            ),
            "{reference}"
        );
    }

    #[test]
    fn no_usable_function_is_an_error_that_says_what_validate_calls() {
        let e = reference(
            "int count(int a, int b, int c) {",
            "count",
            &driver("inPlace(correct);"),
            BASELINE,
        )
        .unwrap_err();
        assert!(
            e.contains("it calls inPlace, fft") && e.contains("correctCount"),
            "{e}"
        );
        let e = reference("int count(int a) {", "count", "int main() {}", BASELINE).unwrap_err();
        assert!(e.contains("no top-level validate"), "{e}");
    }

    #[test]
    fn parameter_names_ignore_template_commas_and_defaults() {
        assert_eq!(
            param_names("std::vector<Point> const& points, std::array<size_t, 4> &bins"),
            ["points", "bins"]
        );
        assert_eq!(param_names("int n = 3, double *xs"), ["n", "xs"]);
        assert!(param_names(" void ").is_empty());
        assert_eq!(param_names("int a[]"), ["a"]);
    }
}
