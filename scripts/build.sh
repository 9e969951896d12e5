#!/usr/bin/env bash
# Configures and builds clport (all plugins, tests) into build/ (or $CLPORT_BUILD_DIR).
# Extra arguments go to the CMake configure step, e.g. scripts/build.sh -DCLPORT_SANITIZE=ON.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CLPORT_BUILD_DIR:-$root/build}"
jobs="${CLPORT_JOBS:-$(nproc)}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLPORT_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j "$jobs"
