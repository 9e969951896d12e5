// COPY: dst = convert(src0), F32 <-> F16, or quantized into a Q8_0 / Q4_0 dst; dst may be a
// strided view (a slot of the KV cache). Reference in cpu_copy.cpp; memory-bound, so the fast CPU
// backend runs the reference on the calling thread. Its variants are told apart by dst's dtype:
// a KV-cache type or a tensor's.
#include "ops/cpu_kernels.h"
#include "ops/registry/case_builders.h"
#include "ops/registry/entries.h"

namespace clport::ops::registry {
namespace {

void copy_case(std::vector<CaseSpec>& out, DType s, DType d, Ne ne) {
  CaseSpec c;
  c.dtype = tname(s) + "->" + tname(d);
  c.shape = dims(ne);
  c.src = {typed(s, ne, 4.0f)};
  c.dst = typed(d, ne);
  c.threshold = kExact;
  out.push_back(c);
}

// Writes [hd, nkv, nt] into slot `pos` of a [hd, nkv, n_ctx] cache of type d (F32 / F16 copied,
// Q8_0 / Q4_0 quantized a row of 32-value blocks at a time): everything around the slot must stay
// untouched.
void copy_into_cache(std::vector<CaseSpec>& out, DType d, int64_t hd, int64_t nkv, int64_t nt, int64_t pos,
                     int64_t n_ctx) {
  CaseSpec c;
  c.dtype = "f32->" + tname(d) + " strided";
  c.shape = std::to_string(hd) + "x" + std::to_string(nkv) + "x" + std::to_string(nt) +
            " into cache slot " + std::to_string(pos) + "/" + std::to_string(n_ctx);
  c.src = {f32({hd, nkv, nt, 1}, 4.0f)};
  const int64_t bb = traits(d).block_bytes, row = hd / traits(d).block_size * bb;
  c.dst = typed(d, {hd, nkv, nt, 1});
  c.dst.nb = {bb, row, row * nkv, row * nkv * n_ctx};
  c.dst.view_offset = pos * row * nkv;
  c.dst.region_bytes = row * nkv * n_ctx;
  c.threshold = traits(d).block_size > 1 ? kKvQuant : kExact;
  out.push_back(c);
}

// Every other element of the destination (element stride 2): the gaps must stay untouched.
void copy_gapped(std::vector<CaseSpec>& out, DType d, int64_t n, int64_t rows) {
  CaseSpec c;
  c.dtype = "f32->" + tname(d) + " gapped";
  c.shape = std::to_string(n) + "x" + std::to_string(rows) + " stride 2";
  c.src = {f32({n, rows, 1, 1}, 4.0f)};
  const int64_t es = traits(d).block_bytes;
  c.dst = typed(d, {n, rows, 1, 1});
  c.dst.nb = {2 * es, 2 * es * n, 2 * es * n * rows, 2 * es * n * rows};
  c.dst.region_bytes = 2 * es * n * rows;
  c.threshold = kExact;
  out.push_back(c);
}

void copy_cases(std::vector<CaseSpec>& out, bool small) {
  for (DType s : {DType::F32, DType::F16})
    for (DType d : {DType::F32, DType::F16}) copy_case(out, s, d, {small ? 37 : 4097, 3, 1, 1});
  for (DType d : {DType::F16, DType::F32}) {
    copy_into_cache(out, d, small ? 8 : 64, 2, 3, 5, small ? 10 : 64);
    copy_gapped(out, d, small ? 9 : 300, 3);
  }
  for (DType d : {DType::Q8_0, DType::Q4_0}) copy_into_cache(out, d, small ? 32 : 64, 2, 3, 5, small ? 10 : 64);
}

}  // namespace

OpEntry copy() {
  OpEntry e;
  e.kind = CLPORT_OP_COPY;
  e.name = "COPY";
  e.short_name = "copy";
  e.check = cpu::detail::check_copy_operands;
  e.reference = cpu::detail::copy;
  e.fast = FastCpu::ReferenceOnCaller;
  e.cases = copy_cases;
  e.key_source = kKeyDst;
  e.key_kind = KeyKind::KvCacheOrTensor;
  return e;
}

}  // namespace clport::ops::registry
