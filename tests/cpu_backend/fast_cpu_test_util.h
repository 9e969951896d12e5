// Test helpers for the fast CPU backend: the cpu_ops helpers (owned host tensors, random data,
// quantized weights) plus TensorRefs over them, so the fast backend and the reference run the
// very same bytes.
#pragma once

#include <memory>
#include <vector>

#include "backend/backend.h"
#include "ops_test_util.h"

namespace clport::test {

// A TensorRef that points into an OwnedTensor (which must outlive it).
inline TensorRef ref_of(const OwnedTensor& t) {
  TensorRef r;
  r.dtype = t.view.dtype;
  r.ne = t.view.ne;
  r.nb = t.view.nb;
  r.host = static_cast<uint8_t*>(t.view.data);
  r.storage = std::shared_ptr<void>(t.view.data, [](void*) {});
  return r;
}

// Runs one op on `backend` over owned tensors.
inline Status run_on(Backend& backend, clport_op_kind kind,
                     const std::vector<const OwnedTensor*>& src, const OwnedTensor& dst,
                     const cpu::OpParams& p = {}) {
  std::vector<TensorRef> refs;
  refs.reserve(src.size());
  for (const OwnedTensor* s : src) refs.push_back(ref_of(*s));
  std::vector<const TensorRef*> ptrs;
  for (const auto& r : refs) ptrs.push_back(&r);
  return backend.run(kind, ptrs, ref_of(dst), p);
}

}  // namespace clport::test
