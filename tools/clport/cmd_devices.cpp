// `clport devices [--json] [--all-libraries]`: every OpenCL library the search tried, and for
// each usable one its platforms and devices with what the probe found and how the classifier
// named them, and first where the cache is (or why it is off). The plugin/binding section per
// device comes from describe_plugins().
#include <iostream>
#include <sstream>

#include "clport/cache_location.h"
#include "clport/device_info.h"
#include "clport/opencl_loader.h"
#include "clport/policy.h"
#include "command_registry.h"
#include "device_report.h"

namespace clport::cli {
namespace {

using nlohmann::json;

const char* kind_id(LibraryKind kind) {
  switch (kind) {
    case LibraryKind::DirectExports: return "direct-exports";
    case LibraryKind::IcdDispatch: return "icd-dispatch";
    case LibraryKind::PixelProtocol: return "pixel-protocol";
  }
  return "?";
}

std::string type_name(cl_device_type type) {
  std::string out;
  auto add = [&](cl_device_type bit, const char* name) {
    if (type & bit) out += (out.empty() ? "" : "|") + std::string(name);
  };
  add(CL_DEVICE_TYPE_GPU, "gpu");
  add(CL_DEVICE_TYPE_CPU, "cpu");
  add(CL_DEVICE_TYPE_ACCELERATOR, "accelerator");
  add(CL_DEVICE_TYPE_CUSTOM, "custom");
  return out.empty() ? "unknown" : out;
}

std::string mib(uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

json device_json(const DeviceInfo& d) {
  return json{{"name", d.name},
              {"vendor", d.vendor},
              {"type", type_name(d.type)},
              {"device_version", d.device_version},
              {"driver_version", d.driver_version},
              {"opencl_c_version", d.opencl_c_version},
              {"platform", {{"name", d.platform_name}, {"vendor", d.platform_vendor},
                            {"version", d.platform_version}}},
              {"family", d.klass.family},
              {"generation", d.klass.generation},
              {"generation_number", d.klass.generation_number},
              {"rule", d.klass.rule},
              {"fp16", d.has_fp16},
              {"fp64", d.has_fp64},
              {"subgroups", d.has_subgroups},
              {"int_dot", d.has_int_dot},
              {"images", d.has_images},
              {"global_mem_bytes", d.global_mem_bytes},
              {"local_mem_bytes", d.local_mem_bytes},
              {"max_alloc_bytes", d.max_alloc_bytes},
              {"compute_units", d.compute_units},
              {"max_work_group_size", d.max_work_group_size},
              {"mem_base_addr_align_bytes", d.mem_base_addr_align_bytes},
              {"clock_mhz", d.clock_mhz},
              {"extensions", d.extensions}};
}

void print_device(const DeviceInfo& d, std::ostream& out) {
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  out << "  device '" << d.name << "' (" << type_name(d.type) << ")\n"
      << "    vendor:         " << d.vendor << "\n"
      << "    platform:       " << d.platform_name << " (" << d.platform_version << ")\n"
      << "    version:        " << d.device_version << "\n"
      << "    driver:         " << d.driver_version << "\n"
      << "    OpenCL C:       " << d.opencl_c_version << "\n"
      << "    family:         " << d.klass.family
      << (d.klass.generation.empty() ? "" : " / " + d.klass.generation)
      << (d.klass.generation_number ? " / " + std::to_string(d.klass.generation_number) : "")
      << "  (rule " << d.klass.rule << ")\n"
      << "    features:       fp16 " << yes(d.has_fp16) << ", fp64 " << yes(d.has_fp64)
      << ", subgroups " << yes(d.has_subgroups) << ", int-dot " << yes(d.has_int_dot)
      << ", images " << yes(d.has_images) << "\n"
      << "    memory:         global " << mib(d.global_mem_bytes) << ", max alloc "
      << mib(d.max_alloc_bytes) << ", local " << d.local_mem_bytes / 1024 << " KiB, align "
      << d.mem_base_addr_align_bytes << " B\n"
      << "    compute:        " << d.compute_units << " units, max work-group "
      << d.max_work_group_size << ", " << d.clock_mhz << " MHz\n"
      << "    extensions:     " << d.extensions.size() << " (--json lists them)\n";
}

int run_devices(bool as_json, bool all_libraries) {
  LoaderOptions options;
  options.stop_at_first_usable = !all_libraries;
  LoadReport report = load_opencl(options);
  json doc{{"libraries_tried", json::array()}, {"libraries", json::array()}};
  std::ostringstream text;

  // The cache the runtime would use (the policy's cache_dir:, CLPORT_CACHE_DIR, XDG, HOME); a
  // policy that does not load is reported with the plugins below.
  auto policy = Policy::load();
  const CacheLocation cache =
      resolve_cache_location({"", policy.ok() ? policy->globals().cache_dir : std::string()});
  doc["cache"] = {{"enabled", cache.enabled()}, {"directory", cache.directory},
                  {"source", cache.source}, {"why_off", cache.why_off}, {"skipped", cache.skipped}};
  text << cache.describe() << "\n\n";

  text << "OpenCL libraries tried:\n";
  for (const auto& a : report.attempts) {
    doc["libraries_tried"].push_back({{"path", a.path}, {"source", a.source},
                                      {"opened", a.opened}, {"resolved_path", a.resolved_path},
                                      {"error", a.error}});
    text << "  " << a.path << " [" << a.source << "]: " << (a.error.empty() ? "usable" : a.error)
         << "\n";
  }
  std::vector<std::shared_ptr<OpenClLibrary>> libraries = report.all_usable;
  if (libraries.empty() && report.library) libraries.push_back(report.library);
  size_t device_count = 0;
  Status last_failure = report.status;
  for (const auto& library : libraries) {
    json lib{{"path", library->path()}, {"kind", kind_id(library->kind())},
             {"missing_optional", library->missing_optional()}, {"devices", json::array()}};
    text << "\nlibrary " << library->path() << " (" << kind_id(library->kind()) << ")\n";
    auto devices = probe_all_devices(library->api());
    if (!devices.ok()) {
      lib["error"] = devices.status().to_string();
      text << "  " << devices.status().to_string() << "\n";
      last_failure = devices.status();
    } else {
      for (const DeviceInfo& d : *devices) {
        json dev = device_json(d);
        print_device(d, text);
        // Plugin scores, policy rules and the per-op binding (device_report_plugins.cpp).
        describe_plugins(library, d, &text, &dev);
        lib["devices"].push_back(std::move(dev));
        ++device_count;
      }
    }
    doc["libraries"].push_back(std::move(lib));
  }
  if (libraries.empty()) text << "\n" << report.status.to_string() << "\n";
  doc["status"] = device_count > 0 ? "ok" : last_failure.to_string();

  if (as_json) {
    // Driver strings are not guaranteed UTF-8: replace bad bytes rather than fail.
    std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    std::cout << text.str();
  }
  if (device_count > 0) return 0;
  return 10 + static_cast<int>(last_failure.ok() ? Stage::NoDevice : last_failure.stage());
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
