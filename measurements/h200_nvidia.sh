#!/usr/bin/env bash
# The nvidia plugin on the lent H200 (run there, from the repository root, over a bundle made
# here by scripts/device-bundle.sh build .dev/bundle make_test_model):
#   measurements/h200_nvidia.sh .dev/bundle OUTDIR STEP...
# Steps: devices, conformance, ops (GEMV, nvidia against generic), gemm (prompt-sized mat-muls,
# nvidia against generic), sweep (the nvidia GEMV's
# work-group shapes), e2e (bench e2e 512 / 128 on random models of the anchor shapes, nvidia
# against generic), e2e8b (the same on the 8B shape), layertiming (the one-launch layer's time per
# phase, CLPORT_NV_LAYER_TIMING, on each shape), rows (the rows the open speed issues are judged
# on: 8B Q4_0 at 512 / 128, prompts and generation depths of 4096 and 16384, 4 / 16 / 64
# sequences at 512 + 128, 8B Q8_0's prompt; set against the anchors README's llama.cpp numbers),
# rows70b (the 70B shape, 36 GiB written first: 512 / 64 with the one-launch layer and op by op;
# on a card without anchors, llama_cuda.sh short on the same file gives llama.cpp's rows),
# hostshare (clport profile's decode host share), decodeab (the several sequences' decode
# levers that are off by default, in one call: GPU conformance of the tensor-core cells attention
# and of the split GEMM ring's longer steps (plain and SwiGLU kernels), then 64 / 16 / 4 sequences
# with each and with both, the kernel table at 64), decodedefaults (the several sequences' defaults
# against the ones before them, interleaved), longprofile (the kernels of a 15754-token
# prompt on the 8B shape, the split between the GEMMs and the attention),
# real (a real model file at $REAL_MODEL: the
# greedy test against the CPU reference when the bundle has real_model_tests, generated text,
# --check-layers, bench e2e; the machine reaches no network, so the file is carried there, in
# parts when it exceeds what one call may carry). Logs go to OUTDIR, a summary to stdout.
set -uo pipefail
bundle="$(cd "$1" && pwd)"
out="$2"
shift 2
mkdir -p "$out"
export CLPORT_OPENCL_LIBRARY=/usr/lib/libnvidia-opencl.so.1
export CLPORT_CACHE_DIR="${CLPORT_CACHE_DIR:-/tmp/clport-cache}"
clport() { "$bundle/clport.sh" "$@"; }
make_model() { LD_LIBRARY_PATH="$bundle/deps" "$bundle/bin/make_test_model" "$@" >/dev/null; }
models=/tmp/clport-models
mkdir -p "$models"

shape_args() {  # the anchor shapes (anchors README), vocabulary of 49152 tokens, tied embeddings
  case "$1" in
    smol) echo "q4_1 embd=576 ff=1536 layers=30 heads=9 kv_heads=3 vocab=49152 ctx=2048 tied=1 threads=8" ;;
    1b) echo "q4_0 embd=2048 ff=8192 layers=16 heads=32 kv_heads=8 vocab=49152 ctx=2048 tied=1 threads=8" ;;
    8b) echo "q4_0 embd=4096 ff=14336 layers=32 heads=32 kv_heads=8 vocab=49152 ctx=2048 tied=1 threads=8" ;;
    8b-long) echo "q4_0 embd=4096 ff=14336 layers=32 heads=32 kv_heads=8 vocab=49152 ctx=16896 tied=1 threads=14" ;;
    8b-q8) echo "q8_0 embd=4096 ff=14336 layers=32 heads=32 kv_heads=8 vocab=49152 ctx=2048 tied=1 threads=14" ;;
    70b) echo "q4_0 embd=8192 ff=28672 layers=80 heads=64 kv_heads=8 vocab=49152 ctx=2048 tied=1 threads=14" ;;
  esac
}

