// Typed metadata getters: each checks presence, type, count and range, and says which key failed.
#include <cmath>
#include <cstring>
#include <limits>

#include "gguf/gguf.h"

namespace clport {

namespace {

bool is_signed_int(GgufType t) {
  return t == GgufType::Int8 || t == GgufType::Int16 || t == GgufType::Int32 || t == GgufType::Int64;
}

std::string type_label(const GgufValue& v) {
  if (v.type == GgufType::Array) return "array of " + std::string(gguf_type_name(v.array_type));
  return std::string(gguf_type_name(v.type));
}

Status model_error(std::string_view key, const std::string& what) {
  return Status(Stage::Model, "GGUF metadata '" + std::string(key) + "': " + what);
}

Status wrong_type(std::string_view key, const char* expected, const GgufValue& v) {
  return model_error(key, std::string("expected ") + expected + ", found " + type_label(v));
}

// Any integer scalar, as a (value, negative) pair so that every source type converts exactly.
template <typename T>
Result<T> integer_as(std::string_view key, const GgufValue* v, const char* expected) {
  if (v == nullptr) return model_error(key, "missing");
  if (!v->is_integer()) return wrong_type(key, expected, *v);
  if (is_signed_int(v->type) && v->i64 < 0) {
    if (!std::numeric_limits<T>::is_signed || v->i64 < static_cast<int64_t>(std::numeric_limits<T>::min())) {
      return model_error(key, "value " + std::to_string(v->i64) + " does not fit " + expected);
    }
    return static_cast<T>(v->i64);
  }
  if (v->u64 > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
    return model_error(key, "value " + std::to_string(v->u64) + " does not fit " + expected);
  }
  return static_cast<T>(v->u64);
}

Status check_array(std::string_view key, const GgufValue* v, const char* expected,
                   std::optional<uint64_t> expected_count) {
  if (v == nullptr) return model_error(key, "missing");
  if (v->type != GgufType::Array) return wrong_type(key, expected, *v);
  if (expected_count && v->count != *expected_count) {
    return model_error(key, "has " + std::to_string(v->count) + " elements, expected " +
                                std::to_string(*expected_count));
  }
  return Status::ok_status();
}

}  // namespace

Result<std::string> GgufFile::get_string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return model_error(key, "missing");
  if (v->type != GgufType::String) return wrong_type(key, "string", *v);
  return std::string(v->str);
}

Result<uint32_t> GgufFile::get_u32(std::string_view key) const {
  return integer_as<uint32_t>(key, find(key), "uint32");
}
Result<int32_t> GgufFile::get_i32(std::string_view key) const {
  return integer_as<int32_t>(key, find(key), "int32");
}
Result<uint64_t> GgufFile::get_u64(std::string_view key) const {
  return integer_as<uint64_t>(key, find(key), "uint64");
}
Result<int64_t> GgufFile::get_i64(std::string_view key) const {
  return integer_as<int64_t>(key, find(key), "int64");
}

Result<float> GgufFile::get_f32(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return model_error(key, "missing");
  if (!v->is_float()) return wrong_type(key, "float32", *v);
  return static_cast<float>(v->f64);
}

Result<bool> GgufFile::get_bool(std::string_view key) const {
  const GgufValue* v = find(key);
  if (v == nullptr) return model_error(key, "missing");
  if (v->type != GgufType::Bool) return wrong_type(key, "bool", *v);
  return v->u64 != 0;
}

Result<uint32_t> GgufFile::get_u32_or(std::string_view key, uint32_t fallback) const {
  return has(key) ? get_u32(key) : Result<uint32_t>(fallback);
}
Result<float> GgufFile::get_f32_or(std::string_view key, float fallback) const {
  return has(key) ? get_f32(key) : Result<float>(fallback);
}
Result<bool> GgufFile::get_bool_or(std::string_view key, bool fallback) const {
  return has(key) ? get_bool(key) : Result<bool>(fallback);
}
Result<std::string> GgufFile::get_string_or(std::string_view key, std::string fallback) const {
  return has(key) ? get_string(key) : Result<std::string>(std::move(fallback));
}

Result<std::vector<std::string_view>> GgufFile::get_string_array(
    std::string_view key, std::optional<uint64_t> expected_count) const {
  const GgufValue* v = find(key);
  CLPORT_RETURN_IF_ERROR(check_array(key, v, "array of string", expected_count));
  if (v->array_type != GgufType::String) return wrong_type(key, "array of string", *v);
  return v->strings;
}

Result<std::vector<float>> GgufFile::get_f32_array(std::string_view key,
                                                   std::optional<uint64_t> expected_count) const {
  const GgufValue* v = find(key);
  CLPORT_RETURN_IF_ERROR(check_array(key, v, "array of float32", expected_count));
  std::vector<float> out;
  if (v->array_type == GgufType::Float32) {
    out.resize(static_cast<size_t>(v->count));  // count * 4 bytes were validated to exist
    if (v->count > 0) std::memcpy(out.data(), v->array_data, static_cast<size_t>(v->count) * 4);
    return out;
  }
  if (v->array_type == GgufType::Float64) {
    out.reserve(static_cast<size_t>(v->count));
    for (uint64_t i = 0; i < v->count; ++i) out.push_back(static_cast<float>(*v->array_number(i)));
    return out;
  }
  return wrong_type(key, "array of float32", *v);
}

Result<std::vector<int32_t>> GgufFile::get_i32_array(std::string_view key,
                                                     std::optional<uint64_t> expected_count) const {
  const GgufValue* v = find(key);
  CLPORT_RETURN_IF_ERROR(check_array(key, v, "array of int32", expected_count));
  GgufValue element;
  element.type = v->array_type;
  if (!element.is_integer()) return wrong_type(key, "array of int32", *v);
  const size_t size = gguf_type_size(v->array_type);
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(v->count));
  for (uint64_t i = 0; i < v->count; ++i) {
    const uint8_t* p = v->array_data + i * size;
    int64_t value = 0;
    switch (v->array_type) {
      case GgufType::UInt8: value = *p; break;
      case GgufType::Int8: value = static_cast<int8_t>(*p); break;
      case GgufType::UInt16: { uint16_t x; std::memcpy(&x, p, 2); value = x; break; }
      case GgufType::Int16: { int16_t x; std::memcpy(&x, p, 2); value = x; break; }
      case GgufType::UInt32: { uint32_t x; std::memcpy(&x, p, 4); value = x; break; }
      case GgufType::Int32: { int32_t x; std::memcpy(&x, p, 4); value = x; break; }
      case GgufType::Int64: { std::memcpy(&value, p, 8); break; }
      case GgufType::UInt64: {
        uint64_t x;
        std::memcpy(&x, p, 8);
        value = x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                    ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(x);
        break;
      }
      default: break;
    }
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
      return model_error(key, "element " + std::to_string(i) + " (" + std::to_string(value) +
                                  ") does not fit int32");
    }
    out.push_back(static_cast<int32_t>(value));
  }
  return out;
}

}  // namespace clport
