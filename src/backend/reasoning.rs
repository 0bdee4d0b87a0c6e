//! A reasoning model's reply split into its reasoning and its answer.
//!
//! Servers send the reasoning in one of these shapes, and every one is read:
//! - a field of its own beside the content (Ollama's `message.thinking`,
//!   llama-server's `reasoning_content`, vLLM's `reasoning`): stream.rs;
//! - inline in the content, when the server leaves it there
//!   (llama-server `--reasoning-format none`): `<think>...</think>` before
//!   the answer, or gpt-oss's harmony channels
//!   `<|channel|>analysis<|message|>...<|end|><|start|>assistant<|channel|>final<|message|>...`.
//!
//! Only the answer is judged, extracted from and shown in the learning
//! history: a python block inside the reasoning is a draft, not the reply.

/// A reply's two parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    pub answer: String,
    /// Empty when the reply had no reasoning.
    pub reasoning: String,
}

/// Splits `content` (with `field`, the reasoning the server sent apart).
/// An unterminated `<think>` or an analysis channel without a final one
/// means the reasoning never ended: the answer is then empty.
pub fn split(field: &str, content: &str) -> Split {
    let inline = if content.contains("<|channel|>") {
        harmony(content)
    } else {
        think_tags(content)
    };
    let mut reasoning = field.trim().to_string();
    if !inline.reasoning.is_empty() {
        if !reasoning.is_empty() {
            reasoning.push_str("\n\n");
        }
        reasoning.push_str(&inline.reasoning);
    }
    Split {
        answer: inline.answer,
        reasoning,
    }
}

/// `<think>...</think>` blocks; an unclosed one at the start hides the rest.
fn think_tags(content: &str) -> Split {
    let mut answer = String::new();
    let mut reasoning = Vec::new();
    let mut rest = content;
    loop {
        let Some(open) = rest.find("<think>") else {
            answer.push_str(rest);
            break;
        };
        answer.push_str(&rest[..open]);
        let inside = &rest[open + "<think>".len()..];
        match inside.find("</think>") {
            Some(close) => {
                reasoning.push(inside[..close].trim().to_string());
                rest = &inside[close + "</think>".len()..];
            }
            None => {
                reasoning.push(inside.trim().to_string());
                // Reasoning that never ended: whatever came before it
                // only counts if it was more than whitespace.
                if answer.trim().is_empty() {
                    answer.clear();
                }
                break;
            }
        }
    }
    Split {
        answer: answer.trim_start().to_string(),
        reasoning: reasoning.join("\n\n"),
    }
}

/// gpt-oss's harmony format: messages `<|start|>role<|channel|>name<|message|>text<|end|>`
/// (the first `<|start|>assistant` may be missing, the last `<|end|>` may be
/// `<|return|>` or absent). `final` is the answer; every other channel
/// (`analysis`, `commentary`) is reasoning.
fn harmony(content: &str) -> Split {
    let mut answer = Vec::new();
    let mut reasoning = Vec::new();
    for part in content.split("<|channel|>").skip(1) {
        let (channel, text) = part.split_once("<|message|>").unwrap_or((part, ""));
        let text = ["<|end|>", "<|return|>", "<|start|>", "<|call|>"]
            .iter()
            .filter_map(|t| text.find(t))
            .min()
            .map_or(text, |end| &text[..end]);
        // The channel name may carry a recipient: `commentary to=functions.x`.
        match channel.split_whitespace().next().unwrap_or("") {
            "final" => answer.push(text.trim().to_string()),
            _ => reasoning.push(text.trim().to_string()),
        }
    }
    Split {
        answer: answer.join("\n\n"),
        reasoning: reasoning.join("\n\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECOY: &str = "maybe\n```python\nprint('decoy')\n```";

    #[test]
    fn think_tags_are_reasoning() {
        let s = split(
            "",
            &format!("<think>\n{DECOY}\n</think>\n\n```python\nprint(1)\n```"),
        );
        assert_eq!(s.answer, "```python\nprint(1)\n```");
        assert_eq!(s.reasoning, DECOY);
        let never = split("", "<think>never ends ```python\nprint(2)\n```");
        assert_eq!(never.answer, "");
        assert!(never.reasoning.starts_with("never ends"));
        assert_eq!(
            split("", "print(1)"),
            Split {
                answer: "print(1)".into(),
                reasoning: String::new()
            }
        );
    }

    #[test]
    fn harmony_channels_are_split() {
        let raw = format!(
            "<|channel|>analysis<|message|>{DECOY}<|end|><|start|>assistant<|channel|>final<|message|>```python\nprint(1)\n```<|return|>"
        );
        let s = split("", &raw);
        assert_eq!(s.answer, "```python\nprint(1)\n```");
        assert_eq!(s.reasoning, DECOY);
        // The budget ran out in the analysis: no answer.
        let cut = split("", "<|channel|>analysis<|message|>let me think about");
        assert_eq!(cut.answer, "");
        assert_eq!(cut.reasoning, "let me think about");
    }

    #[test]
    fn a_separate_field_comes_first() {
        let s = split("thought", "<think>more</think>answer");
        assert_eq!(s.answer, "answer");
        assert_eq!(s.reasoning, "thought\n\nmore");
    }
}
