// clport_conformance: runs the conformance suite for one plugin file on one device and exits
// non-zero when any supported case fails (or, with --require-all, when any case is unsupported).
//   clport_conformance --plugin <file or name> [--device N] [--small] [--require-all]
//                      [--filter TEXT] [--seed N] [--settings FILE] [--require-prepared]
// --require-prepared: also fail when no case ran on a weight the plugin prepared (its own
// layout), so a layout test cannot pass by silently testing the plain path.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "clport_devtools/conformance_report.h"
#include "policy/written_settings.h"

int main(int argc, char** argv) {
  clport::conformance::Options options;
  bool require_prepared = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::cerr << a << " needs " << what << "\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--plugin") options.plugin = value("a plugin file or name");
    else if (a == "--device") options.device_index = std::atoi(value("a device index"));
    else if (a == "--small") options.small = true;
    else if (a == "--require-all") options.require_all = true;
    else if (a == "--require-prepared") require_prepared = true;
    else if (a == "--filter") options.filter = value("a text");
    else if (a == "--seed") options.seed = std::strtoull(value("a number"), nullptr, 10);
    else if (a == "--settings") {
      auto settings = clport::read_settings_file(value("a YAML file of plugin settings"));
      if (!settings.ok()) {
        std::cerr << settings.status().to_string() << "\n";
        return 2;
      }
      options.settings = std::move(settings.value());
    }
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (options.plugin.empty()) {
    std::cerr << "--plugin is required\n";
    return 2;
  }
  auto report = clport::conformance::run(options);
  if (!report.ok()) {
    std::cerr << "conformance could not run: " << report.status().to_string() << "\n";
    return 1;
  }
  std::cout << clport::conformance::format_table(report.value());
  if (options.require_all && report->unsupported > 0)
    std::cout << "FAIL: --require-all and " << report->unsupported << " case(s) unsupported\n";
  int prepared = 0;
  for (const auto& c : report->cases) prepared += c.prepared ? 1 : 0;
  std::cout << prepared << " case(s) ran on prepared weights\n";
  if (require_prepared && prepared == 0) {
    std::cout << "FAIL: --require-prepared and no case ran on a prepared weight\n";
    return 1;
  }
  return report->ok(options.require_all) ? 0 : 1;
}
