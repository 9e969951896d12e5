// GGUF header and key/value metadata parsing.
#include <algorithm>
#include <string>

#include "gguf_parser.h"

namespace clport {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint64_t kHeaderBytes = 4 + 4 + 8 + 8;
// Smallest possible encodings, used to reject counts the file cannot possibly hold before any
// allocation is sized by them.
constexpr uint64_t kMinKvBytes = 8 + 1 + 4 + 1;               // key len, 1-char key, type, u8
constexpr uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;  // name, n_dims, 1 dim, type, offset

bool known_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::Float64); }

}  // namespace

Status GgufParser::fail(const std::string& what, uint64_t offset) const {
  return Status(Stage::Model,
                "GGUF " + source_ + ": " + what + " (at byte offset " + std::to_string(offset) + ")");
}

Status GgufParser::parse() {
  uint64_t n_tensors = 0;
  uint64_t n_kv = 0;
  CLPORT_RETURN_IF_ERROR(parse_header(n_tensors, n_kv));
  CLPORT_RETURN_IF_ERROR(parse_metadata(n_kv));
  CLPORT_RETURN_IF_ERROR(apply_alignment());
  CLPORT_RETURN_IF_ERROR(parse_tensor_infos(n_tensors));
  return place_tensor_data();
}

Status GgufParser::parse_header(uint64_t& n_tensors, uint64_t& n_kv) {
  if (cur_.size() < kHeaderBytes) {
    return fail("file too small for a GGUF header (" + std::to_string(cur_.size()) +
                    " bytes, need at least " + std::to_string(kHeaderBytes) + ")",
                0);
  }
  uint32_t magic = 0;
  uint32_t version = 0;
  (void)cur_.read(magic);
  if (magic != kMagic) return fail("bad magic: not a GGUF file (expected \"GGUF\")", 0);
  (void)cur_.read(version);
  if (version != 2 && version != 3) {
    const uint32_t swapped = __builtin_bswap32(version);
    if (swapped == 2 || swapped == 3) {
      return fail("big-endian GGUF files are not supported", 4);
    }
    return fail("unsupported GGUF version " + std::to_string(version) +
                    " (clport reads versions 2 and 3)",
                4);
  }
  file_.version_ = version;
  (void)cur_.read(n_tensors);
  (void)cur_.read(n_kv);

  // Both counts must fit in what is left even at their smallest encodings.
  uint64_t kv_min = 0;
  uint64_t tensors_min = 0;
  uint64_t total_min = 0;
  if (__builtin_mul_overflow(n_kv, kMinKvBytes, &kv_min) || kv_min > cur_.remaining()) {
    return fail("n_kv " + std::to_string(n_kv) + " is too large for a file of " +
                    std::to_string(cur_.size()) + " bytes",
                16);
  }
  if (__builtin_mul_overflow(n_tensors, kMinTensorInfoBytes, &tensors_min) ||
      __builtin_add_overflow(kv_min, tensors_min, &total_min) || total_min > cur_.remaining()) {
    return fail("n_tensors " + std::to_string(n_tensors) + " is too large for a file of " +
                    std::to_string(cur_.size()) + " bytes",
                8);
  }
  return Status::ok_status();
}

Status GgufParser::parse_string(std::string_view& out, const std::string& what, uint64_t max_len) {
  const uint64_t start = cur_.pos();
  uint64_t len = 0;
  if (!cur_.read(len)) return fail(what + " length runs past the end of the file", start);
  if (len > max_len) {
    return fail(what + " is " + std::to_string(len) + " bytes long (limit " +
                    std::to_string(max_len) + ")",
                start);
  }
  if (!cur_.read_bytes(len, out)) {
    return fail(what + " length " + std::to_string(len) + " runs past the end of the file (" +
                    std::to_string(cur_.remaining()) + " bytes left)",
                start);
  }
  return Status::ok_status();
}

Status GgufParser::parse_metadata(uint64_t n_kv) {
  // n_kv is bounded by the header check; the cap keeps a lying count from reserving much.
  file_.kv_.reserve(static_cast<size_t>(std::min<uint64_t>(n_kv, 1024)));
  for (uint64_t i = 0; i < n_kv; ++i) {
    const uint64_t key_offset = cur_.pos();
    std::string_view key;
    const std::string which = "metadata key #" + std::to_string(i);
    CLPORT_RETURN_IF_ERROR(parse_string(key, which, kGgufMaxKeyLength));
    if (key.empty()) return fail(which + " is empty", key_offset);
    const std::string key_str(key);
    if (file_.kv_index_.count(key) != 0) {
      return fail("duplicate metadata key '" + key_str + "'", key_offset);
    }
    const uint64_t type_offset = cur_.pos();
    uint32_t raw_type = 0;
    if (!cur_.read(raw_type)) {
      return fail("metadata '" + key_str + "': value type runs past the end of the file", type_offset);
    }
    if (!known_type(raw_type)) {
      return fail("metadata '" + key_str + "': unknown value type " + std::to_string(raw_type),
                  type_offset);
    }
    GgufKeyValue kv;
    kv.key = key;
    kv.value.file_offset = type_offset;
    CLPORT_RETURN_IF_ERROR(parse_value(static_cast<GgufType>(raw_type), kv.value, key_str));
    file_.kv_index_.emplace(key, file_.kv_.size());
    file_.kv_.push_back(std::move(kv));
  }
  return Status::ok_status();
}

