// The fast CPU backend's SIMD kernels (Google Highway, one copy per instruction set, the best one
// the CPU supports picked at run time). Callers validate shapes and dtypes first: these
// functions take raw pointers and trust them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "cpu_backend/activation_blocks.h"

namespace clport::fastcpu {

// Quantizes one row of k floats (k a multiple of the block size) into Q8Block32 / Q8BlockK
// blocks: d = max|x| / 127, q = round-to-nearest-even(x / d), so |q| <= 127.
void quantize_row_q8_block32(const float* x, int64_t k, Q8Block32* out);
void quantize_row_q8_block_k(const float* x, int64_t k, Q8BlockK* out);

// A block of dot products for MUL_MAT: for weight rows n in [0, n_w) (row n at w + n * w_stride
// bytes, `dtype` blocks of k values) and activation rows r in [0, n_acts),
//   out[r * out_stride + n] = dot(weight row n, activation row r).
// dot_tile_quantized: a quantized weight dtype, activation row r at acts + r * act_stride bytes,
//   quantized in activation_layout(dtype); integer dot products, each decoded weight block is
//   used for up to four activation rows.
// dot_tile_float: F32 or F16 weights, float activation rows at acts + r * act_stride floats.
void dot_tile_quantized(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                        const uint8_t* acts, int64_t act_stride, int64_t n_acts, float* out,
                        int64_t out_stride);
void dot_tile_float(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                    const float* acts, int64_t act_stride, int64_t n_acts, float* out,
                    int64_t out_stride);

// Prompt mat-muls (simd_prompt_kernels.cpp): 16 weight rows per AVX-512 vector, each tile of
// weight rows decoded once per call and used for every activation row. Same arguments and
// result as dot_tile_quantized, plus `sums`: for activations in Q8BlockK blocks, the sums of
// each sub-block of prompt_sub_values(dtype) codes times the block scale, k / sub floats per
// activation row, from prompt_activation_sums (NULL for Q8Block32 activations, which carry theirs).
// prompt_sub_values is 0 where the current target or dtype has no such kernel.
int64_t prompt_sub_values(DType dtype);
void prompt_activation_sums(DType dtype, int64_t k, const uint8_t* acts, int64_t act_stride,
                            int64_t n_acts, float* sums);
void dot_tile_quantized_prompt(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride,
                               int64_t n_w, const uint8_t* acts, int64_t act_stride,
                               int64_t n_acts, const float* sums, float* out, int64_t out_stride);
// Tests: false makes the prompt kernels use the multiply-add of CPUs without AVX512-VNNI.
void set_prompt_vnni_allowed(bool allowed);

// Mat-muls of several activation rows for the 32-value formats Q4_0 ... Q5_1 where the prompt
// kernels do not take them (simd_rows4_kernels.cpp): groups of four rows with their block sums
// folded into one vector, so each weight block's scales are applied once for all four, the
// remaining rows one by one; every row with the prompt kernels' arithmetic, so its result does
// not depend on the other rows of its call. Same arguments and result as dot_tile_quantized
// (Q8Block32 activations). rows4_supported is false where the current target or dtype has no
// such kernel.
bool rows4_supported(DType dtype);
void dot_tile_quantized_rows4(DType dtype, int64_t k, const uint8_t* w, int64_t w_stride, int64_t n_w,
                              const uint8_t* acts, int64_t act_stride, int64_t n_acts, float* out,
                              int64_t out_stride);
// Tests: false makes those kernels use the multiply-add of CPUs without AVX512-VNNI.
void set_rows4_vnni_allowed(bool allowed);

// ---- the other ops ----

// sum(x[i]^2) over n floats (RMS_NORM).
float sum_of_squares(const float* x, int64_t n);
// out[i] = x[i] * scale * w[i] (w may be NULL: 1), in that order, as the reference does.
void scale_row(const float* x, float scale, const float* w, float* out, int64_t n);
// out[i] = silu(gate[i]) * up[i], silu(x) = x / (1 + exp(-x)).
void swiglu_row(const float* gate, const float* up, float* out, int64_t n);
// out[i] = gelu(gate[i]) * up[i], GELU in its tanh approximation.
void geglu_row(const float* gate, const float* up, float* out, int64_t n);

// Causal attention of the query heads that share one KV head, for one token: for each query
// head g in [0, n_heads), scores_j = scale * q_g . k_j over keys j in [0, n_keys), softmax,
// out_g = sum_j p_j v_j. Rows are head_dim floats (q, out) or F16 / F32 cache rows (k, v).
struct AttentionGroup {
  const float* q;           // query head 0 of the group
  int64_t q_head_stride;    // floats between query heads
  float* out;               // output head 0
  int64_t out_head_stride;  // floats
  const uint8_t* k;         // K cache row of position 0 for this KV head
  const uint8_t* v;         // V cache row of position 0
  int64_t k_pos_stride;     // bytes between positions
  int64_t v_pos_stride;
  bool k_f16, v_f16;        // F16 rows, else F32
  int64_t n_heads;
  int64_t n_keys;
  int64_t head_dim;
  float scale;
  float* scores;  // scratch: n_heads * n_keys floats
};
void attention_group(const AttentionGroup& g);

// The instruction set the kernels run with now ("AVX2", "SSE4", "EMU128", ...), and every one
// this build carries that the CPU supports (Highway target bits, best first), so tests can run
// each of them through hwy::SetSupportedTargetsForTest.
std::string simd_target_name();
// The same for the float op kernels above (simd_op_kernels.cpp). They are built for SVE / SVE2 as
// well, which the mat-mul kernels leave out, so on an SVE CPU (ARMv9 phones) the two differ:
// mat-muls on NEON, the other ops on SVE2.
std::string simd_op_target_name();
// Turns off the instruction sets this CPU cannot run although Highway would pick them
// (simd_target_guard.cpp); done at library load, and again by the calls that list or pick
// targets.
void use_safe_simd_targets();
std::vector<int64_t> simd_targets_available();

}  // namespace clport::fastcpu
