#!/usr/bin/env bash
# The Intel plugin's sub-group kernels for real, on an OpenCL whose device has cl_intel_subgroups
# (PoCL 5.0's CPU device does; PoCL 3.1 does not), behind the spoofed UHD 770 identity:
#   scripts/run-subgroup-tests.sh DIR [OPENCL_LIBRARY] [MODEL]
# DIR is a build directory or a device bundle (scripts/device-bundle.sh ... intel_subgroups_e2e_test
# make_test_model, plus lib/libclport_fakecl_forward.so). OPENCL_LIBRARY (default libpocl.so.2) is
# what the test OpenCL library forwards to; MODEL defaults to DIR/models/SmolLM2-135M-Instruct.Q4_1.gguf.
# Runs: the conformance table with the kernels of each case, a generation with the driver
# self-test forced, and the `subgroups` gtests (conformance + random model + SmolLM2 greedy
# tokens against the CPU path, each requiring intel_gemv_sg_* kernels). Exit status: that of the
# first failing step. Where the device lacks the extension the gtests say so and skip.
set -euo pipefail
dir="$(cd "${1:?build or bundle directory}" && pwd)"
opencl="${2:-libpocl.so.2}"
model="${3:-$dir/models/SmolLM2-135M-Instruct.Q4_1.gguf}"
export LD_LIBRARY_PATH="$dir/deps:$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CLPORT_PLUGIN_PATH="$dir/lib/clport/plugins" CLPORT_TEST_PLUGIN_DIR="$dir/lib/clport/plugins"
export CLPORT_TEST_FAKECL_FORWARD="$dir/lib/libclport_fakecl_forward.so" CLPORT_TEST_MODEL="$model"
export FAKECL_TARGET="$opencl"
export CLPORT_CACHE_DIR="${CLPORT_CACHE_DIR:-$(mktemp -d)}"
identity=(env CLPORT_OPENCL_LIBRARY="$CLPORT_TEST_FAKECL_FORWARD" FAKECL_PRESET=intel-uhd770)

echo "== conformance, intel plugin, UHD 770 identity over $opencl (kernels per case)"
"${identity[@]}" CLPORT_LOG_LEVEL=info "$dir/bin/clport" conformance --plugin intel --kernels --hide-unsupported
echo "== generation with the driver self-test forced"
"${identity[@]}" CLPORT_SELF_TEST=force "$dir/bin/clport" run -m "$model" -p "The capital of France is" -n 16 --temp 0
"${identity[@]}" "$dir/bin/clport" devices | grep -E "device '|intel |self-test"
echo "== subgroups tests"
"$dir/bin/intel_subgroups_e2e_test"
