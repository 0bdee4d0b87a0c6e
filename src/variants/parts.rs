//! A question's prompt in the paper's three parts (§3.3, Figure 2):
//! preamble (imports, helpers), signature, and the natural-language
//! description. Variants replace the description only.
//!
//! Python (HumanEval): the description is the entry point's docstring.
//! C++ (ParEval): it is the last `/* ... */` comment before the entry
//! point's signature; the preamble is everything before that comment and
//! the signature everything after it, both kept byte for byte.

use crate::suite::{CodeLanguage, DescriptionStyle, Question};

/// A prompt taken apart; `render` puts it back with another description.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    /// Everything before the description (imports, helpers; C++: also the
    /// types the problem declares).
    pub preamble: String,
    /// Python: the `def` line(s) through the colon, with its newline. C++:
    /// the function's head through its opening brace.
    pub signature: String,
    /// The description's text, dedented and trimmed ("" when there is none).
    pub description: String,
    /// How the description is written back.
    style: Style,
    /// What follows the description (usually nothing).
    after: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Style {
    /// A docstring under the signature, at this indentation.
    Docstring { indent: String },
    /// A `/* */` comment before the signature, and what separated the two
    /// in the original (a newline).
    BlockComment { gap: String },
    /// `//` lines right before the signature.
    LineComments,
    /// Line comments of another language right before the signature, each
    /// line opened by `prefix` (`-- `, `;; `, `    // `, `/// `).
    Lines { prefix: String },
    /// A block comment of another language (`(* *)`, `/* */`): how it
    /// opened and closed, and what separated it from the signature.
    Block {
        open: String,
        close: String,
        gap: String,
    },
}

impl Parts {
    /// The question's prompt taken apart as its language writes it.
    pub fn of_question(q: &Question) -> Parts {
        let entry = q.entry_point.as_deref();
        match q.code_language().info().description {
            DescriptionStyle::Docstring => Parts::of(&q.question, entry),
            DescriptionStyle::CComments => Parts::of_cpp(&q.question, entry),
            DescriptionStyle::Comments => entry
                .and_then(|e| split_commented(&q.question, e, q.code_language()))
                .unwrap_or_else(|| plain(&q.question)),
        }
    }

    /// Splits a completion-style prompt at `def <entry_point>(`; a question
    /// without an entry point (or whose text has no such `def`) is all
    /// description.
    pub fn of(question: &str, entry_point: Option<&str>) -> Parts {
        entry_point
            .and_then(|entry| split_function(question, entry))
            .unwrap_or_else(|| plain(question))
    }

    /// Splits a C++ prompt around the last block comment that ends right
    /// before the entry point's signature. Without an entry point the
    /// prompt is all description; without such a comment its description
    /// is empty (p_bot is then the prompt itself).
    pub fn of_cpp(question: &str, entry_point: Option<&str>) -> Parts {
        entry_point
            .and_then(|entry| split_cpp_function(question, entry))
            .unwrap_or_else(|| plain(question))
    }

    /// Whether the prompt is a function to complete (else plain text).
    pub fn is_function(&self) -> bool {
        !self.signature.is_empty()
    }

