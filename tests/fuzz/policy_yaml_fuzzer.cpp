// libFuzzer target: the policy YAML reader. Any text must either become a layer over the shipped
// policy or be refused with a Config status naming the file; an accepted layer is then evaluated
// for a few devices (rule matching, regexes, driver versions, settings merges).
#include <cstdint>
#include <string>
#include <vector>

#include "probe/device_info.h"
#include "policy/policy.h"
#include "fuzz_check.h"

namespace {

std::vector<clport::DeviceInfo> devices() {
  std::vector<clport::DeviceInfo> all(4);
  all[0].name = "QUALCOMM Adreno(TM) 740";
  all[0].driver_version = "OpenCL 3.0 QUALCOMM build: commit #abc Compiler E031.42.00.00";
  all[0].klass = {"adreno", "a7xx", 740, "fuzz"};
  all[0].has_fp16 = true;
  all[1].name = "Mali-G78";
  all[1].driver_version = "v1.r32p1-01eac0.c1a71ccca2acf211eb87c5db5322f569";
  all[1].klass = {"mali", "valhall", 78, "fuzz"};
  all[2].name = "NVIDIA H200";
  all[2].vendor = "NVIDIA Corporation";
  all[2].driver_version = "550.54.15";
  all[2].klass = {"nvidia", "", 0, "fuzz"};
  all[2].extensions = {"cl_khr_fp16", "cl_khr_subgroups"};
  return all;  // the last one: nothing known
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const clport::Policy* shipped = [] {
    auto p = clport::Policy::defaults();
    FUZZ_CHECK(p.ok(), "%s", p.status().to_string().c_str());
    return new clport::Policy(std::move(p.value()));
  }();
  static const std::vector<clport::DeviceInfo> kDevices = devices();

  const std::string text(reinterpret_cast<const char*>(data), size);
  clport::Policy policy = *shipped;
  const clport::Status status = policy.add_layer(text, "fuzz.yaml");
  if (!status.ok()) {
    FUZZ_CHECK(status.stage() == clport::Stage::Config, "%s", status.to_string().c_str());
    FUZZ_CHECK(status.message().rfind("fuzz.yaml", 0) == 0, "%s", status.message().c_str());
    // A refused layer leaves the policy as it was.
    FUZZ_CHECK(policy.rules().size() == shipped->rules().size(), "a refused layer changed the rules");
    return 0;
  }
  for (const clport::DeviceInfo& device : kDevices) {
    const clport::DevicePolicy result = policy.evaluate(device);
    for (const auto& [plugin, written] : result.settings) (void)clport::describe(result.settings_for(plugin));
  }
  return 0;
}
