// promptfoo assertion for the peer bench: judges a reply as prompteval does.
//
// 1. Reasoning removed (src/backend/mod.rs `strip_reasoning`).
// 2. Code extracted (src/execute/extract.rs): ```python blocks (py, python3, any
//    case) joined in order, else untagged ``` blocks, else the whole reply;
//    an unterminated fence runs to the end; CRLF normalised.
// 3. Run with the configured interpreter, resolved once to its real
//    executable (a pyenv shim costs ~100 ms per start, and prompteval
//    resolves it too), `-s -B -P`, in a fresh temporary folder, with the
//    environment prompteval's sandbox gives a program, stdin closed, killed
//    with its process group after `timeout_secs` (10 s).
// 4. Verdict (src/judge.rs): timeout, syntax_error, runtime_error, then
//    trimmed stdout (CRLF -> LF) equal to the trimmed answer, else
//    wrong_answer. The reason starts with the verdict so the bench can
//    compare verdicts with prompteval's.
//
// Not reproduced: prompteval's isolation (namespaces, landlock, rlimits,
// pids cgroup, output cap). The programs here are the model's answers to
// three small questions; none needs it to finish.
//
// promptfoo config: {type: javascript, value: file://assert_program.cjs,
//                    config: {python: "python3", timeout_secs: 10}}

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function stripReasoning(content) {
  let stripped = content.replace(/<think>[\s\S]*?<\/think>/g, '');
  const open = stripped.indexOf('<think>');
  if (open >= 0 && stripped.slice(0, open).trim() === '') stripped = '';
  return stripped.replace(/^\s+/, '');
}

function findClose(text, from, fence) {
  const ch = fence[0];
  let lineStart = from;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd).trim();
    if (line.length >= fence.length && [...line].every((c) => c === ch)) {
      return [lineStart, lineEnd];
    }
    if (lineEnd >= text.length) break;
    lineStart = lineEnd + 1;
  }
  return null;
}

function blocks(text) {
  const open = /^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$/gm;
  const out = [];
  let pos = 0;
  for (;;) {
    open.lastIndex = pos;
    const m = open.exec(text);
    if (!m) break;
    const fence = m[1];
    const lang = m[2].trim();
    const bodyStart = Math.min(m.index + m[0].length + 1, text.length);
    const close = findClose(text, bodyStart, fence);
    const [bodyEnd, next] = close || [text.length, text.length];
    out.push({ lang, body: text.slice(bodyStart, Math.max(bodyEnd, bodyStart)) });
    if (next <= pos) break;
    pos = next;
  }
  return out;
}

function isPython(lang) {
  const first = (lang.split(/\s+/)[0] || '').toLowerCase();
  return ['python', 'py', 'python3', 'py3', '{.python}'].includes(first);
}

function extract(reply) {
  const text = reply.replace(/\r\n/g, '\n');
  const all = blocks(text);
  const join = (bs) => bs.map((b) => b.body.replace(/\n+$/, '')).join('\n\n') + '\n';
  const python = all.filter((b) => isPython(b.lang));
  if (python.length > 0) return join(python);
  const plain = all.filter((b) => b.lang === '');
  if (plain.length > 0) return join(plain);
  return text.trim() + '\n';
}

const interpreters = new Map();

/** The real executable behind `python` and whether it knows -P (3.11+). */
function interpreter(python) {
  if (!interpreters.has(python)) {
    const out = execFileSync(
      python,
      ['-c', 'import sys; print(sys.executable); print(int(sys.version_info >= (3, 11)))'],
      { encoding: 'utf8' },
    ).split('\n');
    interpreters.set(python, { executable: out[0].trim(), isolatedPath: out[1].trim() === '1' });
  }
  return interpreters.get(python);
}

function runProgram(code, python, timeoutSecs) {
  const { executable, isolatedPath } = interpreter(python);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-case-'));
  fs.writeFileSync(path.join(folder, 'main.py'), code);
  const args = ['-s', '-B', ...(isolatedPath ? ['-P'] : []), 'main.py'];
  return new Promise((resolve) => {
    const child = spawn(executable, args, {
      cwd: folder,
      detached: true, // own process group, killed whole on timeout
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: folder,
        TMPDIR: folder,
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        PYTHONIOENCODING: 'utf-8',
        PYTHONHASHSEED: '0',
        PYTHONDONTWRITEBYTECODE: '1',
      },
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (d) => stdout.push(d));
    child.stderr.on('data', (d) => stderr.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutSecs * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid, 'SIGKILL'); // whatever it left behind
      } catch {}
      fs.rmSync(folder, { recursive: true, force: true });
      resolve({
        code,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

const normalise = (text) => text.replace(/\r\n/g, '\n').trim();

function lastLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.length ? lines[lines.length - 1] : null;
}

function verdict(run, expected) {
  const actual = normalise(run.stdout);
  if (run.timedOut) return ['timeout', 'killed after the time limit'];
  const last = lastLine(run.stderr);
  if (
    !run.stderr.includes('Traceback (most recent call last):') &&
    last &&
    ['SyntaxError', 'IndentationError', 'TabError'].some((k) => last.startsWith(k))
  ) {
    return ['syntax_error', last];
  }
  if (run.signal) return ['runtime_error', `killed by ${run.signal}`];
  if (run.code !== 0) return ['runtime_error', last || `exit status ${run.code}`];
  if (actual === normalise(expected)) return ['correct', ''];
  return ['wrong_answer', `expected ${JSON.stringify(normalise(expected))}, got ${JSON.stringify(actual)}`];
}

module.exports = async (output, context) => {
  const config = context.config || {};
  const code = extract(stripReasoning(String(output)));
  const run = await runProgram(code, config.python || 'python3', config.timeout_secs || 10);
  const [kind, detail] = verdict(run, String(context.vars.answer));
  const pass = kind === 'correct';
  return { pass, score: pass ? 1 : 0, reason: detail ? `${kind}: ${detail}` : kind };
};

module.exports.extract = extract;
