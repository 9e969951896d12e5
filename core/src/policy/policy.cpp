// Policy layers: shipped defaults + quirks, then the user's file; each validated before it is
// applied (add_layer changes nothing on error).
#include "policy/policy.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/filesystem.hpp>

#include "clport_plugin/embedded_kernel.h"
#include "common/logger.h"
#include "policy/policy_parser.h"

// Generated at build time from configs/{default,quirks}.yaml (core/CMakeLists.txt).
extern const clport::EmbeddedKernel clport_embedded_configs[];

namespace clport {
namespace {

namespace fs = boost::filesystem;

const char* const kShippedFiles[] = {"default.yaml", "quirks.yaml"};

// Where the shipped files live: <lib or exe>/../share/clport when installed, the source tree's
// configs/ when running from a build tree.
std::vector<fs::path> shipped_dirs() {
  std::vector<fs::path> dirs;
  boost::system::error_code ec;
  const fs::path lib = boost::dll::this_line_location(ec);
  if (!ec) dirs.push_back(lib.parent_path().parent_path() / CLPORT_INSTALL_DATADIR / "clport");
  const fs::path exe = boost::dll::program_location(ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / CLPORT_INSTALL_DATADIR / "clport");
  dirs.emplace_back(CLPORT_DEFAULT_CONFIG_DIR);
  return dirs;
}

Result<std::string> read_file(const std::string& path) {
  // A directory opens as a stream that reads nothing: it would pass as an empty policy.
  boost::system::error_code ec;
  if (fs::is_directory(path, ec)) {
    return Status(Stage::Config, "policy file '" + path + "' is a directory; give a YAML file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Config, "cannot open policy file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) return Status(Stage::Io, "cannot read policy file '" + path + "'");
  return text.str();
}

}  // namespace

std::string SourceMark::to_string() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const WrittenSettings& DevicePolicy::settings_for(const std::string& plugin) const {
  static const WrittenSettings kNone;
  auto it = settings.find(plugin);
  return it == settings.end() ? kNone : it->second;
}

Status Policy::add_layer(const std::string& text, const std::string& file_name) {
  policy_detail::PolicyLayer layer;
  CLPORT_RETURN_IF_ERROR(policy_detail::parse_policy_layer(text, file_name, &layer));
  // Validated: apply. A rule id seen again replaces the earlier rule; disable_rules drops them.
  if (layer.plugin_dir) globals_.plugin_dir = *layer.plugin_dir;
  if (layer.allow_insecure_plugin_dirs) globals_.allow_insecure_plugin_dirs = *layer.allow_insecure_plugin_dirs;
  if (layer.log_level) globals_.log_level = *layer.log_level;
  if (layer.opencl_library) globals_.opencl_library = *layer.opencl_library;
  if (layer.cache_dir) globals_.cache_dir = *layer.cache_dir;
  if (layer.precision) globals_.precision = *layer.precision;
  if (layer.self_test) globals_.self_test = *layer.self_test;
  if (layer.device_start) globals_.device_start = *layer.device_start;
  if (layer.tuning) globals_.tuning = *layer.tuning;
  if (layer.cache_type_k) globals_.cache_type_k = *layer.cache_type_k;
  if (layer.cache_type_v) globals_.cache_type_v = *layer.cache_type_v;
  if (layer.memory_limit_bytes) globals_.memory_limit_bytes = *layer.memory_limit_bytes;
  for (auto& [plugin, written] : layer.plugin_settings) {
    // Global plugin settings become an always-matching rule so that later rules merge over them.
    PolicyRule rule;
    rule.id = "plugins." + plugin;
    rule.reason = "settings from the 'plugins' section";
    rule.mark = SourceMark{file_name, 0, 0};
    rule.settings[plugin] = std::move(written);
    layer.rules.insert(layer.rules.begin(), std::move(rule));
  }
  auto drop = [&](const std::string& id) {
    rules_.erase(std::remove_if(rules_.begin(), rules_.end(), [&](const PolicyRule& r) { return r.id == id; }),
                 rules_.end());
  };
  for (const auto& id : layer.disable_rules) drop(id);
  for (auto& rule : layer.rules) {
    drop(rule.id);
    rules_.push_back(std::move(rule));
  }
  layers_.push_back(file_name);
  return Status();
}

Result<Policy> Policy::defaults() {
  Policy policy;
  for (const char* name : kShippedFiles) {
    const EmbeddedKernel* file = find_embedded_kernel(clport_embedded_configs, name);
    if (file == nullptr) return Status(Stage::Internal, std::string("embedded policy file missing: ") + name);
    CLPORT_RETURN_IF_ERROR(policy.add_layer(std::string(file->source, file->size),
                                            std::string("<built-in>/") + name));
  }
  return policy;
}

Result<Policy> Policy::load(const std::string& user_file, bool use_environment) {
  Policy policy;
  const auto dirs = shipped_dirs();
  for (const char* name : kShippedFiles) {
    bool loaded = false;
    for (const auto& dir : dirs) {
      boost::system::error_code ec;
      const fs::path path = dir / name;
      if (!fs::is_regular_file(path, ec)) continue;
      auto text = read_file(path.string());
      if (!text) return text.status();
      // A shipped file that exists but is broken stops start-up: silently using another
      // policy would hide the problem.
      CLPORT_RETURN_IF_ERROR(policy.add_layer(*text, path.string()));
      loaded = true;
      break;
    }
    if (!loaded) {
      const EmbeddedKernel* file = find_embedded_kernel(clport_embedded_configs, name);
      if (file == nullptr) return Status(Stage::Internal, std::string("embedded policy file missing: ") + name);
      logger("policy")->debug("{} not found on disk, using the built-in copy", name);
      CLPORT_RETURN_IF_ERROR(policy.add_layer(std::string(file->source, file->size),
                                              std::string("<built-in>/") + name));
    }
  }
  std::string user = user_file;
  if (user.empty() && use_environment) {
    const char* env = std::getenv("CLPORT_CONFIG");
    if (env != nullptr) user = env;
  }
  if (!user.empty()) {
    auto text = read_file(user);
    if (!text) return text.status();
    CLPORT_RETURN_IF_ERROR(policy.add_layer(*text, user));
  }
  return policy;
}

}  // namespace clport
