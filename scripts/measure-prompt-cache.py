#!/usr/bin/env python3
"""Measures what llama-server's prompt cache saves on a live run (issue #42).

For each server setting (slots x host-memory cache), starts the project's
llama-server (scripts/local-llm.sh) with prompt caching on, runs
python-basics (history on) through `cargo test --test prompts`, and prints
per setting: prompt tokens sent, processed and reused (from the journal's
`tokens.prompt` and `tokens.prompt_cached`), the least the chains allow
(each prompt's tokens less the longest prefix an earlier prompt of the run
shares with it, counted with the server's own tokenizer and chat template),
wall time, timeouts (`api_error`), and the share of replies identical to a
reference run made with `--no-cache-prompt` (the committed recordings,
where their prompts are the ones asked).

Usage:
  scripts/measure-prompt-cache.py [--model 1.5b] [--questions N]
      [--slots 1,2] [--cache-ram 8192,0] [--drop-block 5] [--threads T]
      [--port 8090] [--timeout-secs 30]

Minutes to hours on a CPU: run it on an otherwise idle machine.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALIASES = {"1.5b": "qwen2.5-coder:1.5b", "0.5b": "qwen2.5-coder:0.5b"}


def prompts_binary():
    """Builds the harness once and returns its executable."""
    out = subprocess.run(
        ["cargo", "test", "--test", "prompts", "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "prompts":
            if msg.get("executable"):
                return msg["executable"]
    sys.exit("measure-prompt-cache: cargo built no `prompts` test binary")


def post(port, path, body):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.load(r)


class Server:
    """One llama-server with the flags under test."""

    def __init__(self, model, port, slots, cache_ram, threads, log):
        server_bin, model_file = subprocess.run(
            [str(ROOT / "scripts/local-llm.sh"), "paths", model],
            check=True, capture_output=True, text=True,
        ).stdout.split("\n")[:2]
        # Each slot gets the 4096-token window the recordings had.
        self.args = [
            server_bin, "-m", model_file, "--alias", ALIASES[model],
            "--host", "127.0.0.1", "--port", str(port),
            "-c", str(4096 * slots), "-np", str(slots), "--cache-ram", str(cache_ram),
            "-t", str(threads), "--poll", "0",
        ]
        self.port = port
        self.log = open(log, "w")
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2)
                return self
            except OSError:
                if self.proc.poll() is not None:
                    sys.exit(f"llama-server exited: see {self.log.name}")
                time.sleep(0.5)
        sys.exit(f"llama-server did not become healthy: see {self.log.name}")

    def __exit__(self, *_):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()


def suite_subset(questions, drop_block, folder):
    suite = json.loads((ROOT / "benches-data/python-basics.json").read_text())
    # The suite pins the block its recordings were made with: the copy
    # says the one measured.
    suite.setdefault("settings", {}).setdefault("history", {})["drop_block"] = drop_block
    if questions:
        suite["questions"] = suite["questions"][:questions]
    path = folder / "python-basics.json"
    path.write_text(json.dumps(suite, ensure_ascii=False, indent=1))
    return path


# The system prompt the committed recordings were asked with (the
# repository's harness.toml), so that "replies as recorded" compares like
# with like.
RECORDED_SYSTEM_PROMPT = (
    "Reply with exactly one complete, runnable Python 3 program in a single python code "
    "block and nothing else; print only the requested result."
)


def config(folder, suite, model, port, timeout, concurrency):
    path = folder / "harness.toml"
    path.write_text(
        f"""suite = "{suite}"
