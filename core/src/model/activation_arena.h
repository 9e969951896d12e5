// Internal: the activations of a forward step placed by their lifetimes in one arena.
//
// A plan is built over placeholder slots, one per activation buffer the graph writes (the
// residual x, the normed input, the projections, ...): tensors with no memory behind them, which
// is all a plugin's claim looks at. Every layer writes the same slots, so a slot is split into
// values: a write that does not read the slot, after the slot's current value has been read,
// begins a new value (layer 3's Q/K/V projection is not layer 2's). Each value is placed by its
// first and last use, so values that are never alive together share bytes (the FFN's gate and up
// take what attention's Q, K and V held). Then every view in the plan is moved onto the arena.
// Each plan of a model (decode, prompt, all logits) is placed on its own; they share the one
// arena, sized for the largest.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "model/llama_plan.h"

namespace clport {

// Where the values of one plan lie in the arena, and the arena bytes that plan needs.
struct ActivationPlacement {
  std::vector<uint64_t> offsets;  // per value
  std::vector<uint64_t> extents;  // bytes from the value's slot start to the end of its last view
  // For every tensor of the plan in order (each node's sources, destination, hook tensor; then
  // the plan's logits) its value, or -1 where it is not a placeholder.
  std::vector<int> tensor_values;
  uint64_t bytes = 0;
};

class ActivationSlots {
 public:
  // Every slot starts at a multiple of this in the arena: enough for the widest vector load of
  // any kernel and for buffer offsets the devices accept.
  static constexpr uint64_t kAlignment = 256;

  ActivationSlots();

  // A placeholder of a new slot, shape ne (contiguous). Views of it (view()) stay in its slot.
  TensorRef add(DType dtype, std::array<int64_t, 4> ne);

  // The slot a tensor of a built plan belongs to, or -1 for anything else (weights, KV cache).
  int slot_of(const TensorRef& t) const;

  // The values of the slots in `plan`, their lifetimes and extents, and offsets that keep every
  // two values alive at one node apart. plan.logits stays alive past the last node (the host
  // reads it back), the hook's tensor up to its node. A read that reaches bytes its value did not
  // write (a partial write after a read, which the graphs do not do) joins the value to the one
  // before, so no placement ever changes what a read sees.
  ActivationPlacement place(const ForwardPlan& plan) const;

  // Moves every placeholder view in `plan` onto `arena` at `placement`'s offsets.
  void rebase(ForwardPlan& plan, const ActivationPlacement& placement, const TensorRef& arena) const;

 private:
  // Slot i's placeholders have byte offsets in [i * kSpan, (i + 1) * kSpan): wider than any
  // activation, so the slot is the offset's quotient and the offset within it the remainder.
  static constexpr uint64_t kSpan = uint64_t{1} << 40;
  std::shared_ptr<void> tag_;  // the placeholders' storage: identifies them
  int count_ = 0;
};

}  // namespace clport
