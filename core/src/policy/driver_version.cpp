// Driver version strings come in vendor dialects; rules need to compare them, so each dialect is
// reduced to a list of numbers tagged with its scheme. Only same-scheme versions are compared.
// The dialects are data: the `driver_versions` schemes of configs/device_families.yaml.
#include <algorithm>
#include <charconv>
#include <regex>

#include "policy/policy.h"
#include "probe/device_classifier.h"

namespace clport {
namespace {

// The numbers of the capture groups that took part; a group's leading digits (at most 12: no
// overflow), a group without any skipped (a scheme's regex is data and may capture more).
std::vector<int64_t> numbers_of(const std::smatch& m, size_t first) {
  std::vector<int64_t> out;
  for (size_t i = first; i < m.size(); ++i) {
    if (!m[i].matched) continue;
    const std::string text = m[i].str().substr(0, 12);
    int64_t value = 0;
    if (text.empty() || text[0] == '-') continue;
    if (std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc()) out.push_back(value);
  }
  return out;
}

}  // namespace

std::optional<DriverVersion> parse_driver_version(std::string_view driver_string,
                                                  const std::vector<probe::DriverVersionScheme>& schemes) {
  // Bounded input: a hostile driver string should not cost much.
  const std::string s(driver_string.substr(0, 1024));
  std::smatch m;
  for (const auto& scheme : schemes) {
    if (!std::regex_search(s, m, scheme.regex)) continue;
    std::vector<int64_t> parts = numbers_of(m, 1);
    if (!parts.empty()) return DriverVersion{scheme.scheme, std::move(parts), m.str()};
  }
  return std::nullopt;
}

std::optional<DriverVersion> parse_driver_version(std::string_view driver_string) {
  const auto& table = probe::default_family_table();
  if (!table.ok()) return std::nullopt;
  return parse_driver_version(driver_string, table->driver_versions);
}

std::optional<int> compare_driver_versions(const DriverVersion& a, const DriverVersion& b) {
  if (a.scheme != b.scheme) return std::nullopt;
  const size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < n; ++i) {
    // Missing trailing parts count as 0: "r32" == "r32p0".
    const int64_t x = i < a.parts.size() ? a.parts[i] : 0;
    const int64_t y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Fp16: return "fp16";
    case Precision::Auto: break;
  }
  return "auto";
}

}  // namespace clport
