// GGUF model files: a read-only, memory-mapped reader that validates every size and offset with
// checked arithmetic (a malformed file is a Status, never a crash or a huge allocation), and a
// writer that builds files from metadata + tensors and replaces the target atomically.
//
// Format facts (GGUF v2/v3, little-endian): magic "GGUF", u32 version, u64 n_tensors, u64 n_kv,
// then n_kv key/value pairs, n_tensors tensor infos, padding to general.alignment (default 32),
// then the tensor data block; every tensor offset is relative to that block and aligned.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/dtype.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// Metadata value types, numbered as in the file.
enum class GgufType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

CLPORT_API std::string_view gguf_type_name(GgufType type);
// Size in bytes of one element of a fixed-size type; 0 for String/Array/unknown.
CLPORT_API size_t gguf_type_size(GgufType type);

inline constexpr uint32_t kGgufDefaultAlignment = 32;
inline constexpr int kGgufMaxDims = 4;
// Limits the reader enforces (generous for real files, small enough that a hostile file cannot
// make us allocate or loop without bound).
inline constexpr uint64_t kGgufMaxKeyLength = 65535;
inline constexpr uint64_t kGgufMaxTensorNameLength = 256;
inline constexpr uint32_t kGgufMaxAlignment = 1u << 20;

// One metadata value. Views (str, array_data, strings) point into the file's mapping and stay
// valid while the GgufFile that produced them is alive.
struct GgufValue {
  GgufType type = GgufType::UInt8;
  GgufType array_type = GgufType::UInt8;  // element type when type == Array
  uint64_t count = 1;                     // number of elements when type == Array, else 1
  uint64_t file_offset = 0;               // where the value starts in the file (for messages)

  // Scalars (all integer types widened; bool as 0/1; floats as double).
  uint64_t u64 = 0;
  int64_t i64 = 0;
  double f64 = 0.0;
  std::string_view str;                    // type == String
  const uint8_t* array_data = nullptr;     // Array of fixed-size elements: packed little-endian
  std::vector<std::string_view> strings;   // Array of String

  bool is_integer() const {  // any of the 8 integer types (not bool)
    switch (type) {
      case GgufType::UInt8: case GgufType::Int8: case GgufType::UInt16: case GgufType::Int16:
      case GgufType::UInt32: case GgufType::Int32: case GgufType::UInt64: case GgufType::Int64:
        return true;
      default:
        return false;
    }
  }
  bool is_float() const { return type == GgufType::Float32 || type == GgufType::Float64; }
  // Element i of an array of fixed-size elements, converted; nullopt if out of range or if
  // the element type is not numeric.
  CLPORT_API std::optional<double> array_number(uint64_t i) const;
  // Human-readable rendering for `clport info`; arrays are summarised ("[string x 49152: ...]").
  CLPORT_API std::string to_display_string(size_t max_items = 8) const;
};

struct GgufKeyValue {
  std::string_view key;
  GgufValue value;
};

struct GgufTensorInfo {
  std::string name;
  DType dtype = DType::F32;
  int n_dims = 0;
  std::array<int64_t, 4> ne{1, 1, 1, 1};  // ne[0] is the contiguous (row) dimension
  uint64_t offset = 0;                     // relative to the data block
  uint64_t bytes = 0;                      // exact size of the tensor's data
  const uint8_t* data = nullptr;           // into the mapping

  int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }  // validated not to overflow
};

class CLPORT_API GgufFile {
 public:
  // Memory-maps `path` read-only and validates it. Errors: Io (cannot open/map), Model
  // (malformed; the message names the problem and the byte offset).
  static Result<std::shared_ptr<GgufFile>> open(const std::string& path);
  // Parses a caller-owned buffer (no copy; it must outlive the GgufFile). For tests/fuzzing.
  static Result<std::shared_ptr<GgufFile>> open_memory(const void* data, size_t size);

  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  uint32_t version() const { return version_; }
  uint64_t file_size() const { return size_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute offset of the data block
  const std::string& path() const { return path_; }  // empty for open_memory
  // The tensor data lies in a read-only mapping of the file (open), whose pages can be dropped
  // and read again; false for a caller's buffer (open_memory), which must never be.
  bool file_mapped() const { return mapping_ != nullptr; }

  // ---- metadata ----
  const std::vector<GgufKeyValue>& metadata() const { return kv_; }  // in file order
  const GgufValue* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // Typed getters. Errors (stage Model) name the key: missing, wrong type, or a value that
  // does not fit the requested type. Integer getters accept any integer type whose value fits.
  Result<std::string> get_string(std::string_view key) const;
  Result<uint32_t> get_u32(std::string_view key) const;
  Result<int32_t> get_i32(std::string_view key) const;
  Result<uint64_t> get_u64(std::string_view key) const;
  Result<int64_t> get_i64(std::string_view key) const;
  Result<float> get_f32(std::string_view key) const;  // float32 or float64
  Result<bool> get_bool(std::string_view key) const;
  // Optional keys: the default when absent, an error only when present with a bad type/value.
  Result<uint32_t> get_u32_or(std::string_view key, uint32_t fallback) const;
  Result<float> get_f32_or(std::string_view key, float fallback) const;
  Result<bool> get_bool_or(std::string_view key, bool fallback) const;
  Result<std::string> get_string_or(std::string_view key, std::string fallback) const;

  // Arrays. `expected_count` (if given) must match the array length exactly.
  // Views stay valid while this GgufFile is alive.
  Result<std::vector<std::string_view>> get_string_array(
      std::string_view key, std::optional<uint64_t> expected_count = std::nullopt) const;
  // float32 elements only (float64 is converted); integers are rejected (a vocabulary whose
  // scores are stored as integers is malformed).
  Result<std::vector<float>> get_f32_array(
      std::string_view key, std::optional<uint64_t> expected_count = std::nullopt) const;
  // Any integer element type whose values all fit in int32.
  Result<std::vector<int32_t>> get_i32_array(
      std::string_view key, std::optional<uint64_t> expected_count = std::nullopt) const;

  // ---- tensors ----
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }  // in file order
  const GgufTensorInfo* find_tensor(std::string_view name) const;

