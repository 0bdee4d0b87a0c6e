//! Reply text -> code (spec §5.1), for the question's language.
//!
//! Order of preference:
//! 1. fenced blocks tagged with the language (Python: ```python, ```py,
//!    ```python3; C++: ```cpp, ```c++, ```c, ```cc, ```cxx; any case);
//! 2. otherwise untagged fenced blocks (```), skipping ones tagged with another
//!    language (```text, ```bash, ```output ...);
//! 3. otherwise the whole reply.
//!
//! Several blocks of the chosen kind are joined in reply order, separated by a
//! blank line. Small models often put the function in one block and the call
//! that prints in a second one; joining keeps both. A reply that offers two
//! complete alternatives then prints twice and is judged wrong, which is the
//! honest outcome for a reply that did not follow "one program" instructions.
//! An unterminated fence runs to the end of the reply. CRLF is normalised.

use std::sync::OnceLock;

use regex::Regex;

use crate::suite::CodeLanguage;

/// How the code was found, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Blocks tagged with the question's language (named for the first).
    TaggedBlocks(usize),
    PlainBlocks(usize),
    WholeReply,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub code: String,
    pub source: Source,
}

struct Block<'a> {
    lang: &'a str,
    body: &'a str,
}

/// Finds fenced blocks: an opening fence of 3+ backticks (or tildes) at the
/// start of a line, an info string, and the matching closing fence; a missing
/// closing fence ends the block at the end of the text.
fn blocks(text: &str) -> Vec<Block<'_>> {
    static OPEN: OnceLock<Regex> = OnceLock::new();
    let open =
        OPEN.get_or_init(|| Regex::new(r"(?m)^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$").unwrap());
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(m) = open.captures_at(text, pos) {
        let whole = m.get(0).unwrap();
        let fence = m.get(1).unwrap().as_str();
        let lang = m.get(2).unwrap().as_str().trim();
        let body_start = (whole.end() + 1).min(text.len());
        let close = find_close(text, body_start, fence);
        let (body_end, next) = match close {
            Some((s, e)) => (s, e),
            None => (text.len(), text.len()),
        };
        out.push(Block {
            lang,
            body: &text[body_start..body_end.max(body_start)],
        });
        if next <= pos {
            break;
        }
        pos = next;
    }
    out
}

/// The closing fence: a line of at least as many of the same fence characters.
fn find_close(text: &str, from: usize, fence: &str) -> Option<(usize, usize)> {
    let ch = fence.chars().next()?;
    let mut line_start = from;
    while line_start <= text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        let line = text[line_start..line_end].trim();
        if line.len() >= fence.len() && line.chars().all(|c| c == ch) {
            return Some((line_start, line_end));
        }
        if line_end >= text.len() {
            break;
        }
        line_start = line_end + 1;
    }
    None
}

/// Whether a fence's info string names `language`.
fn is_tagged(lang: &str, language: CodeLanguage) -> bool {
    let first = lang
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    language.fence_tags().contains(&first.as_str())
}

/// Python code (spec §5.1).
pub fn extract(reply: &str) -> Extracted {
    extract_for(reply, CodeLanguage::Python)
}

