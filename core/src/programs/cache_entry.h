// The on-disk program cache entry (layout in programs/program_cache.h). Also used by tests to check
// entries written by other processes.
#pragma once

#include <string>
#include <vector>

#include "clport/status.h"
#include "programs/cache_key.h"

namespace clport::programs {

inline constexpr char kEntryMagic[8] = {'C', 'L', 'P', 'O', 'R', 'T', 'P', 'C'};
inline constexpr size_t kEntryHeaderBytes = 8 + 4 + 4 + 32 + 8 + 32;

std::vector<unsigned char> encode_entry(const Digest& key, const std::vector<unsigned char>& binary);

// The binary inside `file` when it is a whole, intact entry for `key`; otherwise a Status whose
// message says what is wrong (truncated, bad magic, other format, other key, hash mismatch).
Result<std::vector<unsigned char>> decode_entry(const std::vector<unsigned char>& file,
                                                const Digest& key);

enum class ReadOutcome { Missing, Read, Error };
ReadOutcome read_whole_file(const std::string& path, std::vector<unsigned char>& out);

}  // namespace clport::programs