Status GgufParser::parse_value(GgufType type, GgufValue& out, const std::string& key) {
  out.type = type;
  out.count = 1;
  const uint64_t at = cur_.pos();
  auto truncated = [&]() {
    return fail("metadata '" + key + "': " + std::string(gguf_type_name(type)) +
                    " value runs past the end of the file",
                at);
  };
  bool ok = true;
  switch (type) {
    case GgufType::UInt8: { uint8_t v = 0; ok = cur_.read(v); out.u64 = v; out.i64 = v; break; }
    case GgufType::Int8: { int8_t v = 0; ok = cur_.read(v); out.i64 = v; out.u64 = static_cast<uint64_t>(v); break; }
    case GgufType::UInt16: { uint16_t v = 0; ok = cur_.read(v); out.u64 = v; out.i64 = v; break; }
    case GgufType::Int16: { int16_t v = 0; ok = cur_.read(v); out.i64 = v; out.u64 = static_cast<uint64_t>(v); break; }
    case GgufType::UInt32: { uint32_t v = 0; ok = cur_.read(v); out.u64 = v; out.i64 = v; break; }
    case GgufType::Int32: { int32_t v = 0; ok = cur_.read(v); out.i64 = v; out.u64 = static_cast<uint64_t>(v); break; }
    case GgufType::UInt64: { uint64_t v = 0; ok = cur_.read(v); out.u64 = v; out.i64 = static_cast<int64_t>(v); break; }
    case GgufType::Int64: { int64_t v = 0; ok = cur_.read(v); out.i64 = v; out.u64 = static_cast<uint64_t>(v); break; }
    case GgufType::Float32: { float v = 0; ok = cur_.read(v); out.f64 = v; break; }
    case GgufType::Float64: { double v = 0; ok = cur_.read(v); out.f64 = v; break; }
    case GgufType::Bool: {
      uint8_t v = 0;
      ok = cur_.read(v);
      if (ok && v > 1) {
        return fail("metadata '" + key + "': bool value " + std::to_string(v) + " is not 0 or 1", at);
      }
      out.u64 = v;
      out.i64 = v;
      break;
    }
    case GgufType::String:
      return parse_string(out.str, "metadata '" + key + "': string");
    case GgufType::Array:
      return parse_array(out, key);
  }
  return ok ? Status::ok_status() : truncated();
}

Status GgufParser::parse_array(GgufValue& out, const std::string& key) {
  const uint64_t at = cur_.pos();
  uint32_t raw_type = 0;
  uint64_t count = 0;
  if (!cur_.read(raw_type) || !cur_.read(count)) {
    return fail("metadata '" + key + "': array header runs past the end of the file", at);
  }
  if (raw_type == static_cast<uint32_t>(GgufType::Array)) {
    return fail("metadata '" + key + "': nested arrays are not supported", at);
  }
  if (!known_type(raw_type)) {
    return fail("metadata '" + key + "': unknown array element type " + std::to_string(raw_type), at);
  }
  out.array_type = static_cast<GgufType>(raw_type);
  out.count = count;
  const std::string what = "metadata '" + key + "': array of " + std::to_string(count) + " " +
                           std::string(gguf_type_name(out.array_type));
  if (out.array_type != GgufType::String) {
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, gguf_type_size(out.array_type), &bytes) ||
        bytes > cur_.remaining()) {
      return fail(what + " runs past the end of the file", at);
    }
    out.array_data = cur_.here();
    if (out.array_type == GgufType::Bool) {
      for (uint64_t i = 0; i < count; ++i) {
        if (out.array_data[i] > 1) return fail(what + ": element " + std::to_string(i) + " is not 0 or 1", at);
      }
    }
    (void)cur_.skip(bytes);
    return Status::ok_status();
  }
  // Each string takes at least its 8-byte length, so this bounds the allocation by the file.
  uint64_t min_bytes = 0;
  if (__builtin_mul_overflow(count, uint64_t{8}, &min_bytes) || min_bytes > cur_.remaining()) {
    return fail(what + " runs past the end of the file", at);
  }
  out.strings.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view s;
    CLPORT_RETURN_IF_ERROR(parse_string(s, "metadata '" + key + "': string #" + std::to_string(i)));
    out.strings.push_back(s);
  }
  return Status::ok_status();
}

Status GgufParser::apply_alignment() {
  const GgufValue* v = file_.find("general.alignment");
  if (v == nullptr) return Status::ok_status();
  if (!v->is_integer()) {
    return fail("general.alignment must be an integer, found " + std::string(gguf_type_name(v->type)),
                v->file_offset);
  }
  const bool negative = (v->type == GgufType::Int8 || v->type == GgufType::Int16 ||
                         v->type == GgufType::Int32 || v->type == GgufType::Int64) && v->i64 < 0;
  const uint64_t a = v->u64;
  if (negative || a == 0 || (a & (a - 1)) != 0 || a > kGgufMaxAlignment) {
    return fail("general.alignment " + (negative ? std::to_string(v->i64) : std::to_string(a)) +
                    " is invalid (must be a power of two between 1 and " +
                    std::to_string(kGgufMaxAlignment) + ")",
                v->file_offset);
  }
  file_.alignment_ = static_cast<uint32_t>(a);
  return Status::ok_status();
}

}  // namespace clport
