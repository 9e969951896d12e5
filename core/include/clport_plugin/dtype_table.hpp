// The one table of element types: their ids, GGUF names and block layouts (the published
// ggml/GGUF facts: a quantized row is a sequence of fixed-size blocks, each covering block_size
// elements). The core's DType traits, the shared plugin kernels' checks and the plugins all read
// it from here, the SDK being the one header set both sides of the plugin boundary see.
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/plugin_abi.h"

namespace clport::sdk {

struct DTypeLayout {
  int32_t id;           // clport_dtype
  const char* name;     // GGUF spelling: "f32", "q4_0", "q4_K", "iq4_nl", "bf16", ...
  int64_t block_size;   // elements per block (1 for plain types)
  int64_t block_bytes;  // bytes per block (the element size for plain types)
  bool quantized;
};

inline constexpr DTypeLayout kDTypeLayouts[] = {
    {CLPORT_DTYPE_F32, "f32", 1, 4, false},       {CLPORT_DTYPE_F16, "f16", 1, 2, false},
    {CLPORT_DTYPE_Q4_0, "q4_0", 32, 18, true},    {CLPORT_DTYPE_Q4_1, "q4_1", 32, 20, true},
    {CLPORT_DTYPE_Q5_0, "q5_0", 32, 22, true},    {CLPORT_DTYPE_Q5_1, "q5_1", 32, 24, true},
    {CLPORT_DTYPE_Q8_0, "q8_0", 32, 34, true},    {CLPORT_DTYPE_Q4_K, "q4_K", 256, 144, true},
    {CLPORT_DTYPE_Q5_K, "q5_K", 256, 176, true},  {CLPORT_DTYPE_Q6_K, "q6_K", 256, 210, true},
    {CLPORT_DTYPE_I32, "i32", 1, 4, false},       {CLPORT_DTYPE_Q2_K, "q2_K", 256, 84, true},
    {CLPORT_DTYPE_Q3_K, "q3_K", 256, 110, true},  {CLPORT_DTYPE_IQ4_NL, "iq4_nl", 32, 18, true},
    {CLPORT_DTYPE_BF16, "bf16", 1, 2, false},
};

// NULL for an id not in the table (one read from a file, say).
constexpr const DTypeLayout* dtype_layout(int32_t id) {
  for (const DTypeLayout& d : kDTypeLayouts) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

// The dtype as kernel names spell it: the name in lower case ("q4_k", "f16"); "" for an unknown id.
inline std::string kernel_suffix(int32_t id) {
  const DTypeLayout* d = dtype_layout(id);
  std::string s = d != nullptr ? d->name : "";
  for (char& c : s) c = static_cast<char>(c == 'K' ? 'k' : c);
  return s;
}

}  // namespace clport::sdk