    /// The prompt with `description` in place of the original one; `None`
    /// leaves it out (the paper's p_bot: preamble and signature only).
    pub fn render(&self, description: Option<&str>) -> String {
        if !self.is_function() {
            return description.unwrap_or("").to_string();
        }
        let description = description.filter(|d| !d.trim().is_empty());
        let mut out = self.preamble.clone();
        match &self.style {
            Style::Docstring { indent } => {
                out.push_str(&self.signature);
                if let Some(text) = description {
                    out.push_str(&docstring_text(text, indent));
                }
            }
            Style::BlockComment { gap } => {
                if let Some(text) = description {
                    out.push_str(&block_comment(text));
                    out.push_str(gap);
                }
                out.push_str(&self.signature);
            }
            Style::LineComments => {
                if let Some(text) = description {
                    for line in text.trim().lines() {
                        out.push_str(format!("// {line}").trim_end());
                        out.push('\n');
                    }
                }
                out.push_str(&self.signature);
            }
            Style::Lines { prefix } => {
                if let Some(text) = description {
                    for line in text.trim().lines() {
                        out.push_str(format!("{prefix}{line}").trim_end());
                        out.push('\n');
                    }
                }
                out.push_str(&self.signature);
            }
            Style::Block { open, close, gap } => {
                if let Some(text) = description {
                    // A description holding the close would end it early.
                    let closing = close.trim();
                    let broken = format!("{} {}", &closing[..1], &closing[1..]);
                    out.push_str(open);
                    out.push_str(&text.trim().replace(closing, &broken));
                    out.push_str(close);
                    out.push_str(gap);
                }
                out.push_str(&self.signature);
            }
        }
        out.push_str(&self.after);
        out
    }
}

/// A question that is not a function to complete: all description.
fn plain(question: &str) -> Parts {
    Parts {
        preamble: String::new(),
        signature: String::new(),
        description: question.trim().to_string(),
        style: Style::Docstring {
            indent: String::new(),
        },
        after: String::new(),
    }
}

/// `text` as a docstring at `indent`, quotes on lines of their own.
fn docstring_text(text: &str, indent: &str) -> String {
    // A description holding the docstring's own quotes would end it early.
    let text = text.trim().replace(r#"""""#, "'''");
    let mut out = format!("{indent}\"\"\"\n");
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("{indent}{line}\n"));
        }
    }
    out.push_str(&format!("{indent}\"\"\"\n"));
    out
}

/// `text` as ParEval writes a description: `/* ` and the first line, the
/// following ones indented by three spaces, and `*/` on a line of its own.
fn block_comment(text: &str) -> String {
    // A description holding `*/` would end the comment early.
    let text = text.trim().replace("*/", "* /");
    let mut out = String::from("/*");
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            out.push_str(&format!(" {line}\n"));
        } else if line.trim().is_empty() {
            out.push('\n');
        } else {
            out.push_str(&format!("   {line}\n"));
        }
    }
    out.push_str("*/");
    out
}

/// The C++ split. The signature starts at the last line that names the
/// entry point followed by `(` (ParEval writes the return type on the same
/// line); the description is the `/* */` comment that ends right before
/// it, with only whitespace between them (the gap, kept).
fn split_cpp_function(text: &str, entry: &str) -> Option<Parts> {
    let head = regex::Regex::new(&format!(r"(?m)^[^\n]*\b{}[ \t]*\(", regex::escape(entry)))
        .ok()?
        .find_iter(text)
        .last()?;
    // A function template's `template <...>` lines belong to its head.
    let mut start = head.start();
    for line in text[..start].split_inclusive('\n').rev() {
        if !line.trim_start().starts_with("template") {
            break;
        }
        start -= line.len();
    }
    let before = &text[..start];
    let comment_end = before.trim_end().len();
    let block = before[..comment_end]
        .strip_suffix("*/")
        .and_then(|inner| inner.rfind("/*"));
    let (preamble, description, style) = match block {
        Some(open) => (
            &text[..open],
            dedent(&before[open + 2..comment_end - 2]),
            Style::BlockComment {
                gap: before[comment_end..].to_string(),
            },
        ),
        None => match line_comments(before) {
            Some((open, description)) => (&text[..open], description, Style::LineComments),
            None => (
                before,
                String::new(),
                Style::BlockComment { gap: "\n".into() },
            ),
        },
    };
    Some(Parts {
        preamble: preamble.to_string(),
        signature: text[start..].to_string(),
        description,
        style,
        after: String::new(),
    })
}

