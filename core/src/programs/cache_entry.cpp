#include "programs/cache_entry.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>

#include "programs/program_cache.h"

namespace clport::programs {
namespace {

void put_le(unsigned char* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

Status bad(const std::string& why) { return Status(Stage::Io, "invalid cache entry: " + why); }

}  // namespace

std::vector<unsigned char> encode_entry(const Digest& key, const std::vector<unsigned char>& binary) {
  // Header at fixed offsets (see the layout in programs/program_cache.h), then the binary.
  std::vector<unsigned char> out(kEntryHeaderBytes + binary.size());
  unsigned char* p = out.data();
  std::memcpy(p, kEntryMagic, sizeof(kEntryMagic));
  put_le(p + 8, kProgramCacheFormatVersion, 4);
  put_le(p + 12, 0, 4);
  std::memcpy(p + 16, key.data(), key.size());
  put_le(p + 48, binary.size(), 8);
  const Digest payload = sha256(binary.data(), binary.size());
  std::memcpy(p + 56, payload.data(), payload.size());
  if (!binary.empty()) std::memcpy(p + kEntryHeaderBytes, binary.data(), binary.size());
  return out;
}

Result<std::vector<unsigned char>> decode_entry(const std::vector<unsigned char>& file,
                                                const Digest& key) {
  if (file.size() < kEntryHeaderBytes) {
    return bad("truncated header (" + std::to_string(file.size()) + " bytes)");
  }
  const unsigned char* p = file.data();
  if (std::memcmp(p, kEntryMagic, sizeof(kEntryMagic)) != 0) return bad("bad magic");
  const uint64_t format = get_le(p + 8, 4);
  if (format != kProgramCacheFormatVersion) {
    return bad("format version " + std::to_string(format) + ", expected " +
               std::to_string(kProgramCacheFormatVersion));
  }
  // The layout fixes this field at 0: anything else is a file of another writer.
  if (get_le(p + 12, 4) != 0) return bad("reserved header field is not 0");
  if (std::memcmp(p + 16, key.data(), key.size()) != 0) return bad("entry is for another key");
  const uint64_t size = get_le(p + 48, 8);
  if (size == 0 || size != file.size() - kEntryHeaderBytes) {
    return bad("binary size " + std::to_string(size) + " does not match the file (" +
               std::to_string(file.size() - kEntryHeaderBytes) + " bytes after the header)");
  }
  Digest stored;
  std::memcpy(stored.data(), p + 56, stored.size());
  const Digest actual = sha256(p + kEntryHeaderBytes, size);
  if (stored != actual || actual == Digest{}) return bad("payload SHA-256 mismatch");
  return std::vector<unsigned char>(file.begin() + kEntryHeaderBytes, file.end());
}

ReadOutcome read_whole_file(const std::string& path, std::vector<unsigned char>& out) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return ReadOutcome::Missing;
  // Only regular files: reading a directory (or a FIFO someone planted) must not throw or hang.
  if (!std::filesystem::is_regular_file(status)) return ReadOutcome::Error;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ReadOutcome::Error;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return in.bad() ? ReadOutcome::Error : ReadOutcome::Read;
  } catch (const std::exception&) {
    return ReadOutcome::Error;
  }
}


}  // namespace clport::programs
