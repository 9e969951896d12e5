// Internal: the regular expressions of a policy's match rules (device name, vendor, driver),
// written by users, so compiled by PCRE2 with limits: a pattern that would take unbounded time on a
// device string (nested quantifiers, huge repeat counts) fails or stops its match, never hangs or
// overflows, as std::regex's did under fuzzing.
#pragma once

#include <string>

namespace clport {

// "" when `pattern` compiles (case-insensitive, Perl syntax, as the policy file documents), else
// PCRE2's message with the offset.
std::string policy_pattern_error(const std::string& pattern);

// Whether `pattern` finds a match in `value`; a pattern that does not compile, or a match that
// runs past the limits, is no match.
bool policy_pattern_matches(const std::string& pattern, const std::string& value);

}  // namespace clport
