#!/usr/bin/env bash
# clport serve against llama.cpp's llama-server in the same run, on this machine's CPU: the same
# model, slots and load (scripts/lib/serve_load.py: CLIENTS clients, each REQUESTS streamed
# completions of PROMPT_TOKENS prompt tokens and GEN_TOKENS generated ones). Prints each server's
# line and the ratios (clport / llama-server: tokens per second, time to first token).
#   scripts/bench-serve.sh MODEL [clport serve flags...]     e.g. --device cpu
# LLAMA_BIN: the folder holding llama-server (default: ../shared/anchors/llama-tools.sh builds it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
model="${1:?usage: scripts/bench-serve.sh MODEL [clport serve flags...]}"
shift
clients="${CLIENTS:-8}" requests="${REQUESTS:-4}" prompt="${PROMPT_TOKENS:-128}" gen="${GEN_TOKENS:-64}"
threads="${THREADS:-$(nproc)}"
clport="${CLPORT:-$root/build/bin/clport}"
llama_bin="${LLAMA_BIN:-$("$root/../shared/anchors/llama-tools.sh")}"
per_slot=$(( (prompt + gen + 64 + 255) / 256 * 256 ))
load=(python3 "$root/scripts/lib/serve_load.py" --clients "$clients" --requests "$requests"
      --prompt-tokens "$prompt" --gen-tokens "$gen")
log="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$log"' EXIT

wait_ready() {  # URL
  for _ in $(seq 1 600); do
    curl -sf "$1/health" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "server at $1 did not become ready" >&2
  return 1
}

port=$((20000 + RANDOM % 20000))
"$llama_bin/llama-server" -m "$model" -c $((per_slot * clients)) -np "$clients" -t "$threads" \
  --host 127.0.0.1 --port "$port" >"$log/llama.log" 2>&1 &
pid=$!
wait_ready "http://127.0.0.1:$port"
llama_line="$("${load[@]}" "http://127.0.0.1:$port" "$(basename "$model")")"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

port=$((port + 1))
"$clport" serve -m "$model" -c "$per_slot" --parallel "$clients" -t "$threads" --quiet \
  --host 127.0.0.1 --port "$port" "$@" >"$log/clport.log" 2>&1 &
pid=$!
wait_ready "http://127.0.0.1:$port"
clport_line="$("${load[@]}" "http://127.0.0.1:$port" "$(basename "$model" .gguf)")"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

echo "llama-server: $llama_line"
echo "clport serve: $clport_line"
python3 - "$llama_line" "$clport_line" <<'PY'
import json, sys
l, c = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("ratio clport/llama-server: tokens per second %.2fx, time to first token p50 %.2fx (lower is better)" %
      (c["tokens_per_s"] / l["tokens_per_s"], c["ttft_p50_s"] / l["ttft_p50_s"]))
PY
