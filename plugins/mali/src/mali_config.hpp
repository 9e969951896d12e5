// Per-architecture kernel configurations for Mali, chosen from the classifier's generation.
// The numbers are starting points from each architecture's public shape (warp width, register
// file per core); `clport tune` and the policy's `mali:` section refine them per device.
#pragma once

#include <cstdint>
#include <string>

namespace mali {

struct ArchConfig {
  const char* generation;  // classifier generation ("bifrost", "valhall", "5th-gen")
  uint32_t gemv_wg;        // GEMV work-group (power of two)
  uint32_t gemv_rows;      // output rows per GEMV work-group (1..4, named accumulators)
  uint32_t gemm_tn, gemm_tm, gemm_rn, gemm_rm;  // shared GEMM tiles
  uint32_t norm_wg;        // RMS_NORM work-group
};

// Why these values:
//  - Bifrost (G31..G76): 4-wide (G71/G72) or 8-wide (G76) warps and 64 registers per thread at
//    full occupancy; small groups and 2 rows keep the float4 accumulators in registers, and
//    16x16 GEMM tiles with 2x2 micro-tiles stay under the 384-item group limit drivers report.
//  - Valhall (G57..G710, G610): 16-wide warps, twice Bifrost's per-core throughput; 128-item
//    GEMV groups with 4 rows reuse each x run four times; 32x32 GEMM tiles, 4x4 micro-tiles.
//  - 5th gen (G720/G620, Immortalis-G720+): 16-wide warps like Valhall with deferred vertex
//    shading (no effect on compute); same compute shape as Valhall until a device says
//    otherwise.
inline constexpr ArchConfig kArchConfigs[] = {
    {"bifrost", 64, 2, 16, 16, 2, 2, 64},
    {"valhall", 128, 4, 32, 32, 4, 4, 128},
    {"5th-gen", 128, 4, 32, 32, 4, 4, 128},
};

// Unknown generations get the Bifrost shape: the most conservative on registers.
inline const ArchConfig& arch_config(const std::string& generation) {
  for (const ArchConfig& c : kArchConfigs)
    if (generation == c.generation) return c;
  return kArchConfigs[0];
}

}  // namespace mali
