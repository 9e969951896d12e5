#include "ops/registry/fused_mul_mat_cases.h"

namespace clport::ops::registry {

// Norm in front (RMS_NORM+MUL_MAT, +SWIGLU: the norm weight src2) or the residual behind
// (MUL_MAT+ADD: src2 [N, M]).
void fused_mul_mat_case(std::vector<CaseSpec>& out, clport_op_kind kind, DType d, int64_t K, int64_t N, int64_t M) {
  CaseSpec c;
  c.dtype = tname(d);
  c.shape = "K=" + std::to_string(K) + " N=" + std::to_string(N) + " M=" + std::to_string(M);
  c.src = {typed(d, {K, N, 1, 1}, 0.5f), f32({K, M, 1, 1}, 3.0f)};
  if (kind == CLPORT_OP_MUL_MAT_ADD) {
    c.src.push_back(f32({N, M, 1, 1}));
  } else {
    c.src.push_back(f32({K, 1, 1, 1}));
    c.params.eps = 1e-5f;
  }
  if (kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) c.src.push_back(typed(d, {K, N, 1, 1}, 0.5f));
  c.dst = f32({N, M, 1, 1});
  c.threshold = kMatMul;
  out.push_back(c);
}

void fused_mul_mat_gemv_cases(std::vector<CaseSpec>& out, clport_op_kind kind, bool small) {
  // The small catalogue, which oclgrind interprets, takes one dtype of each block family.
  for (DType d : kWeightDTypes) {
    if (small && d != DType::Q4_1 && d != DType::Q8_0 && d != DType::Q4_K && d != DType::Q6_K && d != DType::F16)
      continue;
    const int64_t base_k = traits(d).block_size == 256 ? 256 : 64;
    fused_mul_mat_case(out, kind, d, small ? base_k : 4 * base_k, small ? 9 : 37, 1);
  }
  // A few activation rows, as a decode step of several sequences has: a GPU GEMV may take them
  // in one group (one pass over the weights), a count that is not a power of two leaving rows
  // of the group unused.
  for (DType d : {DType::Q4_1, DType::Q8_0, DType::Q4_0}) {
    if (small && d == DType::Q4_0) continue;
    fused_mul_mat_case(out, kind, d, small ? 64 : 256, small ? 9 : 37, 3);
    if (!small) fused_mul_mat_case(out, kind, d, 256, 37, 4);
    // A long K: the group's rows take several quantization passes each (2080 values are 520
    // float4s, two passes of a 512-wide group), the last one part-empty.
    if (!small) fused_mul_mat_case(out, kind, d, 2080, 37, 3);
  }
}

void fused_mul_mat_gemm_cases(std::vector<CaseSpec>& out, clport_op_kind kind, bool small) {
  // A plugin without a fused GEMM reports these unsupported and a model then runs the separate
  // ops, so they stay out of the small catalogue, which generic must serve whole.
  if (small) return;
  for (DType d : {DType::Q4_0, DType::Q4_1, DType::Q8_0}) {
    fused_mul_mat_case(out, kind, d, 160, 70, 37);
    fused_mul_mat_case(out, kind, d, 160, 70, 150);
    // Few rows, few weight rows, a long K: a product a GPU splits into K ranges (nv_gemm's
    // split kernels, 32 and 64 rows a group), one range ending part-way through a step of blocks;
    // 70 and 72 weight rows: the split epilogue sums one column or four at a time.
    fused_mul_mat_case(out, kind, d, 2080, 70, 9);
    fused_mul_mat_case(out, kind, d, 2080, 72, 40);
    // An even number of K blocks, which the split GEMM stages by asynchronous copies
    // (nv_gemm_split_async.cl): 32 and 64 rows a group.
    fused_mul_mat_case(out, kind, d, 2048, 70, 20);
    fused_mul_mat_case(out, kind, d, 2048, 72, 40);
    if (kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) fused_mul_mat_case(out, kind, d, 2048, 70, 9);  // 16 rows
    // 66 K blocks: even, but not a whole number of the SwiGLU ring's default steps of 4 blocks, so
    // the kernels on steps of 2 take it.
    if (kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU && d == DType::Q4_0) fused_mul_mat_case(out, kind, d, 2112, 70, 20);
    // 4 rows of a K too long for a GPU group's local memory at once (nv_gemv_rows.cl: 2 rows a
    // group).
    fused_mul_mat_case(out, kind, d, 14336, 70, 4);
  }
}

}  // namespace clport::ops::registry
