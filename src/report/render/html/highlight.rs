//! Syntax highlighting for the case pages, by tree-sitter's grammar of the
//! case's language (Python, or C++ with C's query under C++'s, as
//! tree-sitter-cpp's own configuration stacks them) and the grammar's own
//! highlight query: the code is parsed, not matched by hand-written
//! patterns. Segments only (a token class and its text); the template
//! escapes and wraps them, so the page needs no script to show it.

use std::sync::OnceLock;

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use super::diff::{Segment, push};
use crate::suite::{CodeLanguage, Grammar};

/// The queries' capture names the page colours, each with its CSS class
/// (`tok-...`); captures not listed (variables, operators) stay plain.
const CAPTURES: [(&str, &str); 8] = [
    ("keyword", "keyword"),
    ("string", "string"),
    ("comment", "comment"),
    ("number", "number"),
    ("constant", "constant"),
    ("constant.builtin", "constant"),
    ("function", "function"),
    ("function.builtin", "builtin"),
];

/// Beyond this the page shows the code plain: highlighting a runaway reply
/// costs more than it helps.
const MAX_BYTES: usize = 64 * 1024;

fn configuration(lang: CodeLanguage) -> Option<&'static HighlightConfiguration> {
    static PYTHON: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    static CPP: OnceLock<Option<HighlightConfiguration>> = OnceLock::new();
    let colours = |mut config: HighlightConfiguration| {
        config.configure(&CAPTURES.map(|(capture, _)| capture));
        config
    };
    match lang.info().grammar? {
        Grammar::Python => PYTHON.get_or_init(|| {
            let grammar = tree_sitter_python::LANGUAGE.into();
            let query = tree_sitter_python::HIGHLIGHTS_QUERY;
            HighlightConfiguration::new(grammar, "python", query, "", "")
                .ok()
                .map(colours)
        }),
        Grammar::Cpp => CPP.get_or_init(|| {
            let grammar = tree_sitter_cpp::LANGUAGE.into();
            let query = [
                tree_sitter_c::HIGHLIGHT_QUERY,
                tree_sitter_cpp::HIGHLIGHT_QUERY,
            ]
            .join("\n");
            HighlightConfiguration::new(grammar, "cpp", &query, "", "")
                .ok()
                .map(colours)
        }),
    }
    .as_ref()
}

/// The code as (class, text) segments; None when it cannot be highlighted
/// (too long, or the grammar gave up), and the page shows it plain.
pub fn highlight(code: &str, lang: CodeLanguage) -> Option<Vec<Segment>> {
    if code.len() > MAX_BYTES {
        return None;
    }
    let config = configuration(lang)?;
    thread_local! {
        static HIGHLIGHTER: std::cell::RefCell<Highlighter> =
            std::cell::RefCell::new(Highlighter::new());
    }
    HIGHLIGHTER.with_borrow_mut(|highlighter| {
        let events = highlighter
            .highlight(config, code.as_bytes(), None, |_| None)
            .ok()?;
        let mut segments: Vec<Segment> = Vec::new();
        let mut open: Vec<&'static str> = Vec::new();
        for event in events {
            match event.ok()? {
                HighlightEvent::HighlightStart(h) => open.push(CAPTURES.get(h.0)?.1),
                HighlightEvent::HighlightEnd => {
                    open.pop();
                }
                HighlightEvent::Source { start, end } => {
                    let kind = open.last().copied().unwrap_or("");
                    push(&mut segments, kind, code.get(start..end)?);
                }
            }
        }
        Some(segments)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts highlighted as `kind`.
    fn of_kind<'a>(segments: &'a [(&str, String)], kind: &str) -> Vec<&'a str> {
        segments
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, s)| s.as_str())
            .collect()
    }

    #[test]
    fn tokens_get_their_classes_and_the_text_is_kept_whole() {
        let code = "def f(x):\n    # say it\n    return print(\"hi\", 42, None)\n";
        let segments = highlight(code, CodeLanguage::Python).expect("highlighted");
        let joined: String = segments.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(joined, code);
        let of = |kind: &str| of_kind(&segments, kind);
        assert!(of("keyword").contains(&"def"), "{segments:?}");
        assert!(of("keyword").contains(&"return"), "{segments:?}");
        assert_eq!(of("comment"), ["# say it"]);
        assert_eq!(of("string"), ["\"hi\""]);
        assert_eq!(of("number"), ["42"]);
        assert_eq!(of("builtin"), ["print"]);
        assert_eq!(of("constant"), ["None"]);
        assert_eq!(of("function"), ["f"]);
    }

    #[test]
    fn cpp_is_highlighted_by_the_cpp_grammar() {
        let code = "#include <vector>\n// sum\nint main() {\n    int s = 0;\n    for (int i = 0; i < 3; ++i) s += i;\n    return s > 0 ? 0 : 1;\n}\n";
        let segments = highlight(code, CodeLanguage::Cpp).expect("highlighted");
        let joined: String = segments.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(joined, code);
        let of = |kind: &str| of_kind(&segments, kind);
        for keyword in ["#include", "for", "return"] {
            assert!(of("keyword").contains(&keyword), "{keyword}: {segments:?}");
        }
        assert_eq!(of("string"), ["<vector>"]);
        assert_eq!(of("comment"), ["// sum"]);
        assert_eq!(of("function"), ["main"]);
        // The same line read as Python is a comment: the grammar is the case's.
        let python = highlight("#include <vector>\n", CodeLanguage::Python).expect("highlighted");
        assert_eq!(python[0], ("comment", "#include <vector>".to_string()));
    }

    #[test]
    fn broken_code_is_still_shown_whole() {
        let code = "def broken(:\n  print('x'\n";
        let joined: String = highlight(code, CodeLanguage::Python)
            .expect("tree-sitter recovers")
            .iter()
            .map(|(_, s)| s.as_str())
            .collect();
        assert_eq!(joined, code);
    }
}
