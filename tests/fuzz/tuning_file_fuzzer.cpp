// libFuzzer target: the per-device tuning file (tuner/tuning_store.h). Any text must either give
// the stored settings of a plugin (every value one plain word) or be refused with a Config status;
// the stored settings are then typed against a plugin's declarations and merged under a policy's
// settings, as a plugin's creation does. Layout: the file's text, then optionally a NUL and the
// policy settings YAML.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "policy/plugin_settings.h"
#include "policy/written_settings.h"
#include "tuner/tuner.h"
#include "tuner/tuning_store.h"

namespace {

const char* const kSwitch[] = {"off", "on", "auto"};
const clport_setting_decl kDecls[] = {
    {"gemv_wg", CLPORT_SETTING_INT, "an INT", 1, 65536, "gemv", nullptr, 0, nullptr, 0},
    {"flag", CLPORT_SETTING_BOOL, "a BOOL", 0, 1, nullptr, nullptr, 0, nullptr, 0},
    {"note", CLPORT_SETTING_TEXT, "a TEXT", 0, 0, nullptr, nullptr, 0, nullptr, 0},
    {"int_dot", CLPORT_SETTING_ENUM, "an ENUM", 0, 2, nullptr, nullptr, 0, kSwitch, 3},
};

clport_plugin table_named(const char* name) {
  clport_plugin t{};
  t.struct_size = sizeof(t);
  t.abi_major = CLPORT_PLUGIN_ABI_MAJOR;
  t.name = name;
  t.settings = kDecls;
  t.n_settings = sizeof(kDecls) / sizeof(kDecls[0]);
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The key the seed files were written for (any 64 hex digits: the reader only compares it).
  static const std::string kKey(64, 'a');
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string text(input.substr(0, nul));
  const std::string policy_yaml = nul == std::string_view::npos ? "" : std::string(input.substr(nul + 1));

  for (const char* plugin : {"generic", "adreno"}) {
    auto entry = clport::tuner::detail::parse_entry(text, "fuzz.json", kKey, plugin);
    if (!entry.ok()) {
      FUZZ_CHECK(entry.status().stage() == clport::Stage::Config, "%s", entry.status().to_string().c_str());
      continue;
    }
    for (const auto& [key, value] : entry.value()) {
      FUZZ_CHECK(!key.empty() && !value.empty() &&
                     value.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") ==
                         std::string::npos,
                 "setting '%s' = '%s' was accepted", key.c_str(), value.c_str());
    }
    const clport_plugin table = table_named(plugin);
    const auto stored = clport::tuner::typed_stored(table, plugin, entry.value(), "fuzz.json");
    auto written = clport::parse_settings_text(policy_yaml, "fuzz.yaml");
    if (!written.ok()) continue;
    auto policy = clport::check_plugin_settings(table, written.value());
    if (policy.ok()) (void)clport::merge_settings(stored, policy.value());
  }
  return 0;
}
