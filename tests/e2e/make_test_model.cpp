// Writes a random-weight model (see random_model.h) for CLI tests and speed runs:
//   make_test_model OUT.gguf [dtype] [arch=llama|gemma3|qwen2|qwen3|phi3|smollm3] [key=value ...]
// keys: embd, ff, layers, heads, kv_heads, ctx, vocab, tied (0/1), seed, chat (gemma, chatml,
// unknown: a tokenizer.chat_template of that family), rope_factors (rope_freqs, long_rope),
// head_dim (gemma3, qwen3), window, swa_period (gemma3), partial_rotary (0/1); e.g. the SmolLM2-135M shape: make_test_model smol.gguf q4_1 embd=576 ff=1536
// layers=30 heads=9 kv_heads=3 vocab=49152; the Gemma 3 270M shape: make_test_model g3.gguf q8_0
// arch=gemma3 embd=640 ff=2048 layers=18 heads=4 kv_heads=1 head_dim=256 window=512
// vocab=262144 ctx=32768
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "random_model.h"

namespace {

bool set_key(clport::test::RandomModelSpec& spec, const std::string& key, unsigned long value) {
  const auto v = static_cast<uint32_t>(value);
  if (key == "embd") spec.n_embd = v;
  else if (key == "ff") spec.n_ff = v;
  else if (key == "layers") spec.n_layer = v;
  else if (key == "heads") spec.n_head = v;
  else if (key == "kv_heads") spec.n_head_kv = v;
  else if (key == "ctx") spec.n_ctx = v;
  else if (key == "vocab") spec.n_vocab = v;
  else if (key == "tied") spec.tied_output = value != 0;
  else if (key == "seed") spec.seed = value;
  else if (key == "head_dim") spec.head_dim = v;
  else if (key == "window") spec.sliding_window = v;
  else if (key == "swa_period") spec.swa_period = v;
  else if (key == "partial_rotary") spec.partial_rotary = value != 0;
  else if (key == "threads") spec.threads = v;
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.gguf [dtype] [key=value ...]\n", argv[0]);
    return 2;
  }
  clport::test::RandomModelSpec spec;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("arch=", 0) == 0) {
      spec.arch = arg.substr(5);
      continue;
    }
    if (eq == std::string::npos) {
      auto dtype = clport::dtype_from_name(arg);
      if (!dtype) {
        std::fprintf(stderr, "unknown dtype %s\n", argv[i]);
        return 2;
      }
      spec.weight_dtype = *dtype;
      continue;
    }
    if (arg.compare(0, eq, "chat") == 0) {
      spec.chat_template = arg.substr(eq + 1);
      continue;
    }
    if (arg.compare(0, eq, "rope_factors") == 0) {
      spec.rope_factors = arg.substr(eq + 1);
      continue;
    }
    char* end = nullptr;
    const unsigned long value = std::strtoul(arg.c_str() + eq + 1, &end, 10);
    if (end == arg.c_str() + eq + 1 || *end != '\0' || !set_key(spec, arg.substr(0, eq), value)) {
      std::fprintf(stderr, "bad option %s (keys: arch embd ff layers heads kv_heads ctx vocab tied seed chat head_dim window swa_period rope_factors partial_rotary threads)\n", argv[i]);
      return 2;
    }
  }
  const clport::Status st = clport::test::write_random_llama(argv[1], spec);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.to_string().c_str());
    return 1;
  }
  return 0;
}
