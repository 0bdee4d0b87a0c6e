//! The program MultiPL-E runs: the prompt, the model's completion and the
//! tests. A chat model answers with the whole function rather than the
//! text that continues the prompt, so the completion is taken from the
//! reply's code:
//!
//! - where the code declares the prompt's function (the prompt's
//!   declaration line, up to the function's name), the completion is what
//!   follows that line; what comes before it (imports, helpers) goes into
//!   the program before the prompt's description, less the lines the prompt
//!   already has (`<?php`, `#lang racket`, `class Problem {`, its imports);
//! - otherwise the code is the completion as it stands (a body);
//! - either way the completion ends at the first of MultiPL-E's stop
//!   tokens for the problem, as MultiPL-E cuts a completion, except the
//!   blank-line token (`\n\n`): it stops a base model that rambles on, but
//!   would cut a chat model's whole function at its first blank line.
//!
//! So a reply's own `main`, tests or examples after the function are not
//! run (MultiPL-E's stop tokens end the function before them), and the
//! tests close the function where MultiPL-E's do (`}` for Java, Rust, Go).

use crate::suite::CodeLanguage;

/// The program, with and without the proof in its tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// Prompt, completion, tests: what MultiPL-E would run, and what the
    /// report shows.
    pub shown: String,
    /// The same with the proof in the tests: what runs.
    pub run: String,
}

/// Where the pieces of a prompt are.
struct Prompt<'a> {
    text: &'a str,
    /// The byte where the function's declaration line starts.
    declaration: usize,
    /// The byte where the description (its first comment line) starts, or
    /// the declaration when there is no description (p_bot).
    description: usize,
}

/// The completion and the lines to put before the description.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub hoisted: String,
    pub completion: String,
}

/// Letters and digits of a name, lowercased: `hasCloseElements` and
/// `has_close_elements` are one name (MultiPL-E renames per language).
fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The identifiers of `line` with their byte ranges.
fn identifiers(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = line.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            if bytes[at].is_ascii_alphabetic() || bytes[at] == b'_' {
                while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                    at += 1;
                }
                return Some((start, &line[start..at]));
            }
            at += 1;
        }
        None
    })
}

/// Where `entry` is named on `line`: the end of the name.
fn names(line: &str, entry: &str) -> Option<usize> {
    let key = name_key(entry);
    identifiers(line)
        .find(|(_, id)| name_key(id) == key)
        .map(|(at, id)| at + id.len())
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl<'a> Prompt<'a> {
    /// The declaration is the last line that names the function and is not
    /// a comment or a doctest (`>>> f(1)`).
    fn of(text: &'a str, entry: &str, language: CodeLanguage) -> Option<Prompt<'a>> {
        let marker = language.line_comment();
        let mut offset = 0;
        let mut declaration = None;
        let mut first_comment = None;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            let comment = is_comment(trimmed, marker);
            if comment && first_comment.is_none() && declaration.is_none() {
                first_comment = Some(offset);
            }
            if !comment && !trimmed.starts_with(">>>") && names(line, entry).is_some() {
                declaration = Some(offset);
            }
            offset += line.len();
        }
        let declaration = declaration?;
        let description = first_comment
            .filter(|&c| c < declaration)
            .unwrap_or(declaration);
        Some(Prompt {
            text,
            declaration,
            description,
        })
    }

    fn declaration_line(&self) -> &'a str {
        self.text[self.declaration..]
            .lines()
            .next()
            .unwrap_or_default()
    }
}

/// A line that opens or is a comment in any of the languages' syntaxes.
fn is_comment(trimmed: &str, marker: &str) -> bool {
    trimmed.starts_with(marker)
        || trimmed.starts_with("/*")
        || trimmed.starts_with("(*")
        || trimmed.starts_with("#|")
}

