//! Expected against actual output, with the differences marked: what the
//! quick view shows for a failed case. Segments only; the template escapes
//! and wraps them (`<del>` on the expected side, `<ins>` on the actual).

use std::time::Duration;

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// Beyond this many characters on either side a character diff is not worth
/// its time (printed output is capped, but a runaway print is not rare):
/// lines are compared instead.
const CHAR_DIFF_LIMIT: usize = 4_000;

/// `("", text)` unchanged, `("del", text)` only in expected, `("ins", text)`
/// only in actual.
pub type Segment = (&'static str, String);

#[derive(Debug, Serialize, PartialEq)]
pub struct Marked {
    pub expected: Vec<Segment>,
    pub actual: Vec<Segment>,
}

/// None when there is nothing to mark (equal texts, or nothing printed).
pub fn marked(expected: &str, actual: &str) -> Option<Marked> {
    if expected == actual || actual.is_empty() {
        return None;
    }
    let mut config = TextDiff::configure();
    // A pathological pair must not stall the report.
    config.timeout(Duration::from_millis(100));
    let diff = if expected.len().max(actual.len()) <= CHAR_DIFF_LIMIT {
        config.diff_chars(expected, actual)
    } else {
        config.diff_lines(expected, actual)
    };
    let mut marked = Marked {
        expected: Vec::new(),
        actual: Vec::new(),
    };
    for change in diff.iter_all_changes() {
        let text = change.value();
        match change.tag() {
            ChangeTag::Equal => {
                push(&mut marked.expected, "", text);
                push(&mut marked.actual, "", text);
            }
            ChangeTag::Delete => push(&mut marked.expected, "del", text),
            ChangeTag::Insert => push(&mut marked.actual, "ins", text),
        }
    }
    Some(marked)
}

/// Appends to the last segment when it has the same kind (also what
/// highlight.rs builds its segments with).
pub fn push(segments: &mut Vec<Segment>, kind: &'static str, text: &str) {
    match segments.last_mut() {
        Some((last, s)) if *last == kind => s.push_str(text),
        _ => segments.push((kind, text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(segments: &[Segment]) -> String {
        segments.iter().map(|(_, s)| s.as_str()).collect()
    }

    #[test]
    fn marks_only_the_characters_that_differ() {
        let m = marked("[0, 1]", "[1, 0]").unwrap();
        assert_eq!(join(&m.expected), "[0, 1]");
        assert_eq!(join(&m.actual), "[1, 0]");
        assert!(m.expected.iter().any(|(k, _)| *k == "del"));
        assert!(m.actual.iter().any(|(k, _)| *k == "ins"));
        assert_eq!(m.expected[0], ("", "[".to_string()));
    }

    #[test]
    fn a_trailing_difference_is_marked_where_it_is() {
        let m = marked("Hello, World!", "Hello, World").unwrap();
        assert_eq!(
            m.expected,
            vec![("", "Hello, World".into()), ("del", "!".into())]
        );
        assert_eq!(m.actual, vec![("", "Hello, World".into())]);
    }

    #[test]
    fn long_outputs_are_compared_by_line() {
        let expected = "same\n".repeat(1000) + "last\n";
        let actual = "same\n".repeat(1000) + "other\n";
        let m = marked(&expected, &actual).unwrap();
        assert_eq!(m.expected.last().unwrap(), &("del", "last\n".to_string()));
        assert_eq!(m.actual.last().unwrap(), &("ins", "other\n".to_string()));
    }

    #[test]
    fn nothing_to_mark() {
        assert_eq!(marked("x", "x"), None);
        assert_eq!(marked("x", ""), None);
    }
}