/// The code of `reply` in `language`.
pub fn extract_for(reply: &str, language: CodeLanguage) -> Extracted {
    let text = reply.replace("\r\n", "\n");
    let all = blocks(&text);
    let join = |bs: Vec<&Block>| -> String {
        bs.iter()
            .map(|b| b.body.trim_end_matches('\n'))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let tagged: Vec<&Block> = all.iter().filter(|b| is_tagged(b.lang, language)).collect();
    if !tagged.is_empty() {
        let n = tagged.len();
        return Extracted {
            code: join(tagged) + "\n",
            source: Source::TaggedBlocks(n),
        };
    }
    let plain: Vec<&Block> = all.iter().filter(|b| b.lang.is_empty()).collect();
    if !plain.is_empty() {
        let n = plain.len();
        return Extracted {
            code: join(plain) + "\n",
            source: Source::PlainBlocks(n),
        };
    }
    Extracted {
        code: text.trim().to_string() + "\n",
        source: Source::WholeReply,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_around_one_python_block() {
        let r = "Here is the solution:\n\n```python\ndef f(x):\n    return x * 2\n\nprint(f(21))\n```\n\nThis doubles the input.";
        let e = extract(r);
        assert_eq!(e.code, "def f(x):\n    return x * 2\n\nprint(f(21))\n");
        assert_eq!(e.source, Source::TaggedBlocks(1));
    }

    #[test]
    fn several_python_blocks_are_joined_in_order() {
        let r = "```python\ndef f():\n    return 1\n```\nNow call it:\n```py\nprint(f())\n```\nOutput:\n```\n1\n```";
        let e = extract(r);
        assert_eq!(e.code, "def f():\n    return 1\n\nprint(f())\n");
        assert_eq!(e.source, Source::TaggedBlocks(2));
    }

    #[test]
    fn plain_blocks_when_no_python_tag_and_other_languages_skipped() {
        let r = "Run:\n```bash\npython main.py\n```\n```\nprint('hi')\n```";
        let e = extract(r);
        assert_eq!(e.code, "print('hi')\n");
        assert_eq!(e.source, Source::PlainBlocks(1));
    }

    #[test]
    fn unterminated_fence_runs_to_the_end() {
        let e = extract("Sure!\n```python\nprint('cut off')\nprint(2)");
        assert_eq!(e.code, "print('cut off')\nprint(2)\n");
    }

    #[test]
    fn crlf_is_normalised() {
        let e = extract("```python\r\nfor i in range(2):\r\n    print(i)\r\n```\r\n");
        assert_eq!(e.code, "for i in range(2):\n    print(i)\n");
    }

    #[test]
    fn whole_reply_without_fences() {
        let e = extract("print(1 + 1)\n");
        assert_eq!(e.code, "print(1 + 1)\n");
        assert_eq!(e.source, Source::WholeReply);
    }

    #[test]
    fn tag_variants_and_longer_fences() {
        assert_eq!(extract("```Python3\nprint(3)\n```").code, "print(3)\n");
        assert_eq!(
            extract("````python\nprint('```')\n````").code,
            "print('```')\n"
        );
        assert_eq!(extract("  ```python\nprint(4)\n  ```").code, "print(4)\n");
    }

    #[test]
    fn inline_backticks_are_not_fences() {
        let e = extract("Use `print` like ```print(5)``` here");
        assert_eq!(e.source, Source::WholeReply);
    }

    #[test]
    fn cpp_fences_and_their_fallbacks() {
        let reply =
            "Here:\n```python\nprint(1)\n```\n```c++\nint x = 1;\n```\n```cpp\nint y = 2;\n```";
        let e = extract_for(reply, CodeLanguage::Cpp);
        assert_eq!(e.code, "int x = 1;\n\nint y = 2;\n");
        assert_eq!(e.source, Source::TaggedBlocks(2));
        assert_eq!(
            extract_for("```C\nint z;\n```", CodeLanguage::Cpp).code,
            "int z;\n"
        );
        let plain = extract_for(
            "```python\nprint(1)\n```\n```\nint w;\n```",
            CodeLanguage::Cpp,
        );
        assert_eq!(
            (plain.code.as_str(), plain.source),
            ("int w;\n", Source::PlainBlocks(1))
        );
        let whole = extract_for("for (;;) {}", CodeLanguage::Cpp);
        assert_eq!(whole.source, Source::WholeReply);
        // Python questions never take a C++ block.
        assert_eq!(
            extract("```cpp\nint q;\n```\n```\nprint(2)\n```").code,
            "print(2)\n"
        );
    }

    #[test]
    fn empty_block_gives_empty_program() {
        assert_eq!(extract("```python\n```").code, "\n");
    }
}
