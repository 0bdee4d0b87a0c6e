//! Python syntax highlighting for the quick view, by tree-sitter's Python
//! grammar and its own highlight query: the code is parsed, not matched by
//! hand-written patterns. Segments only (a token class and its text); the
//! template escapes and wraps them, so the page needs no script to show it.

use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use super::diff::{Segment, push};

/// The query's capture names the page colours, each with its CSS class
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

fn configuration() -> Option<&'static HighlightConfiguration> {
    static CONFIG: std::sync::OnceLock<Option<HighlightConfiguration>> = std::sync::OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut config = HighlightConfiguration::new(
                tree_sitter_python::LANGUAGE.into(),
                "python",
                tree_sitter_python::HIGHLIGHTS_QUERY,
                "",
                "",
            )
            .ok()?;
            config.configure(&CAPTURES.map(|(capture, _)| capture));
            Some(config)
        })
        .as_ref()
}

/// The code as (class, text) segments; None when it cannot be highlighted
/// (too long, or the grammar gave up), and the page shows it plain.
pub fn python(code: &str) -> Option<Vec<Segment>> {
    if code.len() > MAX_BYTES {
        return None;
    }
    let config = configuration()?;
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

    #[test]
    fn tokens_get_their_classes_and_the_text_is_kept_whole() {
        let code = "def f(x):\n    # say it\n    return print(\"hi\", 42, None)\n";
        let segments = python(code).expect("highlighted");
        let joined: String = segments.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(joined, code);
        let of = |kind: &str| -> Vec<&str> {
            segments
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, s)| s.as_str())
                .collect()
        };
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
    fn broken_code_is_still_shown_whole() {
        let code = "def broken(:\n  print('x'\n";
        let joined: String = python(code)
            .expect("tree-sitter recovers")
            .iter()
            .map(|(_, s)| s.as_str())
            .collect();
        assert_eq!(joined, code);
    }
}