/// The split of a prompt in a language of MultiPL-E's: the signature from
/// the declaration line (the last line that names the entry point and is
/// neither a comment nor a doctest) to the end; the description the block
/// comment (`/* */`, `(* *)`) or the run of line comments right before it;
/// the preamble (`<?php`, `#lang racket`, imports) what comes first.
fn split_commented(text: &str, entry: &str, language: CodeLanguage) -> Option<Parts> {
    let marker = language.line_comment();
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let entry_key = key(entry);
    let names = |line: &str| {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| !w.is_empty() && key(w) == entry_key)
    };
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let comment = t.starts_with(marker) || t.starts_with("/*") || t.starts_with("(*");
        if !comment && !t.starts_with(">>>") && names(line) {
            start = Some(offset);
        }
        offset += line.len();
    }
    let start = start?;
    let before = &text[..start];
    let comment_end = before.trim_end().len();
    let block = [("/*", "*/"), ("(*", "*)")].into_iter().find_map(|(o, c)| {
        let inner = before[..comment_end].strip_suffix(c)?;
        let open_at = inner.rfind(o)?;
        Some((open_at, o, c))
    });
    let (preamble, description, style) = match block {
        Some((open_at, o, c)) => {
            // `(**` and `/**` open as doc comments: the extra star is the
            // opener's, kept on rendering.
            let mut open_end = open_at + o.len();
            while before[open_end..].starts_with('*') && open_end < comment_end - c.len() {
                open_end += 1;
            }
            let inner = &before[open_end..comment_end - c.len()];
            let lead: String = inner.chars().take_while(|ch| ch.is_whitespace()).collect();
            let tail_len = inner.len() - inner.trim_end().len();
            let trail = &inner[inner.len() - tail_len..];
            (
                &text[..open_at],
                dedent(inner),
                Style::Block {
                    open: format!("{}{lead}", &before[open_at..open_end]),
                    close: format!("{trail}{c}"),
                    gap: before[comment_end..].to_string(),
                },
            )
        }
        None => {
            let mut open = before.len();
            let mut lines = Vec::new();
            let mut prefix = None;
            for line in before.split_inclusive('\n').rev() {
                let indent = line.len() - line.trim_start().len();
                let Some(rest) = line.trim_start().strip_prefix(marker) else {
                    break;
                };
                // `///`, `;;;`: the marker's character repeated.
                let extra = rest.len()
                    - rest
                        .trim_start_matches(marker.chars().last().unwrap_or(' '))
                        .len();
                let rest = &rest[extra..];
                let text = rest.strip_prefix(' ').unwrap_or(rest);
                prefix = Some(format!(
                    "{}{}{} ",
                    &line[..indent],
                    marker,
                    &line[indent + marker.len()..indent + marker.len() + extra]
                ));
                open -= line.len();
                lines.push(text.trim_end());
            }
            lines.reverse();
            let prefix = prefix.unwrap_or_else(|| format!("{marker} "));
            (
                &text[..open],
                lines.join("\n").trim().to_string(),
                Style::Lines { prefix },
            )
        }
    };
    Some(Parts {
        preamble: preamble.to_string(),
        signature: text[start..].to_string(),
        description,
        style,
        after: String::new(),
    })
}

/// A description written as `//` lines right before the signature: where
/// they start, and their text.
fn line_comments(before: &str) -> Option<(usize, String)> {
    let mut open = before.len();
    let mut lines = Vec::new();
    for line in before.split_inclusive('\n').rev() {
        let Some(text) = line.trim_start().strip_prefix("//") else {
            break;
        };
        open -= line.len();
        lines.push(text.strip_prefix(' ').unwrap_or(text).trim_end());
    }
    lines.reverse();
    (!lines.is_empty()).then(|| (open, lines.join("\n").trim().to_string()))
}

