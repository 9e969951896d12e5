#include "programs/cache_entry.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "clport/program_cache.h"

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

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  static thread_local std::mt19937_64 rng(
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::ostringstream out;
  out << ".tmp." << std::hex << rng() << "." << counter.fetch_add(1);
  return out.str();
}

}  // namespace

std::vector<unsigned char> encode_entry(const Digest& key, const std::vector<unsigned char>& binary) {
  // Header at fixed offsets (see the layout in clport/program_cache.h), then the binary.
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

Status write_file_atomically(const std::string& path, const std::vector<unsigned char>& bytes) {
  const std::string temp = path + unique_suffix();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Status(Stage::Io, "cannot create " + temp + ": " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return Status(Stage::Io, "cannot write " + temp + " (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return Status(Stage::Io, "cannot rename " + temp + " to " + path + ": " + ec.message());
  }
  return Status::ok_status();
}

}  // namespace clport::programs
