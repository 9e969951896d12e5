// Element types and their GGUF block layouts (sizes are the published ggml/GGUF facts: a
// quantized row is a sequence of fixed-size blocks, each covering block_size elements).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"

namespace clport {

enum class DType : int32_t {
  F32 = CLPORT_DTYPE_F32,
  F16 = CLPORT_DTYPE_F16,
  Q4_0 = CLPORT_DTYPE_Q4_0,
  Q4_1 = CLPORT_DTYPE_Q4_1,
  Q5_0 = CLPORT_DTYPE_Q5_0,
  Q5_1 = CLPORT_DTYPE_Q5_1,
  Q8_0 = CLPORT_DTYPE_Q8_0,
  Q4_K = CLPORT_DTYPE_Q4_K,
  Q5_K = CLPORT_DTYPE_Q5_K,
  Q6_K = CLPORT_DTYPE_Q6_K,
  I32 = CLPORT_DTYPE_I32,
  Q2_K = CLPORT_DTYPE_Q2_K,
  Q3_K = CLPORT_DTYPE_Q3_K,
  IQ4_NL = CLPORT_DTYPE_IQ4_NL,
  BF16 = CLPORT_DTYPE_BF16,
};

struct DTypeTraits {
  DType dtype;
  std::string_view name;  // GGUF spelling: "f32", "q4_0", "q4_K", "iq4_nl", "bf16", ...
  int64_t block_size;     // elements per block (1 for plain types)
  int64_t block_bytes;    // bytes per block
  bool quantized;
};

// Traits for a known dtype; std::nullopt for an id clport does not know (e.g. from a file).
CLPORT_API std::optional<DTypeTraits> dtype_traits(int32_t id);
CLPORT_API const DTypeTraits& traits(DType dtype);
CLPORT_API std::optional<DType> dtype_from_name(std::string_view name);  // case-insensitive
inline std::string_view dtype_name(DType d) { return traits(d).name; }

// Every dtype usable as a weight (the ones the ops must support).
inline constexpr DType kWeightDTypes[] = {
    DType::F32,  DType::F16,  DType::Q4_0, DType::Q4_1, DType::Q5_0,   DType::Q5_1, DType::Q8_0,
    DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::Q2_K, DType::Q3_K, DType::IQ4_NL, DType::BF16};

// Bytes for a row of n elements; std::nullopt when n is negative, not a multiple of the block
// size, or the byte count overflows.
CLPORT_API std::optional<int64_t> row_bytes(DType dtype, int64_t n);

}  // namespace clport