 private:
  GgufFile() = default;
  friend class GgufParser;

  std::string path_;
  const uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when we own an mmap of size_ bytes
  uint32_t version_ = 0;
  uint32_t alignment_ = kGgufDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<GgufKeyValue> kv_;
  std::unordered_map<std::string_view, size_t> kv_index_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string_view, size_t> tensor_index_;
};

// Builds a GGUF file. Keys keep insertion order; setting an existing key replaces its value in
// place. general.alignment (u32), if set, decides the alignment of the data block.
class CLPORT_API GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3);

  void set_u8(const std::string& key, uint8_t v);
  void set_i8(const std::string& key, int8_t v);
  void set_u16(const std::string& key, uint16_t v);
  void set_i16(const std::string& key, int16_t v);
  void set_u32(const std::string& key, uint32_t v);
  void set_i32(const std::string& key, int32_t v);
  void set_u64(const std::string& key, uint64_t v);
  void set_i64(const std::string& key, int64_t v);
  void set_f32(const std::string& key, float v);
  void set_f64(const std::string& key, double v);
  void set_bool(const std::string& key, bool v);
  void set_string(const std::string& key, std::string_view v);
  // Array of fixed-size elements: `data` holds `count` packed little-endian elements of `type`.
  void set_array(const std::string& key, GgufType type, const void* data, uint64_t count);
  void set_string_array(const std::string& key, const std::vector<std::string>& v);
  void set_string_array(const std::string& key, const std::vector<std::string_view>& v);
  void set_f32_array(const std::string& key, const std::vector<float>& v);
  void set_i32_array(const std::string& key, const std::vector<int32_t>& v);
  // Copies a value read from another file (any type, arrays included).
  void set_value(const std::string& key, const GgufValue& v);
  bool remove(const std::string& key);

  // Tensors are written in the order added. `ne` has 1..4 entries (ne[0] contiguous); `bytes`
  // must equal the size the dtype implies. The owned form copies nothing further; the view form
  // keeps a pointer that must stay valid until write()/to_bytes() returns.
  Status add_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& ne,
                    std::vector<uint8_t> data);
  Status add_tensor_view(const std::string& name, DType dtype, const std::vector<int64_t>& ne,
                         const void* data, uint64_t bytes);

  // Writes to `path` via a temporary file in the same directory + rename, so readers never see
  // a half-written file.
  Status write(const std::string& path) const;
  // The whole file in memory (tests, fuzz corpus).
  Result<std::vector<uint8_t>> to_bytes() const;

 private:
  struct Entry {
    std::string key;
    std::vector<uint8_t> encoded;  // type tag + payload, as in the file
  };
  struct Tensor {
    std::string name;
    DType dtype;
    std::vector<int64_t> ne;
    std::vector<uint8_t> owned;
    const uint8_t* data;
    uint64_t bytes;
  };
  void put(const std::string& key, std::vector<uint8_t> encoded);
  Status check_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& ne,
                      uint64_t bytes) const;
  uint32_t effective_alignment() const;
  template <typename Sink>
  Status emit(Sink& sink) const;

  uint32_t version_;
  std::vector<Entry> entries_;
  std::vector<Tensor> tensors_;
};

// ---- re-quantization (`clport quantize`) ----

struct RequantizeReport {
  int converted = 0;                 // tensors re-encoded to the target (or a fallback) type
  int copied = 0;                    // tensors copied unchanged (1-D, integer, already target)
  uint64_t input_bytes = 0;          // tensor data, before
  uint64_t output_bytes = 0;         // tensor data, after
  std::vector<std::string> notes;    // per-tensor decisions worth telling the user (fallbacks)
};

// Re-quantizes every 2-D floating/quantized weight of `input` to `target` (row length not a
// multiple of the target's block: the nearest 32-element-block type, see the notes), keeps 1-D
// tensors (norms, biases) and integer tensors as they are, copies all metadata and updates
// general.file_type. Writes `output` atomically.
CLPORT_API Result<RequantizeReport> requantize_gguf(const std::string& input,
                                                    const std::string& output, DType target);

}  // namespace clport
