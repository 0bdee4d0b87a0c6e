//! Assembles a streamed chat answer: Ollama's NDJSON lines or an
//! OpenAI-compatible server's server-sent events, into the reply text and
//! the server's own figures (tokens, finish reason, generation time).
//!
//! Why stream: a server sends the response headers when it starts working
//! on a request (llama-server: when a slot takes it from its queue), so the
//! answer's timeout can count from there, and the time spent queued gets a
//! limit of its own. A server that answers with one JSON document anyway
//! (`application/json`) is read the same way as before streaming.

use std::io::BufRead;

use serde_json::Value;

use super::Usage;

/// Longest reply text kept: far beyond any `num_predict`, it only stops a
/// runaway server from filling memory.
const MAX_CONTENT_BYTES: usize = 16 * 1024 * 1024;

/// The wire format of a chat answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// `/api/chat`: one JSON object per line, the last with `"done": true`.
    Ollama,
    /// `/chat/completions`: `data: {json}` events, then `data: [DONE]`.
    OpenAi,
}

/// A whole answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Assembled {
    pub content: String,
    /// What the server sent apart from the answer as the model's reasoning:
    /// Ollama's `message.thinking`, llama-server's `reasoning_content`,
    /// vLLM's `reasoning` (streamed before the content).
    pub reasoning: String,
    pub model: Option<String>,
    pub usage: Usage,
}

#[derive(Debug)]
pub(crate) enum ReadError {
    /// Reading failed (a timeout, a dropped connection).
    Io(std::io::Error),
    /// The server said something the protocol does not allow, or an error.
    Bad(String),
    /// The stream ended before the protocol's last message.
    Cut,
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Reads the whole answer from `body`, whose Content-Type is `content_type`.
pub(crate) fn read(
    wire: Wire,
    content_type: &str,
    mut body: impl BufRead,
) -> Result<Assembled, ReadError> {
    if content_type.starts_with("application/json") {
        let mut text = String::new();
        body.read_to_string(&mut text)?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            ReadError::Bad(format!("not JSON ({e}); it starts with {:?}", head(&text)))
        })?;
        return whole(wire, &value);
    }
    let mut answer = Assembled::default();
    let mut line = String::new();
    loop {
        line.clear();
        if body.read_line(&mut line)? == 0 {
            return Err(ReadError::Cut);
        }
        let done = match wire {
            Wire::Ollama => ollama_line(line.trim(), &mut answer)?,
            Wire::OpenAi => openai_line(line.trim(), &mut answer)?,
        };
        if answer.content.len() + answer.reasoning.len() > MAX_CONTENT_BYTES {
            return Err(ReadError::Bad(format!(
                "the reply exceeds {} MiB",
                MAX_CONTENT_BYTES >> 20
            )));
        }
        if done {
            return Ok(answer);
        }
    }
}

/// A non-streamed answer (the server ignored `stream: true`).
fn whole(wire: Wire, value: &Value) -> Result<Assembled, ReadError> {
    if let Some(error) = error_of(value) {
        return Err(ReadError::Bad(error));
    }
    let content_at = match wire {
        Wire::Ollama => "/message/content",
        Wire::OpenAi => "/choices/0/message/content",
    };
    let content = value
        .pointer(content_at)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ReadError::Bad(format!(
                "the JSON has no reply text where the protocol puts it; it starts with {:?}",
                head(&value.to_string())
            ))
        })?;
    let message = match wire {
        Wire::Ollama => value.get("message"),
        Wire::OpenAi => value.pointer("/choices/0/message"),
    };
    let mut answer = Assembled {
        content: content.to_string(),
        reasoning: message.map(reasoning_of).unwrap_or_default().to_string(),
        model: value["model"].as_str().map(str::to_string),
        usage: Usage::default(),
    };
    match wire {
        Wire::Ollama => ollama_figures(value, &mut answer.usage),
        Wire::OpenAi => {
            if let Some(reason) = value
                .pointer("/choices/0/finish_reason")
                .and_then(Value::as_str)
            {
                answer.usage.finish_reason = Some(reason.to_string());
            }
            openai_figures(value, &mut answer.usage);
        }
    }
    Ok(answer)
}

