// Allowed ranges for the numeric command-line options. CLI11's own Range lets NaN through and
// its message does not say what is allowed, so every numeric option goes through these instead:
// they refuse what is not a plain number, NaN, infinities and values outside the range, and
// CLI11 puts the option's name in front of the message:
//   --temp: 'nan' is not a finite number; allowed: 0 to 100
// Attach them with ->transform(), not ->check(): integers are handed on to CLI11 rewritten as
// the decimal value that was checked (CLI11 itself would read "010" as octal 8).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace clport::cli {

// Limits shared by several commands, so the same flag allows the same values everywhere.
inline constexpr int64_t kMaxTokens = 1 << 20;        // -c, -n, prompt / generation lengths
inline constexpr int64_t kMaxBatch = 8192;            // -b: prompt tokens per forward step
inline constexpr int64_t kMaxThreads = 1024;          // -t
inline constexpr int64_t kMaxDeviceIndex = 1023;      // --device N

// Whole numbers from min to max (decimal).
CLI::Validator integer_range(int64_t min, int64_t max);
// 0 (a default: "the model's own", "off") or a whole number from min to max.
CLI::Validator zero_or_integer_range(int64_t min, int64_t max);
// The same for unsigned 64-bit options (seeds), whose top half int64_t cannot hold.
CLI::Validator unsigned_range(uint64_t min, uint64_t max);
// Finite numbers from min to max; with min_exclusive, strictly greater than min.
CLI::Validator number_range(double min, double max, bool min_exclusive = false);
// A device choice as the engine reads it: "auto", "cpu" (when allow_cpu) or an index
// 0..kMaxDeviceIndex (anything else would silently mean "auto").
CLI::Validator device_choice(bool allow_cpu = true);

}  // namespace clport::cli
