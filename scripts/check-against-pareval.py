#!/usr/bin/env python3
"""Judge prompteval's recorded ParEval replies with ParEval's own harness.

    check.py --pareval DIR --suite SUITE.json --journal JOURNAL.jsonl
             [--jobs 1] [--extract journal|instruct|openai] [--threads 1,2,4,8]
             [--run-timeout 120] [--build-timeout 30] [--no-early-exit]
             [--cache FILE] [--out RESULTS.json] [--only NAME_SUBSTRING]

What is reproduced, and how
---------------------------
ParEval (github.com/parallelcodefoundry/ParEval), checked against commit
4c9877fcf3e50ad8ac2d898187122a2d9cfd8e47 (2024-12-01, "update the readme
with more accurate build instructions (#32)"), judges a generated output with
drivers/run-all.py -> drivers/cpp/cpp_driver_wrapper.py
(CppDriverWrapper.test_single_output) -> drivers/driver_wrapper.py.  This
script does not re-implement that: it imports those modules from the
checkout given with --pareval and calls CppDriverWrapper.test_single_output
for every distinct (parallelism model, problem, prompt, output), exactly as
run-all.py's DriverWrapper.test_all_outputs_in_prompt does, with run-all.py's
defaults: --build-timeout 30, --run-timeout 120.  So, as in ParEval:

  * generated-code.hpp (in a fresh temp dir) = patch_prompt(prompt) + "\\n" +
    output, where patch_prompt inserts NO_INLINE after the first word of the
    prompt's last line;
  * the model's driver object is built first by ParEval's own Makefile
    (`make models/serial-driver.o models/omp-driver.o` in drivers/cpp:
    g++ -std=c++17 -O3 [-fopenmp] -c);
  * the candidate is built (cwd drivers/) with
    g++ -std=c++17 -O3 [-fopenmp] -I<tmp> -DDRIVER_PROBLEM_SIZE="<size from
    drivers/problem-sizes.json, default (1<<18)>" -Icpp -Icpp/models
    -DUSE_SERIAL|-DUSE_OMP cpp/models/<model>-driver.o
    cpp/benchmarks/<type>/<name>/cpu.cc -o <tmp>/a.out   (30 s limit);
  * it is run once per launch configuration under a 120 s limit; a run's
    validity is the last `Validation:` line of its stdout; the attempt is
    valid (driver_wrapper's are_all_valid) iff it built and every run exited
    0 and printed `Validation: PASS`.

Deviations from run-all.py, all outside the judging logic:
  * launch: ParEval's launch-configs.json runs OpenMP as
    `srun -N 1 -n 1 -c {num_threads} {exec_path} {args} {num_threads}`; there
    is no Slurm here, so the format is `{exec_path} {args} {num_threads}`
    (serial: `{exec_path} {args}`, as ParEval's).  Thread counts default to
    1,2,4,8, ParEval's drivers/test-launch-configs.json (its
    launch-configs.json goes on to 16, 32, 64: use --threads to add them).
  * --early-exit-runs (ParEval's own option) is on by default
    (--no-early-exit turns it off): the runs stop at the first run that is
    invalid (nonzero exit or no PASS).  Validity (are_all_valid) is unchanged
    by it; where it stops at a run that printed PASS and exited nonzero,
    metrics.py's notion (below) is flagged `metrics_valid_partial`.
  * the prompt: ParEval's prompt is the suite question (for the plain suites
    it is byte-identical to ParEval's prompts/generation-prompts.json, which
    this script checks; for PartialOrderEval variants there is no ParEval
    prompt: the variant's question is used, as the paper injected it).

The output (what ParEval's generation step hands to run-all.py), --extract:
  * journal (default): the output is exactly what prompteval compiled after
    the patched prompt: the journal's `program` minus patch_prompt(question)
    and the "\\n" after it.  This isolates the judging (driver, flags, runs,
    limits) from the extraction.  It is also compared with ParEval's
    clean_instruct_output applied to the reply (the `extract` column).
  * instruct: ParEval's generate/utils.py clean_instruct_output(reply,
    prompt, response_tag) (the reply prefixed with the response tag, as the
    HF pipeline's text holds it) -- the rule prompteval's docs cite.  Where
    that gives prompteval's program but for trailing white space, the
    journal's bytes are judged (so the cache is shared with `journal`).
  * openai: ParEval's generate/generate-openai.py postprocess(prompt, reply)
    -- what ParEval itself does with replies to this chat prompt (the
    system/user templates prompteval's pareval_chat uses are that script's).
  Both functions are loaded from the checkout's source (not copied).
  Known effect (2026-11 check): for a reply that is a ```cpp block holding
  only the body, clean_instruct_output's regex r"```\n(.*?)\n```" does not
  match, its fallback keeps "cpp\n...\n```" and the build fails on a stray
  '`'; prompteval takes the block's text instead.  generate-openai.py's
  postprocess keeps a whole-function reply whole, so it nests in the
  prompt's signature and never builds.

Verdict classes from ParEval's result (first failing run decides the class;
only correct / not correct must agree strictly):
  did not build -> syntax_error (build over 30 s: build_timeout);
  a run killed at the run limit -> timeout; a run exiting nonzero or killed
  by a signal -> runtime_error; `Validation: FAIL` -> wrong_answer; exit 0
  without a Validation line -> wrong_answer ("no Validation line");
  all runs exit 0 with PASS -> correct.
The `metrics_valid` column is analysis/metrics.py's notion, which pass@k is
computed from: every run's stdout parsed to `Validation: PASS`, whatever its
exit status (a PASS flushed before a nonzero exit still counts there).

The deduplication key is (parallelism model, problem, prompt, output): each
distinct program is built and run once.  Runs inherit this process's
niceness: start it with `nice -n 10`.
"""

