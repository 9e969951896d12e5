// Loads one plugin file and checks its table. Every failure is a reason string, never a crash:
// the file is checked for safe permissions before dlopen runs any of its code, the entry call
// is guarded, and the table is validated field by field against what this core understands.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdio>

#include <boost/dll/shared_library.hpp>
#include <boost/filesystem.hpp>

#include "clport/log.h"
#include "plugins/plugin_manager.h"
#include "plugins/elf_check.h"
#include "policy/plugin_settings.h"
#include "policy/policy_parser.h"

namespace clport {

struct LoadedPlugin::Library {
  boost::dll::shared_library handle;
};

namespace {

namespace fs = boost::filesystem;

// The v1.0 table ends with release_error: anything shorter lacks functions the core calls.
constexpr size_t kHeaderSize = offsetof(clport_plugin, version) + sizeof(const char*);
constexpr size_t kMinimumTableSize = offsetof(clport_plugin, release_error) + sizeof(void*);

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Someone who can write the directory can swap the library for their own code, which would
// then run inside this process; same for a writable file.
std::string insecure_reason(const fs::path& file) {
  struct stat st {};
  const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (::stat(dir.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "directory '" + dir.string() + "' is group- or world-writable (mode " +
           octal_mode(st.st_mode) + "): another user could replace the plugin; fix the permissions "
           "or set allow_insecure_plugin_dirs: true in the policy";
  }
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "file is group- or world-writable (mode " + octal_mode(st.st_mode) +
           "): fix the permissions or set allow_insecure_plugin_dirs: true in the policy";
  }
  return "";
}

// Boost.DLL clears dlerror(); ask the dynamic loader once more for its own words.
std::string dlopen_message(const fs::path& file) {
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) {
    ::dlclose(handle);
    return "the dynamic loader refused it";
  }
  const char* message = ::dlerror();
  return message != nullptr ? message : "unknown dlopen error";
}

// The settings declarations must be usable by the host's checks and the tuner.
std::string settings_problem(const clport_plugin& t) {
  if (t.n_settings > 0 && t.settings == nullptr) return "table declares " + std::to_string(t.n_settings) + " settings but no array";
  for (size_t i = 0; i < t.n_settings; ++i) {
    const clport_setting_decl& d = t.settings[i];
    const std::string which = "setting " + std::to_string(i) + (d.name != nullptr ? " '" + std::string(d.name) + "'" : "");
    if (d.name == nullptr || *d.name == '\0') return which + " has no name";
    if (d.type != CLPORT_SETTING_BOOL && d.type != CLPORT_SETTING_INT && d.type != CLPORT_SETTING_TEXT &&
        d.type != CLPORT_SETTING_ENUM)
      return which + " has an unknown type " + std::to_string(d.type);
    if (d.type == CLPORT_SETTING_INT && d.min_value > d.max_value) return which + " has an empty range";
    if (d.type == CLPORT_SETTING_ENUM) {
      if (d.n_values == 0 || d.value_names == nullptr) return which + " is an enum without value names";
      for (size_t j = 0; j < d.n_values; ++j) {
        if (d.value_names[j] == nullptr || *d.value_names[j] == '\0') return which + " has an empty value name";
        for (size_t k = 0; k < j; ++k) {
          if (std::string(d.value_names[j]) == d.value_names[k])
            return which + " names the value '" + d.value_names[j] + "' twice";
        }
      }
    }
    if (d.n_candidates > 0 && d.candidates == nullptr) return which + " declares candidates but no array";
    for (size_t j = 0; j < d.n_candidates; ++j) {
      if (auto c = candidate_setting(d, d.candidates[j]); !c.ok()) return which + ": " + c.status().message();
    }
    for (size_t j = 0; j < i; ++j) {
      if (std::string(d.name) == t.settings[j].name) return which + " is declared twice";
    }
  }
  return "";
}

std::string table_problem(const clport_plugin* t) {
  if (t == nullptr) return "entry symbol returned no table";
  if (t->struct_size < kHeaderSize) {
    return "table struct_size " + std::to_string(t->struct_size) + " is smaller than the header (" +
           std::to_string(kHeaderSize) + " bytes)";
  }
  if (t->abi_major != CLPORT_PLUGIN_ABI_MAJOR) {
    return "plugin ABI " + std::to_string(t->abi_major) + "." + std::to_string(t->abi_minor) +
           ", this clport speaks ABI " + std::to_string(CLPORT_PLUGIN_ABI_MAJOR) + "." +
           std::to_string(CLPORT_PLUGIN_ABI_MINOR) + " (major versions must match)";
  }
  if (t->struct_size < kMinimumTableSize) {
    return "table struct_size " + std::to_string(t->struct_size) + " is too small for ABI " +
           std::to_string(CLPORT_PLUGIN_ABI_MAJOR) + " (needs at least " +
           std::to_string(kMinimumTableSize) + " bytes)";
  }
  if (t->name == nullptr || !policy_detail::valid_plugin_name(t->name)) {
    return "table has no valid name (lower case letters, digits, '_' or '-')";
  }
  struct Required {
    const void* fn;
    const char* name;
  } required[] = {
      {reinterpret_cast<const void*>(t->probe), "probe"},
      {reinterpret_cast<const void*>(t->create), "create"},
      {reinterpret_cast<const void*>(t->destroy), "destroy"},
      {reinterpret_cast<const void*>(t->claim_op), "claim_op"},
      {reinterpret_cast<const void*>(t->prepare_launch), "prepare_launch"},
      {reinterpret_cast<const void*>(t->enqueue_launch), "enqueue_launch"},
      {reinterpret_cast<const void*>(t->release_launch), "release_launch"},
      {reinterpret_cast<const void*>(t->error_code), "error_code"},
      {reinterpret_cast<const void*>(t->error_message), "error_message"},
      {reinterpret_cast<const void*>(t->release_error), "release_error"},
  };
  for (const auto& r : required) {
    if (r.fn == nullptr) return std::string("table has no '") + r.name + "' function";
  }
  if ((t->prepare_weight == nullptr) != (t->release_layout == nullptr)) {
    return "table has prepare_weight without release_layout (or the reverse)";
  }
  return settings_problem(*t);
}

}  // namespace

