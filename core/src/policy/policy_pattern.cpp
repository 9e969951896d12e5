#include "policy/policy_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>

namespace clport {
namespace {

// Backtracking steps and nesting depth one match may take: a device string is a few dozen
// characters, which a sensible pattern matches in a few hundred steps.
constexpr uint32_t kMatchLimit = 100000;
constexpr uint32_t kDepthLimit = 1000;

struct CodeFree {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextFree {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};

std::unique_ptr<pcre2_code, CodeFree> compile(const std::string& pattern, std::string* error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_CASELESS,
                                       &code, &offset, nullptr);
  if (compiled == nullptr && error != nullptr) {
    PCRE2_UCHAR text[256];
    if (pcre2_get_error_message(code, text, sizeof text) < 0) {
      *error = "PCRE2 error " + std::to_string(code);
    } else {
      *error = reinterpret_cast<const char*>(text);
    }
    *error += " at offset " + std::to_string(offset);
  }
  return std::unique_ptr<pcre2_code, CodeFree>(compiled);
}

}  // namespace

std::string policy_pattern_error(const std::string& pattern) {
  std::string error;
  compile(pattern, &error);
  return error;
}

bool policy_pattern_matches(const std::string& pattern, const std::string& value) {
  const auto code = compile(pattern, nullptr);
  if (!code) return false;
  std::unique_ptr<pcre2_match_data, MatchDataFree> data(pcre2_match_data_create_from_pattern(code.get(), nullptr));
  std::unique_ptr<pcre2_match_context, MatchContextFree> context(pcre2_match_context_create(nullptr));
  if (!data || !context) return false;
  pcre2_set_match_limit(context.get(), kMatchLimit);
  pcre2_set_depth_limit(context.get(), kDepthLimit);
  const int rc = pcre2_match(code.get(), reinterpret_cast<PCRE2_SPTR>(value.data()), value.size(), 0, 0, data.get(),
                             context.get());
  return rc >= 0;
}

}  // namespace clport