import argparse
import ast
import concurrent.futures as cf
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter, OrderedDict

PAREVAL_COMMIT = "4c9877fcf3e50ad8ac2d898187122a2d9cfd8e47"
CLASSES = ["correct", "wrong_answer", "runtime_error", "timeout", "syntax_error"]


# --------------------------------------------------------------------------
# ParEval's own code, loaded from the checkout
# --------------------------------------------------------------------------

def load_functions(path, names, extra_globals=None):
    """Exec the named top-level functions (and module-level constants they
    need) of a ParEval source file that cannot be imported whole (it imports
    torch/openai)."""
    src = open(path).read()
    tree = ast.parse(src)
    keep = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            keep.append(node)
        elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) and t.id.isupper() for t in node.targets):
            keep.append(node)
    mod = ast.Module(body=keep, type_ignores=[])
    g = {"re": re, "__name__": "pareval_" + os.path.basename(path)}
    g.update(extra_globals or {})
    exec(compile(mod, path, "exec"), g)
    return g


class ParEval:
    def __init__(self, root, threads, run_timeout, build_timeout, early_exit):
        self.root = os.path.abspath(root)
        self.drivers = os.path.join(self.root, "drivers")
        self.threads = threads
        self.run_timeout = run_timeout
        self.build_timeout = build_timeout
        self.early_exit = early_exit
        gen = os.path.join(self.root, "generate")
        self.utils = load_functions(os.path.join(gen, "utils.py"),
                                    {"clean_instruct_output", "get_function_name",
                                     "find_matching_brace_index"})
        self.openai = load_functions(os.path.join(gen, "generate-openai.py"),
                                     {"postprocess"})
        self.problem_sizes = json.load(open(os.path.join(self.drivers, "problem-sizes.json")))
        self.prompts = {(p["name"], p["parallelism_model"]): p for p in
                        json.load(open(os.path.join(self.root, "prompts", "generation-prompts.json")))}
        self.commit = self._commit()
        self._wrapper = None

    def _commit(self):
        try:
            return subprocess.run(["git", "-C", self.root, "rev-parse", "HEAD"],
                                  capture_output=True, text=True).stdout.strip() or None
        except OSError:
            return None

    def build_drivers(self):
        """ParEval's Makefile, for the two driver objects used here."""
        cpp = os.path.join(self.drivers, "cpp")
        r = subprocess.run(["make", "models/serial-driver.o", "models/omp-driver.o"],
                           cwd=cpp, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"make of ParEval's drivers failed:\n{r.stdout}\n{r.stderr}")
        return r.stdout.strip()

    def wrapper(self, model):
        """ParEval's CppDriverWrapper, as run-all.py's get_driver makes it."""
        os.chdir(self.drivers)                      # run-all.py runs from drivers/
        for p in (self.drivers, self.root):
            if p not in sys.path:
                sys.path.insert(0, p)
        import cpp.cpp_driver_wrapper as cdw        # noqa: E402  (ParEval's module)
        if not getattr(cdw, "_timed", False):
            orig = cdw.run_command

            def timed(cmd, timeout=None, dry=False):
                t0 = time.monotonic()
                try:
                    return orig(cmd, timeout=timeout, dry=dry)
                finally:
                    TIMES.append((cmd, time.monotonic() - t0))
            cdw.run_command = timed
            cdw._timed = True
        launch = json.load(open(os.path.join(self.drivers, "launch-configs.json")))
        launch["omp"]["format"] = "{exec_path} {args} {num_threads}"   # no srun here
        launch["omp"]["params"] = [{"num_threads": n} for n in self.threads]
        scratch = os.environ.get("PAREVAL_CHECK_SCRATCH")
        return cdw.CppDriverWrapper(
            parallelism_model=model, launch_configs=launch,
            problem_sizes=self.problem_sizes, scratch_dir=scratch, dry=False,
            display_build_errors=False, display_runs=False,
            early_exit_runs=self.early_exit,
            build_timeout=self.build_timeout, run_timeout=self.run_timeout)

    def test_driver_file(self, pv):
        # driver_wrapper.test_all_outputs_in_prompt's path, relative to drivers/
        return os.path.join("cpp", "benchmarks", pv["problem_type"], pv["name"], "cpu.cc")

    def problem_size(self, pv):
        return self.problem_sizes.get(pv["name"], {}).get(pv["parallelism_model"], "(1<<18)")


