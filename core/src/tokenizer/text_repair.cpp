#include "tokenizer/text_repair.h"

#include <algorithm>

#include "tokenizer/utf8.h"

namespace clport::tok {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool spells(const VocabIndex& index, std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(),
                     [&](char c) { return index.byte_token[static_cast<uint8_t>(c)] >= 0; });
}

// Where the first character at or after `pos` of well-formed `text` starts that the vocabulary
// cannot spell byte by byte; text.size() when there is none.
size_t next_unspelled(const VocabIndex& index, std::string_view text, size_t pos) {
  while (pos < text.size()) {
    const size_t len = utf8_char_length_at(text, pos);
    if (!spells(index, text.substr(pos, len))) return pos;
    pos += len;
  }
  return text.size();
}

}  // namespace

std::string_view repair_text(const Vocab& vocab, const VocabIndex& index, std::string_view text,
                             std::string& storage) {
  std::string_view valid = text;
  if (!is_valid_utf8(text)) {
    storage = replace_invalid_utf8(text);
    valid = storage;
  }
  // SentencePiece keeps its own rule (a character without a piece or byte tokens is <unk>); a
  // BPE vocabulary that cannot spell U+FFFD either keeps the unknown token as the last resort.
  const bool every_byte = std::all_of(index.byte_token.begin(), index.byte_token.end(),
                                      [](int32_t id) { return id >= 0; });
  if (vocab.model != VocabModel::Bpe || every_byte || !spells(index, kReplacement)) return valid;
  size_t pos = next_unspelled(index, valid, 0);
  if (pos == valid.size()) return valid;
  std::string out(valid.substr(0, pos));
  while (pos < valid.size()) {
    out.append(kReplacement);
    pos += utf8_char_length_at(valid, pos);
    const size_t next = next_unspelled(index, valid, pos);
    out.append(valid.substr(pos, next - pos));
    pos = next;
  }
  storage = std::move(out);
  return storage;
}

}  // namespace clport::tok
