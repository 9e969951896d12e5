// A small valid GGUF file built with GgufWriter, and one byte-level mutation of it for each
// class of malformed file the reader must reject. Shared by the GGUF tests, the fuzz corpus
// generator and the corpus test.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace clport::gguf_test {

// Tensors in the base file, in order: tensor_a F32 [32,2] (256 bytes, offset 0),
// tensor_b Q8_0 [64,2] (136 bytes, offset 256), tensor_c F32 [4] (16 bytes, offset 416).
std::vector<uint8_t> make_valid_file();

struct MalformedCase {
  std::string name;             // file-name friendly
  std::vector<uint8_t> bytes;
  std::string expected_error;   // a substring the reader's message must contain
};

std::vector<MalformedCase> make_malformed_cases();

// Test names in gtest output instead of a byte dump.
inline void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

// Offset of the first occurrence of `needle` in `bytes`; throws std::runtime_error if absent
// (a test bug, not a reader bug).
size_t offset_of(const std::vector<uint8_t>& bytes, const std::string& needle);

}  // namespace clport::gguf_test