TIMES = []


# --------------------------------------------------------------------------
# one distinct program
# --------------------------------------------------------------------------

def judge(pe, model, pv, prompt, output):
    """Run ParEval's test_single_output; return a plain dict."""
    w = pe.wrapper(model)
    w.early_exit_runs = pe.early_exit        # ParEval's own --early-exit-runs
    TIMES.clear()
    t0 = time.monotonic()
    res = w.test_single_output(prompt, output, pe.test_driver_file(pv), pe.problem_size(pv))
    wall = time.monotonic() - t0
    times = list(TIMES)
    build_times = [d for c, d in times if c.startswith(("g++", "make", "cmake"))]
    run_times = [d for c, d in times if not c.startswith(("g++", "make", "cmake"))]
    out = {
        "did_build": res.did_build(),
        "build_exit": res.build_output.exit_code,
        "build_stderr": (res.build_output.stderr or "")[:20000],
        "build_secs": build_times[0] if build_times else None,
        "runs": [],
        "are_all_valid": res.are_all_valid() if res.did_build() else False,
        "metrics_valid": bool(res.did_build() and res.run_outputs
                              and all(r.is_valid is True for r in res.run_outputs)
                              and len(res.run_outputs) == len(pe_threads(pe, model))),
        # early exit stopped at a run that printed PASS but exited nonzero:
        # metrics.py's validity of the remaining runs is unknown
        "metrics_valid_partial": bool(res.did_build() and res.run_outputs
                                      and len(res.run_outputs) < len(pe_threads(pe, model))
                                      and all(r.is_valid is True for r in res.run_outputs)),
        "is_source_valid": w.validator.validate(output),
        "wall_secs": wall,
    }
    if res.did_build():
        for i, r in enumerate(res.run_outputs):
            out["runs"].append({
                "threads": r.config.get("num_threads", 1),
                "exit_code": r.exit_code,
                "is_valid": r.is_valid,
                "runtime": r.runtime,
                "best_sequential_runtime": r.best_sequential_runtime,
                "stdout": (r.stdout or "")[-3000:],
                "stderr": (r.stderr or "")[-3000:],
                "secs": run_times[i] if i < len(run_times) else None,
            })
    out["verdict"], out["why"] = classify(out, pe)
    return out


