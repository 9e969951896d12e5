#include "adreno_quirks.hpp"

#include "vendor_ops.hpp"

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
     "failing construct is not named there, sub-groups are issue 6's reading of it",
     is_a6xx, [](Workarounds& w) { w.no_subgroups = true; }},
    {"a6xx-large-programs",
     "very large programs fail to build or build slowly on A6x compilers",
     "issue 6 (Adreno plugin) and the same llama.cpp A6xx known issue; the size limit is not "
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

void apply_settings(Workarounds& w, const std::string& settings) {
  w.no_subgroups = !vendor::setting_bool(settings, "use_subgroups", !w.no_subgroups);
  w.one_kernel_per_program = vendor::setting_bool(settings, "one_kernel_per_program", w.one_kernel_per_program);
  w.no_images = !vendor::setting_bool(settings, "use_images", !w.no_images);
}

}  // namespace adreno
