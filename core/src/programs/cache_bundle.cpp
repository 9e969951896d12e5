#include "programs/cache_bundle.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/version.h"
#include "common/atomic_file.h"
#include "programs/cache_entry.h"
#include "programs/cache_key.h"

namespace clport::programs {
namespace {

namespace fs = std::filesystem;
constexpr char kBundleMagic[8] = {'C', 'L', 'P', 'O', 'R', 'T', 'B', 'N'};
// A bundle is read whole into memory: refuse what cannot be one (a wrong file, a device image).
constexpr uint64_t kMaxBundleBytes = uint64_t(4) << 30;

bool is_hex64(const std::string& s, size_t from, size_t n) {
  if (s.size() < from + n) return false;
  return std::all_of(s.begin() + from, s.begin() + from + n,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_string(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}

// Reads fields front to back; any read past the end marks the bundle as truncated.
class Reader {
 public:
  Reader(const std::vector<unsigned char>& data, size_t end) : data_(data), end_(end) {}
  bool ok() const { return ok_; }
  uint64_t uint(int bytes) {
    if (!take(bytes)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(data_[pos_ - bytes + i]) << (8 * i);
    return v;
  }
  std::string bytes(uint64_t n) {
    if (n > end_ - pos_ || !take(static_cast<size_t>(n))) {
      ok_ = false;
      return {};
    }
    return std::string(reinterpret_cast<const char*>(data_.data()) + pos_ - n, static_cast<size_t>(n));
  }
  std::string string() { return bytes(uint(4)); }
  size_t position() const { return pos_; }

 private:
  bool take(size_t n) {
    if (!ok_ || n > end_ - pos_) return ok_ = false;
    pos_ += n;
    return true;
  }
  const std::vector<unsigned char>& data_;
  size_t end_;
  size_t pos_ = 0;
  bool ok_ = true;
};

Status corrupt(const std::string& path, const std::string& why) {
  return Status(Stage::Io, "program bundle " + path + " is damaged (" + why + "); nothing was imported");
}

}  // namespace

std::string BundleIdentity::describe() const {
  return "'" + device.device_name + "' (driver " + device.driver_version + ", platform " + device.platform_version +
         ", clport " + clport_version + ")";
}

BundleIdentity bundle_identity(const ProgramCache& cache) { return {cache.identity(), CLPORT_VERSION_STRING}; }

bool is_bundle_entry_name(const std::string& name) {
  if (name.size() == 64 + 6 && is_hex64(name, 0, 64) && name.compare(64, 6, ".clbin") == 0) return true;
  if (name.size() == 9 + 64 + 5 && name.rfind("selftest-", 0) == 0 && is_hex64(name, 9, 64) &&
      name.compare(73, 5, ".json") == 0) {
    return true;
  }
  if (name.rfind("tuning-", 0) == 0 && name.size() > 12 && name.size() < 200 &&
      name.compare(name.size() - 5, 5, ".json") == 0) {
    return std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    }) && name.find("..") == std::string::npos;
  }
  return false;
}

Result<CacheBundleSummary> write_bundle(const std::string& directory, const BundleIdentity& identity,
                                        const std::string& path) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && is_bundle_entry_name(name)) names.push_back(name);
  }
  if (ec) return Status(Stage::Io, "cannot list the cache directory " + directory + ": " + ec.message());
  std::sort(names.begin(), names.end());
  std::string out(kBundleMagic, sizeof(kBundleMagic));
  put_u32(out, kBundleFormatVersion);
  put_u32(out, static_cast<uint32_t>(names.size()));
  for (const std::string* s : {&identity.device.device_name, &identity.device.driver_version,
                               &identity.device.platform_version, &identity.clport_version}) {
    put_string(out, *s);
  }
  for (const auto& name : names) {
    std::vector<unsigned char> bytes;
    if (read_whole_file(directory + "/" + name, bytes) != ReadOutcome::Read) {
      return Status(Stage::Io, "cannot read the cache entry " + directory + "/" + name);
    }
    put_string(out, name);
    put_u64(out, bytes.size());
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  const Digest hash = sha256(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(hash.data()), hash.size());
  CLPORT_RETURN_IF_ERROR(write_file_atomically(path, out));
  CacheBundleSummary summary;
  summary.entries = names.size();
  summary.cache_directory = directory;
  summary.device = identity.describe();
  return summary;
}

