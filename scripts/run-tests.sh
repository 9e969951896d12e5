#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: install dependencies, build, run ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${CLPORT_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${CLPORT_TEST_JOBS:-2}" --timeout 600 "$@"
