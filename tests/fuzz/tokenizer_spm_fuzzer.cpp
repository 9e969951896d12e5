// libFuzzer target: SentencePiece-style tokenization (scored merges, byte fallback) on the shared
// LLaMA vocabulary, with and without its space prefix. data[0] bit 3 turns the prefix off; see
// tokenizer_properties.h.
#include <memory>

#include "tokenizer_properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using clport::fuzz::load_shared_vocab;
  static const auto* with_prefix = load_shared_vocab("ggml-vocab-llama-spm").release();
  static const auto* without_prefix =
      load_shared_vocab("ggml-vocab-llama-spm", [](clport::Vocab& v) { v.add_space_prefix = false; })
          .release();
  if (size == 0) return 0;
  clport::fuzz::check_tokenizer((data[0] & 8) ? *without_prefix : *with_prefix, data, size);
  return 0;
}
