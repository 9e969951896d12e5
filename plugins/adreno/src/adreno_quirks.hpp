// Known Adreno driver/compiler problems, each with where the knowledge comes from, and what the
// plugin does about it. Evaluated once per instance; the policy's adreno settings
// (use_subgroups, one_kernel_per_program, use_images) override the outcome either way.
#pragma once

#include <string>
#include <vector>

#include "clport_plugin/plugin_abi.h"
#include "clport_plugin/plugin_sdk.hpp"

namespace adreno {

struct Workarounds {
  bool no_subgroups = false;           // build with -DCLPORT_NO_SUBGROUPS (no sub-group features)
  bool one_kernel_per_program = false; // one GEMV/GEMM kernel per program (-DADRENO_ONLY=id)
  bool no_images = false;              // plain buffers instead of image1d_buffer views
  std::vector<std::string> applied;    // "id: problem [source]" of each quirk that matched (logged)
};

Workarounds quirks_for(const clport_device_desc& device);

// The settings apply_settings reads (static: the ABI keeps pointers into it).
const std::vector<clport_setting_decl>& settings();

// Applies the policy's settings on top of the quirks.
void apply_settings(Workarounds& w, const clport::sdk::Host& host);

}  // namespace adreno
