// Lookup tables derived from a validated Vocab: text -> id, byte -> token, BPE merge ranks,
// the special tokens to match whole, and the end-of-generation set. Views point into the Vocab,
// which must outlive the index and never move.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clport/status.h"
#include "clport/tokenizer.h"

namespace clport::tok {

struct StringViewPairHash {
  size_t operator()(const std::pair<std::string_view, std::string_view>& p) const {
    const size_t a = std::hash<std::string_view>()(p.first);
    const size_t b = std::hash<std::string_view>()(p.second);
    return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
};

struct VocabIndex {
  std::unordered_map<std::string_view, int32_t> token_to_id;
  // SPM: the "<0xHH>" token of each byte; BPE: the token spelling that byte in the GPT-2
  // alphabet. -1 when the vocabulary has none.
  std::array<int32_t, 256> byte_token{};
  // Per token: the byte a Byte-type token stands for, or -1.
  std::vector<int16_t> byte_value;
  std::unordered_map<std::pair<std::string_view, std::string_view>, int32_t, StringViewPairHash>
      merge_rank;
  // Control / user-defined / unknown tokens, longest text first (so "<|im_start|>" wins over a
  // shorter token that is its prefix).
  std::vector<int32_t> special_ids;
  std::vector<bool> eog;

  TokenType type(const Vocab& v, int32_t id) const {
    return v.types.empty() ? TokenType::Normal : v.types[static_cast<size_t>(id)];
  }
  int32_t find(std::string_view text) const {
    auto it = token_to_id.find(text);
    return it == token_to_id.end() ? -1 : it->second;
  }
};

// Appends one token per raw byte (each byte's own token, else the unknown token): the last resort
// of both encoders for text no merge or piece covers. Stage Model error when neither exists.
Status append_byte_tokens(const Vocab& vocab, const VocabIndex& index, std::string_view bytes,
                          std::vector<int32_t>& out);

// Checks the vocabulary (stage Model errors that name the field) and builds its index.
Result<VocabIndex> build_vocab_index(const Vocab& vocab);

}  // namespace clport::tok
