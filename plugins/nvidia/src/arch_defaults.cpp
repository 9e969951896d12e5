#include "arch_defaults.hpp"

#include <cstdlib>

namespace nvidia {
namespace {

struct Row {
  int major, minor;
  GemvConfig gemv, layer;
};

GemvConfig gemv_config(uint32_t wg, uint32_t rows_per_warp, uint32_t blocks_per_trip, uint32_t groups_per_cu) {
  GemvConfig c;
  c.wg = wg;
  c.rows_per_warp = rows_per_warp;
  c.blocks_per_trip = blocks_per_trip;
  c.groups_per_cu = groups_per_cu;
  return c;
}

// sm_90 (H200): `clport bench ops --gemv-only` sweeps at the 8B shapes and `bench e2e` decode at
// the smol / 1B / 8B shapes (measurements/README.md, the nvidia plugin section).
const Row kMeasured[] = {
    {9, 0, gemv_config(512, 2, 2, 2), gemv_config(512, 2, 2, 2)},
};

std::string arch_name(int major, int minor) {
  return major > 0 ? "sm_" + std::to_string(major) + std::to_string(minor) : "unknown";
}

}  // namespace

ArchDefaults arch_defaults(int major, int minor) {
  ArchDefaults a;
  a.arch = arch_name(major, minor);
  // An exact entry, else the measured architecture closest by compute capability.
  const Row* best = &kMeasured[0];
  int best_distance = -1;
  for (const Row& row : kMeasured) {
    const int distance = std::abs((row.major * 10 + row.minor) - (major * 10 + minor));
    if (best_distance < 0 || distance < best_distance) {
      best = &row;
      best_distance = distance;
    }
  }
  a.measured = best_distance == 0;
  a.source = arch_name(best->major, best->minor);
  a.gemv = best->gemv;
  a.layer = best->layer;
  return a;
}

}  // namespace nvidia
