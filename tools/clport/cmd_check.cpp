// `clport check [--library PATH]`: is OpenCL usable here, and if not, why. Loads the library,
// probes the devices, and creates a context and a queue on the first device that allows it.
// Exit 0 and one line naming library, platform and device; otherwise 10 + the failing stage
// (clport/status.h) and the reason on stderr.
#include <algorithm>
#include <iostream>

#include "clport/device_info.h"
#include "clport/opencl_loader.h"
#include "command_registry.h"

namespace clport::cli {
namespace {

int fail(const Status& status) {
  std::cerr << "clport check: " << status.to_string() << "\n";
  return 10 + static_cast<int>(status.stage());
}

const char* kind_name(LibraryKind kind) {
  switch (kind) {
    case LibraryKind::DirectExports: return "direct exports";
    case LibraryKind::IcdDispatch: return "ICD dispatch";
    case LibraryKind::PixelProtocol: return "Pixel protocol";
  }
  return "?";
}

int run_check(const std::string& library_path) {
  LoaderOptions options;
  options.explicit_path = library_path;
  LoadReport report = load_opencl(options);
  if (!report.library) return fail(report.status);
  const clport_cl_api& cl = report.library->api();

  auto devices = probe_all_devices(cl);
  if (!devices.ok()) return fail(devices.status());
  // GPUs first: a machine with a GPU and a CPU runtime should be judged by its GPU.
  std::stable_partition(devices->begin(), devices->end(), [](const DeviceInfo& d) {
    return (d.type & CL_DEVICE_TYPE_GPU) != 0;
  });
  Status first_failure;
  for (const DeviceInfo& device : *devices) {
    Status usable = check_device_usable(cl, device);
    if (usable.ok()) {
      std::cout << "OpenCL usable: library " << report.library->path() << " ("
                << kind_name(report.library->kind()) << "), platform '" << device.platform_name
                << "' (" << device.platform_version << "), device '" << device.name << "' ("
                << device.klass.family
                << (device.klass.generation.empty() ? "" : " " + device.klass.generation)
                << ")\n";
      return 0;
    }
    if (first_failure.ok()) first_failure = usable;
  }
  return fail(first_failure);
}

const RegisterCommand kRegister{
    {"check", "Say whether OpenCL is usable here (exit 0), or which stage fails and why",
     [](CLI::App& sub) {
       auto library = std::make_shared<std::string>();
       sub.add_option("--library", *library,
                      "OpenCL library to use instead of searching (like CLPORT_OPENCL_LIBRARY)");
       return [library]() { return run_check(*library); };
     }}};

}  // namespace
}  // namespace clport::cli
