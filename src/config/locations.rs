//! Where a key stands in harness.toml, from the TOML parser's own spans:
//! every key the file holds, with its line, found in one walk of the parsed
//! document (never by reading the text again).

use toml::de::{DeTable, DeValue};

use super::sources::Key;

/// 1-based line of a byte offset.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
    line_of_offset_bytes(text.as_bytes(), offset)
}

pub(super) fn line_of_offset_bytes(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Every key of the document with the line of its first mention: tables
/// (`["gate", "prompts"]`, from a header or a dotted key), their entries
/// (`["gate", "prompts", "p1"]`), and each table of an array of tables by
/// its index (`["models", "0"]`, at its `[[models]]` header).
pub(super) fn key_lines(text: &str, root: &DeTable<'_>) -> Vec<(Key, usize)> {
    let mut lines = Vec::new();
    walk(text, root, &mut Vec::new(), &mut lines);
    lines
}

fn walk(text: &str, table: &DeTable<'_>, path: &mut Key, lines: &mut Vec<(Key, usize)>) {
    for (key, value) in table.iter() {
        path.push(key.get_ref().to_string());
        lines.push((path.clone(), line_of_offset(text, key.span().start)));
        match value.get_ref() {
            DeValue::Table(inner) => walk(text, inner, path, lines),
            DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let DeValue::Table(inner) = item.get_ref() {
                        path.push(i.to_string());
                        lines.push((path.clone(), line_of_offset(text, item.span().start)));
                        walk(text, inner, path, lines);
                        path.pop();
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, key: &[&str]) -> Option<usize> {
        let root = DeTable::parse(text).unwrap();
        key_lines(text, root.get_ref())
            .into_iter()
            .find(|(k, _)| k.iter().eq(key.iter()))
            .map(|(_, line)| line)
    }

    #[test]
    fn keys_are_found_under_headers_in_dotted_keys_and_in_arrays_of_tables() {
        let text = "model = \"m\"\n\n[gate]\nmin_accuracy = 50\n[gate.prompts]\np1 = 70\n\"p.2\" = 80\n[gate.models.\"q:0.5b\"]\nmin_accuracy = 10\n[[models]]\nname = \"a\"\n[[models]]\nname = \"b\"\n";
        assert_eq!(line(text, &["model"]), Some(1));
        assert_eq!(line(text, &["gate", "min_accuracy"]), Some(4));
        assert_eq!(line(text, &["gate", "prompts", "p1"]), Some(6));
        assert_eq!(line(text, &["gate", "prompts", "p.2"]), Some(7));
        assert_eq!(line(text, &["gate", "models", "q:0.5b"]), Some(8));
        assert_eq!(line(text, &["models", "1"]), Some(12));
        assert_eq!(line(text, &["models", "1", "name"]), Some(13));
        let dotted = "[gate]\nprompts.p1 = 70\n";
        assert_eq!(line(dotted, &["gate", "prompts", "p1"]), Some(2));
        assert_eq!(line(dotted, &["gate", "prompts", "p9"]), None);
    }
}