/// One NDJSON line; true on the last one.
fn ollama_line(line: &str, answer: &mut Assembled) -> Result<bool, ReadError> {
    if line.is_empty() {
        return Ok(false);
    }
    let value: Value = serde_json::from_str(line)
        .map_err(|e| ReadError::Bad(format!("a line is not JSON ({e}): {:?}", head(line))))?;
    if let Some(error) = error_of(&value) {
        return Err(ReadError::Bad(error));
    }
    if let Some(message) = value.get("message") {
        if let Some(piece) = message["content"].as_str() {
            answer.content.push_str(piece);
        }
        answer.reasoning.push_str(reasoning_of(message));
    }
    if answer.model.is_none() {
        answer.model = value["model"].as_str().map(str::to_string);
    }
    if value["done"].as_bool() == Some(true) {
        ollama_figures(&value, &mut answer.usage);
        return Ok(true);
    }
    Ok(false)
}

/// One server-sent-events line; true at `data: [DONE]`.
fn openai_line(line: &str, answer: &mut Assembled) -> Result<bool, ReadError> {
    // Blank lines end events; `:` lines are comments (keep-alives); `event:`
    // and `id:` lines carry nothing we read.
    let Some(data) = line.strip_prefix("data:") else {
        return Ok(false);
    };
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(true);
    }
    let value: Value = serde_json::from_str(data)
        .map_err(|e| ReadError::Bad(format!("an event is not JSON ({e}): {:?}", head(data))))?;
    if let Some(error) = error_of(&value) {
        return Err(ReadError::Bad(error));
    }
    if let Some(choice) = value.pointer("/choices/0") {
        if let Some(delta) = choice.get("delta") {
            if let Some(piece) = delta["content"].as_str() {
                answer.content.push_str(piece);
            }
            answer.reasoning.push_str(reasoning_of(delta));
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            answer.usage.finish_reason = Some(reason.to_string());
        }
    }
    if answer.model.is_none() {
        answer.model = value["model"].as_str().map(str::to_string);
    }
    openai_figures(&value, &mut answer.usage);
    Ok(false)
}

/// Ollama's counts and durations (nanoseconds) of its last message.
fn ollama_figures(value: &Value, usage: &mut Usage) {
    // prompt_eval_count counts the cached part too; newer releases say
    // how much of it was cached.
    usage.prompt_tokens = value["prompt_eval_count"].as_u64().or(usage.prompt_tokens);
    usage.prompt_cached = value["prompt_eval_cached_count"]
        .as_u64()
        .or(usage.prompt_cached);
    usage.completion_tokens = value["eval_count"].as_u64().or(usage.completion_tokens);
    if let Some(reason) = value["done_reason"].as_str() {
        usage.finish_reason = Some(reason.to_string());
    }
    if let Some(ns) = value["eval_duration"].as_u64() {
        usage.generation_secs = Some(ns as f64 / 1e9);
    }
}

/// `usage` (OpenAI; with `stream_options.include_usage` in its own last
/// event) and llama-server's `timings`.
fn openai_figures(value: &Value, usage: &mut Usage) {
    if let Some(u) = value.get("usage").filter(|u| u.is_object()) {
        usage.prompt_tokens = u["prompt_tokens"].as_u64().or(usage.prompt_tokens);
        usage.completion_tokens = u["completion_tokens"].as_u64().or(usage.completion_tokens);
        usage.reasoning_tokens = u
            .pointer("/completion_tokens_details/reasoning_tokens")
            .and_then(Value::as_u64)
            .or(usage.reasoning_tokens);
        usage.prompt_cached = u
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64)
            .or(usage.prompt_cached);
    }
    // llama-server: `cache_n` reused, `prompt_n` processed; its usage's
    // prompt_tokens is their sum.
    if let Some(cached) = value.pointer("/timings/cache_n").and_then(Value::as_u64) {
        usage.prompt_cached = Some(cached);
        if let Some(processed) = value.pointer("/timings/prompt_n").and_then(Value::as_u64) {
            usage.prompt_tokens = usage.prompt_tokens.or(Some(cached + processed));
        }
    }
    if let Some(ms) = value
        .pointer("/timings/predicted_ms")
        .and_then(Value::as_f64)
    {
        usage.generation_secs = Some(ms / 1000.0);
    }
}

