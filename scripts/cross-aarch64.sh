#!/usr/bin/env bash
# The aarch64 cross build and its tests under qemu-user, as .ci/run runs them (README, "aarch64
# and Android"): installs the cross dependencies (scripts/install-deps-aarch64.sh), configures
# build-aarch64/ (or $CLPORT_AARCH64_BUILD_DIR) with cmake/toolchains/aarch64-linux-gnu.cmake,
# builds only the test binaries below (no plugin, no CLI, no benchmark) and runs them under
# qemu-aarch64. CLPORT_SKIP_INSTALL=1 skips the apt step.
#
# The subset: every test binary of these areas whose cases need no OpenCL device (qemu has none):
#   unit        chat templates, policy, device classification, plugin loader (fake plugins),
#               perplexity chunking
#   tokenizer   all of it, the llama.cpp vocabulary sets included
#   GGUF        reader, writer, malformed files, the fuzz corpus, requantization
#   CPU path    the reference ops, the quantization formats, the fast CPU backend against the
#               reference (every op, every weight dtype, the mat-muls on every SIMD target)
#   conformance random-weight models of every architecture, fast CPU backend against the
#               reference, plus the e2e cases that need no device (context limits, chat stops)
# Left out: everything that needs an OpenCL device, a plugin, the CLI or the real model.
#
# Everything runs on a CPU like an ARMv9 phone core (QEMU_CPU=max with 128-bit SVE vectors: the
# mat-mul kernels on NEON, the other float kernels on SVE2_128); the fast CPU backend's tests run
# again on a NEON-only core (cortex-a76, as ARMv8.2 phones) and with 512-bit SVE2 (qemu's `max`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CLPORT_AARCH64_BUILD_DIR:-$root/build-aarch64}"
jobs="${CLPORT_JOBS:-$(nproc)}"
timings=()
phase_start=$SECONDS
phase_done() {
  timings+=("$1 $((SECONDS - phase_start)) s")
  phase_start=$SECONDS
}

if [ "${CLPORT_SKIP_INSTALL:-0}" != 1 ]; then
  "$root/scripts/install-deps-aarch64.sh"
fi
phase_done install

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# -O1 without debug information, warnings are errors. -O1, not build.sh's -O2: a third less
# compile time, and what this step looks for (type sizes, char signedness, alignment, the NEON /
# SVE code paths) does not depend on it; the native run tests the -O2 code generation.
# Plugins: generic only (test directories name its target), and it is not built; nor is the CLI
# (configured: test directories name it too).
cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCLPORT_WERROR=ON \
  -DCLPORT_PLUGINS=generic >/dev/null
phase_done configure

binaries=(chat_tests policy_test device_classifier_test plugin_manager_test perplexity_chunks_test
          tokenizer_tests gguf_tests gguf_corpus_tests clport_cpu_ops_tests clport_quant_tests
          clport_cpu_backend_tests e2e_tests)
cmake --build "$build" -j "$jobs" --target "${binaries[@]}"
phase_done build

# Each binary runs once per CPU model, all its cases in one process (ctest would start qemu once
# per case, which doubles the time; `ctest --test-dir build-aarch64/tests/<dir>` works too).
# Entries: QEMU_CPU, binary, GoogleTest filter; the longest first, $jobs at a time.
phone=max,sve-default-vector-length=16
runs=("$phone e2e_tests -*DeviceVsCpu*:HalfScales.*:MemoryAccounting.OnTheDevice*"  # the cases that need no OpenCL device
      "cortex-a76 e2e_tests *FastCpu*"
      "$phone clport_cpu_backend_tests *"
      "cortex-a76 clport_cpu_backend_tests *"
      "max clport_cpu_backend_tests *")
for b in "${binaries[@]}"; do
  case "$b" in e2e_tests | clport_cpu_backend_tests) ;; *) runs+=("$phone $b *") ;; esac
done
logs="$build/qemu-logs"
rm -rf "$logs"
mkdir -p "$logs"
run_one() {  # run_one <index>: output and exit code in $logs/<index>[.rc]
  local cpu bin filter
  read -r cpu bin filter <<<"${runs[$1]}"
  local rc=0
  QEMU_CPU="$cpu" timeout 600 qemu-aarch64 "$build/bin/$bin" --gtest_filter="$filter" \
    >"$logs/$1" 2>&1 || rc=$?
  echo "$rc" >"$logs/$1.rc"
}
running=0
for i in "${!runs[@]}"; do
  run_one "$i" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=0
cases=0
for i in "${!runs[@]}"; do
  read -r cpu bin filter <<<"${runs[$i]}"
  log="$logs/$i"
  what="QEMU_CPU=$cpu $bin$([ "$filter" = '*' ] || echo " ($filter)")"
  n="$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$log")"
  simd="$(grep -o 'SIMD targets: .*' "$log" || true)"
  if [ "$(cat "$log.rc")" = 0 ] && [ "${n:-0}" -gt 0 ]; then
    cases=$((cases + n))
    echo "  $what: $n passed${simd:+; $simd}"
  else
    failed=1
    echo "  $what: FAILED (exit $(cat "$log.rc"), ${n:-0} passed), its output:"
    sed 's/^/    /' "$log"
  fi
done
phase_done test

echo "aarch64 under qemu: $cases test cases passed$([ $failed = 0 ] || echo ', FAILURES above')"
echo "aarch64 step: ${timings[*]}"
exit $failed
