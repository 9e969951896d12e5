#!/usr/bin/env bash
# llama.cpp's CUDA build, for same-card comparisons on the lent GPU (its machine reaches no
# network and has no package registry, so it is built here and carried there).
#   measurements/llama_cuda.sh build OUT.tar.xz
#     Here: llama-cpp-python 0.3.36's vendored llama.cpp (the release the anchors use) from PyPI's
#     source archive, CUDA for sm_90 only (nvcc of /usr/local/cuda; about 35 minutes on 2 cores),
#     llama-bench and llama-batched-bench with their libraries, stripped and packed (~42 MB).
#     No libcuda.so.1 here: the executables link with the driver API left unresolved.
#   measurements/llama_cuda.sh run TARBALL MODEL OUTDIR
#     There: the anchors README's commands on MODEL (an 8B-shape file with a context of 32768):
#     llama-bench -p 512 -n 128; -p 4096,16384 -n 0; -p 0 -n 64 -d 4096,16384; llama-batched-bench
#     -npp 512 -ntg 128 -npl 1,4,16,64. Tables to OUTDIR and stdout.
#   measurements/llama_cuda.sh short TARBALL MODEL OUTDIR [GEN]
#     There: llama-bench -p 512 -n GEN (default 64) once, the rows a file too large for the full
#     set takes (the 70B shape's prompt and generation).
set -euo pipefail
case "${1:-}" in
build)
  out="$(realpath "$2")"
  work="${LLAMA_CUDA_WORK:-/tmp/llama-cuda}"
  mkdir -p "$work"
  cd "$work"
  [ -f llama_cpp_python-0.3.36.tar.gz ] ||
    python3 -m pip download llama-cpp-python==0.3.36 --no-binary :all: --no-deps -d . >/dev/null
  [ -d llama_cpp_python-0.3.36 ] || tar xzf llama_cpp_python-0.3.36.tar.gz
  export PATH=/usr/local/cuda/bin:$PATH
  cmake -S llama_cpp_python-0.3.36/vendor/llama.cpp -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined >/dev/null
  ninja -C build llama-bench llama-batched-bench
  rm -rf pack && mkdir pack
  cp -a build/bin/*.so* build/bin/llama-bench build/bin/llama-batched-bench pack/
  strip --strip-unneeded pack/*.so.* pack/llama-bench pack/llama-batched-bench
  tar cf - -C pack . | xz -T0 -6 >"$out"
  ls -la "$out"
  ;;
run | short)
  tarball="$2" model="$3" out="$4"
  bin=/tmp/llama-cuda-bin
  mkdir -p "$bin" "$out"
  [ -x "$bin/llama-bench" ] || tar xJf "$tarball" -C "$bin"
  # NCCL comes with the image's PyTorch where the CUDA folders lack it.
  nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) + '/lib')" 2>/dev/null || true)
  export LD_LIBRARY_PATH="$bin:/usr/local/cuda/lib64:/usr/local/cuda/lib${nccl:+:$nccl}"
  if [ "$1" = short ]; then
    "$bin/llama-bench" -m "$model" -ngl 99 -p 512 -n "${5:-64}" -r 1 -o md | tee "$out/llama_short.md"
    exit 0
  fi
  "$bin/llama-bench" -m "$model" -ngl 99 -p 512 -n 128 -r 3 -o md | tee "$out/llama_pp512.md"
  "$bin/llama-bench" -m "$model" -ngl 99 -p 4096,16384 -n 0 -r 2 -o md | tee "$out/llama_long.md"
  "$bin/llama-bench" -m "$model" -ngl 99 -p 0 -n 64 -d 4096,16384 -r 2 -o md | tee "$out/llama_depth.md"
  "$bin/llama-batched-bench" -m "$model" -ngl 99 -c 40960 -npp 512 -ntg 128 -npl 1,4,16,64 2>&1 |
    tee "$out/llama_batched.log" | grep -E '^\|'
  ;;
*)
  echo "usage: $0 build OUT.tar.xz | run TARBALL MODEL OUTDIR | short TARBALL MODEL OUTDIR [GEN]" >&2
  exit 2
  ;;
esac