/// The reasoning a message (or a streamed delta) carries beside its content,
/// under the name its server uses.
fn reasoning_of(message: &Value) -> &str {
    ["thinking", "reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message[k].as_str())
        .unwrap_or("")
}

/// The error a server put in a 200 answer: `{"error": "..."}` (Ollama) or
/// `{"error": {"message": "..."}}` (OpenAI).
fn error_of(value: &Value) -> Option<String> {
    let error = value.get("error").filter(|e| !e.is_null())?;
    Some(
        error
            .as_str()
            .or_else(|| error["message"].as_str())
            .map_or_else(|| error.to_string(), str::to_string),
    )
}

fn head(text: &str) -> String {
    text.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = "```python\nprint('héllo — 世界')\n```";

    fn ollama_stream(pieces: &[&str]) -> String {
        let mut out = String::new();
        for p in pieces {
            out.push_str(&serde_json::json!({"model": "m", "message": {"role": "assistant", "content": p}, "done": false}).to_string());
            out.push('\n');
        }
        out.push_str(
            &serde_json::json!({"model": "m", "message": {"role": "assistant", "content": ""},
                "done": true, "done_reason": "length", "prompt_eval_count": 31,
                "eval_count": 7, "eval_duration": 500_000_000u64})
            .to_string(),
        );
        out.push('\n');
        out
    }

    fn pieces() -> Vec<&'static str> {
        // Split inside the multi-byte text, at character boundaries.
        vec!["```py", "thon\nprint('h", "éllo — ", "世界')\n", "```"]
    }

    #[test]
    fn ollama_lines_assemble_the_reply_and_the_figures() {
        let text = ollama_stream(&pieces());
        let a = read(Wire::Ollama, "application/x-ndjson", text.as_bytes()).unwrap();
        assert_eq!(a.content, REPLY);
        assert_eq!(a.model.as_deref(), Some("m"));
        assert_eq!(a.usage.prompt_tokens, Some(31));
        assert_eq!(a.usage.completion_tokens, Some(7));
        assert_eq!(a.usage.finish_reason.as_deref(), Some("length"));
        assert_eq!(a.usage.generation_secs, Some(0.5));
    }

    #[test]
    fn openai_events_assemble_the_reply_and_the_usage() {
        let mut text = String::from(": keep-alive\n\n");
        for p in pieces() {
            text.push_str(&format!(
                "data: {}\n\n",
                serde_json::json!({"model": "m", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]})
            ));
        }
        text.push_str(&format!(
            "data: {}\n\n",
            serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "timings": {"predicted_ms": 250.0}})
        ));
        text.push_str(&format!(
            "data: {}\n\ndata: [DONE]\n\n",
            serde_json::json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5}})
        ));
        let a = read(Wire::OpenAi, "text/event-stream", text.as_bytes()).unwrap();
        assert_eq!(a.content, REPLY);
        assert_eq!(a.usage.prompt_tokens, Some(12));
        assert_eq!(a.usage.completion_tokens, Some(5));
        assert_eq!(a.usage.finish_reason.as_deref(), Some("stop"));
        assert_eq!(a.usage.generation_secs, Some(0.25));
    }

    #[test]
    fn reasoning_is_read_from_every_servers_field_streamed_and_whole() {
        // Ollama: streamed `message.thinking` before `message.content`.
        let mut text = String::new();
        for (thinking, content) in [("Let me ", ""), ("think.", ""), ("", REPLY)] {
            text.push_str(&serde_json::json!({"model": "m", "message": {"role": "assistant", "content": content, "thinking": thinking}, "done": false}).to_string());
            text.push('\n');
        }
        text.push_str(&serde_json::json!({"model": "m", "message": {"content": ""}, "done": true, "done_reason": "stop", "eval_count": 9}).to_string());
        text.push('\n');
        let a = read(Wire::Ollama, "application/x-ndjson", text.as_bytes()).unwrap();
        assert_eq!(
            (a.reasoning.as_str(), a.content.as_str()),
            ("Let me think.", REPLY)
        );
        // llama-server's `reasoning_content` and vLLM's `reasoning` deltas,
        // and the reasoning tokens of `usage`.
        for field in ["reasoning_content", "reasoning"] {
            let mut text = String::new();
            for delta in [
                serde_json::json!({field: "Hmm."}),
                serde_json::json!({"content": REPLY}),
            ] {
                text.push_str(&format!(
                    "data: {}\n\n",
                    serde_json::json!({"choices": [{"index": 0, "delta": delta}]})
                ));
            }
            text.push_str(&format!(
                "data: {}\n\ndata: [DONE]\n\n",
                serde_json::json!({"choices": [], "usage": {"prompt_tokens": 2, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 3}}})
            ));
            let a = read(Wire::OpenAi, "text/event-stream", text.as_bytes()).unwrap();
            assert_eq!(
                (a.reasoning.as_str(), a.content.as_str()),
                ("Hmm.", REPLY),
                "{field}"
            );
            assert_eq!(a.usage.reasoning_tokens, Some(3));
            let whole =
                serde_json::json!({"choices": [{"message": {"content": REPLY, field: "Whole."}}]});
            let a = read(
                Wire::OpenAi,
                "application/json",
                whole.to_string().as_bytes(),
            )
            .unwrap();
            assert_eq!(a.reasoning, "Whole.");
        }
        let whole = serde_json::json!({"model": "m", "message": {"content": REPLY, "thinking": "Ollama."}, "done": true});
        let a = read(
            Wire::Ollama,
            "application/json",
            whole.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(a.reasoning, "Ollama.");
    }

    #[test]
    fn a_whole_json_answer_reads_like_before_streaming() {
        let body = serde_json::json!({"model": "m", "choices": [{"message": {"content": REPLY}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4}});
        let a = read(
            Wire::OpenAi,
            "application/json; charset=utf-8",
            body.to_string().as_bytes(),
        )
        .unwrap();
        assert_eq!(a.content, REPLY);
        assert_eq!(
            (a.usage.prompt_tokens, a.usage.completion_tokens),
            (Some(3), Some(4))
        );
        assert_eq!(a.usage.finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn a_stream_without_its_last_message_is_cut_and_errors_are_read() {
        let text = ollama_stream(&pieces());
        let without_last: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
        assert!(matches!(
            read(
                Wire::Ollama,
                "application/x-ndjson",
                without_last.as_bytes()
            ),
            Err(ReadError::Cut)
        ));
        let error = "{\"error\":\"model runner crashed\"}\n";
        match read(Wire::Ollama, "application/x-ndjson", error.as_bytes()) {
            Err(ReadError::Bad(e)) => assert!(e.contains("runner crashed"), "{e}"),
            other => panic!("{other:?}"),
        }
        let sse = "data: {\"error\":{\"message\":\"context exceeded\"}}\n\n";
        match read(Wire::OpenAi, "text/event-stream", sse.as_bytes()) {
            Err(ReadError::Bad(e)) => assert!(e.contains("context exceeded"), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_prompts_cached_part_is_read_from_each_servers_field_or_left_unknown() {
        let ollama = |last: serde_json::Value| {
            let text = format!(
                "{}\n{last}\n",
                serde_json::json!({"model": "m", "message": {"content": "x"}, "done": false})
            );
            read(Wire::Ollama, "application/x-ndjson", text.as_bytes())
                .unwrap()
                .usage
        };
        let newer = ollama(serde_json::json!({"done": true, "prompt_eval_count": 900,
            "prompt_eval_cached_count": 800, "eval_count": 3}));
        assert_eq!(
            (newer.prompt_tokens, newer.prompt_cached),
            (Some(900), Some(800))
        );
        let older =
            ollama(serde_json::json!({"done": true, "prompt_eval_count": 900, "eval_count": 3}));
        assert_eq!(
            (older.prompt_tokens, older.prompt_cached),
            (Some(900), None)
        );
        let openai = |last: serde_json::Value| {
            let text = format!(
                "data: {}\n\ndata: {last}\n\ndata: [DONE]\n\n",
                serde_json::json!({"model": "m", "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]})
            );
            read(Wire::OpenAi, "text/event-stream", text.as_bytes())
                .unwrap()
                .usage
        };
        let details = openai(
            serde_json::json!({"choices": [], "usage": {"prompt_tokens": 500,
            "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 448}}}),
        );
        assert_eq!(
            (details.prompt_tokens, details.prompt_cached),
            (Some(500), Some(448))
        );
        let llama = openai(
            serde_json::json!({"choices": [], "usage": {"prompt_tokens": 500,
            "completion_tokens": 2}, "timings": {"cache_n": 430, "prompt_n": 70, "predicted_ms": 10.0}}),
        );
        assert_eq!(
            (llama.prompt_tokens, llama.prompt_cached),
            (Some(500), Some(430))
        );
        let silent = openai(
            serde_json::json!({"choices": [], "usage": {"prompt_tokens": 500, "completion_tokens": 2}}),
        );
        assert_eq!(silent.prompt_cached, None, "not said: not guessed");
    }
}
