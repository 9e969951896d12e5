#include "option_ranges.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace clport::cli {
namespace {

std::string in_quotes(const std::string& value) { return "'" + value + "'"; }

template <typename T>
std::string integer_range_text(T min, T max) {
  return std::to_string(min) + " to " + std::to_string(max);
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Parses all of `text` as a decimal T; false on anything else (sign where T has none, spaces,
// trailing characters, hex, overflow).
template <typename T>
bool parse_whole(const std::string& text, T* value, bool* overflow) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;  // "+5" is as plain as "5"
  const auto [stop, error] = std::from_chars(begin, end, *value, 10);
  *overflow = error == std::errc::result_out_of_range;
  return error == std::errc() && stop == end && begin != end;
}

template <typename T>
CLI::Validator whole_number_range(T min, T max, bool zero_too = false) {
  const std::string range = (zero_too ? "0 or " : "") + integer_range_text(min, max);
  return CLI::Validator(
      [min, max, range, zero_too](std::string& text) -> std::string {
        T value{};
        bool overflow = false;
        if (!parse_whole(text, &value, &overflow)) {
          if (overflow) return in_quotes(text) + " is outside the allowed range " + range;
          return in_quotes(text) + " is not a whole number; allowed: " + range;
        }
        if ((value < min || value > max) && !(zero_too && value == 0)) {
          return in_quotes(text) + " is outside the allowed range " + range;
        }
        text = std::to_string(value);
        return std::string();
      },
      range);
}

}  // namespace

CLI::Validator integer_range(int64_t min, int64_t max) { return whole_number_range(min, max); }

CLI::Validator zero_or_integer_range(int64_t min, int64_t max) {
  return whole_number_range(min, max, /*zero_too=*/true);
}

CLI::Validator unsigned_range(uint64_t min, uint64_t max) { return whole_number_range(min, max); }

CLI::Validator number_range(double min, double max, bool min_exclusive) {
  const std::string range = min_exclusive
                                ? "greater than " + number_text(min) + ", up to " + number_text(max)
                                : number_text(min) + " to " + number_text(max);
  return CLI::Validator(
      [min, max, min_exclusive, range](std::string& text) -> std::string {
        char* stop = nullptr;
        const double value = text.empty() ? NAN : std::strtod(text.c_str(), &stop);
        if (text.empty() || stop != text.c_str() + text.size() || !std::isfinite(value)) {
          return in_quotes(text) + " is not a finite number; allowed: " + range;
        }
        const bool below = min_exclusive ? !(value > min) : value < min;
        if (below || value > max) return in_quotes(text) + " is outside the allowed range " + range;
        return std::string();
      },
      range);
}

CLI::Validator device_choice(bool allow_cpu) {
  const std::string allowed = std::string(allow_cpu ? "auto, cpu, " : "auto ") +
                              "or a device index 0 to " + std::to_string(kMaxDeviceIndex);
  const CLI::Validator index = integer_range(0, kMaxDeviceIndex);
  return CLI::Validator(
      [allowed, index, allow_cpu](std::string& text) -> std::string {
        if (text == "auto" || (allow_cpu && text == "cpu")) return std::string();
        std::string copy = text;
        if (!index(copy).empty()) return in_quotes(text) + " is not a device; allowed: " + allowed;
        text = copy;
        return std::string();
      },
      allowed);
}

}  // namespace clport::cli