e2e() {  # e2e MODEL_NAME...
  for name in "$@"; do
    if [ ! -f "$models/$name.gguf" ]; then
      local t0=$SECONDS
      make_model "$models/$name.gguf" $(shape_args "$name") || { echo "e2e $name: model not written"; continue; }
      echo "e2e $name: model written in $((SECONDS - t0)) s"
    fi
    for plugin in ${E2E_ROUNDS:-nvidia generic nvidia}; do
      clport bench e2e -m "$models/$name.gguf" --prompt-tokens 512 --gen-tokens 128 --no-reference \
        --plugin "$plugin" >"$out/e2e-$name-$plugin.log" 2>&1
      echo "e2e $name $plugin: $(grep -iE 'prompt|generation' "$out/e2e-$name-$plugin.log" | tr '\n' ' ' | cut -c1-200)"
    done
  done
}

# One `bench e2e` of the nvidia plugin on model NAME (written first if missing), its measured
# line; ARGS as bench e2e takes them.
row() {
  local name=$1 label=$2
  shift 2
  if [ ! -f "$models/$name.gguf" ]; then
    make_model "$models/$name.gguf" $(shape_args "$name") || { echo "$label: model not written"; return; }
  fi
  timeout 300 "$bundle/clport.sh" bench e2e -m "$models/$name.gguf" --no-reference --plugin nvidia "$@" \
    >"$out/row-$label.log" 2>&1
  echo "$label (rc $?): $(grep -E '^measured' "$out/row-$label.log" | sed -E 's/ +/ /g' | cut -c1-160)"
}