def pe_threads(pe, model):
    return pe.threads if model == "omp" else [1]


def first_error(stderr):
    for line in stderr.splitlines():
        if ": error:" in line or "fatal error" in line or "[Timeout]" in line or "undefined reference" in line:
            return line.strip()
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no stderr)"


def classify(o, pe):
    if not o["did_build"]:
        if "[Timeout]" in o["build_stderr"]:
            return "timeout", f"build killed at ParEval's {pe.build_timeout} s build limit (build_timeout)"
        return "syntax_error", first_error(o["build_stderr"])
    for r in o["runs"]:
        n = r["threads"]
        t = f"{r['secs']:.1f}s" if r["secs"] is not None else "?"
        if r["exit_code"] == -1 and r["stderr"].startswith("[Timeout]"):
            return "timeout", f"run at {n} thread(s) killed at ParEval's {pe.run_timeout} s limit"
        if r["exit_code"] != 0:
            if r["exit_code"] < 0:
                try:
                    sig = signal.Signals(-r["exit_code"]).name
                except ValueError:
                    sig = str(-r["exit_code"])
                what = f"killed by {sig}"
            else:
                what = f"exit status {r['exit_code']}"
            if r["stderr"].startswith("UnicodeDecodeError"):
                what = "output not UTF-8 (ParEval records exit -1)"
            tail = (r["stderr"].strip().splitlines() or [""])[-1][:160]
            v = "" if r["is_valid"] is None else f", Validation: {'PASS' if r['is_valid'] else 'FAIL'} printed"
            return "runtime_error", f"{what} at {n} thread(s) after {t}{v}" + (f"; stderr: {tail}" if tail else "")
        if r["is_valid"] is False:
            return "wrong_answer", f"Validation: FAIL at {n} thread(s) ({t})"
        if r["is_valid"] is None:
            return "wrong_answer", f"exit 0 without a Validation line at {n} thread(s) ({t})"
    rs = ", ".join(f"{r['threads']}t {r['secs']:.1f}s" for r in o["runs"] if r["secs"] is not None)
    return "correct", f"Validation: PASS, exit 0 at every run ({rs})"


def _worker(args):
    root, threads, run_timeout, build_timeout, early_exit, key, model, pv, prompt, output = args
    pe = ParEval(root, threads, run_timeout, build_timeout, early_exit)
    try:
        return key, judge(pe, model, pv, prompt, output)
    except Exception as e:          # ParEval's harness itself failed (e.g. float('abc'))
        return key, {"verdict": "harness_error", "why": f"{type(e).__name__}: {e}",
                     "did_build": None, "runs": [], "are_all_valid": False,
                     "metrics_valid": False, "is_source_valid": None}


# --------------------------------------------------------------------------
# journal and suite
# --------------------------------------------------------------------------

def patch_prompt(content):
    # drivers/cpp/cpp_driver_wrapper.py CppDriverWrapper.patch_prompt, verbatim logic
    parts = content.split("\n")[-1].split(" ")
    assert len(parts) > 1
    parts.insert(1, "NO_INLINE")
    return "\n".join(content.split("\n")[:-1] + [" ".join(parts)])


