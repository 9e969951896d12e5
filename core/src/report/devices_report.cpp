// devices_report (report.h): every OpenCL library the search tried, and for each usable one its
// platforms and devices with what the probe found and how the classifier named them. The
// plugin/binding section per device comes from describe_plugins() (plugins_report.cpp).
#include <sstream>

#include <nlohmann/json.hpp>

#include "programs/cache_location.h"
#include "probe/device_info.h"
#include "loader/opencl_loader.h"
#include "plugins/plugin_manager.h"
#include "policy/policy.h"
#include "report/report.h"
#include "report/plugins_report.h"

namespace clport {
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

DevicesReport build(const DevicesReportOptions& options, const Result<Policy>& policy) {
  DevicesReport out;
  LoaderOptions loader;
  loader.stop_at_first_usable = !options.all_libraries;
  loader.explicit_path = options.opencl_library;
  LoadReport report = load_opencl(loader);
  json doc{{"libraries_tried", json::array()}, {"libraries", json::array()}};
  std::ostringstream text;

  // The cache the runtime would use (the application's directory, the policy's cache_dir:,
  // CLPORT_CACHE_DIR, XDG, HOME); a policy that does not load is reported with the plugins.
  const CacheLocation cache = resolve_cache_location(
      {options.cache_dir, policy.ok() ? policy->globals().cache_dir : std::string()});
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
  // One discovery per report: every device is judged against the same set of plugin files.
  std::shared_ptr<PluginManager> manager;
  if (policy.ok() && !libraries.empty()) {
    PluginSearchOptions search;
    search.plugin_dir = policy->globals().plugin_dir;
    search.allow_insecure_dirs = policy->globals().allow_insecure_plugin_dirs;
    manager = PluginManager::discover(search);
  }
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
        if (policy.ok()) {
          report::describe_plugins(library, d, policy.value(), *manager, options.cache_dir, &text, &dev);
        } else {
          text << "  plugins:          policy error: " << policy.status().to_string() << "\n";
          dev["plugins_error"] = policy.status().to_string();
        }
        lib["devices"].push_back(std::move(dev));
        ++out.device_count;
      }
    }
    doc["libraries"].push_back(std::move(lib));
  }
  if (libraries.empty()) text << "\n" << report.status.to_string() << "\n";
  doc["status"] = out.device_count > 0 ? "ok" : last_failure.to_string();
  if (out.device_count == 0) out.failure = last_failure.ok() ? Status(Stage::NoDevice, "no OpenCL device") : last_failure;
  // Driver strings are not guaranteed UTF-8: replace bad bytes rather than fail.
  out.json = doc.dump(2, ' ', false, json::error_handler_t::replace);
  out.text = text.str();
  return out;
}

}  // namespace

DevicesReport devices_report(const DevicesReportOptions& options) {
  try {
    if (options.policy != nullptr) return build(options, *options.policy);
    return build(options, Policy::load());
  } catch (const std::exception& e) {
    DevicesReport failed;
    failed.failure = Status(Stage::Internal, std::string("devices report: ") + e.what());
    failed.text = failed.failure.to_string() + "\n";
    failed.json = json{{"status", failed.failure.to_string()}}.dump(2);
    return failed;
  }
}

}  // namespace clport
