// Byte-level BPE (GPT-2 style): a pre-tokenized word is spelled in the GPT-2 byte alphabet,
// cut into characters, and adjacent pairs are merged lowest merge rank first (leftmost first
// on ties) until no listed pair is left; each resulting symbol is one token.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "clport/status.h"
#include "clport/tokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport::tok {

// Appends the tokens of one raw-byte word. ignore_merges: a word that is a token as a whole is
// emitted directly (LLaMA 3 rule).
Status bpe_encode_word(const Vocab& vocab, const VocabIndex& index, std::string_view word,
                       bool ignore_merges, std::vector<int32_t>& out);

}  // namespace clport::tok
