#include "model/activation_arena.h"

#include <algorithm>

namespace clport {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Bytes from a view's first element to one past its last.
uint64_t span_bytes(const TensorRef& t) {
  const std::optional<int64_t> row = row_bytes(t.dtype, t.ne[0]);
  uint64_t end = row ? static_cast<uint64_t>(*row) : static_cast<uint64_t>(t.ne[0]) * static_cast<uint64_t>(t.nb[0]);
  for (int d = 1; d < 4; ++d) {
    if (t.ne[d] > 1) end += static_cast<uint64_t>(t.ne[d] - 1) * static_cast<uint64_t>(t.nb[d]);
  }
  return end;
}

}  // namespace

ActivationSlots::ActivationSlots() : tag_(std::make_shared<char>(0)) {}

TensorRef ActivationSlots::add(DType dtype, std::array<int64_t, 4> ne) {
  TensorRef t;
  t.dtype = dtype;
  t.ne = ne;
  t.nb = contiguous_strides(dtype, ne);
  t.storage = tag_;
  t.offset = static_cast<uint64_t>(count_++) * kSpan;
  return t;
}

int ActivationSlots::slot_of(const TensorRef& t) const {
  if (t.storage != tag_) return -1;
  return static_cast<int>(t.offset / kSpan);
}

namespace {

// One value of a slot: what a run of writes put there and the reads of it that follow.
struct Value {
  size_t first = 0, last = 0;  // nodes of its first and last use
  uint64_t extent = 0;         // from the slot start to the end of its farthest view
  std::vector<std::pair<uint64_t, uint64_t>> written;  // [begin, end) within the slot
  bool read_since_write = false;
  int before = -1;  // the slot's previous value
  int root = -1;    // the value it was joined to, or -1
};

// The value v stands for after joins.
int resolve(std::vector<Value>& values, int v) {
  while (values[static_cast<size_t>(v)].root >= 0) v = values[static_cast<size_t>(v)].root;
  return v;
}

bool covered(std::vector<std::pair<uint64_t, uint64_t>> ranges, uint64_t begin, uint64_t end) {
  std::sort(ranges.begin(), ranges.end());
  for (const auto& [b, e] : ranges) {
    if (b > begin) return false;
    begin = std::max(begin, e);
    if (begin >= end) return true;
  }
  return begin >= end;
}

// The slots' values of one plan, found in node order.
class ValueScan {
 public:
  explicit ValueScan(size_t slots) : current_(slots, -1) {}

  void read(int slot, uint64_t begin, uint64_t end, size_t at) {
    int v = value_for_use(slot, at);
    // Bytes this value did not write belong to the value before it: keep the two together.
    while (!covered(values_[static_cast<size_t>(v)].written, begin, end) && values_[static_cast<size_t>(v)].before >= 0) {
      const int before = resolve(values_, values_[static_cast<size_t>(v)].before);
      join(before, v);
      v = before;
      current_[static_cast<size_t>(slot)] = v;
    }
    touch(v, end, at).read_since_write = true;
    tensor_values_.push_back(v);
  }

  void write(int slot, uint64_t begin, uint64_t end, size_t at, bool reads_slot) {
    const int cur = current_[static_cast<size_t>(slot)];
    if (cur >= 0 && !reads_slot && values_[static_cast<size_t>(resolve(values_, cur))].read_since_write) {
      values_.push_back(Value{});
      values_.back().before = cur;
      current_[static_cast<size_t>(slot)] = static_cast<int>(values_.size() - 1);
      values_.back().first = at;
    }
    const int v = value_for_use(slot, at);
    Value& value = touch(v, end, at);
    value.written.emplace_back(begin, end);
    value.read_since_write = false;
    tensor_values_.push_back(v);
  }

  void not_a_slot() { tensor_values_.push_back(-1); }

  std::vector<Value>& values() { return values_; }
  // Each recorded tensor's value, after every join.
  std::vector<int> tensor_values() {
    std::vector<int> out = tensor_values_;
    for (int& v : out)
      if (v >= 0) v = resolve(values_, v);
    return out;
  }

 private:
  int value_for_use(int slot, size_t at) {
    int& cur = current_[static_cast<size_t>(slot)];
    if (cur < 0) {
      values_.push_back(Value{});
      values_.back().first = at;
      cur = static_cast<int>(values_.size() - 1);
    }
    cur = resolve(values_, cur);
    return cur;
  }

