#!/usr/bin/env python3
"""Verify the benchmark suites in benches-data against their reference solutions.

Usage (from the repository root):

    python3 benches-data/verify_references.py              # every suite in benches-data/
    python3 benches-data/verify_references.py PATH ...     # a suite .json file or a directory of suites

A *suite* is a ``<name>.json`` file in the spec §2.1 format. It is verified when a
reference folder ``<dir>/reference/<name>/`` exists next to it (suites without one
are listed as skipped). Standard library only; needs ``python3`` on PATH (override
with the PYTHON environment variable).

Checks per suite
  * JSON parses, has no duplicate keys, ``questions`` is a non-empty list and is
    the last top-level key; every other top-level key is a prompt template whose
    name is a simple identifier ([A-Za-z0-9_-]+) and whose text contains the
    placeholder ``{question}`` exactly once.
  * Every question is an object with a non-empty string ``question`` and
    ``answer``; the answer has no ``\\r`` and no trailing whitespace on any line
    (the runner trims only the ends, so such whitespace would never match).
  * Question id = its ``id`` field (snake_case, unique) or, when absent,
    ``q<N>`` (1-based position) -- the spec example has no ids.
  * ``kind``, when present, is one of algorithm / indentation / bugfix; suites
    listed in MIN_PER_KIND must have every kind, each at least that many times.
  * Reference: ``reference/<name>/<id>.py`` exists for every question and no
    stray ``.py`` file is left there. It is run as ``python3 -I`` (isolated mode,
    empty temporary cwd, stdin closed, 10 s timeout) and must exit 0 with stdout
    that, CRLF-normalised and stripped, equals the stripped answer exactly (the
    same comparison the runner makes, spec §5.3).

Negative checks (questions whose ``kind`` says so) -- the question must really
contain a broken program, otherwise the model could "fix" it by copying it.
We extract the FIRST ```python fenced block of the question text and use it
AS IS; nothing is appended. This is robust because the data convention is that
these blocks are complete programs that already end with the test calls the
question names (so no second copy of the buggy code has to be kept in sync).
  * indentation: compiling the block must raise IndentationError (TabError is
    a subclass), and the reference must equal the block line for line once
    leading/trailing whitespace and blank lines are ignored -- i.e. the fix is
    purely an indentation fix.
  * bugfix: the block must compile (the bug is not a syntax error) and running
    it must either fail (non-zero exit / timeout) or print NON-EMPTY output that
    differs from the answer. Empty output is rejected because it would mean the
    test call is missing from the block.

Output: one line per question (``ok  python-basics/two_sum`` or
``FAIL python-basics/two_sum: ...`` with expected vs actual), then a final count
line. Exit status: 0 all good, 1 any check failed, 2 usage error.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMEOUT_S = 10
KINDS = ("algorithm", "indentation", "bugfix")
MIN_PER_KIND = {"python-basics": 8}
TEMPLATE_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+$")
ID_RE = re.compile(r"^[a-z0-9_]+$")
PY_BLOCK_RE = re.compile(r"```python[ \t]*\n(.*?)```", re.DOTALL)


def python_cmd():
    exe = os.environ.get("PYTHON") or shutil.which("python3") or sys.executable
    return [exe, "-I"]


def norm(text):
    return text.replace("\r\n", "\n").strip()


def run_program(source_path=None, source=None):
    """Run a program in isolated mode; returns (rc, stdout, stderr); rc None = timeout."""
    with tempfile.TemporaryDirectory(prefix="verify-ref-") as tmp:
        if source is not None:
            source_path = Path(tmp) / "prog.py"
            source_path.write_text(source, encoding="utf-8")
        try:
            proc = subprocess.run(
                python_cmd() + [str(Path(source_path).resolve())],
                cwd=tmp,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=TIMEOUT_S,
                env={"PATH": os.environ.get("PATH", ""), "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"},
            )
        except subprocess.TimeoutExpired:
            return None, "", f"timeout after {TIMEOUT_S}s"
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def show(label, text):
    text = text if text else "<empty>"
    return f"\n    {label}:\n" + "\n".join("      | " + line for line in text.split("\n"))


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else "<no stderr>"


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dups = sorted({k for k in keys if keys.count(k) > 1})
    if dups:
        raise ValueError(f"duplicate JSON keys: {', '.join(dups)}")
    return dict(pairs)


def check_suite_shape(name, doc):
    """Suite-level checks; returns a list of error strings."""
    errors = []
    if not isinstance(doc, dict):
        return ["top level is not a JSON object"]
    keys = list(doc)
    if "questions" not in doc:
        return ["missing 'questions'"]
    if keys[-1] != "questions":
        errors.append("'questions' must be the last top-level key (templates first)")
    # `settings` (an object) is the suite format's own key, not a template.
    if "settings" in doc and not isinstance(doc["settings"], dict):
        errors.append("'settings' is not a JSON object")
    templates = [k for k in keys if k not in ("questions", "settings")]
    if not templates:
        errors.append("no prompt templates")
    for key in templates:
        value = doc[key]
        if not TEMPLATE_KEY_RE.match(key):
            errors.append(f"template name {key!r} is not a simple identifier")
        if not isinstance(value, str):
            errors.append(f"template {key!r} is not a string")
        elif value.count("{question}") != 1:
            errors.append(f"template {key!r} contains '{{question}}' {value.count('{question}')} times, expected 1")
    questions = doc["questions"]
    if not isinstance(questions, list) or not questions:
        errors.append("'questions' is not a non-empty list")
        return errors
    seen = set()
    counts = {k: 0 for k in KINDS}
    for n, q in enumerate(questions, 1):
        where = f"question #{n}"
        if not isinstance(q, dict):
            errors.append(f"{where} is not an object")
            continue
        qid = q.get("id", f"q{n}")
        if not isinstance(qid, str) or not ID_RE.match(qid):
            errors.append(f"{where}: id {qid!r} is not snake_case")
        if qid in seen:
            errors.append(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        for field in ("question", "answer"):
            if not isinstance(q.get(field), str) or not q[field].strip():
                errors.append(f"{where} ({qid}): '{field}' missing or empty")
        ans = q.get("answer")
        if isinstance(ans, str):
            if "\r" in ans:
                errors.append(f"{where} ({qid}): answer contains \\r")
            if any(line != line.rstrip() for line in ans.split("\n")):
                errors.append(f"{where} ({qid}): answer has trailing whitespace on a line")
        if "kind" in q:
            if q["kind"] not in KINDS:
                errors.append(f"{where} ({qid}): kind {q['kind']!r} not in {KINDS}")
            else:
                counts[q["kind"]] += 1
    minimum = MIN_PER_KIND.get(name)
    if minimum is not None:
        for kind, c in counts.items():
            if c < minimum:
                errors.append(f"kind {kind!r} has {c} questions, need >= {minimum}")
    return errors


def check_question(suite, ref_dir, n, q):
    """Returns (label, list of error strings)."""
    qid = q.get("id", f"q{n}")
    label = f"{suite}/{qid}"
    errors = []
    answer = q.get("answer") if isinstance(q.get("answer"), str) else ""
    expected = norm(answer)
    ref = ref_dir / f"{qid}.py"
    if not ref.is_file():
        return label, [f"missing reference file {ref}"]

    rc, out, err = run_program(source_path=ref)
    if rc is None:
        errors.append(f"reference timed out after {TIMEOUT_S}s")
    elif rc != 0:
        errors.append(f"reference exited with {rc}: {last_line(err)}")
    elif norm(out) != expected:
        errors.append("reference output differs" + show("expected", expected) + show("actual", norm(out)))

    kind = q.get("kind")
    if kind in ("indentation", "bugfix"):
        m = PY_BLOCK_RE.search(q.get("question", ""))
        if not m:
            errors.append(f"{kind} question has no ```python block")
            return label, errors
        block = m.group(1)
        compile_error = None
        try:
            compile(block, f"<{qid} question block>", "exec")
        except SyntaxError as e:  # IndentationError and TabError are subclasses
            compile_error = e
        if kind == "indentation":
            if not isinstance(compile_error, IndentationError):
                errors.append(f"question block should raise IndentationError, got {compile_error!r}")
            stripped = lambda text: [l.strip() for l in text.splitlines() if l.strip()]
            if stripped(block) != stripped(ref.read_text(encoding="utf-8")):
                errors.append("reference differs from the question block beyond indentation")
        else:
            if compile_error is not None:
                errors.append(f"bugfix question block does not compile: {compile_error!r}")
            else:
                brc, bout, berr = run_program(source=block)
                if brc == 0 and not norm(bout):
                    errors.append("buggy block prints nothing (is the test call missing?)")
                elif brc == 0 and norm(bout) == expected:
                    errors.append("buggy block already prints the expected answer" + show("output", norm(bout)))
    return label, errors


def find_suites(args, default_dir):
    targets = [Path(a) for a in args] or [default_dir]
    suites = []
    for t in targets:
        if t.is_dir():
            suites.extend(sorted(t.glob("*.json")))
        elif t.is_file() and t.suffix == ".json":
            suites.append(t)
        else:
            print(f"error: {t} is not a suite .json file or a directory", file=sys.stderr)
            sys.exit(2)
    return suites


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    suites = find_suites(argv, Path(__file__).resolve().parent)
    if not suites:
        print("error: no suite .json files found", file=sys.stderr)
        return 2
    passed = failed = checked_suites = 0
    for path in suites:
        name = path.stem
        ref_dir = path.parent / "reference" / name
        if not ref_dir.is_dir():
            print(f"skip {name}: no reference folder {ref_dir}")
            continue
        checked_suites += 1
        try:
            doc = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)
        except (ValueError, OSError) as e:
            print(f"FAIL {name}: cannot load {path}: {e}")
            failed += 1
            continue
        shape_errors = check_suite_shape(name, doc)
        for e in shape_errors:
            print(f"FAIL {name}: {e}")
        failed += len(shape_errors)
        questions = doc.get("questions") if isinstance(doc, dict) else None
        if not isinstance(questions, list):
            continue
        questions = [(n, q) for n, q in enumerate(questions, 1) if isinstance(q, dict)]
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
            results = list(pool.map(lambda nq: check_question(name, ref_dir, *nq), questions))
        for label, errors in results:
            if errors:
                failed += 1
                for e in errors:
                    print(f"FAIL {label}: {e}")
            else:
                passed += 1
                print(f"ok  {label}")
        expected_files = {f"{q.get('id', f'q{n}')}.py" for n, q in questions}
        for stray in sorted(p.name for p in ref_dir.glob("*.py") if p.name not in expected_files):
            print(f"FAIL {name}: stray reference file {ref_dir / stray} matches no question")
            failed += 1
    print(f"{passed} ok, {failed} failed ({checked_suites} suites checked)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
