// libFuzzer target: the GGUF reader must turn any byte string into either a valid file or a
// Status, without crashing, reading out of bounds or allocating without bound. Every accepted
// file is also walked (metadata getters, tensor data) so that views the reader hands out are
// checked to lie inside the input.
#include <cstddef>
#include <cstdint>

#include "gguf/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto opened = clport::GgufFile::open_memory(data, size);
  if (!opened.ok()) return 0;
  const clport::GgufFile& f = *opened.value();
  volatile uint64_t sink = 0;
  for (const auto& kv : f.metadata()) {
    (void)kv.value.to_display_string();
    (void)f.get_string_array(kv.key);
    (void)f.get_f32_array(kv.key);
    (void)f.get_i32_array(kv.key);
    (void)f.get_u32(kv.key);
    (void)f.get_f32(kv.key);
    for (auto s : kv.value.strings) sink = sink + (s.empty() ? 0 : static_cast<uint8_t>(s.back()));
  }
  for (const auto& t : f.tensors()) {
    if (t.bytes > 0) sink = sink + t.data[0] + t.data[t.bytes - 1];
  }
  (void)sink;
  return 0;
}
