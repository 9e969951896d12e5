#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang with AddressSanitizer + UBSan) into build-fuzz/
# (or $CLPORT_FUZZ_BUILD_DIR) and runs each for $CLPORT_FUZZ_SECONDS (default 30) from its
# committed seed corpus, $CLPORT_FUZZ_JOBS (default: the cores) at a time. New inputs go to a
# scratch folder, never into tests/fuzz. A crash or failed check fails the run and leaves the
# input in build-fuzz/fuzz-runs/<target>/crash-*: fix the code, then commit the input to
# tests/fuzz/<target>/ so that the ctest replay (fuzz_replay.<target>) keeps it fixed.
# $CLPORT_FUZZ_SEED (default: a new one each run) fixes libFuzzer's random seed: CI sets it, so
# that its run repeats (a prefix of, on a slower machine) a sequence of inputs that passed here
# rather than failing on whatever new input a random seed turns up that day.
#   scripts/fuzz.sh [target ...]    targets: the names below (default: all)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CLPORT_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${CLPORT_FUZZ_SECONDS:-30}"
jobs="${CLPORT_FUZZ_JOBS:-$(nproc)}"
seed=()
[ -n "${CLPORT_FUZZ_SEED:-}" ] && seed=(-seed="$CLPORT_FUZZ_SEED")
all_targets=(gguf_reader tokenizer_bpe tokenizer_spm chat_template policy_yaml program_cache_entry tuning_file
             capi_text serve_request)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Release -DCLPORT_FUZZ=ON -DCLPORT_WERROR=ON >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf '%s_fuzzer ' "${targets[@]}")

# One target: its log in fuzz-runs/<target>/log; prints libFuzzer's last status line (runs, cov:,
# ft:, corpus size) or, on failure, the end of the log.
run_target() {
  local target="$1" corpus="$root/tests/fuzz/$1" work="$build/fuzz-runs/$1"
  [ "$target" = gguf_reader ] && corpus="$root/tests/fuzz/corpus"
  rm -rf "$work"
  mkdir -p "$work/new"
  local rc=0
  "$build/bin/${target}_fuzzer" -max_total_time="$seconds" "${seed[@]}" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/new" "$corpus" >"$work/log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL ${target}_fuzzer (exit $rc); input and log in $work:"
    tail -n 60 "$work/log"
    return 1
  fi
  echo "ok   ${target}_fuzzer: $(grep -E '^#[0-9]+' "$work/log" | tail -n 1)"
}

failed=0
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