/// The reply's line that declares the function: it reads as the prompt's
/// declaration line does up to the function's name. Gives where that line
/// starts and where the completion starts: after the prompt's declaration
/// when the line begins with it (a one-line function's body is on it),
/// else after the line.
fn declared_at(code: &str, prompt: &Prompt, entry: &str) -> Option<(usize, usize)> {
    let declaration = prompt.declaration_line();
    let head = collapse(&declaration[..names(declaration, entry)?]);
    let head_key = head
        .rsplit_once(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(String::new(), |(before, _)| collapse(before));
    let whole = declaration.trim();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        if let Some(end) = names(line, entry) {
            let candidate = collapse(&line[..end]);
            let candidate_key = candidate
                .rsplit_once(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(String::new(), |(before, _)| collapse(before));
            if candidate_key == head_key && !line.trim_start().starts_with(">>>") {
                let indent = line.len() - line.trim_start().len();
                let rest = line.trim_start().strip_prefix(whole);
                let body = match rest {
                    Some(rest) if !rest.trim().is_empty() => offset + indent + whole.len(),
                    _ => offset + line.len(),
                };
                return Some((offset, body));
            }
        }
        offset += line.len();
    }
    None
}

/// The completion of `prompt` that `code` (the reply's) gives.
pub fn completion(
    prompt: &str,
    entry: &str,
    language: CodeLanguage,
    code: &str,
    stop_tokens: &[String],
) -> Completion {
    let code = code.replace("\r\n", "\n");
    let parsed = Prompt::of(prompt, entry, language);
    let (hoisted, rest) = match parsed
        .as_ref()
        .and_then(|p| declared_at(&code, p, entry).map(|at| (p, at)))
    {
        Some((p, (start, end))) => {
            let prompt_lines: Vec<String> = p.text.lines().map(collapse).collect();
            let before: Vec<&str> = code[..start]
                .lines()
                .filter(|l| {
                    let l = collapse(l);
                    !l.is_empty() && !prompt_lines.contains(&l)
                })
                .collect();
            let mut hoisted = before.join("\n");
            if !hoisted.is_empty() {
                hoisted.push('\n');
            }
            (hoisted, code[end..].to_string())
        }
        None => {
            // A reply that repeats the prompt and goes on is its continuation.
            let rest = code
                .strip_prefix(prompt)
                .map(str::to_string)
                .unwrap_or(code.clone());
            (String::new(), rest)
        }
    };
    Completion {
        hoisted,
        completion: cut(&rest, stop_tokens),
    }
}

/// `text` up to the first of the stop tokens that is not blank.
fn cut(text: &str, stop_tokens: &[String]) -> String {
    let end = stop_tokens
        .iter()
        .filter(|t| !t.trim().is_empty())
        .filter_map(|t| text.find(t.as_str()))
        .min()
        .unwrap_or(text.len());
    text[..end].to_string()
}

/// The prompt with `hoisted` before its description; imports of an
/// `import ( ... )` block join the prompt's own block.
pub fn prompt_with(
    prompt: &str,
    entry: &str,
    language: CodeLanguage,
    hoisted: &str,
    import_block: bool,
) -> String {
    if hoisted.trim().is_empty() {
        return prompt.to_string();
    }
    let (mut prompt, hoisted) = if import_block {
        join_imports(prompt, hoisted)
    } else {
        (prompt.to_string(), hoisted.to_string())
    };
    if hoisted.trim().is_empty() {
        return prompt;
    }
    let at = Prompt::of(&prompt, entry, language).map_or(prompt.len(), |p| p.description);
    let mut insert = hoisted;
    if !insert.ends_with('\n') {
        insert.push('\n');
    }
    prompt.insert_str(at, &insert);
    prompt
}

/// Moves the packages `hoisted` imports (`import "x"`, or inside
/// `import ( ... )`) into the prompt's `import (` block.
fn join_imports(prompt: &str, hoisted: &str) -> (String, String) {
    let quoted = |l: &str| {
        let l = l.trim();
        (l.starts_with('"') && l.ends_with('"')).then(|| l.to_string())
    };
    let mut packages = Vec::new();
    let mut rest = Vec::new();
    let mut in_block = false;
    for line in hoisted.lines() {
        let t = line.trim();
        if in_block {
            if t == ")" {
                in_block = false;
            } else if let Some(p) = quoted(t) {
                packages.push(p);
            }
            continue;
        }
        if t == "import (" {
            in_block = true;
        } else if let Some(p) = t.strip_prefix("import ").and_then(quoted) {
            packages.push(p);
        } else if let Some(p) = quoted(t) {
            // A block whose `import (` was the prompt's own line.
            packages.push(p);
        } else if t != ")" {
            rest.push(line);
        }
    }
    let Some(open) = prompt.find("import (\n") else {
        return (prompt.to_string(), hoisted.to_string());
    };
    let body_start = open + "import (\n".len();
    let close = prompt[body_start..]
        .find("\n)")
        .map_or(body_start, |c| body_start + c);
    let present: Vec<String> = prompt[body_start..close]
        .lines()
        .filter_map(quoted)
        .collect();
    let mut out = prompt[..close].to_string();
    for p in packages {
        if !present.contains(&p) && !out[body_start..].contains(&format!("    {p}\n")) {
            out.push_str(&format!("\n    {p}"));
        }
    }
    out.push_str(&prompt[close..]);
    let mut rest = rest.join("\n");
    if !rest.is_empty() {
        rest.push('\n');
    }
    (out, rest)
}

/// What the program of a problem is made of, besides the reply.
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a> {
    pub prompt: &'a str,
    pub entry: &'a str,
    pub language: CodeLanguage,
    pub stop_tokens: &'a [String],
    pub tests: &'a str,
    /// The prompt opens an `import ( ... )` block (spec.rs).
    pub import_block: bool,
}

impl<'a> Problem<'a> {
    pub fn of(question: &'a crate::suite::Question, spec: &super::Spec) -> Problem<'a> {
        Problem {
            prompt: &question.question,
            entry: question.entry_point.as_deref().unwrap_or_default(),
            language: spec.language,
            stop_tokens: question
                .multipl_e
                .as_ref()
                .map_or(&[][..], |m| m.stop_tokens.as_slice()),
            tests: question.tests.as_deref().unwrap_or_default(),
            import_block: spec.import_block,
        }
    }
}

/// The program for `code`: prompt (with what is hoisted), completion,
/// tests; `proved` the tests with the proof in.
pub fn program(problem: &Problem, code: &str, proved: &str) -> Program {
    let c = completion(
        problem.prompt,
        problem.entry,
        problem.language,
        code,
        problem.stop_tokens,
    );
    let head = prompt_with(
        problem.prompt,
        problem.entry,
        problem.language,
        &c.hoisted,
        problem.import_block,
    );
    let mut body = head;
    body.push_str(&c.completion);
    if !body.ends_with('\n') {
        body.push('\n');
    }
    Program {
        shown: format!("{body}{}", problem.tests),
        run: format!("{body}{proved}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stops(s: &[&str]) -> Vec<String> {
        s.iter().map(|t| t.to_string()).collect()
    }

    const LUA: &str = "-- Add two numbers.\n-- >>> add(1, 2)\n-- 3\nlocal function add(a, b)\n";

    #[test]
    fn a_whole_lua_function_gives_its_body_and_end() {
        let code = "local function add(a, b)\n  return a + b\nend\n\nprint(add(1, 2))\n";
        let c = completion(
            LUA,
            "add",
            CodeLanguage::Lua,
            code,
            &stops(&["\nlocal", "\nfunction", "\n--", "\n\n"]),
        );
        assert_eq!(c.completion, "  return a + b\nend\n\nprint(add(1, 2))\n");
        assert_eq!(c.hoisted, "");
    }

    #[test]
    fn a_body_is_the_completion_and_stops_at_the_next_definition() {
        let code = "  return a + b\nend\nlocal function other()\nend\n";
        let c = completion(
            LUA,
            "add",
            CodeLanguage::Lua,
            code,
            &stops(&["\nlocal", "\nfunction"]),
        );
        assert_eq!(c.completion, "  return a + b\nend");
    }

    #[test]
    fn helpers_before_the_function_are_hoisted_above_the_description() {
        let code = "local function twice(x)\n  return 2 * x\nend\n\nlocal function add(a, b)\n  return twice(a) / 2 + b\nend\n";
        let c = completion(LUA, "add", CodeLanguage::Lua, code, &stops(&["\nlocal"]));
        assert_eq!(c.hoisted, "local function twice(x)\n  return 2 * x\nend\n");
        let head = prompt_with(LUA, "add", CodeLanguage::Lua, &c.hoisted, false);
        assert!(head.starts_with("local function twice(x)\n"));
        assert!(head.ends_with("-- 3\nlocal function add(a, b)\n"));
    }

    #[test]
    fn a_java_reply_in_its_class_keeps_only_the_method_body() {
        let prompt = "import java.util.*;\nclass Problem {\n    // Add.\n    public static long add(long a, long b) {\n";
        let code = "import java.util.*;\n\nclass Problem {\n    public static long add(long a, long b) {\n        return a + b;\n    }\n\n    public static void main(String[] args) {\n        System.out.println(add(1, 2));\n    }\n}\n";
        let c = completion(
            prompt,
            "add",
            CodeLanguage::Java,
            code,
            &stops(&["\n    }\n"]),
        );
        assert_eq!(c.hoisted, "");
        assert_eq!(c.completion, "        return a + b;");
    }

    #[test]
    fn a_camel_case_name_is_the_same_function() {
        let prompt = "class Problem {\n    // d\n    public static boolean hasCloseElements(ArrayList<Float> numbers) {\n";
        let code = "public static boolean hasCloseElements(ArrayList<Float> numbers) {\n        return false;\n    }\n";
        let c = completion(
            prompt,
            "has_close_elements",
            CodeLanguage::Java,
            code,
            &stops(&["\n    }\n"]),
        );
        assert_eq!(c.completion, "        return false;");
    }

    #[test]
    fn go_imports_join_the_prompts_block() {
        let prompt = "package add_test\n\nimport (\n    \"testing\"\n    \"fmt\"\n)\n\n// Add.\nfunc add(a int, b int) int {\n";
        let code = "import (\n    \"fmt\"\n    \"strings\"\n)\n\nfunc add(a int, b int) int {\n    return a + b\n}\n";
        let stops = stops(&["\nfunc", "struct", "\n// "]);
        let problem = Problem {
            prompt,
            entry: "add",
            language: CodeLanguage::Go,
            stop_tokens: &stops,
            tests: "func TestAdd(t *testing.T) {}\n",
            import_block: true,
        };
        let p = program(&problem, code, "func TestAdd(t *testing.T) {}\n");
        assert!(
            p.shown
                .contains("import (\n    \"testing\"\n    \"fmt\"\n    \"strings\"\n)\n"),
            "{}",
            p.shown
        );
        assert_eq!(p.shown.matches("import (").count(), 1);
        assert!(
            p.shown.ends_with(
                "func add(a int, b int) int {\n    return a + b\n}\nfunc TestAdd(t *testing.T) {}\n"
            ),
            "{}",
            p.shown
        );
    }

    #[test]
    fn a_blank_line_inside_the_function_does_not_cut_it() {
        let prompt = "(**Add.\n*)\nlet add (a : int) (b : int) : int =\n";
        let code = "let add (a : int) (b : int) : int =\n  let s = a + b in\n\n  s\n\nlet () = print_int (add 1 2)\n";
        let c = completion(
            prompt,
            "add",
            CodeLanguage::OCaml,
            code,
            &stops(&["\n\n", "\n(*", "\ntype", "\nlet"]),
        );
        assert_eq!(c.completion, "  let s = a + b in\n\n  s\n");
    }

    #[test]
    fn a_doctest_line_is_not_the_declaration() {
        let prompt = "# Add.\n# >>> add(1, 2)\nadd <- function(a, b) {\n";
        let code = ">>> add(1, 2)\nadd <- function(a, b) {\n  a + b\n}\n";
        let c = completion(prompt, "add", CodeLanguage::R, code, &stops(&["\n#"]));
        assert_eq!(c.completion, "  a + b\n}\n");
    }
}
