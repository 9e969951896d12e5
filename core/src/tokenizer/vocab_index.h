// Lookup tables derived from a validated Vocab: text -> id, byte -> token, BPE merge ranks,
// the special tokens to match whole, and the end-of-generation set. Views point into the Vocab,
// which must outlive the index and never move.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clport/status.h"
#include "clport/tokenizer.h"
#include "tokenizer/id_hash_table.h"

namespace clport::tok {

// The hash of a merge's two symbols (the text of a merge line split at its separator).
inline size_t merge_hash(std::string_view left, std::string_view right) {
  const size_t a = std::hash<std::string_view>()(left);
  const size_t b = std::hash<std::string_view>()(right);
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

// Where a merge line "left right" splits: the first space after the first character (a left
// part may itself start with a space in vocabularies that do not use the GPT-2 alphabet), or
// npos when the line is not two symbols.
inline size_t merge_separator(std::string_view merge) {
  const size_t space = merge.size() > 1 ? merge.find(' ', 1) : std::string_view::npos;
  return space == std::string_view::npos || space + 1 >= merge.size() ? std::string_view::npos : space;
}

struct VocabIndex {
  // Text -> id and (left, right) -> merge rank, keyed by the Vocab's own strings.
  const Vocab* vocab = nullptr;
  IdHashTable token_ids;
  IdHashTable merge_ranks;
  // SPM: the "<0xHH>" token of each byte; BPE: the token spelling that byte in the GPT-2
  // alphabet. -1 when the vocabulary has none.
  std::array<int32_t, 256> byte_token{};
  // Per token: the byte a Byte-type token stands for, or -1.
  std::vector<int16_t> byte_value;
  // Control / user-defined / unknown tokens, longest text first (so "<|im_start|>" wins over a
  // shorter token that is its prefix).
  std::vector<int32_t> special_ids;
  std::vector<bool> eog;

  TokenType type(const Vocab& v, int32_t id) const {
    return v.types.empty() ? TokenType::Normal : v.types[static_cast<size_t>(id)];
  }
  // The id of the token spelled `text` (the last one, if several are), or -1.
  int32_t find(std::string_view text) const {
    return token_ids.find(std::hash<std::string_view>()(text), [&](int32_t id) { return is_token(id, text); });
  }
  bool is_token(int32_t id, std::string_view text) const { return vocab->tokens[static_cast<size_t>(id)] == text; }
  // The rank of the merge of `left` and `right` (the first such line), or -1.
  int32_t merge_rank(std::string_view left, std::string_view right) const {
    return merge_ranks.find(merge_hash(left, right), [&](int32_t rank) { return is_merge(rank, left, right); });
  }
  bool is_merge(int32_t rank, std::string_view left, std::string_view right) const {
    const std::string_view line = vocab->merges[static_cast<size_t>(rank)];
    return line.size() == left.size() + 1 + right.size() && merge_separator(line) == left.size() &&
           line.compare(0, left.size(), left) == 0 && line.compare(left.size() + 1, right.size(), right) == 0;
  }
};

// Appends one token per raw byte (each byte's own token, else the unknown token): the last resort
// of both encoders for text no merge or piece covers. Stage Model error when neither exists.
Status append_byte_tokens(const Vocab& vocab, const VocabIndex& index, std::string_view bytes,
                          std::vector<int32_t>& out);

// Checks the vocabulary (stage Model errors that name the field) and builds its index.
Result<VocabIndex> build_vocab_index(const Vocab& vocab);

}  // namespace clport::tok
