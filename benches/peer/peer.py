#!/usr/bin/env python3
"""The peer bench (issue #8): prompteval against promptfoo on the same suite,
the same model server and the same concurrency, measured in one run.

    python3 benches/peer/peer.py [--suite S] [--live-runs 2] [--reruns 3] [--keep]

Both tools ask every prompt x question once, extract the Python code from
the reply, run it with a 10 s timeout and compare its stdout with the
answer. Measured, as wall times of whole commands:

  - live: `cargo test --test prompts` with an empty response cache
    (XDG_CACHE_HOME points at an empty folder), and `promptfoo eval` with an
    empty cache (PROMPTFOO_CACHE_PATH points at an empty folder);
    `--live-runs` of each, in the order prompteval, promptfoo, promptfoo,
    prompteval..., so a server slowed by other work on the machine weighs on
    both; the mean is the ratio's. With one request in flight the time in
    model calls (each tool's own per-call latency, retries included) is
    printed too: what is left of the wall time is the tool's own;
  - rerun: the unchanged suite again, each tool from the cache its last live
    run filled, alternately, `--reruns` times each; the median is the
    ratio's.

It prints the ratios promptfoo / prompteval, each tool's accuracy per
prompt, and checks that the tools did the same work: the requests (system
and user message) are identical, the replies and verdicts agree, the live
runs called the model for every case and the reruns for none (prompteval's
summary.json cache hits and misses; promptfoo's `response.cached`). A failed
cache or request check exits 1.

prompteval runs with `[history] enabled = false`: its learning history puts
earlier questions of the same prompt in the message, and promptfoo has no
counterpart. Every other setting is the repository's harness.toml (model,
temperature, seed, max tokens, system prompt, sandbox timeout), written to a
temporary harness.toml (PROMPTEVAL_CONFIG); benches/peer/promptfoo_config.py
turns the same settings and suite into the promptfoo config, and
benches/peer/assert_program.cjs is its assertion.

Not built or timed: prompteval is built first (`cargo test --test prompts
--no-run`); promptfoo is installed with `npm install` from
benches/peer/package-lock.json into ~/.cache/prompteval-peer (outside the
clone; PROMPTEVAL_PEER_CACHE moves it), and its database is created before
the first timed run. One untimed request warms the server.

The server is `--base-url` (default: harness.toml's, the local llama-server
of scripts/local-llm.sh). When that is the local one and it is not running,
the bench starts it with `scripts/local-llm.sh start PORT` and stops it at
the end; a server that was already running is left running.

Needs python3 >= 3.11, node and npm (promptfoo 0.121.20 is the last release
that runs on Node 20), cargo, and minutes: each case is one model call
(~3-10 s on 2 CPU cores) per live run of each tool.
"""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import promptfoo_config  # noqa: E402

PROMPTFOO_ENV = {
    "PROMPTFOO_DISABLE_TELEMETRY": "1",
    "PROMPTFOO_DISABLE_UPDATE": "1",
    "PROMPTFOO_DISABLE_SHARING": "1",
    "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
}


def say(text):
    print(f"[peer] {text}", file=sys.stderr, flush=True)


def die(text):
    say(f"error: {text}")
    sys.exit(2)


# ---------------------------------------------------------------- setup


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # A JSON string without \u escapes outside control characters is a
        # TOML basic string.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def toml_dump(table, prefix=""):
    """A harness.toml from a dict (scalars, lists and nested tables)."""
    lines = [f"{k} = {toml_value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    for key, sub in table.items():
        if isinstance(sub, dict):
            name = f"{prefix}{key}"
            lines.append(f"\n[{name}]")
            lines.append(toml_dump(sub, name + "."))
    return "\n".join(lines)


def install_promptfoo(cache):
    """promptfoo as pinned by package-lock.json, installed once into `cache`."""
    if not shutil.which("node") or not shutil.which("npm"):
        die("node and npm are needed for promptfoo (apt-get install nodejs npm)")
    lock = (HERE / "package-lock.json").read_bytes()
    stamp_text = hashlib.sha256(lock).hexdigest()
    folder = cache / "npm"
    binary = folder / "node_modules/.bin/promptfoo"
    stamp = folder / "installed.sha256"
    if not (binary.exists() and stamp.exists() and stamp.read_text().strip() == stamp_text):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(HERE / "package.json", folder / "package.json")
        shutil.copy(HERE / "package-lock.json", folder / "package-lock.json")
        say(f"installing promptfoo into {folder} (about a minute, 1.4 GB)")
        # `npm install`, not `npm ci`: with this lock file npm ci refuses a
        # version gap among @swc/core's optional per-platform packages that
        # the registry has, while npm install keeps every locked version.
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=True
        )
        stamp.write_text(stamp_text + "\n")
    return binary


