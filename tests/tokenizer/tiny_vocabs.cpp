#include "tiny_vocabs.h"

#include "tokenizer/byte_unicode.h"

namespace clport {

namespace testing {
Vocab tiny_bpe_vocab(const std::string& pre) {
  Vocab v;
  v.model = VocabModel::Bpe;
  v.pre = pre;
  for (int b = 0; b < 256; ++b) {
    const char raw = static_cast<char>(b);
    v.tokens.push_back(tok::bytes_to_gpt2_alphabet(std::string_view(&raw, 1)));
  }
  for (const char* t : {"ab", "abc", "\xC4\xA0" "a", "<|end|>", "<user>", "12"}) {
    v.tokens.push_back(t);
  }
  v.types.assign(v.tokens.size(), TokenType::Normal);
  v.types[259] = TokenType::Control;
  v.types[260] = TokenType::UserDefined;
  v.merges = {"a b", "ab c", "\xC4\xA0 a", "1 2"};
  v.eos_id = 259;
  return v;
}
}  // namespace testing

}  // namespace clport
