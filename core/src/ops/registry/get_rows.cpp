// GET_ROWS: the embedding lookup, dst[D, n] = dequant(src0[D, rows])[:, src1[n]]. Reference in
// cpu_get_rows.cpp; the fast CPU backend runs the reference on the calling thread.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

void get_rows_case(std::vector<CaseSpec>& out, DType d, int64_t D, int64_t rows, int64_t n) {
  CaseSpec c;
  c.dtype = tname(d);
  c.shape = "D=" + std::to_string(D) + " rows=" + std::to_string(rows) + " n=" + std::to_string(n);
  OperandSpec idx = typed(DType::I32, {n, 1, 1, 1});
  idx.fill = Fill::Indices;
  idx.index_limit = rows;
  c.src = {typed(d, {D, rows, 1, 1}), idx};
  c.dst = f32({D, n, 1, 1});
  c.threshold = d == DType::F32 || d == DType::F16 || d == DType::BF16 ? kExact : kNearExact;
  out.push_back(c);
}

void get_rows_cases(std::vector<CaseSpec>& out, bool small) {
  for (DType d : kWeightDTypes) {
    const bool plain = d == DType::F32 || d == DType::F16 || d == DType::BF16;
    const int64_t base_k = traits(d).block_size == 256 ? 256 : 64;  // smallest whole-block row worth testing
    get_rows_case(out, d, small ? base_k : 4 * base_k, small ? 5 : 37, small ? 3 : 6);
    if (!small) get_rows_case(out, d, 4096, 3, 1);
    if (plain) get_rows_case(out, d, small ? 33 : 333, 5, 4);
  }
}

}  // namespace

OpEntry get_rows() {
  OpEntry e;
  e.kind = CLPORT_OP_GET_ROWS;
  e.name = "GET_ROWS";
  e.short_name = "get_rows";
  e.check = cpu::detail::check_get_rows_operands;
  e.reference = cpu::detail::get_rows;
  e.fast = FastCpu::ReferenceOnCaller;
  e.cases = get_rows_cases;
  e.weight_sources = 1u << 0;
  return e;
}

}  // namespace clport::ops::registry
