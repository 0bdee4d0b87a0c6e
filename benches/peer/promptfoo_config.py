"""A prompteval suite and harness.toml -> the promptfoo config that asks the
same requests: the same model, sampling options, system prompt and user
messages, and judges the replies the same way (assert_program.cjs).

    python3 benches/peer/promptfoo_config.py [SUITE] [HARNESS_TOML] > promptfooconfig.json

The user message is the one prompteval sends with the learning history off
(src/ask/history.rs `fill`): the template as written, `{question}` replaced by
the question, byte for byte. In promptfoo that is the template a promptfoo
user would write: the same text with `{{ question }}` where prompteval's
`{question}` stands (the rest kept literal). The system prompt is the one
that applies, as src/suite/mod.rs `system_prompt_for` picks it: the prompt's
own, else the suite's `settings.system_prompt`, else harness.toml's. promptfoo
has no counterpart of the history (earlier questions of the same prompt in
the message), so the peer bench runs prompteval with it off.

The suite is read as src/suite/mod.rs reads it: top-level strings are prompt
templates in file order, `questions` is the list; a number answer stands for
its digits, a boolean for what Python prints; ids are given or derived the
same way. Errors in the suite are prompteval's to report; this reader
assumes a suite that prompteval accepts.
"""

import json
import re
import sys
import tomllib
from pathlib import Path

# src/ask/history.rs: the placeholder a template holds.
PLACEHOLDER = "{question}"


def answer_text(value):
    """What the program must print (src/suite/mod.rs `parse_question`)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return repr(value)
    return value


def derive_id(index, question):
    """`q1_two_sum` (src/suite/mod.rs `derive_id`)."""
    first_line = question.split("\n", 1)[0]
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", first_line)][:2]
    ident = f"q{index}"
    for word in words:
        if len(ident) + len(word) > 32:
            break
        ident += "_" + word
    return ident


def load_suite(path):
    """(prompts [(name, template, system prompt or None)], questions
    [{id, question, answer}]); a prompt's system prompt is its own, else the
    suite's `settings.system_prompt` (None: harness.toml's applies)."""
    top = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    settings = top.get("settings", {})
    suite_system = settings.get("system_prompt") if isinstance(settings, dict) else None
    prompts = []
    for key, value in top.items():
        if key in ("questions", "settings"):
            continue
        if isinstance(value, str):
            prompts.append((key, value, suite_system))
        elif isinstance(value, dict) and "template" in value:
            prompts.append((key, value["template"], value.get("system_prompt") or suite_system))
    questions = []
    for index, item in enumerate(top["questions"], start=1):
        questions.append(
            {
                "id": item.get("id") or derive_id(index, item["question"]),
                "question": item["question"],
                "answer": answer_text(item.get("answer", "")),
            }
        )
    return prompts, questions


def load_harness(path):
    """harness.toml as a dict (every key optional, as in src/config/mod.rs)."""
    with open(path, "rb") as f:
        return tomllib.load(f)


def literal(text):
    """Text that promptfoo's nunjucks rendering leaves as it is."""
    return "{% raw %}" + text + "{% endraw %}" if text else ""


def promptfoo_template(template):
    """The template as a promptfoo user writes it: `{{ question }}` where
    prompteval's `{question}` stands, everything else literal."""
    return "{{ question }}".join(literal(part) for part in template.split(PLACEHOLDER))


def build(suite, harness, *, model, base_url, assertion, python, timeout_secs):
    """The promptfoo config (a dict; JSON is valid promptfoo YAML)."""
    prompts, questions = load_suite(suite)
    llm = harness.get("llm", {})
    promptfoo_prompts = []
    for name, template, own_system in prompts:
        system = own_system if own_system is not None else llm.get("system_prompt")
        messages = []
        if system is not None:
            messages.append({"role": "system", "content": literal(system)})
        messages.append({"role": "user", "content": promptfoo_template(template)})
        # A JSON prompt: promptfoo renders each string of it with the vars
        # and sends the result as the chat messages.
        promptfoo_prompts.append({"label": name, "raw": json.dumps(messages, ensure_ascii=False)})
    # src/backend/openai.rs `chat_body`: model, messages, temperature, seed,
    # max_tokens (num_predict). promptfoo's openai provider sends the same
    # fields (and no `stream`, whose default is false).
    provider_config = {
        "apiBaseUrl": base_url,
        # llama-server asks for no key; promptfoo's provider wants one set.
        "apiKey": "no-key",
        "temperature": llm.get("temperature", 0.0),
        "max_tokens": llm.get("num_predict", 1024),
    }
    if llm.get("seed", 42) is not None:
        provider_config["seed"] = llm.get("seed", 42)
    return {
        "description": f"prompteval peer bench: {Path(suite).name}",
        "prompts": promptfoo_prompts,
        "providers": [{"id": f"openai:chat:{model}", "config": provider_config}],
        "defaultTest": {
            "assert": [
                {
                    "type": "javascript",
                    "value": f"file://{Path(assertion).resolve()}",
                    "config": {"python": python, "timeout_secs": timeout_secs},
                }
            ]
        },
        "tests": [
            {
                "description": q["id"],
                "vars": {"question": q["question"], "answer": q["answer"]},
                "metadata": {"question_id": q["id"]},
            }
            for q in questions
        ],
    }


def main():
    root = Path(__file__).resolve().parents[2]
    suite = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "benches-data/example.json"
    harness_path = Path(sys.argv[2]) if len(sys.argv) > 2 else root / "harness.toml"
    harness = load_harness(harness_path)
    config = build(
        suite,
        harness,
        model=harness.get("model", "qwen2.5-coder:1.5b"),
        base_url=harness.get("openai", {}).get("base_url", "http://127.0.0.1:8088/v1"),
        assertion=Path(__file__).with_name("assert_program.cjs"),
        python=harness.get("sandbox", {}).get("python", "python3"),
        timeout_secs=harness.get("sandbox", {}).get("timeout_secs", 10),
    )
    json.dump(config, sys.stdout, ensure_ascii=False, indent=2)
    print()


if __name__ == "__main__":
    main()