def instruct_output(pe, prompt, reply, tag="### Response"):
    try:
        return pe.utils["clean_instruct_output"](tag + "\n" + reply, prompt, tag), None
    except Exception as e:
        return None, f"clean_instruct_output raised {type(e).__name__}: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pareval", required=True, help="ParEval checkout (its root)")
    ap.add_argument("--suite", required=True)
    ap.add_argument("--journal", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--extract", choices=["journal", "instruct", "openai"], default="journal")
    ap.add_argument("--threads", default="1,2,4,8")
    ap.add_argument("--run-timeout", type=int, default=120)
    ap.add_argument("--build-timeout", type=int, default=30)
    ap.add_argument("--no-early-exit", action="store_true")
    ap.add_argument("--cache", help="JSON file of earlier results, keyed by program (read and written)")
    ap.add_argument("--out", help="write every case's result here (JSON)")
    ap.add_argument("--only", help="only cases whose name contains this")
    args = ap.parse_args()
    for a in ("pareval", "suite", "journal", "cache", "out"):
        if getattr(args, a):
            setattr(args, a, os.path.abspath(getattr(args, a)))   # the harness chdirs to drivers/

    threads = [int(t) for t in args.threads.split(",")]
    pe = ParEval(args.pareval, threads, args.run_timeout, args.build_timeout, not args.no_early_exit)
    t_start = time.monotonic()
    print(f"ParEval checkout {pe.root} at {pe.commit} (docstring's: {PAREVAL_COMMIT})")
    print("make:", pe.build_drivers().replace("\n", " | ") or "(drivers up to date)")

    suite = json.load(open(args.suite))
    qs = {q["id"]: q for q in suite["questions"]}
    cases = [json.loads(l) for l in open(args.journal) if l.strip()]
    if args.only:
        cases = [c for c in cases if args.only in c["name"]]

    programs = OrderedDict()       # key -> (model, pv, prompt, output)
    rows = []
    notes = Counter()
    for c in cases:
        qid = c["case"]["question_id"]
        q = qs[qid]
        pv = q["pareval"]
        model = pv["parallelism_model"]
        prompt = q["question"]
        if c.get("question") not in (None, prompt):
            notes["journal question differs from the suite's"] += 1
        if "variant" not in q:
            official = pe.prompts.get((pv["name"], model), {}).get("prompt")
            if official != prompt:
                notes["suite prompt differs from ParEval's generation-prompts.json"] += 1
        reply = c.get("reply") or ""
        inst, inst_err = instruct_output(pe, prompt, reply)
        head = patch_prompt(prompt) + "\n"
        prog = c.get("program")
        if args.extract == "journal":
            if prog is None or not prog.startswith(head):
                # prompteval refused it before building (or recorded no program):
                # judge ParEval's instruct extraction instead, and say so
                output, src = inst, "instruct (journal has no program)"
                notes["no journal program; used clean_instruct_output"] += 1
            else:
                output, src = prog[len(head):], "journal"
        elif args.extract == "instruct":
            output, src = inst, "instruct"
            if inst is not None and prog is not None and prog.startswith(head) \
                    and prog.rstrip() == (head + inst).rstrip():
                # the same program but for trailing white space: judge the
                # journal's bytes (shares the cache with --extract journal)
                output, src = prog[len(head):], "instruct (= journal program)"
        else:
            output, src = pe.openai["postprocess"](prompt, reply), "openai"
        if output is None:
            output = ""
        # does prompteval's program equal ParEval's clean_instruct_output's?
        if prog is None:
            ext = "no-program"
        elif inst is None:
            ext = "instruct-raised"
        elif prog == head + inst:
            ext = "same"
        elif prog.rstrip() == (head + inst).rstrip():
            ext = "same-but-trailing-ws"
        else:
            ext = "DIFFERENT"
        key = hashlib.sha256(json.dumps([model, pv["name"], prompt, output, threads,
                                         args.run_timeout, args.build_timeout]).encode()).hexdigest()[:16]
        programs.setdefault(key, (model, pv, prompt, output))
        rows.append({"name": c["name"], "qid": qid, "ours": c["verdict"],
                     "ours_detail": c.get("detail"), "key": key, "src": src, "extract": ext})

    cache = {}
    if args.cache and os.path.exists(args.cache):
        cache = json.load(open(args.cache))
    todo = [k for k in programs if k not in cache]
    print(f"{len(cases)} cases, {len(programs)} distinct programs, {len(todo)} to judge "
          f"(threads {threads if any(p[0] == 'omp' for p in programs.values()) else [1]}, "
          f"run limit {args.run_timeout} s, build limit {args.build_timeout} s, extract={args.extract})")
    for n, k in notes.items():
        print(f"  note: {k}: {n}")
    sys.stdout.flush()

    work = [(pe.root, threads, args.run_timeout, args.build_timeout, pe.early_exit, k) + programs[k]
            for k in todo]
    done = 0

    def record(k, res):
        nonlocal done
        done += 1
        cache[k] = res
        m, pv = programs[k][0], programs[k][1]
        print(f"  [{done}/{len(todo)}] {pv['name']} ({m}): {res['verdict']} "
              f"({res.get('wall_secs', 0):.1f}s) {res['why'][:150]}", flush=True)
        if args.cache:
            tmp = args.cache + ".tmp"
            json.dump(cache, open(tmp, "w"))
            os.replace(tmp, args.cache)

    if args.jobs <= 1:
        for w in work:
            record(*_worker(w))
    else:
        with cf.ProcessPoolExecutor(args.jobs) as ex:
            for k, res in ex.map(_worker, work):
                record(k, res)

    # ---------------------------------------------------------------- table
    for r in rows:
        res = cache[r["key"]]
        r["pareval"] = res["verdict"]
        r["why"] = res["why"]
        r["metrics_valid"] = res["metrics_valid"]
        r["is_source_valid"] = res["is_source_valid"]
        r["wall_secs"] = res.get("wall_secs")
    n = len(rows)
    agree_cc = sum((r["ours"] == "correct") == (r["pareval"] == "correct") for r in rows)
    agree_cls = sum(r["ours"] == r["pareval"] for r in rows)
    agree_metrics = sum((r["ours"] == "correct") == r["metrics_valid"] for r in rows)
    print()
    print(f"journal {args.journal}")
    print(f"suite   {args.suite}")
    print(f"cases {n}, distinct programs {len(programs)}, extract={args.extract}")
    print(f"agree on correct/not correct: {agree_cc}/{n}   "
          f"(against metrics.py's per-run validity: {agree_metrics}/{n})")
    print(f"agree on the exact class:     {agree_cls}/{n}")
    print()
    labels = CLASSES + sorted({r['pareval'] for r in rows} - set(CLASSES))
    ours_labels = CLASSES + sorted({r['ours'] for r in rows} - set(CLASSES))
    w = max(len(l) for l in labels + ours_labels) + 1
    print("ours \\ ParEval".ljust(w) + "".join(l[:13].rjust(14) for l in labels))
    for o in ours_labels:
        cnt = [sum(r["ours"] == o and r["pareval"] == p for r in rows) for p in labels]
        if sum(cnt):
            print(o.ljust(w) + "".join(str(x).rjust(14) for x in cnt))
    print()
    ext = Counter(r["extract"] for r in rows)
    print("prompteval's program vs ParEval's clean_instruct_output(reply):", dict(ext))
    if any(r["ours"] == "correct" for r in rows) and any(programs[r["key"]][0] == "omp" for r in rows):
        nos = [r["name"] for r in rows if r["ours"] == "correct" and r["is_source_valid"] is False]
        print(f"omp cases correct here whose output has no '#pragma omp' (ParEval's is_source_valid False): {len(nos)}")
    dis = [r for r in rows if r["ours"] != r["pareval"]]
    print()
    print(f"disagreements ({len(dis)}; * = correct/not-correct disagreement):")
    for r in dis:
        star = "*" if (r["ours"] == "correct") != (r["pareval"] == "correct") else " "
        print(f" {star} {r['name']}: ours {r['ours']}, ParEval {r['pareval']}")
        print(f"      ParEval: {r['why']}")
        print(f"      ours:    {(r['ours_detail'] or '')[:200]}")
    xdiff = [r for r in rows if r["extract"] == "DIFFERENT"]
    if xdiff:
        print()
        print("cases whose program differs from ParEval's clean_instruct_output extraction:")
        for r in xdiff:
            print(f"   {r['name']} (ours {r['ours']}, ParEval with --extract {args.extract}: {r['pareval']})")
    print(f"\nwall time {time.monotonic() - t_start:.0f} s")
    if args.out:
        json.dump({"journal": args.journal, "suite": args.suite, "extract": args.extract,
                   "threads": threads, "pareval_commit": pe.commit, "rows": rows,
                   "programs": {k: cache[k] for k in programs}}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
