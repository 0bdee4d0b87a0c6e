//! Property-based fuzzing of the two parsers that read untrusted text: the
//! suite parser (user files) and the code extractor (model replies). Neither
//! may panic on any input, and their results must keep their invariants.

use std::path::Path;

use prompteval::execute::extract::{Source, extract};
use prompteval::suite::Suite;
use proptest::prelude::*;

/// Text biased towards the syntax the parsers care about.
fn jsonish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\"",
        "\"questions\"",
        "\"question\"",
        "\"answer\"",
        "\"id\"",
        "\"p\"",
        "\"{question}\"",
        "0",
        "-1e999",
        "null",
        "true",
        "\\u0000",
        "\\",
        "\n",
        " ",
        "é",
        "\u{feff}",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
}

fn replyish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "```",
        "```python",
        "```py",
        "````",
        "~~~",
        "\n",
        "\r\n",
        "print(1)",
        "<think>",
        "</think>",
        " ",
        "`",
        "text",
        "```bash",
        "\u{1F600}",
        "\t",
    ]);
    prop::collection::vec(atoms, 0..50).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn suite_parser_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Suite::parse(Path::new("fuzz.json"), &bytes);
    }

    #[test]
    fn suite_parser_never_panics_on_json_like_text(text in jsonish()) {
        match Suite::parse(Path::new("fuzz.json"), text.as_bytes()) {
            Ok(s) => {
                prop_assert!(!s.prompts.is_empty() && !s.questions.is_empty());
                let placeholder = "{question}";
                prop_assert!(s.prompts.iter().all(|p| p.template.contains(placeholder)));
            }
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.json")),
        }
    }

    #[test]
    fn extractor_never_panics_and_returns_a_line(text in replyish()) {
        let e = extract(&text);
        prop_assert!(e.code.ends_with('\n'));
        prop_assert!(!e.code.contains("\r\n"));
        if let Source::TaggedBlocks(n) | Source::PlainBlocks(n) = e.source {
            prop_assert!(n >= 1);
        }
    }

    #[test]
    fn extractor_returns_a_fenced_program_verbatim(
        prose in "[a-zA-Z .,]{0,40}",
        body in "[a-z0-9_()= +\n]{0,80}",
    ) {
        let body = body.trim_end_matches('\n');
        let e = extract(&format!("{prose}\n```python\n{body}\n```\n{prose}"));
        prop_assert_eq!(e.code, format!("{body}\n"));
    }

    #[test]
    fn extractor_handles_arbitrary_unicode(text in any::<String>()) {
        let _ = extract(&text);
    }
}
