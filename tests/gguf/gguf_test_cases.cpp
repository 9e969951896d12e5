#include "gguf_test_cases.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gguf/gguf.h"

namespace clport::gguf_test {

size_t offset_of(const std::vector<uint8_t>& bytes, const std::string& needle) {
  auto it = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
  if (it == bytes.end()) throw std::runtime_error("test file lacks '" + needle + "'");
  return static_cast<size_t>(it - bytes.begin());
}

namespace {

std::vector<uint8_t> build(GgufWriter& w) {
  auto bytes = w.to_bytes();
  if (!bytes.ok()) throw std::runtime_error(bytes.status().to_string());
  return bytes.value();
}

void fill_writer(GgufWriter& w) {
  w.set_string("general.architecture", "llama");
  w.set_u32("general.alignment", 32);
  w.set_u8("test.u8", 200);
  w.set_bool("test.bool", true);
  w.set_string_array("test.tokens", std::vector<std::string>{"a", "bb", "ccc"});
  w.set_f32_array("test.scores", {0.5f, -1.0f, 2.0f});
  w.set_u32("test.dupA", 1);
  w.set_u32("test.dupB", 2);
  std::vector<uint8_t> a(256), b(136), c(16);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 7);
  (void)w.add_tensor("tensor_a", DType::F32, {32, 2}, a);
  (void)w.add_tensor("tensor_b", DType::Q8_0, {64, 2}, b);
  (void)w.add_tensor("tensor_c", DType::F32, {4}, c);
}

template <typename T>
void poke(std::vector<uint8_t>& bytes, size_t at, T v) {
  if (at + sizeof(T) > bytes.size()) throw std::runtime_error("poke past end");
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

// Byte offsets inside the base file, found by the (unique) names it contains.
struct Layout {
  const std::vector<uint8_t>& f;
  size_t key(const std::string& k) const { return offset_of(f, k); }           // key chars
  size_t key_len(const std::string& k) const { return key(k) - 8; }            // its u64 length
  size_t value_type(const std::string& k) const { return key(k) + k.size(); }  // u32 tag
  size_t value(const std::string& k) const { return value_type(k) + 4; }
  size_t tensor(const std::string& n) const { return offset_of(f, n); }
  size_t n_dims(const std::string& n) const { return tensor(n) + n.size(); }
  size_t dim(const std::string& n, int i) const { return n_dims(n) + 4 + 8 * i; }
  size_t type(const std::string& n, int dims) const { return dim(n, dims); }
  size_t offset(const std::string& n, int dims) const { return type(n, dims) + 4; }
};

}  // namespace

std::vector<uint8_t> make_valid_file() {
  GgufWriter w;
  fill_writer(w);
  return build(w);
}

std::vector<MalformedCase> make_malformed_cases() {
  const std::vector<uint8_t> base = make_valid_file();
  const Layout at{base};
  std::vector<MalformedCase> cases;
  auto add = [&](const std::string& name, const std::string& expected, auto mutate) {
    std::vector<uint8_t> bytes = base;
    mutate(bytes);
    cases.push_back({name, std::move(bytes), expected});
  };
  using B = std::vector<uint8_t>;

  // Header.
  add("bad_magic", "bad magic", [](B& b) { b[0] = 'X'; });
  add("version_1", "unsupported GGUF version 1", [](B& b) { poke<uint32_t>(b, 4, 1); });
  add("version_4", "unsupported GGUF version 4", [](B& b) { poke<uint32_t>(b, 4, 4); });
  add("big_endian", "big-endian", [](B& b) { poke<uint32_t>(b, 4, 0x03000000u); });
  add("too_small", "too small for a GGUF header", [](B& b) { b.resize(20); });
  add("empty", "too small for a GGUF header", [](B& b) { b.clear(); });
  add("n_tensors_huge", "n_tensors 1099511627776 is too large", [](B& b) { poke<uint64_t>(b, 8, 1ull << 40); });
  add("n_kv_huge", "n_kv 18446744073709551615 is too large", [](B& b) { poke<uint64_t>(b, 16, ~0ull); });

  // Metadata.
  add("key_len_past_end", "metadata key #0 length 60000 runs past the end",
      [&](B& b) { poke<uint64_t>(b, at.key_len("general.architecture"), 60000); });
  add("key_too_long", "metadata key #0 is 65536 bytes long (limit 65535)",
      [&](B& b) { poke<uint64_t>(b, at.key_len("general.architecture"), 65536); });
  add("key_empty", "metadata key #0 is empty", [&](B& b) { poke<uint64_t>(b, at.key_len("general.architecture"), 0); });
  add("string_past_end", "metadata 'general.architecture': string length",
      [&](B& b) { poke<uint64_t>(b, at.value("general.architecture"), 1000000000ull); });
  add("duplicate_key", "duplicate metadata key 'test.dupA'", [&](B& b) { b[at.key("test.dupB") + 8] = 'A'; });
  add("unknown_value_type", "metadata 'test.u8': unknown value type 99",
      [&](B& b) { poke<uint32_t>(b, at.value_type("test.u8"), 99); });
  add("bool_not_0_or_1", "bool value 2 is not 0 or 1", [&](B& b) { b[at.value("test.bool")] = 2; });
  add("nested_array", "metadata 'test.tokens': nested arrays are not supported",
      [&](B& b) { poke<uint32_t>(b, at.value("test.tokens"), 9); });
  add("unknown_array_type", "unknown array element type 77",
      [&](B& b) { poke<uint32_t>(b, at.value("test.tokens"), 77); });
  add("string_array_count_past_end", "array of 4611686018427387904 string runs past the end",
      [&](B& b) { poke<uint64_t>(b, at.value("test.tokens") + 4, 1ull << 62); });
  add("f32_array_count_overflow", "array of 4611686018427387905 float32 runs past the end",
      [&](B& b) { poke<uint64_t>(b, at.value("test.scores") + 4, (1ull << 62) + 1); });
  add("array_string_past_end", "string #1 length",
      [&](B& b) { poke<uint64_t>(b, at.value("test.tokens") + 12 + 8 + 1, 1ull << 40); });
  add("alignment_zero", "general.alignment 0 is invalid", [&](B& b) { poke<uint32_t>(b, at.value("general.alignment"), 0); });
  add("alignment_not_pow2", "general.alignment 48 is invalid", [&](B& b) { poke<uint32_t>(b, at.value("general.alignment"), 48); });
  add("alignment_huge", "general.alignment 2147483648 is invalid",
      [&](B& b) { poke<uint32_t>(b, at.value("general.alignment"), 0x80000000u); });
  add("alignment_float", "general.alignment must be an integer, found float32",
      [&](B& b) { poke<uint32_t>(b, at.value_type("general.alignment"), 6); });
  add("truncated_in_metadata", "metadata key #5 length 11 runs past the end", [&](B& b) {
    poke<uint64_t>(b, 8, 0);  // no tensors, so the header's size check passes
    b.resize(at.key("test.scores") + 3);
  });

  // Tensor infos.
  add("tensor_name_empty", "tensor #0 has an empty name", [&](B& b) { poke<uint64_t>(b, at.tensor("tensor_a") - 8, 0); });
  add("tensor_name_too_long", "tensor #0 name is 300 bytes long (limit 256)",
      [&](B& b) { poke<uint64_t>(b, at.tensor("tensor_a") - 8, 300); });
  add("tensor_name_past_end", "tensor #0 name length 8 runs past the end",
      [&](B& b) { b.resize(at.tensor("tensor_a") + 3); });
  add("tensor_name_duplicate", "duplicate tensor name 'tensor_a'", [&](B& b) { b[at.tensor("tensor_b") + 7] = 'a'; });
  add("n_dims_zero", "tensor 'tensor_a': n_dims 0 is out of range", [&](B& b) { poke<uint32_t>(b, at.n_dims("tensor_a"), 0); });
  add("n_dims_five", "tensor 'tensor_a': n_dims 5 is out of range", [&](B& b) { poke<uint32_t>(b, at.n_dims("tensor_a"), 5); });
  add("dim_zero", "tensor 'tensor_a': dimension 1 is 0", [&](B& b) { poke<int64_t>(b, at.dim("tensor_a", 1), 0); });
  add("dim_negative", "tensor 'tensor_b': dimension 0 is -64", [&](B& b) { poke<int64_t>(b, at.dim("tensor_b", 0), -64); });
  add("dims_overflow", "tensor 'tensor_a': element count overflows", [&](B& b) {
    poke<int64_t>(b, at.dim("tensor_a", 0), int64_t{1} << 40);
    poke<int64_t>(b, at.dim("tensor_a", 1), int64_t{1} << 40);
  });
  add("bytes_overflow", "tensor 'tensor_a': byte size overflows", [&](B& b) {
    poke<int64_t>(b, at.dim("tensor_a", 0), int64_t{1} << 31);
    poke<int64_t>(b, at.dim("tensor_a", 1), int64_t{1} << 31);
  });
  add("row_bytes_overflow", "tensor 'tensor_a': byte size overflows", [&](B& b) {
    poke<int64_t>(b, at.dim("tensor_a", 0), int64_t{1} << 61);  // 2^61 floats = 2^63 bytes
    poke<int64_t>(b, at.dim("tensor_a", 1), 1);
  });
  add("tensor_type_unknown", "tensor 'tensor_a': unknown or unsupported tensor type 99",
      [&](B& b) { poke<int32_t>(b, at.type("tensor_a", 2), 99); });
  add("tensor_type_iq2_xxs", "unknown or unsupported tensor type 16", [&](B& b) { poke<int32_t>(b, at.type("tensor_a", 2), 16); });
  add("row_not_block_multiple", "tensor 'tensor_b': row length 48 is not a multiple of the q8_0 block size 32",
      [&](B& b) { poke<int64_t>(b, at.dim("tensor_b", 0), 48); });

  // Data layout.
  add("offset_misaligned", "tensor 'tensor_b': data offset 260 is not a multiple of the alignment 32",
      [&](B& b) { poke<uint64_t>(b, at.offset("tensor_b", 2), 260); });
  add("offset_out_of_order", "tensor 'tensor_c': data offset 0 is out of order",
      [&](B& b) { poke<uint64_t>(b, at.offset("tensor_c", 1), 0); });
  add("offset_overlap", "tensor 'tensor_b': data at offset 224 overlaps 'tensor_a'",
      [&](B& b) { poke<uint64_t>(b, at.offset("tensor_b", 2), 224); });
  add("offset_past_end", "truncated data: tensor 'tensor_c'",
      [&](B& b) { poke<uint64_t>(b, at.offset("tensor_c", 1), 1ull << 40); });
  add("offset_overflow", "truncated data: tensor 'tensor_c'",
      [&](B& b) { poke<uint64_t>(b, at.offset("tensor_c", 1), ~0ull - 31); });
  add("truncated_data", "truncated data: tensor 'tensor_c'", [&](B& b) { b.resize(b.size() - 32 + 8); });
  add("truncated_before_data", "truncated file: the tensor data block starts",
      [&](B& b) { b.resize(at.offset("tensor_c", 1) + 8); });

  return cases;
}

}  // namespace clport::gguf_test
