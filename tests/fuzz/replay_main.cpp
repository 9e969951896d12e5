// Replays a fuzz target's corpus without libFuzzer, so that the normal (GCC) build and its
// sanitizer build run every committed input as a test: each file in the directories given is
// passed once to LLVMFuzzerTestOneInput (after LLVMFuzzerInitialize, when the target has one).
// A crash, a sanitizer report or a failed check of the target fails the test as it would fail
// the fuzzer; a missing or empty corpus fails too, so a moved folder cannot pass silently.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    for (fs::directory_iterator it(argv[i], ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file()) inputs.push_back(it->path());
    }
    if (ec) {
      std::fprintf(stderr, "cannot read corpus directory %s: %s\n", argv[i], ec.message().c_str());
      return 1;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "no corpus files in the directories given\n");
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  for (const fs::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes(std::istreambuf_iterator<char>(in), {});
    // An empty vector's data() may be null; libFuzzer always passes a valid pointer.
    const uint8_t empty = 0;
    const auto* data = bytes.empty() ? &empty : reinterpret_cast<const uint8_t*>(bytes.data());
    std::printf("%s (%zu bytes)\n", path.filename().c_str(), bytes.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(data, bytes.size());
  }
  std::printf("%zu inputs replayed\n", inputs.size());
  return 0;
}
