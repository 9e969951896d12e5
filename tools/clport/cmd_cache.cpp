// `clport cache export FILE` / `clport cache import FILE`: the program cache of the chosen device
// in one file and back (clport/engine.h, program bundles), so an app can ship the programs of the
// devices it knows and a phone's first start builds nothing.
#include <cstdio>
#include <memory>
#include <string>

#include "command_registry.h"
#include "engine_flags.h"
#include "json_output.h"

namespace clport::cli {
namespace {

struct CacheFlags {
  EngineOptions options;
  std::string file;
  bool json = false;
};

void add_device_flags(CLI::App& app, CacheFlags& f) {
  app.add_option("FILE", f.file, "the bundle file")->required();
  app.add_option("--device", f.options.device, "auto (the device `run` would choose) or a device index")
      ->transform(device_choice());
  app.add_option("--config", f.options.config_path, "policy YAML layered on the defaults (else CLPORT_CONFIG)");
  app.add_flag("--json", f.json, "the outcome as one JSON object on stdout");
}

int report(const char* what, const Result<CacheBundleSummary>& r, const CacheFlags& f) {
  if (!r.ok()) {
    if (f.json) print_json({{"ok", false}, {"error", r.status().to_string()}});
    return report_failure(what, r.status());
  }
  const CacheBundleSummary& s = r.value();
  if (f.json) {
    print_json({{"ok", true},
                {"entries", s.entries},
                {"imported", s.imported},
                {"already_present", s.already_present},
                {"skipped", s.skipped},
                {"note", s.note},
                {"cache_directory", s.cache_directory},
                {"device", s.device}});
  } else if (std::string(what) == "cache export") {
    std::fprintf(stderr, "exported %zu cache entries of %s from %s to %s\n", s.entries, s.device.c_str(),
                 s.cache_directory.c_str(), f.file.c_str());
  } else if (s.skipped > 0) {
    std::fprintf(stderr, "skipped all %zu entries: %s\n", s.skipped, s.note.c_str());
  } else {
    std::fprintf(stderr, "imported %zu of %zu entries into %s (%zu were there already) for %s\n", s.imported,
                 s.entries, s.cache_directory.c_str(), s.already_present, s.device.c_str());
  }
  return 0;
}

const RegisterCommand kRegisterCache{
    {"cache", "Export the program cache of a device into one file, or import such a file", [](CLI::App& app) {
       app.require_subcommand(1);
       auto export_flags = std::make_shared<CacheFlags>();
       auto import_flags = std::make_shared<CacheFlags>();
       CLI::App* ex = app.add_subcommand("export", "write the chosen device's cache entries into FILE");
       CLI::App* im = app.add_subcommand("import", "add FILE's entries to the chosen device's cache (checked first)");
       add_device_flags(*ex, *export_flags);
       add_device_flags(*im, *import_flags);
       return [ex, export_flags, import_flags]() {
         if (ex->parsed()) {
           const CacheFlags& f = *export_flags;
           return report("cache export", export_program_bundle(f.options, f.file), f);
         }
         const CacheFlags& f = *import_flags;
         return report("cache import", import_program_bundle(f.options, f.file), f);
       };
     }}};

}  // namespace
}  // namespace clport::cli