fn split_function(text: &str, entry: &str) -> Option<Parts> {
    let def = regex::Regex::new(&format!(
        r"(?m)^[ \t]*(async[ \t]+)?def[ \t]+{entry}[ \t]*\("
    ))
    .ok()?
    .find(text)?;
    let preamble = &text[..def.start()];
    // The signature ends at the first line ending in `:` (it may wrap).
    let mut end = def.start();
    let mut found = false;
    for line in text[def.start()..].split_inclusive('\n') {
        end += line.len();
        let code = line.split('#').next().unwrap_or("").trim_end();
        if code.ends_with(':') {
            found = true;
            break;
        }
    }
    if !found {
        return None;
    }
    let signature = &text[def.start()..end];
    let body = &text[end..];
    let def_indent = text[def.start()..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .count();
    let default_indent = format!("{}    ", &text[def.start()..def.start() + def_indent]);
    let (description, indent, after) =
        docstring(body).unwrap_or_else(|| (String::new(), default_indent, body.to_string()));
    Some(Parts {
        preamble: preamble.to_string(),
        signature: signature.to_string(),
        description,
        style: Style::Docstring { indent },
        after,
    })
}

/// (text, indentation, rest) of the docstring that opens `body`.
fn docstring(body: &str) -> Option<(String, String, String)> {
    let start = body.len() - body.trim_start().len();
    let opening = &body[start..];
    let line_start = body[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = body[line_start..start].to_string();
    let opening = opening.strip_prefix(['r', 'R']).unwrap_or(opening);
    let quote = ["\"\"\"", "'''"]
        .into_iter()
        .find(|q| opening.starts_with(q))?;
    let inner_start = body.len() - opening.len() + quote.len();
    let close = body[inner_start..].find(quote)? + inner_start;
    let mut rest = &body[close + quote.len()..];
    // The closing line's newline belongs to the docstring.
    if let Some(r) = rest.strip_prefix('\n') {
        rest = r;
    }
    Some((dedent(&body[inner_start..close]), indent, rest.to_string()))
}

/// Common leading whitespace removed from every non-blank line, trimmed.
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let mut out = vec![first];
    out.extend(lines.map(|l| {
        if l.trim().is_empty() {
            String::new()
        } else {
            l[indent.min(l.len() - l.trim_start().len())..]
                .trim_end()
                .to_string()
        }
    }));
    out.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HE0: &str = "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    \"\"\" Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    \"\"\"\n";

    #[test]
    fn a_humaneval_prompt_splits_into_preamble_signature_and_description() {
        let p = Parts::of(HE0, Some("has_close_elements"));
        assert_eq!(p.preamble, "from typing import List\n\n\n");
        assert_eq!(
            p.signature,
            "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        );
        assert_eq!(
            p.description,
            "Check if in given list of numbers, are any two numbers closer to each other than\ngiven threshold.\n>>> has_close_elements([1.0, 2.0, 3.0], 0.5)\nFalse"
        );
        // p_bot: preamble and signature only.
        assert_eq!(
            p.render(None),
            "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        );
        assert_eq!(
            p.render(Some("Two steps.\n\nSecond \"\"\"quoted\"\"\".")),
            "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    \"\"\"\n    Two steps.\n\n    Second '''quoted'''.\n    \"\"\"\n"
        );
    }

    #[test]
    fn helpers_before_the_entry_point_stay_in_the_preamble() {
        let text = "import math\n\n\ndef poly(xs: list, x: float):\n    \"\"\"Evaluates.\"\"\"\n    return 0\n\n\ndef find_zero(\n    xs: list,\n):\n    '''Finds a zero.'''\n";
        let p = Parts::of(text, Some("find_zero"));
        assert!(p.preamble.contains("def poly"), "{p:?}");
        assert_eq!(p.signature, "def find_zero(\n    xs: list,\n):\n");
        assert_eq!(p.description, "Finds a zero.");
    }

    #[test]
    fn a_plain_question_is_all_description() {
        let p = Parts::of("  Print the sum.  ", None);
        assert!(!p.is_function());
        assert_eq!(p.description, "Print the sum.");
        assert_eq!(p.render(Some("Add them.")), "Add them.");
        assert_eq!(p.render(None), "");
    }

    const PAREVAL_48: &str = "#include <omp.h>\n\nstruct Element {\n\tsize_t index;\n  double value;\n};\n\n/* Compute z = alpha*x+y where x and y are sparse vectors. Store the result in z.\n   Use OpenMP to compute in parallel.\n   Example:\n   \n   input: x=[{5, 12}, {8, 3}], alpha=1\n   output: z=[{3, 1}]\n*/\nvoid sparseAxpy(double alpha, std::vector<Element> const& x, std::vector<Element> const& y, std::vector<double> &z) {";

    #[test]
    fn a_pareval_prompt_splits_around_its_last_comment_before_the_signature() {
        let p = Parts::of_cpp(PAREVAL_48, Some("sparseAxpy"));
        assert_eq!(
            p.preamble,
            "#include <omp.h>\n\nstruct Element {\n\tsize_t index;\n  double value;\n};\n\n"
        );
        assert!(p.signature.starts_with("void sparseAxpy(double alpha"));
        assert!(p.signature.ends_with("std::vector<double> &z) {"));
        assert_eq!(
            p.description,
            "Compute z = alpha*x+y where x and y are sparse vectors. Store the result in z.\nUse OpenMP to compute in parallel.\nExample:\n\ninput: x=[{5, 12}, {8, 3}], alpha=1\noutput: z=[{3, 1}]"
        );
        // The original description renders back to the original prompt.
        assert_eq!(
            p.render(Some(&p.description)),
            PAREVAL_48.replace("   \n", "\n")
        );
        // p_bot: preamble and signature, byte for byte.
        assert_eq!(p.render(None), format!("{}{}", p.preamble, p.signature));
        let other = p.render(Some("Add them.\n\nIt ends */ here."));
        assert_eq!(
            other,
            format!(
                "{}/* Add them.\n\n   It ends * / here.\n*/\n{}",
                p.preamble, p.signature
            )
        );
    }

    #[test]
    fn a_comment_inside_the_preamble_stays_there() {
        let text = "/* helper */\nint g() { return 1; }\n\n// not a description\n\nint f(int x) {";
        let p = Parts::of_cpp(text, Some("f"));
        assert_eq!(p.description, "");
        assert_eq!(
            p.preamble,
            "/* helper */\nint g() { return 1; }\n\n// not a description\n\n"
        );
        assert_eq!(p.render(None), text);
        assert_eq!(
            p.render(Some("Returns x.")),
            "/* helper */\nint g() { return 1; }\n\n// not a description\n\n/* Returns x.\n*/\nint f(int x) {"
        );
        // Only the entry point's own head starts the signature.
        let p = Parts::of_cpp(
            "/* a */\nint f2(int) {}\n/* b\n*/\nint f(int x) {",
            Some("f"),
        );
        assert_eq!(p.preamble, "/* a */\nint f2(int) {}\n");
        assert_eq!(p.description, "b");
    }

    #[test]
    fn a_template_head_and_a_line_comment_description_are_kept_apart() {
        let text = "#include <vector>\n\n// Sum x.\n// Example: [1, 2] -> 3\ntemplate <typename T>\nT sumOf(std::vector<T> const& x) {";
        let p = Parts::of_cpp(text, Some("sumOf"));
        assert_eq!(p.preamble, "#include <vector>\n\n");
        assert_eq!(
            p.signature,
            "template <typename T>\nT sumOf(std::vector<T> const& x) {"
        );
        assert_eq!(p.description, "Sum x.\nExample: [1, 2] -> 3");
        assert_eq!(p.render(Some(&p.description)), text);
        assert_eq!(p.render(None), format!("{}{}", p.preamble, p.signature));
        let blocked = "/* Sum x. */\ntemplate <typename T>\nT sumOf(std::vector<T> const& x) {";
        let p = Parts::of_cpp(blocked, Some("sumOf"));
        assert_eq!(
            (p.preamble.as_str(), p.description.as_str()),
            ("", "Sum x.")
        );
    }
}
