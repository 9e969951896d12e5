// GgufWriter: encodes metadata as it is set, lays tensors out with the file's alignment, and
// writes through a temporary file + rename so that a crash never leaves a half-written model.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "checked_sizes.h"
#include "gguf/gguf.h"

namespace clport {

namespace {

template <typename T>
void append(std::vector<uint8_t>& out, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

void append_string(std::vector<uint8_t>& out, std::string_view s) {
  append<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

std::vector<uint8_t> tagged(GgufType type) {
  std::vector<uint8_t> out;
  append<uint32_t>(out, static_cast<uint32_t>(type));
  return out;
}

template <typename T>
std::vector<uint8_t> scalar(GgufType type, T v) {
  auto out = tagged(type);
  append(out, v);
  return out;
}

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// Where emitted bytes go: a vector (to_bytes) or a FILE (write).
struct VectorSink {
  std::vector<uint8_t>& out;
  Status put(const void* p, uint64_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
    return Status::ok_status();
  }
};

struct FileSink {
  std::FILE* f;
  const std::string& path;
  Status put(const void* p, uint64_t n) {
    if (n > 0 && std::fwrite(p, 1, static_cast<size_t>(n), f) != n) {
      return Status(Stage::Io, "writing '" + path + "' failed: " + std::strerror(errno));
    }
    return Status::ok_status();
  }
};

}  // namespace

GgufWriter::GgufWriter(uint32_t version) : version_(version) {}

void GgufWriter::put(const std::string& key, std::vector<uint8_t> encoded) {
  for (auto& e : entries_) {
    if (e.key == key) {
      e.encoded = std::move(encoded);
      return;
    }
  }
  entries_.push_back({key, std::move(encoded)});
}

bool GgufWriter::remove(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

void GgufWriter::set_u8(const std::string& k, uint8_t v) { put(k, scalar(GgufType::UInt8, v)); }
void GgufWriter::set_i8(const std::string& k, int8_t v) { put(k, scalar(GgufType::Int8, v)); }
void GgufWriter::set_u16(const std::string& k, uint16_t v) { put(k, scalar(GgufType::UInt16, v)); }
void GgufWriter::set_i16(const std::string& k, int16_t v) { put(k, scalar(GgufType::Int16, v)); }
void GgufWriter::set_u32(const std::string& k, uint32_t v) { put(k, scalar(GgufType::UInt32, v)); }
void GgufWriter::set_i32(const std::string& k, int32_t v) { put(k, scalar(GgufType::Int32, v)); }
void GgufWriter::set_u64(const std::string& k, uint64_t v) { put(k, scalar(GgufType::UInt64, v)); }
void GgufWriter::set_i64(const std::string& k, int64_t v) { put(k, scalar(GgufType::Int64, v)); }
void GgufWriter::set_f32(const std::string& k, float v) { put(k, scalar(GgufType::Float32, v)); }
void GgufWriter::set_f64(const std::string& k, double v) { put(k, scalar(GgufType::Float64, v)); }
void GgufWriter::set_bool(const std::string& k, bool v) {
  put(k, scalar<uint8_t>(GgufType::Bool, v ? 1 : 0));
}
void GgufWriter::set_string(const std::string& k, std::string_view v) {
  auto out = tagged(GgufType::String);
  append_string(out, v);
  put(k, std::move(out));
}

void GgufWriter::set_array(const std::string& key, GgufType type, const void* data, uint64_t count) {
  auto out = tagged(GgufType::Array);
  append<uint32_t>(out, static_cast<uint32_t>(type));
  append<uint64_t>(out, count);
  const auto* p = static_cast<const uint8_t*>(data);
  if (count > 0 && p != nullptr) out.insert(out.end(), p, p + count * gguf_type_size(type));
  put(key, std::move(out));
}

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string_view>& v) {
  auto out = tagged(GgufType::Array);
  append<uint32_t>(out, static_cast<uint32_t>(GgufType::String));
  append<uint64_t>(out, v.size());
  for (auto s : v) append_string(out, s);
  put(key, std::move(out));
}

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string>& v) {
  set_string_array(key, std::vector<std::string_view>(v.begin(), v.end()));
}
void GgufWriter::set_f32_array(const std::string& key, const std::vector<float>& v) {
  set_array(key, GgufType::Float32, v.data(), v.size());
}
void GgufWriter::set_i32_array(const std::string& key, const std::vector<int32_t>& v) {
  set_array(key, GgufType::Int32, v.data(), v.size());
}

void GgufWriter::set_value(const std::string& key, const GgufValue& v) {
  switch (v.type) {
    case GgufType::UInt8: set_u8(key, static_cast<uint8_t>(v.u64)); break;
    case GgufType::Int8: set_i8(key, static_cast<int8_t>(v.i64)); break;
    case GgufType::UInt16: set_u16(key, static_cast<uint16_t>(v.u64)); break;
    case GgufType::Int16: set_i16(key, static_cast<int16_t>(v.i64)); break;
    case GgufType::UInt32: set_u32(key, static_cast<uint32_t>(v.u64)); break;
    case GgufType::Int32: set_i32(key, static_cast<int32_t>(v.i64)); break;
    case GgufType::UInt64: set_u64(key, v.u64); break;
    case GgufType::Int64: set_i64(key, v.i64); break;
    case GgufType::Float32: set_f32(key, static_cast<float>(v.f64)); break;
    case GgufType::Float64: set_f64(key, v.f64); break;
    case GgufType::Bool: set_bool(key, v.u64 != 0); break;
    case GgufType::String: set_string(key, v.str); break;
    case GgufType::Array:
      if (v.array_type == GgufType::String) {
        set_string_array(key, v.strings);
      } else {
        set_array(key, v.array_type, v.array_data, v.count);
      }
      break;
  }
}

Status GgufWriter::check_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& ne,
                                uint64_t bytes) const {
  auto bad = [&](const std::string& what) {
    return Status(Stage::InvalidArgument, "GGUF writer: tensor '" + name + "': " + what);
  };
  if (name.empty() || name.size() > kGgufMaxTensorNameLength) return bad("name is empty or too long");
  for (const auto& t : tensors_) {
    if (t.name == name) return bad("added twice");
  }
  if (ne.empty() || ne.size() > static_cast<size_t>(kGgufMaxDims)) return bad("needs 1..4 dimensions");
  int64_t rows = 1;
  for (size_t i = 1; i < ne.size(); ++i) {
    if (ne[i] <= 0 || __builtin_mul_overflow(rows, ne[i], &rows)) return bad("bad dimension");
  }
  if (ne[0] <= 0) return bad("bad dimension");
  int64_t row = 0;
  const auto row_check = gguf_detail::checked_row_bytes(dtype, ne[0], row);
  if (row_check == gguf_detail::RowCheck::NotBlockMultiple) {
    return bad("row length is not a multiple of the block size");
  }
  int64_t expected = 0;
  if (row_check == gguf_detail::RowCheck::Overflow || __builtin_mul_overflow(row, rows, &expected)) {
    return bad("size overflows");
  }
  if (static_cast<uint64_t>(expected) != bytes) {
    return bad("has " + std::to_string(bytes) + " bytes of data, its shape needs " +
               std::to_string(expected));
  }
  return Status::ok_status();
}

Status GgufWriter::add_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& ne,
                              std::vector<uint8_t> data) {
  CLPORT_RETURN_IF_ERROR(check_tensor(name, dtype, ne, data.size()));
  Tensor t{name, dtype, ne, std::move(data), nullptr, 0};
  t.bytes = t.owned.size();
  tensors_.push_back(std::move(t));
  tensors_.back().data = tensors_.back().owned.data();  // after the move: the buffer is stable
  return Status::ok_status();
}

