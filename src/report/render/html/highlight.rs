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

/// A grammar's parser and highlight query (C++'s stacks C's under its own,
/// as tree-sitter-cpp's configuration does).
fn grammar(g: Grammar) -> (tree_sitter::Language, String) {
    match g {
        Grammar::Python => (
            tree_sitter_python::LANGUAGE.into(),
            tree_sitter_python::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::Cpp => (
            tree_sitter_cpp::LANGUAGE.into(),
            [
                tree_sitter_c::HIGHLIGHT_QUERY,
                tree_sitter_cpp::HIGHLIGHT_QUERY,
            ]
            .join("\n"),
        ),
        Grammar::Lua => (
            tree_sitter_lua::LANGUAGE.into(),
            tree_sitter_lua::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::Bash => (
            tree_sitter_bash::LANGUAGE.into(),
            tree_sitter_bash::HIGHLIGHT_QUERY.into(),
        ),
        Grammar::Ruby => (
            tree_sitter_ruby::LANGUAGE.into(),
            tree_sitter_ruby::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::Php => (
            tree_sitter_php::LANGUAGE_PHP.into(),
            tree_sitter_php::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            tree_sitter_javascript::HIGHLIGHT_QUERY.into(),
        ),
        Grammar::Go => (
            tree_sitter_go::LANGUAGE.into(),
            tree_sitter_go::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::Java => (
            tree_sitter_java::LANGUAGE.into(),
            tree_sitter_java::HIGHLIGHTS_QUERY.into(),
        ),
        Grammar::Rust => (
            tree_sitter_rust::LANGUAGE.into(),
            tree_sitter_rust::HIGHLIGHTS_QUERY.into(),
        ),
    }
}

fn configuration(lang: CodeLanguage) -> Option<&'static HighlightConfiguration> {
    static CONFIGS: OnceLock<
        std::sync::Mutex<
            std::collections::HashMap<Grammar, &'static Option<HighlightConfiguration>>,
        >,
    > = OnceLock::new();
    let g = lang.info().grammar?;
    let configs = CONFIGS.get_or_init(Default::default);
    let mut configs = configs.lock().unwrap_or_else(|p| p.into_inner());
    let config = *configs.entry(g).or_insert_with(|| {
        let (language, query) = grammar(g);
        let config = HighlightConfiguration::new(language, lang.as_str(), &query, "", "")
            .ok()
            .map(|mut config| {
                config.configure(&CAPTURES.map(|(capture, _)| capture));
                config
            });
        // Made once per grammar and run: kept for the process's life.
        Box::leak(Box::new(config))
    });
    config.as_ref()
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
    fn each_grammar_of_the_other_languages_finds_its_keywords_and_comments() {
        let samples = [
            (
                CodeLanguage::Lua,
                "-- add\nlocal function add(a, b)\n  return a + b\nend\n",
                "return",
            ),
            (
                CodeLanguage::Bash,
                "# add\nadd() {\n  if true; then echo 1; fi\n}\n",
                "if",
            ),
            (
                CodeLanguage::Ruby,
                "# add\ndef add(a, b)\n  return a + b\nend\n",
                "return",
            ),
            (
                CodeLanguage::Php,
                "<?php\n// add\nfunction add($a, $b) {\n  return $a + $b;\n}\n",
                "return",
            ),
            (
                CodeLanguage::JavaScript,
                "// add\nfunction add(a, b) {\n  return a + b;\n}\n",
                "return",
            ),
            (
                CodeLanguage::Go,
                "// add\nfunc add(a int, b int) int {\n\treturn a + b\n}\n",
                "return",
            ),
            (
                CodeLanguage::Java,
                "// add\nclass P {\n  static int add(int a, int b) {\n    return a + b;\n  }\n}\n",
                "return",
            ),
            (
                CodeLanguage::Rust,
                "// add\nfn add(a: i64, b: i64) -> i64 {\n    return a + b;\n}\n",
                "return",
            ),
        ];
        for (language, code, keyword) in samples {
            let segments =
                highlight(code, language).unwrap_or_else(|| panic!("{language:?} is highlighted"));
            let joined: String = segments.iter().map(|(_, s)| s.as_str()).collect();
            assert_eq!(joined, code, "{language:?}");
            assert!(
                of_kind(&segments, "keyword").contains(&keyword),
                "{language:?}: {segments:?}"
            );
            assert!(
                of_kind(&segments, "comment")
                    .iter()
                    .any(|c| c.contains("add")),
                "{language:?}: {segments:?}"
            );
        }
        // No grammar: shown plain.
        assert!(highlight("(define x 1)\n", CodeLanguage::Racket).is_none());
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
