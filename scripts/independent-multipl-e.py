#!/usr/bin/env python3
"""Ask the server prompteval asked, judge the replies with MultiPL-E's own
test programs run directly, and compare with prompteval's recording.

    independent-multipl-e.py --suite benches-data/multipl-e/humaneval-lua.json
        --base-url http://127.0.0.1:8088/v1 --model qwen2.5-coder:1.5b
        [--snapshots tests/snapshots] [--journal RUN/journal.jsonl]
        [--limit N] [--out RESULTS.json]

Independent of prompteval's code: nothing of the crate is imported or run.
Per problem of the suite (its order, the first --limit):

  * the request: the suite's system prompt and its one prompt template with
    the question put in, sent as one non-streamed OpenAI chat completion
    with temperature 0, seed 42 and max_tokens 1024 (what prompteval's
    [llm] defaults send); the reply is compared byte for byte with the
    body of prompteval's recording (<snapshots>/<suite>/<model>/...snap);
  * the program, by the rule commonly used to judge a chat model on
    MultiPL-E (not prompteval's assembler): the first fenced block of the
    reply (else the whole reply); when it defines the entry point, the
    prompt's lines before its description (`#lang racket`, `<?php`, a
    shebang) + the block + MultiPL-E's tests; otherwise the prompt + the
    block + the tests;
  * the judgement, as MultiPL-E's evaluator (evaluation/src/eval_<lang>.py):
    the language's command on the file, pass = exit status 0 (Racket: and
    nothing on stderr), 15 s, no proof that the tests ran to their end;
  * prompteval's verdict for the same case, from a run's journal.jsonl
    (--journal; a replay of the recordings gives the recorded verdicts).

Run it alone against the server. Run beside a prompteval run on the same
llama-server (-np 1), 5 of its first 9 replies were a bare "```" that the
same request, asked alone, never gave (docs/guide/running.md#concurrency
has the same server answering one run's prompt with another's).

Generated code runs outside prompteval's sandbox: in a temporary folder,
with no network (unshare -rn), under ulimit -v 4 GiB, -t 20 s, -u 256.

Prints the agreement: identical replies, MultiPL-E passes, prompteval's
correct cases, and every problem where the two judgements differ.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

COMMANDS = {
    "lua": (["lua5.4"], "prog.lua"),
    "php": (["php"], "prog.php"),
    "racket": (["racket"], "prog.rkt"),
    "bash": (["bash"], "prog.sh"),
    "ruby": (["ruby"], "prog.rb"),
    "perl": (["perl"], "prog.pl"),
    "r": (["Rscript"], "prog.r"),
    "javascript": (["node"], "prog.js"),
}
FENCES = {"lua": "lua", "php": "php", "racket": "racket|scheme|lisp", "bash": "bash|sh|shell",
          "ruby": "ruby|rb", "perl": "perl|pl", "r": "r|R", "javascript": "javascript|js"}


def ask(base_url, model, system, user):
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": user}]
    body = json.dumps({"model": model, "messages": messages, "temperature": 0,
                       "seed": 42, "max_tokens": 1024, "stream": False}).encode()
    request = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", body,
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)["choices"][0]["message"]["content"]


def recorded_reply(path):
    """The body of an insta snapshot: after the second `---` line."""
    text = path.read_text()
    parts = text.split("\n---\n", 1)
    if len(parts) != 2:
        return None
    return parts[1].rstrip("\n")


def code_block(reply, language):
    fence = re.compile(r"```(" + FENCES[language] + r")?[ \t]*\n(.*?)```", re.S)
    m = fence.search(reply)
    return m.group(2) if m else reply


def preamble(prompt):
    lines = []
    for line in prompt.splitlines():
        if line.startswith(("#lang", "<?php", "#!")) or not line.strip():
            lines.append(line)
        else:
            break
    return "\n".join(lines)


def program(question, block):
    prompt, tests, entry = question["question"], question["tests"], question["entry_point"]
    if re.search(r"\b" + re.escape(entry) + r"\b", block):
        head = preamble(prompt)
        first = block.lstrip().splitlines()[0] if block.strip() else ""
        if head and first and first.strip() in head:
            head = ""
        return (head + "\n" if head else "") + block + "\n" + tests
    return prompt + block + "\n" + tests


def judge(language, source):
    command, name = COMMANDS[language]
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, name).write_text(source)
        shell = "ulimit -v 4194304 && ulimit -t 20 && ulimit -u 256 && exec \"$@\""
        argv = ["unshare", "-rn", "bash", "-c", shell, "bash", *command, name]
        try:
            done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=15,
                                  env={"PATH": "/usr/bin:/bin", "HOME": folder})
        except subprocess.TimeoutExpired:
            return False, "timeout"
    passed = done.returncode == 0 and not (language == "racket" and done.stderr.strip())
    return passed, f"exit {done.returncode}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--suite", required=True)
    p.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    p.add_argument("--model", default="qwen2.5-coder:1.5b")
    p.add_argument("--snapshots", default="tests/snapshots")
    p.add_argument("--journal")
    p.add_argument("--limit", type=int)
    p.add_argument("--out")
    p.add_argument("--show-differences", action="store_true")
    a = p.parse_args()
    suite_path = Path(a.suite)
    suite = json.loads(suite_path.read_text())
    settings = suite.get("settings", {})
    language = settings.get("language")
    if language not in COMMANDS:
        sys.exit(f"{a.suite}: language {language!r} is not one this script runs: {sorted(COMMANDS)}")
    templates = {k: v for k, v in suite.items() if k not in ("settings", "questions")}
    if len(templates) != 1:
        sys.exit(f"{a.suite}: expected one prompt template, found {sorted(templates)}")
    (prompt_name, template), = templates.items()
    verdicts = {}
    if a.journal:
        for line in open(a.journal):
            entry = json.loads(line)
            verdicts[entry["case"]["question_id"]] = entry["verdict"]
    snap_dir = Path(a.snapshots, suite_path.stem, a.model.replace(":", "_"))
    questions = suite["questions"][: a.limit]
    rows = []
    for question in questions:
        qid = question["id"]
        reply = ask(a.base_url, a.model, settings.get("system_prompt"),
                    template.replace("{question}", question["question"]))
        snap = snap_dir / f"{prompt_name}__{qid}__r1.snap"
        recorded = recorded_reply(snap) if snap.exists() else None
        passed, how = judge(language, program(question, code_block(reply, language)))
        if recorded is not None and recorded != reply.rstrip("\n") and a.show_differences:
            print(f"--- recorded\n{recorded}\n--- now\n{reply}\n---")
        row = {"id": qid, "same_reply": recorded == reply.rstrip("\n"),
               "multipl_e_pass": passed, "multipl_e_run": how,
               "prompteval": verdicts.get(qid)}
        rows.append(row)
        print(f"{qid:45} reply {'same' if row['same_reply'] else 'DIFFERS':7} "
              f"MultiPL-E {'pass' if passed else 'fail':4} ({how:8}) prompteval {row['prompteval']}",
              flush=True)
    n = len(rows)
    same = sum(r["same_reply"] for r in rows)
    ours = sum(r["prompteval"] == "correct" for r in rows)
    theirs = sum(r["multipl_e_pass"] for r in rows)
    differ = [r for r in rows if r["prompteval"] is not None
              and (r["prompteval"] == "correct") != r["multipl_e_pass"]]
    print(f"\n{suite_path.name}: {n} problems; replies identical to the recording: {same}/{n}; "
          f"MultiPL-E's tests pass: {theirs}/{n}; prompteval correct: {ours}/{n}; "
          f"judgements differ on {len(differ)}: {[r['id'] for r in differ]}")
    if a.out:
        Path(a.out).write_text(json.dumps({"suite": str(suite_path), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
