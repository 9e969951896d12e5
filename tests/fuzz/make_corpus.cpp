// Writes the GGUF fuzz seed corpus: `gguf_make_corpus DIR`. Valid files are named valid_*.gguf,
// malformed ones bad_<class>.gguf (the corpus test relies on these prefixes).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "gguf/gguf.h"
#include "gguf_test_cases.h"

namespace {

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// A few more valid shapes than the base file: no tensors, version 2, every dtype.
std::vector<std::pair<std::string, std::vector<uint8_t>>> valid_files() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  files.emplace_back("valid_base", clport::gguf_test::make_valid_file());
  {
    clport::GgufWriter w(2);
    w.set_string("general.architecture", "llama");
    w.set_string_array("tokenizer.ggml.tokens", std::vector<std::string>{"<s>", "</s>", "hi"});
    w.set_f32_array("tokenizer.ggml.scores", {0.0f, 0.0f, -1.0f});
    w.set_i32_array("tokenizer.ggml.token_type", {3, 3, 1});
    files.emplace_back("valid_v2_vocab_only", w.to_bytes().value());
  }
  {
    clport::GgufWriter w;
    w.set_u32("general.alignment", 64);
    for (clport::DType d : clport::kWeightDTypes) {
      const auto& t = clport::traits(d);
      // One 256-element row (a multiple of every block size), so it converts to any type.
      const auto bytes = static_cast<size_t>(*clport::row_bytes(d, 256));
      (void)w.add_tensor("w." + std::string(t.name), d, {256, 1}, std::vector<uint8_t>(bytes, 0x11));
    }
    files.emplace_back("valid_every_dtype", w.to_bytes().value());
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: gguf_make_corpus OUTPUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  int written = 0;
  for (const auto& [name, bytes] : valid_files()) {
    if (!write_file(dir + "/" + name + ".gguf", bytes)) return 1;
    ++written;
  }
  for (const auto& c : clport::gguf_test::make_malformed_cases()) {
    if (!write_file(dir + "/bad_" + c.name + ".gguf", c.bytes)) return 1;
    ++written;
  }
  std::cout << "wrote " << written << " files to " << dir << "\n";
  return 0;
}
