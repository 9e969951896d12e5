// Finds plugin files in search order and loads them; the first plugin of a given name wins, so
// the outcome depends only on the search order and the sorted file names (deterministic).
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/filesystem.hpp>

#include "common/logger.h"
#include "plugins/plugin_manager.h"

namespace clport {
namespace {

namespace fs = boost::filesystem;

struct SearchEntry {
  fs::path path;
  std::string origin;
};

bool looks_like_library(const fs::path& p) {
  const std::string name = p.filename().string();
  return p.extension() == ".so" || p.extension() == ".dylib" || p.extension() == ".dll" ||
         name.find(".so.") != std::string::npos;
}

std::vector<SearchEntry> search_list(const PluginSearchOptions& options) {
  std::vector<SearchEntry> entries;
  for (const auto& p : options.paths) entries.push_back({p, "search path"});
  if (options.use_environment) {
    if (const char* env = std::getenv("CLPORT_PLUGIN_PATH")) {
      std::stringstream list(env);
      std::string item;
      while (std::getline(list, item, ':')) {
        if (!item.empty()) entries.push_back({item, "CLPORT_PLUGIN_PATH"});
      }
    }
  }
  if (!options.plugin_dir.empty()) entries.push_back({options.plugin_dir, "policy plugin_dir"});
  if (options.use_default_dirs) {
    boost::system::error_code ec;
    const fs::path exe = boost::dll::program_location(ec);
    if (!ec) entries.push_back({exe.parent_path().parent_path() / "lib" / "clport" / "plugins", "next to the executable"});
    const fs::path lib = boost::dll::this_line_location(ec);
    if (!ec) entries.push_back({lib.parent_path() / "clport" / "plugins", "next to libclport"});
  }
  return entries;
}

// The files one search entry stands for: itself, or a directory's libraries sorted by name.
std::vector<fs::path> files_of(const fs::path& entry, std::string* note) {
  boost::system::error_code ec;
  if (fs::is_regular_file(entry, ec)) return {entry};
  if (!fs::is_directory(entry, ec)) {
    *note = "missing";
    return {};
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(entry, ec), end; !ec && it != end; it.increment(ec)) {
    if (looks_like_library(it->path())) files.push_back(it->path());
  }
  if (ec) *note = "cannot list: " + ec.message();
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

void PluginManager::add_refusal(PluginRefusal refusal) {
  logger("plugins")->warn("plugin {} ({}) refused: {}", refusal.plugin.empty() ? "?" : refusal.plugin,
                          refusal.path, refusal.reason);
  refusals_.push_back(std::move(refusal));
}

std::shared_ptr<PluginManager> PluginManager::discover(const PluginSearchOptions& options) {
  auto manager = std::make_shared<PluginManager>();
  auto log = logger("plugins");
  std::set<std::string> seen_files;
  for (const auto& entry : search_list(options)) {
    std::string note;
    const auto files = files_of(entry.path, &note);
    manager->searched_.push_back(entry.path.string() + " (" + entry.origin + (note.empty() ? "" : ", " + note) + ")");
    for (const auto& file : files) {
      boost::system::error_code ec;
      const fs::path canonical = fs::canonical(file, ec);
      // The same file reached twice (e.g. plugin_dir is the default dir) is not a conflict.
      if (!seen_files.insert(ec ? file.string() : canonical.string()).second) continue;
      std::string reason;
      std::shared_ptr<LoadedPlugin> plugin;
      try {
        plugin = load_file(file.string(), entry.origin, options.allow_insecure_dirs, &reason);
      } catch (const std::exception& e) {
        reason = std::string("loading threw: ") + e.what();
      } catch (...) {
        reason = "loading threw a non-standard exception";
      }
      if (!plugin) {
        manager->add_refusal({file.string(), "", reason});
        continue;
      }
      auto same = std::find_if(manager->plugins_.begin(), manager->plugins_.end(),
                               [&](const auto& p) { return p->name() == plugin->name(); });
      if (same != manager->plugins_.end()) {
        manager->add_refusal({file.string(), plugin->name(),
                              "duplicate name: plugin '" + plugin->name() + "' already loaded from '" +
                                  (*same)->path() + "' (" + (*same)->origin() +
                                  "), which comes first in the search order"});
        continue;
      }
      log->info("loaded plugin '{}' {} (ABI {}.{}) from {} ({})", plugin->name(), plugin->version(),
                CLPORT_PLUGIN_ABI_MAJOR, plugin->abi_minor(), plugin->path(), plugin->origin());
      manager->plugins_.push_back(std::move(plugin));
    }
  }
  return manager;
}

}  // namespace clport
