// libFuzzer target: the per-device tuning file (tuner/tuning_store.h). Any text must either give
// the stored settings of a plugin (every value a decimal number) or be refused with a Config
// status; the stored settings are then merged under a policy settings text, as a plugin's
// creation does. Layout: the file's text, then optionally a NUL and the policy settings YAML.
#include <cstdint>
#include <string>
#include <string_view>

#include "tuner/tuner.h"
#include "fuzz_check.h"
#include "tuner/tuning_store.h"

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
      FUZZ_CHECK(!key.empty() && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos,
                 "setting '%s' = '%s' was accepted", key.c_str(), value.c_str());
    }
    (void)clport::tuner::merge_settings(entry.value(), policy_yaml);
  }
  return 0;
}
