// Writes a small random-weight LLaMA model (see random_model.h) for CLI tests:
//   make_test_model OUT.gguf [dtype]
#include <cstdio>

#include "random_model.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.gguf [dtype]\n", argv[0]);
    return 2;
  }
  clport::test::RandomModelSpec spec;
  if (argc > 2) {
    auto dtype = clport::dtype_from_name(argv[2]);
    if (!dtype) {
      std::fprintf(stderr, "unknown dtype %s\n", argv[2]);
      return 2;
    }
    spec.weight_dtype = *dtype;
  }
  const clport::Status st = clport::test::write_random_llama(argv[1], spec);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  return 0;
}
