// Test helpers for the fast CPU backend: the cpu_ops helpers (owned host tensors, random data,
// quantized weights) plus TensorRefs over them, so the fast backend and the reference run the
// very same bytes.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "common/nmse.h"
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

inline OwnedTensor random_f32(std::array<int64_t, 4> ne, unsigned seed, float stddev = 1.0f) {
  OwnedTensor t(DType::F32, ne);
  const auto v = random_values(t.bytes.size() / sizeof(float), seed, stddev);
  std::copy(v.begin(), v.end(), t.f32());
  return t;
}

// Runs `kind` on the reference and the fast backend (2 threads) into copies of `dst` and
// returns the NMSE between the two results (an F16 dst: 0 when the bytes are equal, else
// infinity); fails the test if either run fails.
inline double compare(clport_op_kind kind, const std::vector<const OwnedTensor*>& src, const OwnedTensor& dst,
                      const cpu::OpParams& p) {
  // Same initial contents (COPY writes only a slot), views at the same offset.
  const auto offset = static_cast<const uint8_t*>(dst.view.data) - dst.bytes.data();
  OwnedTensor want = dst, got = dst;
  want.view.data = want.bytes.data() + offset;
  got.view.data = got.bytes.data() + offset;
  auto reference = make_cpu_backend(1);
  auto fast = make_fast_cpu_backend(2);
  const Status a = run_on(*reference, kind, src, want, p);
  const Status b = run_on(*fast, kind, src, got, p);
  EXPECT_TRUE(a.ok()) << a.to_string();
  EXPECT_TRUE(b.ok()) << b.to_string();
  if (!a.ok() || !b.ok()) return INFINITY;
  if (dst.view.dtype == DType::F16) return want.bytes == got.bytes ? 0.0 : INFINITY;
  const auto w = want.values(), g = got.values();
  return nmse(w.data(), g.data(), w.size());
}

}  // namespace clport::test
