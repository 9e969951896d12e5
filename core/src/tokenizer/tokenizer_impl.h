// What a Tokenizer holds. The Vocab lives here and never moves after the index (which views
// into it) is built.
#pragma once

#include <memory>
#include <string_view>

#include "clport/tokenizer.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport {

// SentencePiece writes spaces as U+2581 LOWER ONE EIGHTH BLOCK.
inline constexpr std::string_view kSpmSpace = "\xE2\x96\x81";

struct Tokenizer::Impl {
  Vocab vocab;
  tok::VocabIndex index;
  std::unique_ptr<tok::PreTokenizer> pre;  // BPE only
};

}  // namespace clport