def promptfoo_version(binary, env):
    out = subprocess.run([binary, "--version"], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def server_answers(base_url):
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def is_local_default(base_url):
    url = urlparse(base_url)
    return url.hostname in ("127.0.0.1", "localhost") and url.path.rstrip("/") == "/v1"


def warm_up(base_url, model):
    """One untimed request, so neither tool pays for the server's first one."""
    body = json.dumps(
        {
            "model": model,
            "messages": [{"role": "user", "content": "Say OK."}],
            "max_tokens": 4,
            "temperature": 0,
        }
    ).encode()
    req = urllib.request.Request(
        f"{base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()


# ---------------------------------------------------------------- runs


def timed(cmd, *, cwd, env, log):
    """Wall time of one command; its output goes to `log`."""
    with open(log, "wb") as out:
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - started
    return wall, proc.returncode


class Prompteval:
    """`cargo test --test prompts` with a bench harness.toml and cache."""

    def __init__(self, work, harness_path):
        self.work = work
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PROMPTEVAL_", "NEXTEST", "INSTA_")) and k not in ("CI", "OLLAMA_HOST")
        }
        self.env.update(
            {
                "PROMPTEVAL_CONFIG": str(harness_path),
                # Replies are not recorded as snapshots: the run leaves no
                # .snap.new in the clone.
                "INSTA_UPDATE": "no",
            }
        )
        self.runs = 0

    def build(self):
        say("building prompteval (cargo test --test prompts --no-run)")
        subprocess.run(
            ["cargo", "test", "--test", "prompts", "--no-run", "--quiet"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )

    def run(self, label, cache):
        """One run; its response cache is `cache`/prompteval."""
        self.runs += 1
        results = self.work / f"prompteval-{self.runs}-{label}"
        env = dict(self.env, PROMPTEVAL_RESULT_DIR=str(results), XDG_CACHE_HOME=str(cache))
        log = self.work / f"prompteval-{self.runs}-{label}.log"
        wall, code = timed(["cargo", "test", "--test", "prompts"], cwd=ROOT, env=env, log=log)
        folders = sorted(results.glob("test_*"))
        if not folders or not (folders[-1] / "summary.json").exists():
            die(f"prompteval wrote no report (exit status {code}); see {log}")
        folder = folders[-1]
        summary = json.loads((folder / "summary.json").read_text())
        cases = {}
        with open(folder / "journal.jsonl", encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if "case" not in record:
                    continue
                key = (record["case"]["prompt"], record["case"]["question_id"])
                messages = []
                if record.get("system_prompt") is not None:
                    messages.append({"role": "system", "content": record["system_prompt"]})
                messages.append({"role": "user", "content": record["prompt"]})
                cases[key] = {
                    "messages": messages,
                    "reply": record.get("reply"),
                    "verdict": record["verdict"],
                    "model_secs": record.get("llm_secs") or 0.0,
                }
        return {"wall": wall, "summary": summary, "cases": cases, "log": log}


class Promptfoo:
    """`promptfoo eval` on the generated config with its own cache."""

    def __init__(self, work, binary, config_path, concurrency, timeout_secs):
        self.work = work
        self.binary = binary
        self.config_path = config_path
        self.concurrency = concurrency
        self.env = dict(os.environ)
        self.env.update(PROMPTFOO_ENV)
        self.env.update(
            {
                "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo-home"),
                # prompteval's [llm] timeout_secs per call (promptfoo: 300 s).
                "REQUEST_TIMEOUT_MS": str(int(timeout_secs * 1000)),
            }
        )
        self.runs = 0

    def prepare(self):
        """Creates its database (migrations) before anything is timed."""
        subprocess.run(
            [self.binary, "list", "evals"],
            env=self.env,
            cwd=self.work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )

    def run(self, label, questions, cache):
        """One run; its response cache is `cache`."""
        self.runs += 1
        out = self.work / f"promptfoo-{self.runs}-{label}.json"
        log = self.work / f"promptfoo-{self.runs}-{label}.log"
        cmd = [
            self.binary,
            "eval",
            "-c",
            str(self.config_path),
            "--max-concurrency",
            str(self.concurrency),
            "-o",
            str(out),
            "--no-progress-bar",
        ]
        env = dict(self.env, PROMPTFOO_CACHE_PATH=str(cache))
        wall, code = timed(cmd, cwd=self.work, env=env, log=log)
        if not out.exists():
            die(f"promptfoo wrote no results (exit status {code}); see {log}")
        data = json.loads(out.read_text())
        ids = {q["question"]: q["id"] for q in questions}
        cases = {}
        for r in data["results"]["results"]:
            qid = (r.get("testCase", {}).get("metadata") or {}).get("question_id") or ids.get(
                r["vars"].get("question")
            )
            key = (r["prompt"]["label"], qid)
            response = r.get("response") or {}
            grading = r.get("gradingResult") or {}
            parts = grading.get("componentResults") or []
            reason = parts[0].get("reason", "") if parts else ""
            # failureReason 2 is promptfoo's ERROR: no reply to judge.
            failed_call = r.get("failureReason") == 2 or not response or response.get("error")
            verdict = "api_error" if failed_call else reason.split(":", 1)[0]
            try:
                messages = json.loads(r["prompt"]["raw"])
            except (TypeError, ValueError):
                messages = r["prompt"]["raw"]
            cases[key] = {
                "messages": messages,
                "reply": response.get("output"),
                "cached": bool(response.get("cached")),
                "verdict": verdict,
                "success": bool(r.get("success")),
                "model_secs": (response.get("latencyMs") or 0) / 1000,
            }
        return {"wall": wall, "cases": cases, "log": log}


# ---------------------------------------------------------------- report


def ratio(a, b):
    return a / b if b > 0 else float("inf")


def reply_as_judged(text):
    """What prompteval keeps of a reply (src/backend/mod.rs strip_reasoning)."""
    if text is None:
        return None
    import re

    stripped = re.sub(r"<think>.*?</think>", "", text, flags=re.S)
    i = stripped.find("<think>")
    if i >= 0 and not stripped[:i].strip():
        stripped = ""
    return stripped.lstrip()


def agreement(keys, a, b, field, same=lambda x, y: x == y):
    differ = [k for k in keys if not (k in a and k in b and same(a[k][field], b[k][field]))]
    return len(keys) - len(differ), differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=None, help="suite JSON (default: harness.toml's)")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible /v1 URL (default: harness.toml's)")
    parser.add_argument("--model", default=None, help="model name (default: harness.toml's)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="model requests in flight, both tools (default: PROMPTEVAL_CONCURRENCY, else harness.toml's)",
    )
    parser.add_argument(
        "--live-runs", type=int, default=2, help="live runs per tool, each with empty caches (default 2)"
    )
    parser.add_argument("--reruns", type=int, default=3, help="cached reruns per tool (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, reports)")
    args = parser.parse_args()
    if args.live_runs < 1 or args.reruns < 1:
        parser.error("--live-runs and --reruns must be at least 1")

    harness = promptfoo_config.load_harness(ROOT / "harness.toml")
    suite = Path(args.suite).resolve() if args.suite else (ROOT / harness.get("suite", "benches-data/example.json"))
    base_url = (args.base_url or harness.get("openai", {}).get("base_url", "http://127.0.0.1:8088/v1")).rstrip("/")
    model = args.model or harness.get("model", "qwen2.5-coder:1.5b")
    concurrency = args.concurrency or int(os.environ.get("PROMPTEVAL_CONCURRENCY") or harness.get("concurrency", 1))
    sandbox = harness.get("sandbox", {})
    llm = harness.get("llm", {})
    prompts, questions = promptfoo_config.load_suite(suite)
    n_cases = len(prompts) * len(questions)

    cache = Path(
        os.environ.get("PROMPTEVAL_PEER_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "prompteval-peer"
    )
    binary = install_promptfoo(cache)

    work = Path(tempfile.mkdtemp(prefix="prompteval-peer-"))
    started_server = False
    try:
        # prompteval's settings: the repository's, history off, this bench's
        # suite, server, model, concurrency and folders.
        bench_harness = dict(harness)
        bench_harness.update(
            {
                "suite": str(suite),
                "model": model,
                "backend": "openai",
                "concurrency": concurrency,
                "cache": True,
                "result_dir": str(work / "prompteval-results"),
                "snapshot_dir": str(work / "snapshots"),
            }
        )
        bench_harness["openai"] = dict(harness.get("openai", {}), base_url=base_url)
        bench_harness["history"] = dict(harness.get("history", {}), enabled=False)
        harness_path = work / "harness.toml"
        harness_path.write_text(toml_dump(bench_harness) + "\n", encoding="utf-8")

        config = promptfoo_config.build(
            suite,
            bench_harness,
            model=model,
            base_url=base_url,
            assertion=HERE / "assert_program.cjs",
            python=sandbox.get("python", "python3"),
            timeout_secs=sandbox.get("timeout_secs", 10),
        )
        config_path = work / "promptfooconfig.json"
        config_path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")

        prompteval = Prompteval(work, harness_path)
        promptfoo = Promptfoo(work, binary, config_path, concurrency, llm.get("timeout_secs", 30))
        version = promptfoo_version(binary, promptfoo.env)
        prompteval.build()
        promptfoo.prepare()

        if not server_answers(base_url):
            if not is_local_default(base_url):
                die(f"no model server answers at {base_url}")
            port = str(urlparse(base_url).port or 80)
            say(f"starting the local llama-server on port {port} (stopped at the end)")
            subprocess.run([str(ROOT / "scripts/local-llm.sh"), "start", port], check=True, stdout=subprocess.DEVNULL)
            started_server = True
        else:
            say(f"model server already running at {base_url} (left running)")
        warm_up(base_url, model)

        # Live runs, each with empty caches, in the order prompteval,
        # promptfoo, promptfoo, prompteval, ...: a server that slows down
        # (other work on the machine) weighs on both tools alike.
        pe_lives, pf_lives = [], []
        for i in range(args.live_runs):
            order = ("prompteval", "promptfoo") if i % 2 == 0 else ("promptfoo", "prompteval")
            for tool in order:
                say(f"live run {i + 1}: {tool} ({n_cases} cases, empty cache)")
                if tool == "prompteval":
                    pe_lives.append(prompteval.run("live", work / f"prompteval-cache-{i + 1}"))
                    say(f"  {pe_lives[-1]['wall']:.2f} s")
                else:
                    pf_lives.append(promptfoo.run("live", questions, work / f"promptfoo-cache-{i + 1}"))
                    say(f"  {pf_lives[-1]['wall']:.2f} s")
        # Reruns from the caches the last live runs filled, alternating.
        pe_cache = work / f"prompteval-cache-{args.live_runs}"
        pf_cache = work / f"promptfoo-cache-{args.live_runs}"
        pe_reruns, pf_reruns = [], []
        for i in range(args.reruns):
            pe_reruns.append(prompteval.run("rerun", pe_cache))
            pf_reruns.append(promptfoo.run("rerun", questions, pf_cache))
            say(f"rerun {i + 1}: prompteval {pe_reruns[-1]['wall']:.2f} s, promptfoo {pf_reruns[-1]['wall']:.2f} s")

        # ------------------------------------------------------- report
        keys = [(p, q["id"]) for p, _, _ in prompts for q in questions]
        mean = lambda xs: statistics.fmean(xs)  # noqa: E731
        span = lambda rs: f"{min(r['wall'] for r in rs):.2f}-{max(r['wall'] for r in rs):.2f}"  # noqa: E731
        pe_live, pf_live = pe_lives[0], pf_lives[0]
        pe_wall, pf_wall = mean(r["wall"] for r in pe_lives), mean(r["wall"] for r in pf_lives)
        pe_rerun = statistics.median(r["wall"] for r in pe_reruns)
        pf_rerun = statistics.median(r["wall"] for r in pf_reruns)
        cores = os.cpu_count()
        load = os.getloadavg()[0]
        print(f"prompteval peer bench: promptfoo {version}, same suite, server and concurrency")
        print(
            f"suite {suite.relative_to(ROOT) if suite.is_relative_to(ROOT) else suite}: "
            f"{len(prompts)} prompts x {len(questions)} questions = {n_cases} cases; "
            f"{model} at {base_url}; concurrency {concurrency}; {cores} cores (load {load:.2f} at the end)"
        )
        print("prompteval: cargo test --test prompts, [history] enabled = false;")
        print(f"promptfoo: promptfoo eval --max-concurrency {concurrency}, javascript assertion running the program")
        print()
        print(f"{'run':<34} {'prompteval':>11} {'promptfoo':>11} {'promptfoo/prompteval':>21}")
        label = f"live, empty caches (mean of {args.live_runs})" if args.live_runs > 1 else "live, empty caches"
        print(f"{label:<34} {pe_wall:>9.2f} s {pf_wall:>9.2f} s {ratio(pf_wall, pe_wall):>20.2f}x")
        if args.live_runs > 1:
            print(f"{'  live runs, min-max':<34} {span(pe_lives):>11} {span(pf_lives):>11}")
        if concurrency == 1:
            # One request at a time: the sum of the model calls (retries
            # included) is the part of the wall time spent waiting for the
            # server; the rest is the tool's own.
            model_secs = lambda r: sum(c["model_secs"] for c in r["cases"].values())  # noqa: E731
            pe_model = mean(model_secs(r) for r in pe_lives)
            pf_model = mean(model_secs(r) for r in pf_lives)
            pe_rest, pf_rest = pe_wall - pe_model, pf_wall - pf_model
            print(f"{'  in model calls (sum)':<34} {pe_model:>9.2f} s {pf_model:>9.2f} s {ratio(pf_model, pe_model):>20.2f}x")
            print(f"{'  the rest (wall - model calls)':<34} {pe_rest:>9.2f} s {pf_rest:>9.2f} s {ratio(pf_rest, pe_rest):>20.2f}x")
        label = f"rerun from own cache (median of {args.reruns})" if args.reruns > 1 else "rerun from own cache"
        print(f"{label:<34} {pe_rerun:>9.2f} s {pf_rerun:>9.2f} s {ratio(pf_rerun, pe_rerun):>20.2f}x")
        if args.reruns > 1:
            print(f"{'  reruns, min-max':<34} {span(pe_reruns):>11} {span(pf_reruns):>11}")

        failures = []

        def check(name, ok, detail):
            print(f"  {name:<46} {detail}{'' if ok else '   FAIL'}")
            if not ok:
                failures.append(name)

        print()
        print("same work (live run 1)")
        pe_cases, pf_cases = pe_live["cases"], pf_live["cases"]
        n, differ = agreement(keys, pe_cases, pf_cases, "messages")
        check("requests (system + user message) identical", not differ, f"{n}/{len(keys)}")
        n, differ_replies = agreement(
            keys, pe_cases, pf_cases, "reply", lambda a, b: a == reply_as_judged(b)
        )
        check("replies identical", True, f"{n}/{len(keys)}")
        for k in differ_replies:
            print(f"    {k[0]}::{k[1]}: the server answered the same request differently")
        n, differ_verdicts = agreement(keys, pe_cases, pf_cases, "verdict")
        check("verdicts identical", True, f"{n}/{len(keys)}")
        for k in differ_verdicts:
            print(
                f"    {k[0]}::{k[1]}: prompteval {pe_cases.get(k, {}).get('verdict')}, "
                f"promptfoo {pf_cases.get(k, {}).get('verdict')}"
            )
        if args.live_runs > 1:
            same = sum(
                all(r["cases"].get(k, {}).get("reply") == pe_cases[k]["reply"] for r in pe_lives)
                and all(reply_as_judged(r["cases"].get(k, {}).get("reply")) == pe_cases[k]["reply"] for r in pf_lives)
                for k in keys
            )
            check("replies identical in every live run", True, f"{same}/{len(keys)}")

        print("caches")
        misses = [(r["summary"].get("cache") or {}) for r in pe_lives]
        check(
            "prompteval live: model calls",
            all(c.get("misses") == n_cases and c.get("hits") == 0 for c in misses),
            ", ".join(f"{c.get('misses')} (hits {c.get('hits')})" for c in misses),
        )
        calls = [(r["summary"].get("cache") or {}) for r in pe_reruns]
        check(
            "prompteval reruns: model calls",
            all(c.get("misses") == 0 and c.get("hits") == n_cases for c in calls),
            ", ".join(f"{c.get('misses')} (hits {c.get('hits')})" for c in calls),
        )
        from_model = [sum(not c["cached"] for c in r["cases"].values()) for r in pf_lives]
        check(
            "promptfoo live: replies from the model",
            all(n == n_cases for n in from_model),
            ", ".join(f"{n}/{n_cases}" for n in from_model),
        )
        from_cache = [sum(c["cached"] for c in r["cases"].values()) for r in pf_reruns]
        check(
            "promptfoo reruns: replies from its cache",
            all(n == n_cases for n in from_cache),
            ", ".join(f"{n}/{n_cases}" for n in from_cache),
        )
        last_pe, last_pf = pe_lives[-1]["cases"], pf_lives[-1]["cases"]
        same_pe = all(all(r["cases"][k]["verdict"] == last_pe[k]["verdict"] for k in keys) for r in pe_reruns)
        same_pf = all(all(r["cases"][k]["verdict"] == last_pf[k]["verdict"] for k in keys) for r in pf_reruns)
        check(
            "reruns: verdicts as in the live run",
            same_pe and same_pf,
            "prompteval and promptfoo" if same_pe and same_pf else f"prompteval {same_pe}, promptfoo {same_pf}",
        )

        print()
        print(f"{'accuracy per prompt (live run 1)':<34} {'prompteval':>11} {'promptfoo':>11}")
        for name, _ in prompts:
            pr = pe_live["summary"]["prompt_results"].get(name, {})
            pe_text = f"{pr.get('correct_answers')}/{pr.get('total_questions')}"
            ok = sum(pf_cases[(name, q["id"])]["success"] for q in questions if (name, q["id"]) in pf_cases)
            print(f"  {name:<32} {pe_text:>11} {f'{ok}/{len(questions)}':>11}")

        if args.keep or failures:
            print(f"\nwork folder (configs, logs, both tools' reports): {work}")
        if differ:
            for k in differ:
                print(f"request differs for {k}:\n  prompteval {pe_cases.get(k, {}).get('messages')!r}\n  promptfoo  {pf_cases.get(k, {}).get('messages')!r}")
        if failures:
            sys.exit(1)
    finally:
        if started_server:
            subprocess.run([str(ROOT / "scripts/local-llm.sh"), "stop"], check=False, stderr=subprocess.DEVNULL)
        if not args.keep and not sys.exc_info()[0] and work.exists():
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
