// The nvidia plugin's defaults per GPU architecture, keyed by the compute capability the driver
// reports (cl_nv_device_attribute_query, asked by ptx_probe.hpp). An architecture measured on
// real hardware has its own entry; any other takes the nearest measured one's values and says
// so in the log, so that a later measurement there only adds a table row.
#pragma once

#include <string>

#include "nv_gemv.hpp"

namespace nvidia {

struct ArchDefaults {
  std::string arch;     // "sm_90"; "unknown" when the driver did not say
  bool measured = false;  // false: another architecture's values (`source` names it)
  std::string source;   // the architecture whose measurements these are
  // The GEMV launches (MUL_MAT and its fused patterns with a few activation rows), which the
  // nv_gemv_* settings and `clport tune` (group gemv) override.
  GemvConfig gemv;
  // The GEMV rows inside the one-launch decode layer (nv_layer.hpp). Measured on whole decode
  // steps, not on one mat-mul: the shapes that make a lone GEMV launch faster (more blocks per
  // trip, bigger groups) made the layer slower on the H200, so the tuner's choice does not reach it.
  GemvConfig layer;
};

// major / minor 0: unknown (no attribute query, or PTX turned off).
ArchDefaults arch_defaults(int major, int minor);

}  // namespace nvidia