LoadedPlugin::LoadedPlugin(std::unique_ptr<Library> library, const clport_plugin* table,
                           std::string path, std::string origin)
    : library_(std::move(library)),
      table_(table),
      name_(table->name),
      version_(table->version != nullptr ? table->version : ""),
      path_(std::move(path)),
      origin_(std::move(origin)),
      abi_minor_(table->abi_minor) {}

LoadedPlugin::~LoadedPlugin() = default;

std::shared_ptr<LoadedPlugin> PluginManager::load_file(const std::string& path_text,
                                                       const std::string& origin,
                                                       bool allow_insecure_dirs, std::string* reason) {
  const fs::path path(path_text);
  boost::system::error_code fs_error;
  if (!fs::is_regular_file(path, fs_error)) {
    *reason = "not a regular file";
    return nullptr;
  }
  if (!allow_insecure_dirs) {
    *reason = insecure_reason(path);
    if (!reason->empty()) return nullptr;
  }
  // Before dlopen, which would map (and run constructors of) a damaged file.
  *reason = plugin_detail::elf_truncation_problem(path_text);
  if (!reason->empty()) return nullptr;
  auto library = std::make_unique<LoadedPlugin::Library>();
  boost::system::error_code ec;
  // Immediate binding: a plugin that needs a missing symbol fails here, not mid-inference.
  library->handle.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec || !library->handle.is_loaded()) {
    *reason = "cannot load the library (truncated, corrupt or missing a dependency): " + dlopen_message(path);
    return nullptr;
  }
  if (!library->handle.has(CLPORT_PLUGIN_ENTRY_SYMBOL)) {
    *reason = std::string("not a clport plugin: no '") + CLPORT_PLUGIN_ENTRY_SYMBOL + "' symbol";
    return nullptr;
  }
  const clport_plugin* table = nullptr;
  try {
    auto& entry = library->handle.get<const clport_plugin*()>(CLPORT_PLUGIN_ENTRY_SYMBOL);
    table = entry();
  } catch (const std::exception& e) {
    *reason = std::string("entry symbol threw: ") + e.what();
    return nullptr;
  } catch (...) {
    *reason = "entry symbol threw a non-standard exception";
    return nullptr;
  }
  *reason = table_problem(table);
  if (!reason->empty()) return nullptr;
  return std::make_shared<LoadedPlugin>(std::move(library), table, path_text, origin);
}

}  // namespace clport
