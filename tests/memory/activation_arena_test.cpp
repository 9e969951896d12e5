// Activations placed by lifetime (core/src/model/activation_arena.h). What counts is that no
// placement changes what a read sees: the random plans run on the arena and on separate slots
// and every read must find the same writes. The named cases show the reuse itself.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "model/activation_arena.h"

namespace clport {
namespace {

PlanNode node(std::vector<TensorRef> src, const TensorRef& dst) {
  PlanNode n;
  n.src = std::move(src);
  n.dst = dst;
  return n;
}

// Places plan and moves it onto a host arena (offset 512 into its block, as a pool view is);
// returns the arena's first byte.
uint8_t* place_on_host(const ActivationSlots& slots, ForwardPlan& plan, std::shared_ptr<std::vector<uint8_t>>& block,
                       ActivationPlacement* placement = nullptr) {
  const ActivationPlacement p = slots.place(plan);
  block = std::make_shared<std::vector<uint8_t>>(p.bytes + 512);
  TensorRef arena;
  arena.storage = block;
  arena.host = block->data() + 512;
  arena.offset = 512;
  slots.rebase(plan, p, arena);
  if (placement != nullptr) *placement = p;
  return arena.host;
}

TEST(ActivationArena, AChainReusesTheBytesOfWhatIsDead) {
  ActivationSlots slots;
  const TensorRef a = slots.add(DType::F32, {1024, 1, 1, 1}), b = slots.add(DType::F32, {1024, 1, 1, 1}),
                  c = slots.add(DType::F32, {1024, 1, 1, 1});
  ForwardPlan plan;
  plan.nodes = {node({}, a), node({a}, b), node({b}, c)};  // a is dead once b is written
  std::shared_ptr<std::vector<uint8_t>> block;
  ActivationPlacement p;
  place_on_host(slots, plan, block, &p);
  const uint64_t at_a = plan.nodes[0].dst.offset, at_b = plan.nodes[1].dst.offset, at_c = plan.nodes[2].dst.offset;
  EXPECT_NE(at_a, at_b);
  EXPECT_NE(at_b, at_c);
  EXPECT_EQ(at_a, at_c) << "c takes a's bytes";
  EXPECT_EQ(plan.nodes[1].src[0].offset, at_a) << "the read of a follows it";
  EXPECT_EQ(p.bytes, 8192u);
}

TEST(ActivationArena, ASlotWrittenAgainAfterItWasReadIsANewValue) {
  // Two "layers" writing the same slots: layer 2's q needs no bytes apart from layer 1's q.
  ActivationSlots slots;
  const TensorRef x = slots.add(DType::F32, {256, 1, 1, 1}), q = slots.add(DType::F32, {1024, 1, 1, 1}),
                  ffn = slots.add(DType::F32, {1024, 1, 1, 1});
  ForwardPlan plan;
  for (int layer = 0; layer < 2; ++layer) {
    plan.nodes.push_back(node({x}, q));
    plan.nodes.push_back(node({x, q}, x));  // in place: x stays one value
    plan.nodes.push_back(node({x}, ffn));
    plan.nodes.push_back(node({x, ffn}, x));
  }
  std::shared_ptr<std::vector<uint8_t>> block;
  ActivationPlacement p;
  place_on_host(slots, plan, block, &p);
  EXPECT_EQ(plan.nodes[0].dst.offset, plan.nodes[2].dst.offset) << "q and the FFN are never alive together";
  EXPECT_EQ(plan.nodes[0].dst.offset, plan.nodes[4].dst.offset);
  EXPECT_EQ(p.bytes, 1024u + 4096u) << "x and one 4 KiB buffer";
}

TEST(ActivationArena, APartialWriteAfterAReadKeepsTheBytesItDidNotWrite) {
  // q is written in two halves; the second half is written after the first was read, and the
  // first is read again later: both halves must stay one value.
  ActivationSlots slots;
  const TensorRef whole = slots.add(DType::F32, {512, 1, 1, 1}), other = slots.add(DType::F32, {512, 1, 1, 1});
  const TensorRef lo = view(whole, {256, 1, 1, 1}, 0), hi = view(whole, {256, 1, 1, 1}, 1024);
  ForwardPlan plan;
  plan.nodes = {node({}, lo), node({lo}, other), node({}, hi), node({lo, hi}, other)};
  std::shared_ptr<std::vector<uint8_t>> block;
  place_on_host(slots, plan, block);
  EXPECT_EQ(plan.nodes[0].dst.offset + 1024, plan.nodes[2].dst.offset);
  EXPECT_EQ(plan.nodes[3].src[0].offset, plan.nodes[0].dst.offset);
}

TEST(ActivationArena, TheLogitsOutliveTheLastNodeAndTheHookedTensorItsNode) {
  ActivationSlots slots;
  const TensorRef logits = slots.add(DType::F32, {64, 1, 1, 1}), late = slots.add(DType::F32, {64, 1, 1, 1}),
                  hooked = slots.add(DType::F32, {64, 1, 1, 1});
  ForwardPlan plan;
  plan.nodes = {node({}, hooked), node({}, logits), node({}, late)};
  plan.nodes[1].hook_tensor = hooked;  // the hook reads `hooked` after node 1
  plan.logits = logits;
  std::shared_ptr<std::vector<uint8_t>> block;
  place_on_host(slots, plan, block);
  EXPECT_NE(plan.logits.offset, plan.nodes[2].dst.offset) << "the logits are read back after `late` is written";
  EXPECT_NE(plan.nodes[0].dst.offset, plan.nodes[1].dst.offset) << "`hooked` is alive where the logits are written";
  EXPECT_EQ(plan.nodes[1].hook_tensor.offset, plan.nodes[0].dst.offset);
}

TEST(ActivationArena, RebasingKeepsAViewsPlaceAndStridesInItsValue) {
  ActivationSlots slots;
  const TensorRef qkv = slots.add(DType::F32, {96, 8, 1, 1}), out = slots.add(DType::F32, {32, 8, 1, 1});
  // Rows 32..63 of two columns (a strided view), and two columns of out.
  const TensorRef k = view(qkv, DType::F32, {32, 2, 1, 1}, {4, 96 * 4, 96 * 4 * 2, 96 * 4 * 2}, 32 * 4);
  const TensorRef whole = view(qkv, {96, 2, 1, 1}, 0);
  ForwardPlan plan;
  plan.nodes = {node({}, whole), node({k}, view(out, {32, 2, 1, 1}, 0))};
  std::shared_ptr<std::vector<uint8_t>> block;
  uint8_t* base = place_on_host(slots, plan, block);
  const TensorRef& moved = plan.nodes[1].src[0];
  EXPECT_EQ(moved.storage, std::static_pointer_cast<void>(block));
  EXPECT_EQ(moved.offset, plan.nodes[0].dst.offset + 32 * 4);
  EXPECT_EQ(moved.host, base + (moved.offset - 512));
  EXPECT_EQ(moved.nb[1], 96 * 4);
  EXPECT_EQ(slots.slot_of(moved), -1) << "a rebased tensor is no placeholder";
}

// Random plans of reads, writes (whole and partial, in place or not) and hooks, run twice: on
// separate slot buffers and on the arena. Every byte a read sees must carry the same write.
TEST(ActivationArena, RandomPlansReadWhatTheyWouldReadWithoutSharing) {
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int round = 0; round < 500; ++round) {
    ActivationSlots slots;
    std::vector<TensorRef> slot;
    std::vector<int64_t> floats;
    const int n_slots = 2 + pick(8);
    for (int i = 0; i < n_slots; ++i) {
      floats.push_back(64 * (1 + pick(16)));
      slot.push_back(slots.add(DType::F32, {floats.back(), 1, 1, 1}));
    }
    // A view: the whole slot, or one of its four quarters.
    auto some_view = [&](int s) {
      const int part = pick(5);
      if (part == 4) return slot[static_cast<size_t>(s)];
      const int64_t quarter = floats[static_cast<size_t>(s)] / 4;
      return view(slot[static_cast<size_t>(s)], {quarter, 1, 1, 1}, static_cast<uint64_t>(part * quarter * 4));
    };
    ForwardPlan plan;
    const int n_nodes = 1 + pick(24);
    for (int j = 0; j < n_nodes; ++j) {
      std::vector<TensorRef> src;
      for (int k = pick(3); k > 0; --k) src.push_back(some_view(pick(n_slots)));
      const TensorRef dst = pick(4) == 0 && !src.empty() ? src[0] : some_view(pick(n_slots));
      plan.nodes.push_back(node(src, dst));
      if (pick(6) == 0) plan.nodes.back().hook_tensor = some_view(pick(n_slots));
    }
    if (pick(2) == 0) plan.logits = some_view(pick(n_slots));

    // Separate buffers: each byte's last writer, by slot and byte (0: never written).
    const std::vector<PlanNode> original_nodes = plan.nodes;
    const TensorRef original_logits = plan.logits;
    std::shared_ptr<std::vector<uint8_t>> block;
    place_on_host(slots, plan, block);
    std::map<std::pair<int, uint64_t>, int> separate;
    std::map<uint64_t, int> arena;
    auto check_read = [&](const TensorRef& placeholder, const TensorRef& placed, int at) {
      const int s = slots.slot_of(placeholder);
      const uint64_t begin = placeholder.offset % (uint64_t{1} << 40), bytes = static_cast<uint64_t>(placeholder.ne[0]) * 4;
      for (uint64_t b = 0; b < bytes; b += 4) {
        const auto want = separate.find({s, begin + b});
        if (want == separate.end()) continue;  // never written: no value to keep
        const auto got = arena.find(placed.offset + b);
        ASSERT_TRUE(got != arena.end() && got->second == want->second)
            << "round " << round << ", node " << at << ": slot " << s << " byte " << begin + b << " was written by node "
            << want->second << " but the arena holds node " << (got == arena.end() ? -1 : got->second) << "'s write";
      }
    };
    for (size_t j = 0; j < original_nodes.size(); ++j) {
      const PlanNode& o = original_nodes[j];
      const PlanNode& p = plan.nodes[j];
      for (size_t k = 0; k < o.src.size(); ++k) check_read(o.src[k], p.src[k], static_cast<int>(j));
      const int s = slots.slot_of(o.dst);
      const uint64_t begin = o.dst.offset % (uint64_t{1} << 40);
      for (uint64_t b = 0; b < static_cast<uint64_t>(o.dst.ne[0]) * 4; b += 4) {
        separate[{s, begin + b}] = static_cast<int>(j) + 1;
        arena[p.dst.offset + b] = static_cast<int>(j) + 1;
      }
      if (o.hook_tensor.valid()) check_read(o.hook_tensor, p.hook_tensor, static_cast<int>(j));
      if (HasFatalFailure()) return;
    }
    if (original_logits.valid()) check_read(original_logits, plan.logits, n_nodes);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace clport
