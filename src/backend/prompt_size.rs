//! What a prompt's size is, without the model's tokenizer, and whether a
//! server that answered read the prompt whole: the estimates the harness
//! plans the history by, and the check every backend makes of the
//! server's own count.

use super::{ChatRequest, Message};

/// [`estimate_tokens`] of every message of a request.
pub fn estimate_messages(messages: &[Message]) -> usize {
    messages.iter().map(|m| estimate_tokens(&m.content)).sum()
}

/// A central estimate of the tokens a model generated as `text`, for a
/// count the server does not give apart (Ollama's `eval_count` sums
/// reasoning and answer): about four characters a token, the usual rule of
/// thumb for English and code. Not [`estimate_tokens`], which errs high on
/// purpose to keep prompts inside the window; this one is shown as a count
/// (marked as an estimate).
pub fn estimate_generated_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// A deliberately high estimate of a text's tokens, without the model's
/// tokenizer: 3 ASCII characters per token (tokenizers of code models give
/// 3.5 to 4.5 for English and code) and one token per other character (CJK
/// text is 1 to 1.5 characters per token). Overestimating only leaves out
/// an old history entry too many; underestimating lets the server cut.
pub fn estimate_tokens(text: &str) -> usize {
    let (ascii, other) = text.chars().fold((0usize, 0usize), |(a, o), c| {
        if c.is_ascii() { (a + 1, o) } else { (a, o + 1) }
    });
    ascii.div_ceil(3) + other
}

/// Whether a server that answered cut the prompt first, told from its own
/// count of the prompt's tokens (`prompt_eval_count`, `usage.prompt_tokens`),
/// with one line that says how it was seen and what to change. Ollama cuts
/// without a word, in one of two ways by runner (see DESIGN.md):
///
/// - its Go runner keeps the last `num_ctx` tokens: the count reaches the
///   window;
/// - its llama.cpp-based runner keeps about half the window: the count is
///   `num_ctx / 2 + 2`, far below the prompt's size.
///
/// Either way the model never saw the prompt whole, so its reply is not a
/// measurement of the prompt. `window` is the `num_ctx` the request set
/// (none for an OpenAI endpoint, which does not apply it).
pub fn cut_prompt(
    prompt_tokens: u64,
    request: &ChatRequest,
    window: Option<u32>,
) -> Option<String> {
    let chars: usize = request
        .messages
        .iter()
        .map(|m| m.content.chars().count())
        .sum();
    // No tokenizer packs more than 6 characters of a prompt into a token on
    // average (code and English: 3 to 4.5; CJK: 1 to 1.5), and the count
    // also holds the chat template's own tokens: a count below this bound
    // is of a prompt the server did not read whole.
    let floor = (chars / SAFE_CHARS_PER_TOKEN) as u64;
    let how = match window.map(u64::from) {
        Some(n) if prompt_tokens >= n => format!(
            "the prompt filled the context window (prompt_eval_count {prompt_tokens} >= num_ctx {n}), \
             so the server kept only its end"
        ),
        _ if prompt_tokens < floor => format!(
            "the server counted {prompt_tokens} prompt tokens for a prompt of {chars} characters \
             (at least {floor} tokens), so it kept only part of it"
        ),
        // The llama.cpp runner's signature, for prompts whose characters
        // alone do not prove the cut (CJK text, 1 to 1.5 characters a
        // token): exactly half the window plus its 2 kept tokens, for a
        // prompt estimated beyond the window.
        Some(n)
            if prompt_tokens == n / 2 + 2 && estimate_messages(&request.messages) as u64 > n =>
        {
            format!(
                "the server counted {prompt_tokens} prompt tokens, half the {n}-token window, for \
                 a prompt of about {} tokens (estimated): Ollama's llama.cpp runner keeps half \
                 the window of a prompt that does not fit",
                estimate_messages(&request.messages)
            )
        }
        _ => return None,
    };
    Some(format!(
        "{how}; the model never saw the whole prompt: raise llm.num_ctx (and the server's \
         window), keep history.fit_window = true, or lower history.max_entries / \
         history.max_chars"
    ))
}

/// Characters per token that no real tokenizer exceeds on average.
const SAFE_CHARS_PER_TOKEN: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_four_characters_each_rounded_up() {
        assert_eq!(estimate_generated_tokens("abcdefgh"), 2);
        assert_eq!(estimate_generated_tokens("abcdefghi"), 3);
    }

    fn request_of(chars: usize) -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            messages: vec![crate::backend::Message::user("x = 1\n".repeat(chars / 6))],
            options: Default::default(),
            slot: None,
        }
    }

    #[test]
    fn both_ways_ollama_cuts_a_prompt_are_seen() {
        // 24,000 characters of code: about 6,000 tokens, beyond a 4,096 window.
        let long = request_of(24_000);
        // Go runner: the count stops at the window.
        let go = cut_prompt(4096, &long, Some(4096)).unwrap();
        assert!(go.contains("filled the context window"), "{go}");
        // llama.cpp runner: half the window plus 2.
        let half = cut_prompt(2050, &long, Some(4096)).unwrap();
        assert!(half.contains("kept only part of it"), "{half}");
        assert!(half.contains("raise llm.num_ctx"), "{half}");
        // The half-window signature when the characters alone prove nothing.
        let dense = ChatRequest {
            messages: vec![crate::backend::Message::user("之前的學習經驗".repeat(600))],
            ..request_of(0)
        };
        let sig = cut_prompt(2050, &dense, Some(4096)).unwrap();
        assert!(sig.contains("llama.cpp runner"), "{sig}");
        // The same cut behind Ollama's OpenAI endpoint (no num_ctx applied).
        assert!(cut_prompt(2050, &long, None).is_some());
    }

    #[test]
    fn honest_counts_are_not_taken_for_cuts() {
        let short = request_of(6000);
        for count in [1001, 1500, 2000] {
            assert_eq!(cut_prompt(count, &short, Some(4096)), None, "{count}");
        }
        // A CJK prompt counted at 4 characters a token (as scripted servers do).
        let cjk = ChatRequest {
            messages: vec![crate::backend::Message::user("之前的學習經驗".repeat(500))],
            ..request_of(0)
        };
        assert_eq!(cut_prompt(3500 / 4 + 1, &cjk, Some(4096)), None);
        // A prompt of about half the window that fits is not the signature.
        let half = request_of(8200);
        assert_eq!(cut_prompt(2050, &half, Some(4096)), None);
    }
}
