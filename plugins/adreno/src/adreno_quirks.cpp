#include "adreno_quirks.hpp"

#include "clport_common/setting_decls.hpp"

namespace adreno {
namespace {

struct Quirk {
  const char* id;
  const char* problem;
  const char* source;
  bool (*matches)(const clport_device_desc&);
  void (*apply)(Workarounds&);
};

bool is_a6xx(const clport_device_desc& d) { return d.generation_number >= 600 && d.generation_number < 700; }

const Quirk kQuirks[] = {
    {"a6xx-subgroup-reductions",
     "the Adreno 6xx compilers shipped on phones fail on sub-group features that newer ones accept",
     "llama.cpp OpenCL backend docs, Known Issues (shared/reference/llama-cpp-opencl-backend.zh.txt): "
     "A6xx works with new drivers/compilers (IoT) but not with the old ones on phones; the exact "
     "failing construct is not named there, sub-groups are this plugin's reading of it",
     is_a6xx, [](Workarounds& w) { w.no_subgroups = true; }},
    {"a6xx-large-programs",
     "very large programs fail to build or build slowly on A6x compilers",
     "the same llama.cpp A6xx known issue; the size limit is not "
     "documented, so every GEMV/GEMM kernel gets its own program there",
     is_a6xx, [](Workarounds& w) { w.one_kernel_per_program = true; }},
    {"no-subgroup-support",
     "the device reports no sub-group support (no cl_khr_subgroups / OpenCL C below 2.0)",
     "device query (clport_device_desc.has_subgroups); llama.cpp admits Adreno only with OpenCL C 2.0",
     [](const clport_device_desc& d) { return d.has_subgroups == 0; },
     [](Workarounds& w) { w.no_subgroups = true; }},
    {"no-image-support",
     "CL_DEVICE_IMAGE_SUPPORT is false: image1d_buffer views cannot be made",
     "device query (clport_device_desc.has_images)",
     [](const clport_device_desc& d) { return d.has_images == 0; },
     [](Workarounds& w) { w.no_images = true; }},
};

}  // namespace

Workarounds quirks_for(const clport_device_desc& device) {
  Workarounds w;
  for (const Quirk& q : kQuirks) {
    if (!q.matches(device)) continue;
    q.apply(w);
    w.applied.push_back(std::string(q.id) + ": " + q.problem + " [source: " + q.source + "]");
  }
  return w;
}

// The plugin's kernels hold no private arrays of vectors (their private arrays are float), so
// it has no private_vector_arrays setting: that quirk concerns the generic plugin's kernels.
const std::vector<clport_setting_decl>& settings() {
  using clport::plugin_common::bool_setting;
  static const std::vector<clport_setting_decl> decls = {
      bool_setting("use_subgroups",
                   "false builds the kernels without sub-group features (default device dependent: false on Adreno "
                   "6xx and on devices without sub-groups, else true)"),
      bool_setting("one_kernel_per_program",
                   "true builds every GEMV / GEMM kernel as its own program (default device dependent: true on "
                   "Adreno 6xx)"),
      bool_setting("use_images",
                   "false reads split weights from plain buffers instead of image1d_buffer views (default device "
                   "dependent: true where the device has images)"),
  };
  return decls;
}

void apply_settings(Workarounds& w, const clport::sdk::Host& host) {
  w.no_subgroups = !host.setting_bool("use_subgroups", !w.no_subgroups);
  w.one_kernel_per_program = host.setting_bool("one_kernel_per_program", w.one_kernel_per_program);
  w.no_images = !host.setting_bool("use_images", !w.no_images);
}

}  // namespace adreno
