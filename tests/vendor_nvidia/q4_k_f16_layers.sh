#!/bin/sh
# The f16 GEMM on Q4_K weights read in place, in every form (plain, RMSNorm-fused, residual-fused,
# SwiGLU), under the spoofed identity with nv_gemm_f16 forced on: a random Q4_K model's 130-token
# prompt (one device step) must match the CPU reference layer by layer within 1e-5 (the f16
# operands' rounding gives ~2e-7; a wrong staging gives ~1), and the profile must name the f16
# Q4_K kernels (of whichever tile rows the shape takes).
#   q4_k_f16_layers.sh CLPORT MAKE_TEST_MODEL WORK_DIR
set -eu
clport=$1 make_model=$2 work=$3
mkdir -p "$work"
model="$work/q4_k_f16.gguf" config="$work/q4_k_f16.yaml"
"$make_model" "$model" q4_k embd=256 ff=768 layers=2 heads=4 kv_heads=2 vocab=1000 ctx=512 >/dev/null
printf 'plugins:\n  nvidia:\n    nv_gemm_f16: "on"\n' >"$config"
prompt=$(printf 'The quick brown fox jumps over the lazy dog. %.0s' 1 2)
"$clport" run -m "$model" -p "$prompt" -n 2 --check-layers --check-threshold 1e-5 --wait-for-device \
  --config "$config" --plugin nvidia -b 512
kernels=$("$clport" profile -m "$model" -p "$prompt" -n 2 --config "$config" -b 512)
for k in nv_gemm_half_q4_k nv_gemm_half_swiglu_q4_k; do
  echo "$kernels" | grep -qE "^${k}_m[0-9]+ " || { echo "$kernels"; echo "no $k in the profile"; exit 1; }
done
echo "the f16 Q4_K GEMM's forms match the CPU reference"
