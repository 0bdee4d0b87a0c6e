//! A question's prompt in the paper's three parts (§3.3, Figure 2):
//! preamble (imports, helpers), signature, and the natural-language
//! description. Variants replace the description only.

/// A prompt taken apart; `render` puts it back with another description.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts {
    /// Everything before the entry point's `def` (imports, helpers).
    pub preamble: String,
    /// The `def` line(s) through the colon, with its newline.
    pub signature: String,
    /// The docstring's text, dedented and trimmed ("" when there is none).
    pub description: String,
    /// The docstring's indentation.
    indent: String,
    /// What follows the docstring (usually nothing).
    after: String,
}

impl Parts {
    /// Splits a completion-style prompt at `def <entry_point>(`; a question
    /// without an entry point (or whose text has no such `def`) is all
    /// description.
    pub fn of(question: &str, entry_point: Option<&str>) -> Parts {
        entry_point
            .and_then(|entry| split_function(question, entry))
            .unwrap_or_else(|| Parts {
                preamble: String::new(),
                signature: String::new(),
                description: question.trim().to_string(),
                indent: String::new(),
                after: String::new(),
            })
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
        let mut out = format!("{}{}", self.preamble, self.signature);
        if let Some(text) = description.filter(|d| !d.trim().is_empty()) {
            // A description holding the docstring's own quotes would end it early.
            let text = text.trim().replace("\"\"\"", "'''");
            out.push_str(&format!("{}\"\"\"\n", self.indent));
            for line in text.lines() {
                if line.trim().is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("{}{line}\n", self.indent));
                }
            }
            out.push_str(&format!("{}\"\"\"\n", self.indent));
        }
        out.push_str(&self.after);
        out
    }
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
        indent,
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
}
