// What a Tokenizer holds. The Vocab lives here and never moves after the index (which views
// into it) is built.
#pragma once

#include <memory>

#include "clport/tokenizer.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport {

struct Tokenizer::Impl {
  Vocab vocab;
  tok::VocabIndex index;
  std::unique_ptr<tok::PreTokenizer> pre;  // BPE only
};

}  // namespace clport