Result<CacheBundleSummary> read_bundle(const std::string& path, const BundleIdentity& here,
                                       const std::string& directory) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return Status(Stage::Io, "cannot read the program bundle " + path + ": " + ec.message());
  if (size > kMaxBundleBytes) return corrupt(path, "larger than 4 GiB");
  std::vector<unsigned char> data;
  if (read_whole_file(path, data) != ReadOutcome::Read) return Status(Stage::Io, "cannot read the program bundle " + path);
  if (data.size() < sizeof(kBundleMagic) + 8 + 32) return corrupt(path, "too short to be a bundle");
  if (std::memcmp(data.data(), kBundleMagic, sizeof(kBundleMagic)) != 0) return corrupt(path, "not a clport program bundle");
  const size_t body = data.size() - 32;
  const Digest hash = sha256(data.data(), body);
  if (std::memcmp(hash.data(), data.data() + body, 32) != 0) return corrupt(path, "its checksum does not match: truncated or altered");

  Reader r(data, body);
  (void)r.bytes(sizeof(kBundleMagic));
  const uint32_t version = static_cast<uint32_t>(r.uint(4));
  if (version != kBundleFormatVersion) {
    return Status(Stage::Io, "program bundle " + path + " has format " + std::to_string(version) + "; this clport reads " +
                                 std::to_string(kBundleFormatVersion));
  }
  const uint64_t count = r.uint(4);
  BundleIdentity made_for;
  made_for.device.device_name = r.string();
  made_for.device.driver_version = r.string();
  made_for.device.platform_version = r.string();
  made_for.clport_version = r.string();
  struct Entry {
    std::string name, bytes;
  };
  std::vector<Entry> entries;
  for (uint64_t i = 0; i < count && r.ok(); ++i) {
    Entry e;
    e.name = r.string();
    e.bytes = r.bytes(r.uint(8));
    if (r.ok() && !is_bundle_entry_name(e.name)) return corrupt(path, "an entry is named '" + e.name + "'");
    entries.push_back(std::move(e));
  }
  if (!r.ok()) return corrupt(path, "it ends inside an entry");
  if (r.position() != body) return corrupt(path, "bytes follow the last entry");

  CacheBundleSummary summary;
  summary.entries = entries.size();
  summary.cache_directory = directory;
  summary.device = here.describe();
  if (!(made_for == here)) {
    summary.skipped = entries.size();
    summary.note = "the bundle was made for " + made_for.describe() + "; this device is " + here.describe() +
                   ": its programs would not load here, so none was imported";
    return summary;
  }
  // Program entries as the cache will read them: whole, for their key, with a matching hash.
  for (const auto& e : entries) {
    if (e.name.size() != 70 || e.name.compare(64, 6, ".clbin") != 0) continue;
    Digest key{};
    for (size_t i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(std::stoi(e.name.substr(2 * i, 2), nullptr, 16));
    const std::vector<unsigned char> file(e.bytes.begin(), e.bytes.end());
    auto decoded = decode_entry(file, key);
    if (!decoded.ok()) return corrupt(path, "entry " + e.name + ": " + decoded.status().message());
  }
  for (const auto& e : entries) {
    const std::string target = directory + "/" + e.name;
    if (fs::exists(target, ec)) {
      ++summary.already_present;
      continue;
    }
    CLPORT_RETURN_IF_ERROR(write_file_atomically(target, e.bytes));
    ++summary.imported;
  }
  return summary;
}

}  // namespace clport::programs
