#!/usr/bin/env bash
# Generation of one sequence against four at once, same run, interleaved rounds: clport on the
# CPU path and on the best OpenCL device (PoCL here), and llama-batched-bench from
# ../shared/anchors/llama-tools.sh when its folder is given. SmolLM2 by default, 64 + 64 tokens.
# Usage: measurements/several_sequences_cpu.sh [ROUNDS] [LLAMA_BIN_DIR]
#   MODEL=path/to.gguf to measure another file. Prints one line per run.
set -uo pipefail
rounds="${1:-4}"
llama_bin="${2:-}"
model="${MODEL:-build/models/SmolLM2-135M-Instruct.Q4_1.gguf}"
gen_rate() {  # aggregate generation tok/s of `clport bench e2e`
  build/bin/clport bench e2e -m "$model" --prompt-tokens 64 --gen-tokens 64 --no-reference "$@" 2>&1 |
    grep -o "gen *[0-9.]* tok/s" | grep -o "[0-9.]*" | head -1
}
for r in $(seq "$rounds"); do
  for n in 1 4; do
    echo "round $r cpu-path N=$n gen $(gen_rate --parallel "$n" --device cpu)"
    echo "round $r opencl N=$n gen $(gen_rate --parallel "$n")"
  done
  if [ -n "$llama_bin" ]; then
    "$llama_bin/llama-batched-bench" -m "$model" -c 2048 -npp 64 -ntg 64 -npl 1,4 -t "$(nproc)" 2>/dev/null |
      grep -E '^\|    64' | awk -F'|' -v r="$r" '{gsub(/ /, "", $4); gsub(/ /, "", $9); print "round " r " llama-batched-bench N=" $4 " gen " $9}'
  fi
done
