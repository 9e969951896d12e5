// What the encoders are given instead of the caller's text, so that every token they produce
// decodes back to it and no byte turns into a control token: ill-formed UTF-8 becomes U+FFFD
// (each maximal subpart, the substitution the Unicode standard recommends and llama.cpp applies),
// and so, in a byte-level BPE vocabulary, does a character one of whose bytes has no token.
// Byte-level BPE falls back to the unknown token there, which StarCoder-family vocabularies
// (SmolLM2's among them: no token for C0, C1, F1, F5..FF) define as <|endoftext|>.
#pragma once

#include <string>
#include <string_view>

#include "clport/tokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport::tok {

// `text` itself when nothing needs replacing (the common case: no copy), else a view of
// `storage`, which holds the repaired text.
std::string_view repair_text(const Vocab& vocab, const VocabIndex& index, std::string_view text,
                             std::string& storage);

}  // namespace clport::tok
