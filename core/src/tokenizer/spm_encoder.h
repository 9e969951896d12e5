// SentencePiece-style encoding (tokenizer.ggml.model "llama"), as llama.cpp does it: the text
// (spaces already written as U+2581) is cut into characters, and the adjacent pair whose
// concatenation is the highest-scoring token is merged first (leftmost on ties) until no pair
// forms a token; characters left without a token fall back to one <0xHH> token per byte.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "clport/status.h"
#include "clport/tokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport::tok {

Status spm_encode(const Vocab& vocab, const VocabIndex& index, std::string_view text,
                  std::vector<int32_t>& out);

}  // namespace clport::tok
