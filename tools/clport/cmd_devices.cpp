// `clport devices [--json] [--all-libraries]`: every OpenCL library the search tried, and for
// each usable one its platforms and devices with what the probe found, how the classifier named
// them, the plugins' scores and the per-op binding. The report is the core's (report/report.h),
// the same document the C API's clport_runtime_report_json returns.
#include <iostream>

#include "report/report.h"
#include "command_registry.h"

namespace clport::cli {
namespace {

int run_devices(bool as_json, bool all_libraries) {
  DevicesReportOptions options;
  options.all_libraries = all_libraries;
  const DevicesReport report = devices_report(options);
  std::cout << (as_json ? report.json + "\n" : report.text);
  if (report.device_count > 0) return 0;
  return 10 + static_cast<int>(report.failure.ok() ? Stage::NoDevice : report.failure.stage());
}

const RegisterCommand kRegisterDevices{
    {"devices", "List OpenCL libraries, platforms and devices, and how clport classifies them",
     [](CLI::App& sub) {
       auto as_json = std::make_shared<bool>(false);
       auto all = std::make_shared<bool>(false);
       sub.add_flag("--json", *as_json, "Machine-readable output");
       sub.add_flag("--all-libraries", *all,
                    "Open every library the search finds, not only the first usable one");
       return [as_json, all]() { return run_devices(*as_json, *all); };
     }}};

}  // namespace
}  // namespace clport::cli
