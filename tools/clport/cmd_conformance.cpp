// `clport conformance --plugin NAME [--device N]`: runs the conformance suite for one plugin on
// one device and prints the table. Exit code 0 when every supported case passed, 1 when a case
// failed, 10 + stage when the run could not start.
#include <iostream>
#include <memory>

#include "clport_devtools/conformance_report.h"
#include "policy/written_settings.h"
#include "command_registry.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct ConformanceArgs {
  conformance::Options options;
  bool hide_unsupported = false;
  std::string settings_file;
};

const RegisterCommand kRegisterConformance{
    {"conformance", "Check one plugin's ops against the CPU reference on one device",
     [](CLI::App& sub) {
       auto args = std::make_shared<ConformanceArgs>();
       sub.add_option("--plugin", args->options.plugin, "plugin name or plugin file")->required();
       sub.add_option("--device", args->options.device_index, "device index (see `clport devices`)")
           ->transform(integer_range(0, kMaxDeviceIndex));
       sub.add_flag("--small", args->options.small, "small shapes only");
       sub.add_flag("--require-all", args->options.require_all,
                    "fail when the plugin does not support a catalogue case");
       sub.add_option("--filter", args->options.filter, "run only cases whose name contains this (or any of \"a|b|...\")");
       sub.add_option("--seed", args->options.seed, "random seed (0: from the clock)")
           ->transform(unsigned_range(0, UINT64_MAX));
       sub.add_option("--precision", args->options.precision, "0 auto, 1 fp32, 2 fp16")
           ->transform(integer_range(0, 2));
       sub.add_flag("--hide-unsupported", args->hide_unsupported, "omit unsupported cases");
       sub.add_flag("--kernels", args->options.record_kernels,
                    "name the kernels each case ran (profiles the queue)");
       sub.add_option("--settings", args->settings_file,
                      "YAML file of plugin settings (e.g. gemv_wg: 128), as a policy would pass them")
           ->check(CLI::ExistingFile);
       return [args]() {
         if (!args->settings_file.empty()) {
           auto settings = read_settings_file(args->settings_file);
           if (!settings.ok()) {
             std::cerr << "clport conformance: " << settings.status().to_string() << "\n";
             return 2;
           }
           args->options.settings = std::move(settings.value());
         }
         auto report = conformance::run(args->options);
         if (!report.ok()) {
           std::cerr << "clport conformance: " << report.status().to_string() << "\n";
           return 10 + static_cast<int>(report.status().stage());
         }
         std::cout << conformance::format_table(report.value(), !args->hide_unsupported);
         return report->ok(args->options.require_all) ? 0 : 1;
       };
     }}};

}  // namespace
}  // namespace clport::cli
