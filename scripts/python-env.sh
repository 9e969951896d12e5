#!/usr/bin/env bash
# A Python virtual environment holding the clients `clport serve` is tested with (the official
# `openai` package, pinned in tests/serve/requirements.txt), from PyPI. Reused when it already holds
# them. Usage: scripts/python-env.sh DIR   (prints the environment's python)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: scripts/python-env.sh DIR}"
requirements="$root/tests/serve/requirements.txt"
stamp="$dir/.requirements"
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  echo "$dir/bin/python"
  exit 0
fi
rm -rf "$dir"
python3 -m venv "$dir"
"$dir/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "$dir/bin/python"
