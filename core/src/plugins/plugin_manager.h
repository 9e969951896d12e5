// Plugin discovery and loading. Plugins are shared libraries exporting CLPORT_PLUGIN_ENTRY_SYMBOL
// (see plugin_abi.h). Search order, first found wins for a given plugin name:
//   1. CLPORT_PLUGIN_PATH: ':'-separated files or directories;
//   2. the policy's plugin_dir;
//   3. <exe dir>/../lib/clport/plugins, then <libclport dir>/clport/plugins.
// Every file that is not loaded leaves a PluginRefusal with the reason (shown by `clport devices`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clport/export.h"
#include "clport_plugin/plugin_abi.h"

namespace clport {

// One loaded plugin library. Instances created from it hold a shared_ptr to it, so the library
// stays mapped for as long as any instance lives.
class CLPORT_API LoadedPlugin {
 public:
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  const clport_plugin& table() const { return *table_; }
  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& path() const { return path_; }
  const std::string& origin() const { return origin_; }  // which search step found it
  uint32_t abi_minor() const { return abi_minor_; }

  struct Library;  // the Boost.DLL handle (kept out of this header)
  LoadedPlugin(std::unique_ptr<Library> library, const clport_plugin* table, std::string path,
               std::string origin);

 private:
  std::unique_ptr<Library> library_;
  const clport_plugin* table_;
  std::string name_, version_, path_, origin_;
  uint32_t abi_minor_;
};

struct PluginRefusal {
  std::string path;
  std::string plugin;  // name when known
  std::string reason;
};

struct PluginSearchOptions {
  std::vector<std::string> paths;  // files or directories searched first (tests, apps)
  bool use_environment = true;     // CLPORT_PLUGIN_PATH
  std::string plugin_dir;          // the policy's plugin_dir
  bool use_default_dirs = true;    // <exe dir>/../lib/clport/plugins and next to libclport
  bool allow_insecure_dirs = false;
};

class CLPORT_API PluginManager {
 public:
  // Never throws; everything that fails becomes a refusal.
  static std::shared_ptr<PluginManager> discover(const PluginSearchOptions& options);

  const std::vector<std::shared_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  const std::vector<PluginRefusal>& refusals() const { return refusals_; }
  const std::vector<std::string>& searched() const { return searched_; }  // "dir (origin)"
  // Binding adds refusals for plugins that throw in probe/create.
  void add_refusal(PluginRefusal refusal);

  // Loads one file (no search); nullptr with *reason set when refused. Exposed for tests.
  static std::shared_ptr<LoadedPlugin> load_file(const std::string& path, const std::string& origin,
                                                 bool allow_insecure_dirs, std::string* reason);

 private:
  std::vector<std::shared_ptr<LoadedPlugin>> plugins_;
  std::vector<PluginRefusal> refusals_;
  std::vector<std::string> searched_;
};

}  // namespace clport
