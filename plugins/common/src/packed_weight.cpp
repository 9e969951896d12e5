#include "clport_common/packed_weight.hpp"

namespace clport::plugin_common {

bool is_packable_dtype(int32_t dtype) {
  return dtype == CLPORT_DTYPE_Q4_0 || dtype == CLPORT_DTYPE_Q4_1 || dtype == CLPORT_DTYPE_Q8_0;
}

PackedSizes packed_sizes(int32_t dtype, int64_t K, int64_t N) {
  const uint64_t blocks = static_cast<uint64_t>(K / 32) * static_cast<uint64_t>(N);
  PackedSizes s;
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0: s = {16 * blocks, 2 * blocks}; break;
    case CLPORT_DTYPE_Q4_1: s = {16 * blocks, 4 * blocks}; break;
    case CLPORT_DTYPE_Q8_0: s = {32 * blocks, 2 * blocks}; break;
    default: break;
  }
  return s;
}

bool is_rows8_dtype(int32_t dtype) {
  return dtype == CLPORT_DTYPE_Q4_0 || dtype == CLPORT_DTYPE_Q4_1 || dtype == CLPORT_DTYPE_Q5_0 ||
         dtype == CLPORT_DTYPE_Q5_1 || dtype == CLPORT_DTYPE_Q8_0 || dtype == CLPORT_DTYPE_Q4_K ||
         dtype == CLPORT_DTYPE_Q6_K;
}

int64_t rows8_unit_values(int32_t dtype) {
  return dtype == CLPORT_DTYPE_Q4_K || dtype == CLPORT_DTYPE_Q6_K ? 256 : 32;
}

uint64_t rows8_bytes(int32_t dtype, int64_t K, int64_t N) {
  const uint64_t group_units = static_cast<uint64_t>(K / rows8_unit_values(dtype)) * static_cast<uint64_t>((N + 7) / 8);
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0: return 8 * 18 * group_units;
    case CLPORT_DTYPE_Q4_1: return 8 * 20 * group_units;
    case CLPORT_DTYPE_Q5_0: return 8 * 22 * group_units;
    case CLPORT_DTYPE_Q5_1: return 8 * 24 * group_units;
    case CLPORT_DTYPE_Q8_0: return 8 * 34 * group_units;
    case CLPORT_DTYPE_Q4_K: return 1184 * group_units;  // the 6-bit scales and minimums as bytes
    case CLPORT_DTYPE_Q6_K: return 8 * 210 * group_units;
    default: return 0;
  }
}

}  // namespace clport::plugin_common
