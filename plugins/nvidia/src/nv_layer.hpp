// A decode layer of the llama family as one launch (plugins/nvidia/kernels/nv_layer.cl): the plan
// group RMS_NORM_MUL_MAT (Q/K/V) -> ROPE_KV_STORE_ATTENTION -> MUL_MAT_ADD (output) ->
// RMS_NORM_MUL_MAT_SWIGLU -> MUL_MAT_ADD (down) for one token, on packed Q4_0 / Q4_1 / Q8_0
// weights, phases separated by grid barriers. The caller (the plugin's prepare_group) has
// checked each op as it checks it alone and found each weight's packed layout; this class checks
// what joining them needs and builds the launch.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"
#include "clport_common/packed_weight.hpp"
#include "nv_gemv.hpp"

namespace nvidia {

struct LayerConfig {
  bool enabled = true;
  // Work-groups of a launch (all resident at once for the grid barriers); 0 = one per compute
  // unit on a GPU, 1 on other devices.
  uint32_t groups = 0;
  // The most query heads (of one KV head) an attention item takes at once: 1, 2 or 4. Each key
  // and value is then read once for all of them; a step takes them once its keys are many
  // (SplitRule in nv_layer.cpp), one head an item before.
  uint32_t heads_per_item = 4;
  // The cached keys from which a step's items take heads_per_item heads; 0 = once every range
  // would take two trips of the attention loop at the most ranges items of that many heads give.
  uint32_t gqa_from_keys = 0;
};

class NvLayer {
 public:
  static constexpr size_t kOps = 5;

  NvLayer(const clport_host& host, const clport_device_desc& device, GemvConfig gemv, LayerConfig config);
  ~NvLayer();

  // The packed weights of the group's mat-muls: Q/K/V, output, gate, up, down.
  using Weights = std::array<const clport::plugin_common::PackedWeight*, 5>;
  // Whether ops[0 .. n) is the layer this kernel runs (kinds, one token, shapes that fit).
  bool takes(const clport_op* const* ops, size_t n) const;
  // The launch of a group takes() accepted; nullptr when the grid barrier cannot be had here.
  std::unique_ptr<clport_launch> prepare(const clport_op* const* ops, const Weights& w);

 private:
  uint32_t groups() const;
  // The query heads an attention item takes at once (nv_layer.cl's gq): as many of one KV head's
  // as divide them, up to config_.heads_per_item (the program's NV_ATT_GQA).
  int64_t heads_per_item(int64_t heads, int64_t kv_heads) const;
  // The most key ranges per head in the attention phase (enough items of gq heads for every
  // work-group); a step uses as few as take one trip of the attention loop each (SplitRule in
  // nv_layer.cpp).
  uint32_t splits(int64_t heads, int64_t gq) const;
  // The attention phase's local arrays, then the merge weights (nv_layer.cl's `att`).
  uint64_t att_bytes(int64_t head_dim, int64_t heads, int64_t gq) const;
  // The local arena that holds the activation codes of a row of max_k and, in turn, `att`.
  static uint64_t arena_bytes(int64_t max_k, uint64_t att);
  uint64_t local_bytes(const clport_op* const* ops) const;
  const clport::sdk::Program& program(const Weights& w, bool cache_f16);
  // Once per instance: whether groups() work-groups meet at a grid barrier on this device.
  bool barrier_works(const clport::sdk::Program& p);

  const clport_host& host_;
  clport::sdk::Host h_;
  GemvConfig gemv_;
  LayerConfig config_;
  uint32_t compute_units_;
  uint64_t local_mem_bytes_;
  bool gpu_;
  bool portable_;  // CLPORT_NV_LAYER_PORTABLE (nv_layer.cpp)
  std::mutex mutex_;
  std::map<std::string, clport::sdk::Program> programs_;  // by weight dtypes and cache type
  int barrier_checked_ = -1;                              // -1 not yet, 0 failed, 1 works
  cl_uint clock_mhz_ = 0;  // the SM clock when CLPORT_NV_LAYER_TIMING asks for the phase times
};

}  // namespace nvidia
