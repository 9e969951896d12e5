// Internal: conformance cases for plan groups (ABI 2.1 prepare_group): a llama decode layer's
// five ops over shared operands (norm + Q/K/V, RoPE + KV store + attention over a filled cache,
// output + residual, norm + gate/up + SwiGLU, down + residual), run as the plugin's one launch
// and judged against the CPU reference of the ops in order.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "conformance/conformance.h"
#include "runtime/device_context.h"
#include "common/dtype.h"
#include "clport_plugin/plugin_abi.h"

namespace clport::conformance::detail {

struct LayerGroupSpec {
  DType weight = DType::Q4_0;
  DType kv = DType::F16;
  int64_t embd = 128, heads = 4, kv_heads = 2, head_dim = 32, ff = 256, n_ctx = 512;
  int32_t n_past = 37;
  int32_t rope_mode = 0;  // 0 normal, 2 NeoX
  int32_t window = 0;     // sliding window of the attention (0: every cached key)
  std::string name() const;
};

std::vector<LayerGroupSpec> layer_group_catalogue(bool small);

// Unsupported (not an error) when the plugin has no prepare_group or does not take the layer.
CaseResult run_layer_group(DeviceContext& ctx, const clport_plugin& table, clport_plugin_instance* instance,
                           const LayerGroupSpec& spec, std::mt19937_64& rng);

}  // namespace clport::conformance::detail
