// Small hand-made vocabularies whose expected tokenizations can be worked out by hand.
#pragma once

#include <string>

#include "clport/tokenizer.h"

namespace clport::testing {

// SentencePiece-style: 0 <unk>, 1 <s>, 2 </s>, 3..258 <0x00>..<0xFF>, then
// 259 "▁" (score -1), 260 "a" (-1), 261 "b" (-1), 262 "▁a" (-3), 263 "ab" (-2), 264 "<user>"
// (user-defined). "▁ab" is not a token, so the scores alone decide between ▁a|b and ▁|ab.
inline Vocab tiny_spm_vocab() {
  Vocab v;
  v.model = VocabModel::Spm;
  auto add = [&](std::string text, float score, TokenType type) {
    v.tokens.push_back(std::move(text));
    v.scores.push_back(score);
    v.types.push_back(type);
  };
  add("<unk>", 0, TokenType::Unknown);
  add("<s>", 0, TokenType::Control);
  add("</s>", 0, TokenType::Control);
  static const char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    add(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">", 0, TokenType::Byte);
  }
  add("\xE2\x96\x81", -1, TokenType::Normal);
  add("a", -1, TokenType::Normal);
  add("b", -1, TokenType::Normal);
  add("\xE2\x96\x81" "a", -3, TokenType::Normal);
  add("ab", -2, TokenType::Normal);
  add("<user>", 0, TokenType::UserDefined);
  v.unk_id = 0;
  v.bos_id = 1;
  v.eos_id = 2;
  v.add_bos = true;
  return v;
}

// Byte-level BPE: ids 0..255 spell each byte in the GPT-2 alphabet (so id == byte value),
// then 256 "ab", 257 "abc", 258 "Ġa", 259 "<|end|>" (control), 260 "<user>" (user-defined),
// 261 "12". Merges by rank: "a b", "ab c", "Ġ a", "1 2".
Vocab tiny_bpe_vocab(const std::string& pre = "gpt-2");

}  // namespace clport::testing
