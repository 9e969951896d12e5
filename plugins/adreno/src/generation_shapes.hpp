// Work-group shapes of the Adreno GEMV/GEMM kernels per GPU generation (data, not code), and the
// clamp that keeps them inside what a given device allows.
#pragma once

#include <cstdint>
#include <string>

#include "clport_plugin/plugin_abi.h"

namespace adreno {

struct KernelShapes {
  const char* generation;  // classifier generation ("a6xx", "a7xx", "a8xx", "x1", ...), "" = default
  uint32_t gemv_wn;        // GEMV: weight rows per work-group (dimension 0, coalesced)
  uint32_t gemv_ks;        // GEMV: slices of K per row, summed in local memory
  uint32_t gemm_tn;        // GEMM: weight rows per work-group
  uint32_t gemm_tmi;       // GEMM: work-items along the tokens
  uint32_t gemm_rm;        // GEMM: tokens per work-item (register tile)
  int64_t gemv_max_m;      // mul_mat with at most this many activation rows takes the GEMV
  const char* why;
};

// The row of the table for this device's generation (the default row when none matches), with
// every size reduced until a work-group fits max_work_group_size.
KernelShapes shapes_for(const clport_device_desc& device);

// "-DGEMV_WN=.. -DGEMV_KS=.. ..." for the mul_mat program.
std::string shape_options(const KernelShapes& s);

}  // namespace adreno
