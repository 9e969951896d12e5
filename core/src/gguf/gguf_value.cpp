// Metadata value helpers shared by the reader, the writer and `clport info`.
#include <cstring>
#include <sstream>

#include "gguf/gguf.h"

namespace clport {

std::string_view gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::UInt8: return "uint8";
    case GgufType::Int8: return "int8";
    case GgufType::UInt16: return "uint16";
    case GgufType::Int16: return "int16";
    case GgufType::UInt32: return "uint32";
    case GgufType::Int32: return "int32";
    case GgufType::Float32: return "float32";
    case GgufType::Bool: return "bool";
    case GgufType::String: return "string";
    case GgufType::Array: return "array";
    case GgufType::UInt64: return "uint64";
    case GgufType::Int64: return "int64";
    case GgufType::Float64: return "float64";
  }
  return "unknown";
}

size_t gguf_type_size(GgufType type) {
  switch (type) {
    case GgufType::UInt8: case GgufType::Int8: case GgufType::Bool: return 1;
    case GgufType::UInt16: case GgufType::Int16: return 2;
    case GgufType::UInt32: case GgufType::Int32: case GgufType::Float32: return 4;
    case GgufType::UInt64: case GgufType::Int64: case GgufType::Float64: return 8;
    case GgufType::String: case GgufType::Array: return 0;
  }
  return 0;
}

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

std::optional<double> GgufValue::array_number(uint64_t i) const {
  if (type != GgufType::Array || array_data == nullptr || i >= count) return std::nullopt;
  const size_t size = gguf_type_size(array_type);
  const uint8_t* p = array_data + i * size;  // i < count and count * size was validated
  switch (array_type) {
    case GgufType::UInt8: return load<uint8_t>(p);
    case GgufType::Int8: return load<int8_t>(p);
    case GgufType::UInt16: return load<uint16_t>(p);
    case GgufType::Int16: return load<int16_t>(p);
    case GgufType::UInt32: return load<uint32_t>(p);
    case GgufType::Int32: return load<int32_t>(p);
    case GgufType::Float32: return load<float>(p);
    case GgufType::Bool: return load<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case GgufType::UInt64: return static_cast<double>(load<uint64_t>(p));
    case GgufType::Int64: return static_cast<double>(load<int64_t>(p));
    case GgufType::Float64: return load<double>(p);
    default: return std::nullopt;
  }
}

namespace {

// Strings in metadata can be long (chat templates) or hold control bytes; keep one line.
std::string quote(std::string_view s, size_t max_len) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < max_len; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '"') out += "\\\"";
    else if (c < 0x20) out += "?";
    else out += static_cast<char>(c);
  }
  if (s.size() > max_len) out += "...";
  out += "\"";
  if (s.size() > max_len) out += " (" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace

std::string GgufValue::to_display_string(size_t max_items) const {
  std::ostringstream os;
  switch (type) {
    case GgufType::String: return quote(str, 80);
    case GgufType::Bool: return u64 != 0 ? "true" : "false";
    case GgufType::Float32: case GgufType::Float64: os << f64; return os.str();
    case GgufType::Int8: case GgufType::Int16: case GgufType::Int32: case GgufType::Int64:
      return std::to_string(i64);
    case GgufType::Array: {
      os << "[" << gguf_type_name(array_type) << " x " << count;
      const uint64_t shown = count < max_items ? count : max_items;
      if (shown > 0) os << ": ";
      for (uint64_t i = 0; i < shown; ++i) {
        if (i > 0) os << ", ";
        if (array_type == GgufType::String) {
          os << quote(strings[i], 24);
        } else if (auto v = array_number(i)) {
          os << *v;
        }
      }
      if (shown < count) os << ", ...";
      os << "]";
      return os.str();
    }
    default: return std::to_string(u64);
  }
}

}  // namespace clport