  Value& touch(int v, uint64_t end, size_t at) {
    Value& value = values_[static_cast<size_t>(v)];
    value.first = std::min(value.first, at);
    value.last = std::max(value.last, at);
    value.extent = std::max(value.extent, end);
    return value;
  }

  void join(int into, int from) {
    Value& a = values_[static_cast<size_t>(into)];
    Value& b = values_[static_cast<size_t>(from)];
    a.first = std::min(a.first, b.first);
    a.last = std::max(a.last, b.last);
    a.extent = std::max(a.extent, b.extent);
    a.written.insert(a.written.end(), b.written.begin(), b.written.end());
    a.read_since_write = b.read_since_write;
    b.root = into;
  }

  std::vector<int> current_;
  std::vector<Value> values_;
  std::vector<int> tensor_values_;
};

}  // namespace

ActivationPlacement ActivationSlots::place(const ForwardPlan& plan) const {
  ValueScan scan(static_cast<size_t>(count_));
  auto range = [](const TensorRef& t) {
    const uint64_t begin = t.offset % kSpan;
    return std::make_pair(begin, begin + span_bytes(t));
  };
  for (size_t at = 0; at < plan.nodes.size(); ++at) {
    const PlanNode& node = plan.nodes[at];
    const int dst_slot = slot_of(node.dst);
    bool reads_dst_slot = false;
    for (const TensorRef& t : node.src) {
      const int s = slot_of(t);
      if (s < 0) {
        scan.not_a_slot();
        continue;
      }
      reads_dst_slot = reads_dst_slot || s == dst_slot;
      const auto [b, e] = range(t);
      scan.read(s, b, e, at);
    }
    if (dst_slot < 0) {
      scan.not_a_slot();
    } else {
      const auto [b, e] = range(node.dst);
      scan.write(dst_slot, b, e, at, reads_dst_slot);
    }
    if (node.hook_tensor.valid()) {
      const int s = slot_of(node.hook_tensor);
      if (s < 0) {
        scan.not_a_slot();
      } else {
        const auto [b, e] = range(node.hook_tensor);
        scan.read(s, b, e, at);
      }
    }
  }
  if (plan.logits.valid()) {
    const int s = slot_of(plan.logits);
    if (s < 0) {
      scan.not_a_slot();
    } else {
      const auto [b, e] = range(plan.logits);
      scan.read(s, b, e, plan.nodes.size());
    }
  }

  ActivationPlacement out;
  out.tensor_values = scan.tensor_values();
  std::vector<Value>& values = scan.values();
  out.offsets.assign(values.size(), 0);
  out.extents.assign(values.size(), 0);
  // Largest first, each at the lowest aligned offset clear of every placed value that is alive
  // at the same time (the greedy-by-size placement for interval lifetimes).
  std::vector<size_t> order;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].root >= 0) continue;
    out.extents[i] = values[i].extent;
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out.extents[a] > out.extents[b]; });
  std::vector<size_t> placed;
  for (size_t i : order) {
    std::vector<std::pair<uint64_t, uint64_t>> taken;  // [begin, end) of values alive with i
    for (size_t j : placed) {
      if (values[j].last < values[i].first || values[i].last < values[j].first) continue;
      taken.emplace_back(out.offsets[j], out.offsets[j] + out.extents[j]);
    }
    std::sort(taken.begin(), taken.end());
    uint64_t at = 0;
    for (const auto& [begin, end] : taken) {
      if (at + out.extents[i] <= begin) break;
      at = std::max(at, align_up(end, kAlignment));
    }
    out.offsets[i] = at;
    out.bytes = std::max(out.bytes, align_up(at + out.extents[i], kAlignment));
    placed.push_back(i);
  }
  return out;
}

void ActivationSlots::rebase(ForwardPlan& plan, const ActivationPlacement& placement, const TensorRef& arena) const {
  size_t next = 0;
  auto move = [&](TensorRef& t) {
    const int v = placement.tensor_values[next++];
    if (v < 0) return;
    const uint64_t at = placement.offsets[static_cast<size_t>(v)] + t.offset % kSpan;
    t.storage = arena.storage;
    t.buffer = arena.buffer;
    t.host = arena.host != nullptr ? arena.host + at : nullptr;
    t.offset = arena.offset + at;
  };
  for (PlanNode& node : plan.nodes) {
    for (TensorRef& t : node.src) move(t);
    move(node.dst);
    if (node.hook_tensor.valid()) move(node.hook_tensor);
  }
  if (plan.logits.valid()) move(plan.logits);
}

}  // namespace clport
