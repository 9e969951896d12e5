// Driver version strings come in vendor dialects; rules need to compare them, so each dialect is
// reduced to a list of numbers tagged with its scheme. Only same-scheme versions are compared.
#include <algorithm>
#include <regex>

#include "policy/policy.h"

namespace clport {
namespace {

std::vector<int64_t> numbers_of(const std::smatch& m, size_t first) {
  std::vector<int64_t> out;
  for (size_t i = first; i < m.size(); ++i) {
    if (!m[i].matched) continue;
    const std::string digits = m[i].str().substr(0, 12);  // bounded: no overflow in stoll
    out.push_back(std::stoll(digits));
  }
  return out;
}

}  // namespace

std::optional<DriverVersion> parse_driver_version(std::string_view driver_string) {
  // Bounded input: regexes below are linear, but a hostile driver string should not cost much.
  const std::string s(driver_string.substr(0, 1024));
  std::smatch m;
  // Qualcomm reports the compiler build at the end: "... Compiler E031.42.23.01".
  static const std::regex adreno(R"((?:^|[^A-Za-z0-9])(?:Compiler\s+)?E(\d{1,4})\.(\d{1,4})\.(\d{1,4})\.(\d{1,4}))",
                                 std::regex::icase);
  // Arm: "v1.r32p1-01eac0.5f4..." or plain "r32p1".
  static const std::regex mali(R"((?:^|[^A-Za-z0-9])r(\d{1,4})p(\d{1,4}))", std::regex::icase);
  // Everything else: the first dotted number run ("31.0.101.4502", "550.54.14", "5.0+debian").
  static const std::regex numeric(R"((\d{1,9})(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?)");
  if (std::regex_search(s, m, adreno)) return DriverVersion{"adreno-compiler", numbers_of(m, 1), m.str()};
  if (std::regex_search(s, m, mali)) return DriverVersion{"mali", numbers_of(m, 1), m.str()};
  if (std::regex_search(s, m, numeric)) return DriverVersion{"numeric", numbers_of(m, 1), m.str()};
  return std::nullopt;
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

std::string SourceMark::to_string() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace clport
