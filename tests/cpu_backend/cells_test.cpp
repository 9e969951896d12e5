// The fast CPU backend's KV_STORE_ROPE_CELLS and ROPE_ATTENTION_CELLS (fast_cells.cpp), with
// SmolLM2's heads (9 of 64, 3 KV heads): against the reference, and, what keeps a sequence's
// logits independent of the others in its step, bit for bit against the per-sequence ops the
// same backend runs for a sequence alone (ROPE, COPY into the cache slot, ATTENTION).
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "fast_cpu_test_util.h"
#include "ops/cpu_kernels.h"

namespace clport {
namespace {

using test::compare;
using test::OwnedTensor;
using test::random_f32;

constexpr int64_t kHd = 64, kHeads = 9, kKvHeads = 3, kCtx = 40, kSeqs = 3;

// Five tokens of a step: sequences 2 and 1 bring two tokens each (a prompt chunk joining decode
// steps), sequence 0 one; positions far apart so the windows and key counts differ.
OwnedTensor step_cells() {
  const int32_t cells[] = {0, 7, 2, 0, 1, 12, 1, 13, 2, 1};
  OwnedTensor c(DType::I32, {2, 5, 1, 1});
  std::memcpy(c.bytes.data(), cells, sizeof cells);
  return c;
}

// Every sequence's K and V [head_dim, n_kv_head, n_ctx, 2 n_seq] filled with random values.
OwnedTensor random_cache(DType dtype, unsigned seed) {
  OwnedTensor cache(dtype, {kHd, kKvHeads, kCtx, 2 * kSeqs});
  const auto values = test::random_values(static_cast<size_t>(kHd * kKvHeads * kCtx * 2 * kSeqs), seed);
  EXPECT_TRUE(quantize_row(dtype, values.data(), cache.bytes.data(), static_cast<int64_t>(values.size())).ok());
  return cache;
}

cpu::OpParams rope_attention_params(int mode, int32_t window) {
  cpu::OpParams p;
  p.rope = clport_rope_params{mode, static_cast<int32_t>(kHd), 100000.0f, 1.0f};
  p.attention.scale = 0.125f;
  p.attention.window = window;
  return p;
}

// A tensor over bytes another OwnedTensor owns (a token's rows, a sequence's cache half): ops
// run on it read and write the owner's bytes.
OwnedTensor view_of(const cpu::HostTensor& view) {
  OwnedTensor t(DType::F32, {1, 1, 1, 1});
  t.bytes.clear();
  t.view = view;
  return t;
}

using Setup = std::tuple<DType, int, bool>;  // cache type, RoPE mode, frequency factors
class FastCells : public ::testing::TestWithParam<Setup> {};

TEST_P(FastCells, KvStoreMatchesTheReferenceBitForBit) {
  const auto [dtype, mode, factors] = GetParam();
  auto k = random_f32({kHd, kKvHeads, 5, 1}, 21), v = random_f32({kHd, kKvHeads, 5, 1}, 22);
  auto ff = random_f32({kHd / 2, 1, 1, 1}, 23, 0.2f);
  for (int64_t i = 0; i < kHd / 2; ++i) ff.f32()[i] = 1.0f + std::abs(ff.f32()[i]);
  const OwnedTensor cells = step_cells();
  const OwnedTensor cache = random_cache(dtype, 24);
  std::vector<const OwnedTensor*> src{&k, &v, &cells};
  if (factors) src.push_back(&ff);
  const double e = compare(CLPORT_OP_KV_STORE_ROPE_CELLS, src, cache, rope_attention_params(mode, 0));
  EXPECT_EQ(e, 0.0);
}

TEST_P(FastCells, AttentionMatchesTheReference) {
  const auto [dtype, mode, factors] = GetParam();
  auto q = random_f32({kHd, kHeads, 5, 1}, 31);
  auto ff = random_f32({kHd / 2, 1, 1, 1}, 32, 0.2f);
  for (int64_t i = 0; i < kHd / 2; ++i) ff.f32()[i] = 1.0f + std::abs(ff.f32()[i]);
  const OwnedTensor cells = step_cells();
  const OwnedTensor cache = random_cache(dtype, 33);
  OwnedTensor dst(DType::F32, {kHd, kHeads, 5, 1});
  std::vector<const OwnedTensor*> src{&q, &cache, &cells};
  if (factors) src.push_back(&ff);
  for (const int32_t window : {0, 6}) {
    EXPECT_LT(compare(CLPORT_OP_ROPE_ATTENTION_CELLS, src, dst, rope_attention_params(mode, window)), 1e-10)
        << "window " << window;
  }
}

// Each token of the step against the ops a sequence alone runs on the fast backend.
TEST_P(FastCells, EachTokenIsWhatItsSequenceGetsAlone) {
  const auto [dtype, mode, factors] = GetParam();
  auto q = random_f32({kHd, kHeads, 5, 1}, 41);
  auto k = random_f32({kHd, kKvHeads, 5, 1}, 42), v = random_f32({kHd, kKvHeads, 5, 1}, 43);
  auto ff = random_f32({kHd / 2, 1, 1, 1}, 44, 0.2f);
  for (int64_t i = 0; i < kHd / 2; ++i) ff.f32()[i] = 1.0f + std::abs(ff.f32()[i]);
  const OwnedTensor cells = step_cells();
  auto fast = make_fast_cpu_backend(2);
  const cpu::OpParams p = rope_attention_params(mode, 5);
  // Batched: the store, then the attention.
  OwnedTensor batched_cache = random_cache(dtype, 45), alone_cache = batched_cache;
  alone_cache.view.data = alone_cache.bytes.data();  // the copy's view still pointed at the original
  OwnedTensor batched(DType::F32, {kHd, kHeads, 5, 1});
  std::vector<const OwnedTensor*> store_src{&k, &v, &cells}, attend_src{&q, &batched_cache, &cells};
  if (factors) {
    store_src.push_back(&ff);
    attend_src.push_back(&ff);
  }
  ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_KV_STORE_ROPE_CELLS, store_src, batched_cache, p).ok());
  ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_ROPE_ATTENTION_CELLS, attend_src, batched, p).ok());
  // Alone: token by token in step order, as the per-sequence plan runs them.
  const auto* c = reinterpret_cast<const int32_t*>(cells.bytes.data());
  for (int64_t t = 0; t < 5; ++t) {
    const int64_t seq = c[2 * t], pos = c[2 * t + 1];
    cpu::OpParams at = p;
    at.n_past = static_cast<int32_t>(pos);
    const cpu::HostTensor seq_cache = cpu::detail::sequence_cache(alone_cache.view, seq);
    cpu::HostTensor kc = seq_cache, vc = seq_cache;
    kc.ne[3] = vc.ne[3] = 1;
    vc.data = static_cast<uint8_t*>(seq_cache.data) + seq_cache.nb[3];
    cpu::HostTensor k_slot = kc, v_slot = vc;
    k_slot.ne[2] = v_slot.ne[2] = 1;
    k_slot.data = static_cast<uint8_t*>(kc.data) + pos * kc.nb[2];
    v_slot.data = static_cast<uint8_t*>(vc.data) + pos * vc.nb[2];
    const OwnedTensor k_t = view_of(cpu::detail::token_row(k.view, t));
    const OwnedTensor v_t = view_of(cpu::detail::token_row(v.view, t));
    const OwnedTensor q_t = view_of(cpu::detail::token_row(q.view, t));
    OwnedTensor k_rope(DType::F32, {kHd, kKvHeads, 1, 1}), q_rope(DType::F32, {kHd, kHeads, 1, 1});
    OwnedTensor out(DType::F32, {kHd, kHeads, 1, 1});
    auto with_ff = [&](const OwnedTensor* x) {
      return factors ? std::vector<const OwnedTensor*>{x, &ff} : std::vector<const OwnedTensor*>{x};
    };
    ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_ROPE, with_ff(&k_t), k_rope, at).ok());
    const OwnedTensor k_dst = view_of(k_slot), v_dst = view_of(v_slot);
    ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_COPY, {&k_rope}, k_dst, {}).ok());
    ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_COPY, {&v_t}, v_dst, {}).ok());
    ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_ROPE, with_ff(&q_t), q_rope, at).ok());
    const OwnedTensor k_all = view_of(kc), v_all = view_of(vc);
    ASSERT_TRUE(test::run_on(*fast, CLPORT_OP_ATTENTION, {&q_rope, &k_all, &v_all}, out, at).ok());
    const float* want = out.f32();
    const float* got = reinterpret_cast<const float*>(batched.bytes.data()) + t * kHd * kHeads;
    EXPECT_EQ(std::memcmp(want, got, static_cast<size_t>(kHd * kHeads) * sizeof(float)), 0) << "token " << t;
  }
  EXPECT_EQ(batched_cache.bytes, alone_cache.bytes);
}

INSTANTIATE_TEST_SUITE_P(Caches, FastCells,
                         ::testing::Combine(::testing::Values(DType::F16, DType::F32), ::testing::Values(0, 2),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == 2 ? "_neox" : "_normal") +
                                  (std::get<2>(info.param) ? "_factors" : "");
                         });

TEST(FastCellsErrors, ACellOutsideTheCacheIsRefusedAsOnTheReference) {
  auto fast = make_fast_cpu_backend(2);
  auto q = random_f32({kHd, kHeads, 5, 1}, 51);
  OwnedTensor cells = step_cells();
  reinterpret_cast<int32_t*>(cells.bytes.data())[3] = kCtx;  // token 1 past the cache's end
  const OwnedTensor cache = random_cache(DType::F16, 52);
  OwnedTensor dst(DType::F32, {kHd, kHeads, 5, 1});
  const Status s = test::run_on(*fast, CLPORT_OP_ROPE_ATTENTION_CELLS, {&q, &cache, &cells}, dst,
                                rope_attention_params(0, 0));
  EXPECT_EQ(s.stage(), Stage::InvalidArgument);
  EXPECT_NE(s.message().find("outside the cache"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace clport
