// Internal: the conformance cases the three fused mat-muls (RMS_NORM+MUL_MAT, MUL_MAT+ADD,
// RMS_NORM+MUL_MAT+SWIGLU) share: the same shapes, each op with its own operands.
#pragma once

#include <vector>

#include "ops/registry/case_builders.h"

namespace clport::ops::registry {

// One case: the weight src0 [K, N] (and for SWIGLU the up weight src3) of dtype d, M rows.
void fused_mul_mat_case(std::vector<CaseSpec>& out, clport_op_kind kind, DType d, int64_t K, int64_t N, int64_t M);
// The GEMV path, every weight dtype; N not a multiple of any row group.
void fused_mul_mat_gemv_cases(std::vector<CaseSpec>& out, clport_op_kind kind, bool small);
// A prompt's batch of rows, for a plugin with a fused GEMM: tile edges in N and M, a K that ends
// part-way through a stage of blocks; 150 rows take more than one work-group's rows however tall
// its tile (64 or 128).
void fused_mul_mat_gemm_cases(std::vector<CaseSpec>& out, clport_op_kind kind, bool small);

}  // namespace clport::ops::registry