Status GgufWriter::add_tensor_view(const std::string& name, DType dtype,
                                   const std::vector<int64_t>& ne, const void* data, uint64_t bytes) {
  if (data == nullptr && bytes > 0) return Status(Stage::InvalidArgument, "GGUF writer: null tensor data");
  CLPORT_RETURN_IF_ERROR(check_tensor(name, dtype, ne, bytes));
  tensors_.push_back({name, dtype, ne, {}, static_cast<const uint8_t*>(data), bytes});
  return Status::ok_status();
}

uint32_t GgufWriter::effective_alignment() const {
  for (const auto& e : entries_) {
    // A u32 general.alignment: tag (4 bytes) + value (4 bytes). Invalid values are written
    // as given (tests build malformed files this way) but laid out with the default.
    if (e.key == "general.alignment" && e.encoded.size() == 8 &&
        e.encoded[0] == static_cast<uint8_t>(GgufType::UInt32)) {
      uint32_t a = 0;
      std::memcpy(&a, e.encoded.data() + 4, 4);
      if (a != 0 && (a & (a - 1)) == 0 && a <= kGgufMaxAlignment) return a;
    }
  }
  return kGgufDefaultAlignment;
}

template <typename Sink>
Status GgufWriter::emit(Sink& sink) const {
  const uint64_t a = effective_alignment();
  std::vector<uint8_t> head;
  head.insert(head.end(), {'G', 'G', 'U', 'F'});
  append<uint32_t>(head, version_);
  append<uint64_t>(head, tensors_.size());
  append<uint64_t>(head, entries_.size());
  for (const auto& e : entries_) {
    append_string(head, e.key);
    head.insert(head.end(), e.encoded.begin(), e.encoded.end());
  }
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    append_string(head, t.name);
    append<uint32_t>(head, static_cast<uint32_t>(t.ne.size()));
    for (int64_t d : t.ne) append<int64_t>(head, d);
    append<int32_t>(head, static_cast<int32_t>(t.dtype));
    append<uint64_t>(head, offset);
    offset = align_up(offset + t.bytes, a);
  }
  head.resize(align_up(head.size(), a), 0);
  CLPORT_RETURN_IF_ERROR(sink.put(head.data(), head.size()));
  const std::vector<uint8_t> zeros(a, 0);
  for (const auto& t : tensors_) {
    // Owned data is read from `owned` itself, so a copied writer never points at another's buffer.
    CLPORT_RETURN_IF_ERROR(sink.put(t.owned.empty() ? t.data : t.owned.data(), t.bytes));
    CLPORT_RETURN_IF_ERROR(sink.put(zeros.data(), align_up(t.bytes, a) - t.bytes));
  }
  return Status::ok_status();
}

Result<std::vector<uint8_t>> GgufWriter::to_bytes() const {
  std::vector<uint8_t> out;
  VectorSink sink{out};
  CLPORT_RETURN_IF_ERROR(emit(sink));
  return out;
}

Status GgufWriter::write(const std::string& path) const {
  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(rd());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return Status(Stage::Io, "cannot create '" + tmp + "': " + std::strerror(errno));
  }
  FileSink sink{f, tmp};
  Status st = emit(sink);
  if (std::fflush(f) != 0 && st.ok()) st = Status(Stage::Io, "writing '" + tmp + "' failed: " + std::strerror(errno));
  if (st.ok() && fsync(fileno(f)) != 0) st = Status(Stage::Io, "fsync of '" + tmp + "' failed: " + std::strerror(errno));
  if (std::fclose(f) != 0 && st.ok()) st = Status(Stage::Io, "closing '" + tmp + "' failed: " + std::strerror(errno));
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    st = Status(Stage::Io, "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno));
  }
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

}  // namespace clport
