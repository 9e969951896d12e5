// Token ids -> text: per-token pieces, whole-sequence decoding, and streaming helpers that never
// split a UTF-8 character across two writes.
#include <utility>

#include "clport/tokenizer.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/utf8.h"

namespace clport {
namespace {


std::string unescape_spm_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, kSpmSpace.size(), kSpmSpace) == 0) {
      out.push_back(' ');
      pos += kSpmSpace.size();
    } else {
      out.push_back(text[pos++]);
    }
  }
  return out;
}

bool strips_space_prefix(const Tokenizer& t) {
  return t.model() == VocabModel::Spm && t.vocab().add_space_prefix;
}

}  // namespace

std::string Tokenizer::token_to_piece(int32_t id, bool render_special) const {
  if (id < 0 || id >= n_vocab()) return {};
  const Vocab& v = impl_->vocab;
  const std::string& text = v.tokens[static_cast<size_t>(id)];
  switch (impl_->index.type(v, id)) {
    case TokenType::Undefined:
    case TokenType::Normal:
      return v.model == VocabModel::Spm ? unescape_spm_spaces(text)
                                        : tok::gpt2_alphabet_to_bytes(text);
    case TokenType::Byte:
      return std::string(1, static_cast<char>(impl_->index.byte_value[static_cast<size_t>(id)]));
    case TokenType::UserDefined:
      return text;
    case TokenType::Control:
    case TokenType::Unknown:
      return render_special ? text : std::string();
    case TokenType::Unused:
      break;
  }
  return {};
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool render_special) const {
  std::string out;
  bool strip_pending = strips_space_prefix(*this);
  for (int32_t id : ids) {
    std::string piece = token_to_piece(id, render_special);
    if (strip_pending && !piece.empty()) {
      if (piece.front() == ' ') piece.erase(0, 1);
      strip_pending = false;
    }
    out += piece;
  }
  return out;
}

std::string Utf8StreamBuffer::push(std::string_view bytes) {
  held_.append(bytes);
  const size_t complete = tok::utf8_complete_prefix_length(held_);
  std::string ready = held_.substr(0, complete);
  held_.erase(0, complete);
  return ready;
}

std::string Utf8StreamBuffer::flush() {
  std::string rest;
  rest.swap(held_);
  return rest;
}

TokenStreamDecoder::TokenStreamDecoder(const Tokenizer& tokenizer, bool render_special,
                                       bool strip_space_prefix)
    : tokenizer_(tokenizer),
      render_special_(render_special),
      strip_pending_(strip_space_prefix && strips_space_prefix(tokenizer)) {}

std::string TokenStreamDecoder::push(int32_t id) {
  std::string piece = tokenizer_.token_to_piece(id, render_special_);
  if (strip_pending_ && !piece.empty()) {
    if (piece.front() == ' ') piece.erase(0, 1);
    strip_pending_ = false;
  }
  return utf8_.push(piece);
}

std::string TokenStreamDecoder::flush() { return utf8_.flush(); }

}  // namespace clport
