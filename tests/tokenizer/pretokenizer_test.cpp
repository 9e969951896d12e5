// The pre-tokenizer split rules, piece by piece, on inputs whose GPT-2 / StarCoder / LLaMA 3 /
// Qwen 2 splits are known from the reference tokenizers.
#include <gtest/gtest.h>

#include "tokenizer/pretokenizer.h"

namespace clport::tok {
namespace {

using Pieces = std::vector<std::string>;

Pieces split(const std::string& pre, const std::string& text) {
  auto rules = pre_tokenizer_rules(pre);
  EXPECT_TRUE(rules.ok()) << rules.status().to_string();
  if (!rules.ok()) return {};
  auto p = PreTokenizer::create(rules.value());
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  if (!p.ok()) return {};
  std::vector<std::string_view> views;
  Status s = p.value()->split(text, views);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return Pieces(views.begin(), views.end());
}

TEST(PreTokenizer, Gpt2Split) {
  EXPECT_EQ(split("gpt-2", "Hello, y'all!  How's 2024?"),
            (Pieces{"Hello", ",", " y", "'", "all", "!", " ", " How", "'s", " 2024", "?"}));
  // A space run before a word leaves its last space to the word; only a literal space may
  // lead a word, so a tab before a word stands alone; trailing whitespace stays whole.
  EXPECT_EQ(split("gpt-2", "a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(split("gpt-2", "a\t\tb   "), (Pieces{"a", "\t", "\t", "b", "   "}));
  // Contractions are case-sensitive in GPT-2.
  EXPECT_EQ(split("gpt-2", "I'M"), (Pieces{"I", "'", "M"}));
}

TEST(PreTokenizer, StarcoderSplitsDigitsFirst) {
  EXPECT_EQ(split("starcoder", "x 123"), (Pieces{"x", " ", "1", "2", "3"}));
  EXPECT_EQ(split("smollm", "v2.0"), (Pieces{"v", "2", ".", "0"}));
}

TEST(PreTokenizer, Llama3AndQwen2) {
  EXPECT_EQ(split("llama3", "I'M 12345"), (Pieces{"I", "'M", " ", "123", "45"}));
  EXPECT_EQ(split("qwen2", "ab 123"), (Pieces{"ab", " ", "1", "2", "3"}));
  EXPECT_EQ(split("llama3", "a\n\nb"), (Pieces{"a", "\n\n", "b"}));
}

TEST(PreTokenizer, UnicodeClassesAndInvalidBytes) {
  // Cyrillic letters are \p{L}; the emoji is neither letter nor number.
  EXPECT_EQ(split("gpt-2", "\xD0\xB4\xD0\xB0 \xF0\x9F\x98\x81"),
            (Pieces{"\xD0\xB4\xD0\xB0", " \xF0\x9F\x98\x81"}));
  // Invalid UTF-8 never matches but is kept, so nothing is lost.
  Pieces p = split("gpt-2", "ab\xFF" "cd");
  std::string joined;
  for (const auto& s : p) joined += s;
  EXPECT_EQ(joined, "ab\xFF" "cd");
  EXPECT_EQ(p, (Pieces{"ab", "\xFF", "cd"}));
}

}  // namespace
}  // namespace clport::tok