model = "{ALIASES[model]}"
backend = "openai"
concurrency = {concurrency}
result_dir = "{folder / 'result'}"
snapshot_dir = "{folder / 'snapshots'}"
cache = false
[openai]
base_url = "http://127.0.0.1:{port}/v1"
[llm]
timeout_secs = {timeout}
system_prompt = "{RECORDED_SYSTEM_PROMPT}"
"""
    )
    return path


def journal(folder):
    runs = sorted((folder / "result").glob("test_*"))
    if not runs:
        sys.exit(f"no run folder under {folder / 'result'}")
    return [json.loads(l) for l in (runs[-1] / "journal.jsonl").read_text().splitlines() if l]


def chat_text(port, case):
    """The prompt as the server sees it: its chat template applied."""
    messages = []
    if case.get("system_prompt"):
        messages.append({"role": "system", "content": case["system_prompt"]})
    messages.append({"role": "user", "content": case["prompt"]})
    return post(port, "/apply-template", {"messages": messages})["prompt"]


def least_processed(port, cases):
    """Tokens a cache of unlimited size would still process, in asking order,
    over the cases whose tokens the server reported (as `processed` is)."""
    seen, least = [], 0
    for case in sorted(cases, key=lambda c: c["finished_at"]):
        tokens = post(port, "/tokenize", {"content": chat_text(port, case)})["tokens"]
        shared = 0
        for earlier in seen:
            n = 0
            for a, b in zip(earlier, tokens):
                if a != b:
                    break
                n += 1
            shared = max(shared, n)
        # A fully cached prompt still evaluates its last token. A case the
        # server never answered (a timeout) reports no tokens, so it adds
        # nothing here either, but its prompt still sat in a slot.
        if case.get("tokens"):
            least += max(len(tokens) - shared, 1)
        seen.append(tokens)
    return least


def recorded_replies(model):
    """The committed recordings: case name -> (user prompt, reply)."""
    try:
        import yaml
    except ImportError:
        sys.exit("measure-prompt-cache: needs PyYAML to read the recordings (pip install pyyaml)")
    folder = ROOT / "tests/snapshots/python-basics" / ALIASES[model].replace(":", "_")
    replies = {}
    for snap in folder.glob("*.snap"):
        # insta's file: a YAML header between `---` lines, then the reply.
        header, reply = snap.read_text().removeprefix("---\n").split("\n---\n", 1)
        info = yaml.safe_load(header)["info"]
        user = [m["content"] for m in info["request"]["messages"] if m["role"] == "user"]
        replies[snap.stem] = (user[-1] if user else None, reply.rstrip("\n"))
    return replies


def measure(args, binary, slots, cache_ram, folder):
    suite = suite_subset(args.questions, args.drop_block, folder)
    # As many requests in flight as the server has slots, unless told.
    concurrency = args.concurrency or slots
    cfg = config(folder, suite, args.model, args.port, args.timeout_secs, concurrency)
    with Server(args.model, args.port, slots, cache_ram, args.threads, folder / "server.log") as server:
        env = dict(os.environ, PROMPTEVAL_CONFIG=str(cfg), INSTA_UPDATE="always")
        for name in ("NEXTEST", "NEXTEST_RUN_ID", "PROMPTEVAL_REPLAY"):
            env.pop(name, None)
        start = time.monotonic()
        subprocess.run([binary, "--test-threads", "8"], cwd=ROOT, env=env,
                       stdout=open(folder / "run.log", "w"), stderr=subprocess.STDOUT)
        wall = time.monotonic() - start
        cases = journal(folder)
        least = least_processed(server.port, cases)
    sent = sum(c["tokens"]["prompt"] for c in cases if c.get("tokens"))
    reported = [c["tokens"].get("prompt_cached") for c in cases if c.get("tokens")]
    reused = sum(r for r in reported if r is not None)
    return {
        "slots": slots, "concurrency": concurrency, "cache_ram": cache_ram,
        "cases": len(cases), "sent": sent,
        "processed": sent - reused, "reused": reused,
        "unreported": sum(1 for r in reported if r is None),
        "least": least, "wall": wall,
        "timeouts": sum(1 for c in cases if c["verdict"] == "api_error"),
        "replies": {c["name"]: c.get("reply") for c in cases},
        "prompts": {c["name"]: c.get("prompt") for c in cases},
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="1.5b", choices=ALIASES)
    p.add_argument("--questions", type=int, default=0, help="first N questions (0: all)")
    p.add_argument("--slots", default="1,2")
    p.add_argument("--cache-ram", default="8192,0")
    p.add_argument("--drop-block", type=int, default=5, help="the default; 1 slides by one")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--port", type=int, default=8090)
    p.add_argument("--timeout-secs", type=int, default=30, help="the spec's 30 s by default")
    p.add_argument("--keep", help="keep the run folders here")
    p.add_argument("--concurrency", type=int, default=0,
                   help="requests in flight (default: the server's slots)")
    args = p.parse_args()

    binary = prompts_binary()
    base = Path(args.keep or tempfile.mkdtemp(prefix="prompt-cache-"))
    rows = []
    for slots in map(int, args.slots.split(",")):
        for cache_ram in map(int, args.cache_ram.split(",")):
            folder = base / f"np{slots}-c{args.concurrency or slots}-cram{cache_ram}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            print(f"measuring: {slots} slot(s), --cache-ram {cache_ram} ...", flush=True)
            rows.append(measure(args, binary, slots, cache_ram, folder))

    recorded = recorded_replies(args.model)
    print(f"\npython-basics, {args.questions or 'all'} questions, drop_block {args.drop_block}, "
          f"{ALIASES[args.model]}, {args.threads} threads, timeout {args.timeout_secs} s\n")
    print("| slots | in flight | --cache-ram | cases | sent | processed | reused | least | processed/least "
          "| processed/sent | wall | timeouts | replies as recorded |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        # Only where the recording asked the very prompt this run asked.
        pairs = [(recorded.get(name.replace("::", "__")), r["prompts"][name], reply)
                 for name, reply in r["replies"].items()]
        pairs = [(rec, reply) for rec, prompt, reply in pairs if rec and rec[0] == prompt]
        same = sum(1 for rec, reply in pairs if reply is not None and rec[1] == reply.rstrip("\n"))
        compared = len(pairs)
        note = f" ({r['unreported']} unreported)" if r["unreported"] else ""
        print(f"| {r['slots']} | {r['concurrency']} | {r['cache_ram']} | {r['cases']} | {r['sent']:,} | {r['processed']:,}{note} "
              f"| {r['reused']:,} | {r['least']:,} | {r['processed'] / max(r['least'], 1):.2f}x "
              f"| {100 * r['processed'] / max(r['sent'], 1):.0f} % | {r['wall']:.0f} s | {r['timeouts']} "
              f"| {same} of {compared} |")
    print(f"\nrun folders: {base}")


if __name__ == "__main__":
    main()
