// MUL_MAT: dst[N, M] = src1[K, M] x src0[K, N]^T, the weight src0 of any dtype. Reference in
// cpu_matmul.cpp, fast kernel in fast_mul_mat.cpp (8-bit activations and integer dot products).
#include "cpu_backend/fast_ops.h"
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

void mul_mat_case(std::vector<CaseSpec>& out, DType d, int64_t K, int64_t N, int64_t M) {
  CaseSpec c;
  c.dtype = tname(d);
  c.shape = "K=" + std::to_string(K) + " N=" + std::to_string(N) + " M=" + std::to_string(M);
  c.src = {typed(d, {K, N, 1, 1}, 0.5f), f32({K, M, 1, 1})};
  c.dst = f32({N, M, 1, 1});
  c.threshold = kMatMul;
  out.push_back(c);
}

void mul_mat_cases(std::vector<CaseSpec>& out, bool small) {
  const bool big = !small;
  for (DType d : kWeightDTypes) {
    const bool plain = d == DType::F32 || d == DType::F16 || d == DType::BF16;
    const int64_t base_k = traits(d).block_size == 256 ? 256 : 64;  // smallest whole-block row worth testing
    // GEMV: one output row, N not a multiple of the rows per work-group, small M batch. The
    // one-row case has two tokens: a lone output value can be a near-total cancellation, where
    // NMSE (normalised by that one value) fails a correct kernel by float rounding alone.
    mul_mat_case(out, d, small ? base_k : 4 * base_k, 1, 2);
    mul_mat_case(out, d, small ? base_k : 8 * base_k, small ? 9 : 37, 1);
    mul_mat_case(out, d, small ? base_k : 4 * base_k, small ? 5 : 29, 3);
    if (plain) mul_mat_case(out, d, small ? 33 : 999, 7, 1);
    // A row shorter than one 128-element chunk of a 16-lane sub-group: only the tail loop runs
    // (PoCL 5.0 miscompiled the Intel sub-group F16 GEMV there).
    if (plain && big) mul_mat_case(out, d, 100, 9, 1);
    // GEMM: tile edges in N and M, one K tile and several.
    mul_mat_case(out, d, small ? base_k : 2 * base_k, small ? 9 : 70, small ? 7 : 37);
    if (plain) mul_mat_case(out, d, small ? 33 : 65, 33, 9);
    if (big) mul_mat_case(out, d, 1024, 128, 64);
  }
  if (small) return;
  // The large GEMV the decode path lives on, and LLaMA-like shapes for two more formats.
  mul_mat_case(out, DType::Q4_0, 4096, 4096, 1);
  mul_mat_case(out, DType::Q4_K, 4096, 4096, 1);
  mul_mat_case(out, DType::F16, 4096, 4096, 1);
  mul_mat_case(out, DType::Q6_K, 2048, 1536, 1);
  mul_mat_case(out, DType::Q8_0, 576, 1536, 5);
  mul_mat_case(out, DType::Q3_K, 2048, 1536, 1);  // the bulk of a Q3_K_M file
  // A decode step of 5 to 8 sequences on a CPU device (the x8 GEMV that quantizes its rows itself,
  // 8 rows a work-item, the 32-value types in 512-bit pairs of row groups): 13 row groups, an
  // odd count, so the last pair has one.
  for (DType d : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q4_K, DType::Q6_K})
    mul_mat_case(out, d, traits(d).block_size == 256 ? 512 : 576, 100, 6);
  // Few rows, few weight rows, a long K: a product a GPU splits into K ranges (nv_gemm's split
  // kernels, 32 and 64 rows a group), one range ending part-way through a step of blocks; the
  // fused mat-muls have the same shapes (fused_mul_mat_cases.cpp). 70 weight rows leave the sums
  // row by row, 72 (a multiple of 4) in fours (the split epilogue's 16-byte loads).
  for (DType d : {DType::Q4_0, DType::Q4_1, DType::Q8_0}) {
    mul_mat_case(out, d, 2080, 70, 9);
    mul_mat_case(out, d, 2080, 72, 40);
    // An even number of K blocks (the split GEMM's asynchronously staged kernels), 16 rows a group.
    mul_mat_case(out, d, 2048, 70, 9);
    // A prompt's product on a GPU GEMM of 128 x 128 tiles (nv_gemm_half): two tiles of rows and of
    // weight rows, both edges part-way through one, an odd number of K blocks.
    mul_mat_case(out, d, 288, 200, 130);
    // A decode step of 4 sequences over Llama 3 8B's FFN rows: more activation codes than a GPU
    // group's local memory holds at once (nv_gemv_rows.cl takes them 2 rows a group).
    mul_mat_case(out, d, 14336, 70, 4);
  }
  // Q4_K prompts on a GPU GEMM that reads the file's super-blocks in place (nv_gemm's q4_k
  // kernels): two tiles of 128 rows over three super-blocks, and a few rows.
  mul_mat_case(out, DType::Q4_K, 768, 200, 129);
  mul_mat_case(out, DType::Q4_K, 768, 70, 9);
}

}  // namespace

OpEntry mul_mat() {
  OpEntry e;
  e.kind = CLPORT_OP_MUL_MAT;
  e.name = "MUL_MAT";
  e.short_name = "mul_mat";
  e.check = cpu::detail::check_mul_mat_operands;
  e.reference = cpu::detail::mul_mat;
  e.fast = FastCpu::Kernel;
  e.fast_kernel = fastcpu::mul_mat;
  e.cases = mul_mat_cases;
  e.weight_sources = 1u << 0;
  e.mat_mul = true;
  return e;
}

}  // namespace clport::ops::registry
