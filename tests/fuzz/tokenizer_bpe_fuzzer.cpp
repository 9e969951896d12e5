// libFuzzer target: byte-level BPE tokenization on real vocabularies (the shared GPT-2 and
// StarCoder ones), under each pre-tokenizer's split rules (GPT-2, StarCoder, LLaMA 3, Qwen 2 on
// the GPT-2 vocabulary). data[0] bits 3-4 pick the tokenizer; see tokenizer_properties.h.
#include <memory>
#include <vector>

#include "tokenizer_properties.h"

namespace {

const std::vector<std::unique_ptr<clport::Tokenizer>>& tokenizers() {
  static const auto* all = [] {
    auto* t = new std::vector<std::unique_ptr<clport::Tokenizer>>();
    using clport::fuzz::load_shared_vocab;
    t->push_back(load_shared_vocab("ggml-vocab-gpt-2"));
    t->push_back(load_shared_vocab("ggml-vocab-starcoder"));
    t->push_back(load_shared_vocab("ggml-vocab-gpt-2", [](clport::Vocab& v) { v.pre = "llama3"; }));
    t->push_back(load_shared_vocab("ggml-vocab-gpt-2", [](clport::Vocab& v) { v.pre = "qwen2"; }));
    return t;
  }();
  return *all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& all = tokenizers();
  clport::fuzz::check_tokenizer(*all[(data[0] >> 3) % all.size()], data, size);
  return 0;
}