for step in "$@"; do
  case "$step" in
    devices)
      CLPORT_LOG_LEVEL=info clport devices >"$out/devices.log" 2>&1
      grep -iE "device '|nvidia|ptx|self-test" "$out/devices.log" | head -12 ;;
    conformance)
      CLPORT_LOG_LEVEL=info clport conformance --plugin nvidia --kernels >"$out/conformance.log" 2>&1
      grep -E "passed,|FAIL|fail " "$out/conformance.log" | head -20
      grep -c "nv_gemv" "$out/conformance.log" ;;
    ops)
      for plugin in nvidia generic; do
        clport bench ops --plugin "$plugin" --gemv-only --no-clblast --no-program-cache --dtype q4_0 --dtype q4_1 \
          --dtype q8_0 --shape 576x1536 --shape 4096x4096 --shape 4096x14336 --shape 14336x4096 \
          --json "$out/ops-$plugin.json" >"$out/ops-$plugin.log" 2>&1
        echo "== ops $plugin"; grep -E "^copy|^gemv" "$out/ops-$plugin.log"
      done ;;
    gemm)  # GEMM_M activation rows (default 512)
      for plugin in nvidia generic; do
        clport bench ops --plugin "$plugin" --gemm-only --m "${GEMM_M:-512}" --no-clblast --no-program-cache \
          --dtype q4_0 --dtype q4_1 --dtype q8_0 --shape 576x1536 --shape 2048x2048 --shape 2048x8192 --shape 8192x2048 \
          --shape 4096x4096 --shape 4096x14336 --shape 14336x4096 --json "$out/gemm-$plugin.json" >"$out/gemm-$plugin.log" 2>&1
        echo "== gemm $plugin"; grep -E "^gemm" "$out/gemm-$plugin.log" | sed -E 's/ +/ /g' | cut -c1-150
      done ;;
    sweep)  # SWEEP="wg:rows_per_warp:groups_per_cu[:blocks_per_trip] ..." (default below)
      for cfg in ${SWEEP:-256:2:4 256:4:4 256:2:2 256:2:8 128:2:8 512:2:2 256:1:4}; do
        IFS=: read -r wg rpw gpc bpt <<<"$cfg"
        bpt=${bpt:-2}
        printf 'plugins:\n  nvidia:\n    nv_gemv_wg: %s\n    nv_gemv_rows_per_warp: %s\n    nv_gemv_groups_per_cu: %s\n    nv_gemv_blocks_per_trip: %s\n' \
          $wg $rpw $gpc $bpt >"$out/sweep.yaml"
        clport bench ops --plugin nvidia --config "$out/sweep.yaml" --gemv-only --no-clblast --no-program-cache \
          --dtype q4_0 --dtype q8_0 ${SWEEP_SHAPES:---shape 576x1536 --shape 4096x4096 --shape 4096x14336 --shape 14336x4096} \
          >"$out/sweep-$wg-$rpw-$gpc-$bpt.log" 2>&1
        echo "== wg $wg rows/warp $rpw groups/CU $gpc blocks/trip $bpt"
        grep -E "^gemv" "$out/sweep-$wg-$rpw-$gpc-$bpt.log" | sed -E 's/ +/ /g; s/nvidia \(prepared layout\) //; s/\(same-size.*//' | cut -d' ' -f2-4,6,9-
      done ;;
    ptx)  # the compiled GEMV program (PTX text) from the program cache
      f=$(grep -l "nv_gemv_q4_0" "$CLPORT_CACHE_DIR"/*.clbin 2>/dev/null | head -1)
      [ -n "$f" ] && strings -n 1 "$f" | sed -n '/^\.version/,$p' >"$out/nv_gemv.ptx" && wc -l "$out/nv_gemv.ptx" ;;
    profile)  # PROFILE_MODELS (default 1b), prompt batches of 64 (the default) and 512
      prompt=$(printf 'The quick brown fox jumps over the lazy dog. %.0s' $(seq 1 8))
      for name in ${PROFILE_MODELS:-1b}; do
        [ -f "$models/$name.gguf" ] || make_model "$models/$name.gguf" $(shape_args "$name")
        for batch in 64 512; do
          clport profile -m "$models/$name.gguf" -p "$prompt" -n 8 -b $batch >"$out/profile-$name-b$batch.log" 2>&1
          echo "== profile $name batch $batch"; head -40 "$out/profile-$name-b$batch.log"
        done
      done ;;
    hostshare)  # the host's share of a decode step, profiled and from an unprofiled second run
      for name in ${PROFILE_MODELS:-smol 1b}; do
        [ -f "$models/$name.gguf" ] || make_model "$models/$name.gguf" $(shape_args "$name")
        clport profile -m "$models/$name.gguf" -p "The quick brown fox jumps over the lazy dog." -n 64 \
          >"$out/hostshare-$name.log" 2>&1
        echo "== host share $name"; grep -E "^decode" "$out/hostshare-$name.log"
      done ;;
    attcheck)  # the long-cache decode attention cases, three times each, split and not
      echo 'att_split: off' >"$out/nosplit.yaml"
      for round in 1 2 3; do
        for plugin in nvidia generic; do
          echo "$plugin round $round: $(clport conformance --plugin $plugin --filter 'past=477|past=1000|past=301' 2>&1 | grep -E 'FAIL|passed,' | tr '\n' ' ' | cut -c1-300)"
        done
      done
      echo "no split: $(clport conformance --plugin nvidia --settings "$out/nosplit.yaml" --filter 'past=477|past=1000|past=301' 2>&1 | grep -E 'FAIL|passed,' | tr '\n' ' ')" ;;
    layertiming)  # us a layer per phase (work-group 0's view), averaged over the layers
      for name in ${TIMING_MODELS:-smol 1b}; do
        [ -f "$models/$name.gguf" ] || make_model "$models/$name.gguf" $(shape_args "$name")
        CLPORT_NV_LAYER_TIMING=1 clport bench e2e -m "$models/$name.gguf" --prompt-tokens 512 --gen-tokens 128 \
          --no-reference --plugin nvidia >"$out/timing-$name.log" 2>&1
        echo "$name: $(grep "nv_layer timing" "$out/timing-$name.log" |
          awk '{for(i=7;i<=NF;i+=2){s[i]+=$(i+1);n[i]=$i} c++} END{for(i=7;i<=NF;i+=2) printf "%s %.2f ", n[i], s[i]/c}')"
      done ;;
    real)
      [ -f "${REAL_MODEL:-}" ] || { echo "real: set REAL_MODEL to a GGUF file"; continue; }
      if [ -x "$bundle/bin/real_model_tests" ]; then
        CLPORT_TEST_MODEL="$REAL_MODEL" LD_LIBRARY_PATH="$bundle/deps" "$bundle/bin/real_model_tests" >"$out/real-tests.log" 2>&1
        echo "real_model_tests: $(tail -1 "$out/real-tests.log")"
        grep -E "identical|divergence" "$out/real-tests.log" | head -4
      fi
      clport run -m "$REAL_MODEL" -p "The capital of France is" -n 32 >"$out/real-run.log" 2>&1
      tail -3 "$out/real-run.log"
      clport run -m "$REAL_MODEL" -p "The capital of France is" -n 8 --check-layers >"$out/real-check.log" 2>&1
      grep -E "first|beyond" "$out/real-check.log"
      clport bench e2e -m "$REAL_MODEL" --prompt-tokens 512 --gen-tokens 128 --no-reference --plugin nvidia \
        >"$out/real-e2e.log" 2>&1
      grep -iE "prompt" "$out/real-e2e.log" | tail -1 ;;
    rows)  # llama.cpp (anchors README): 10721 / 354 at 512 / 128; 11470 / 314 at 4096; 10262 / 267
      # at 16384; 983 / 2224 / 4782 generation at 4 / 16 / 64 sequences; Q8_0 prompt 10748
      row 8b-long p512 --prompt-tokens 512 --gen-tokens 128
      row 8b-long p4096 --prompt-tokens 4096 --gen-tokens 64 -c 4224
      row 8b-long p16384 --prompt-tokens 16384 --gen-tokens 64 -c 16512
      for n in 4 16 64; do row 8b-long par$n --parallel $n --prompt-tokens 512 --gen-tokens 128; done
      row 8b-q8 q8-p512 --prompt-tokens 512 --gen-tokens 128 ;;
    decodeab)  # nv_attention_cells_mma and nv_gemm_async_blocks against the defaults, same call
      plugin_cfg() {  # NAME KEY:VALUE...: a bench --config file and a conformance --settings file
        local name=$1
        shift
        printf 'version: 1\nplugins:\n  nvidia:\n' >"$out/$name.yaml"
        : >"$out/$name-settings.yaml"
        for kv in "$@"; do
          printf '    %s\n' "${kv/:/: }" >>"$out/$name.yaml"
          printf '%s\n' "${kv/:/: }" >>"$out/$name-settings.yaml"
        done
      }
      plugin_cfg base ptx:true
      plugin_cfg mma nv_attention_cells_mma:true
      plugin_cfg ga4 nv_gemm_async_blocks:4
      plugin_cfg ga8 nv_gemm_async_blocks:8
      plugin_cfg ga4s4 nv_gemm_async_blocks:4 nv_gemm_async_swiglu_blocks:4
      plugin_cfg ga88 nv_gemm_async_blocks:8 nv_gemm_async_swiglu_blocks:8
      plugin_cfg both nv_attention_cells_mma:true nv_gemm_async_blocks:4
      clport conformance --plugin nvidia --kernels --filter "attention cells" --settings "$out/mma-settings.yaml" \
        >"$out/conformance-mma.log" 2>&1
      echo "mma conformance: $(grep -cE ' pass .*nv_attention_cells_mma_f16' "$out/conformance-mma.log") cases on" \
        "the kernel; $(tail -1 "$out/conformance-mma.log")"
      # Steps of 8 in every kernel that holds two of them, 4 or 2 in the others: all three lengths.
      clport conformance --plugin nvidia --kernels --filter "K=2048" --settings "$out/ga88-settings.yaml" \
        >"$out/conformance-ga88.log" 2>&1
      echo "ga88 conformance: $(grep -cE ' pass .*split_async' "$out/conformance-ga88.log") cases on the ring;" \
        "$(tail -1 "$out/conformance-ga88.log")"

      args=(--prompt-tokens 512 --gen-tokens 128)
      for c in base mma ga4 ga8 ga4s4 both; do
        row 8b par64-$c-table --parallel 64 "${args[@]}" --kernel-table --config "$out/$c.yaml"
      done
      for c in base both mma ga4 ga4s4 base; do row 8b par64-$c --parallel 64 "${args[@]}" --config "$out/$c.yaml"; done
      for c in base mma ga4 ga8 ga4s4 both; do row 8b par16-$c --parallel 16 "${args[@]}" --config "$out/$c.yaml"; done
      for c in base mma both; do row 8b par4-$c --parallel 4 "${args[@]}" --config "$out/$c.yaml"; done
      grep -E "split_async|nv_attention_cells" "$out"/row-par64-*-table.log | sed -E 's/ +/ /g' ;;
    decodedefaults)  # the several sequences' defaults against the ones before (CUDA-core cells
      # attention, SwiGLU ring steps of 2), interleaved, same call; conformance at the defaults first
      printf 'version: 1\nplugins:\n  nvidia:\n    nv_attention_cells_mma: false\n    nv_gemm_async_swiglu_blocks: 2\n' \
        >"$out/before.yaml"
      printf 'version: 1\nplugins:\n  nvidia:\n    ptx: true\n' >"$out/now.yaml"
      clport conformance --plugin nvidia --kernels --filter "attention cells|K=2048|K=2112|layer group" \
        >"$out/conformance-defaults.log" 2>&1
      echo "defaults conformance: $(grep -cE ' pass .*nv_attention_cells_mma_f16' "$out/conformance-defaults.log") on the" \
        "tensor-core cells, $(grep -cE ' pass .*swiglu_split_async' "$out/conformance-defaults.log") on the SwiGLU ring;" \
        "$(tail -1 "$out/conformance-defaults.log")"
      args=(--prompt-tokens 512 --gen-tokens 128)
      row 8b par64-now-table --parallel 64 "${args[@]}" --kernel-table --config "$out/now.yaml"
      for round in 1 2 3; do
        for c in now before; do row 8b par64-$c-$round --parallel 64 "${args[@]}" --config "$out/$c.yaml"; done
      done
      for n in 16 4; do
        for c in now before now before; do row 8b par$n-$c --parallel $n "${args[@]}" --config "$out/$c.yaml"; done
      done
      grep -E "split_async|nv_attention_cells" "$out"/row-par64-now-table.log | sed -E 's/ +/ /g' ;;
    rows70b)  # llama.cpp (anchors README): 1379 / 58.6 at 512 / 64; the one-launch layer, then op by op
      printf 'plugins:\n  nvidia:\n    nv_layer: false\n' >"$out/nolayer.yaml"
      row 70b p512-70b --prompt-tokens 512 --gen-tokens 64
      row 70b p512-70b-op-by-op --prompt-tokens 512 --gen-tokens 64 --config "$out/nolayer.yaml" ;;
    longprofile)  # the kernel time of a 15754-token prompt on the 8B shape, by kernel
      [ -f "$models/8b-long.gguf" ] || make_model "$models/8b-long.gguf" $(shape_args 8b-long)
      prompt=$(printf 'The quick brown fox jumps over the lazy dog. %.0s' $(seq 1 250))
      clport profile -m "$models/8b-long.gguf" -p "$prompt" -n 0 -c 16896 --single-run >"$out/longprofile.log" 2>&1
      grep -E "^prompt|^nv_|^attention" "$out/longprofile.log" | head -8 ;;
    e2e) e2e smol 1b ;;
    e2e8b) E2E_ROUNDS="nvidia generic" e2e 8b ;;
  esac
done
