// Encoding rules on hand-made vocabularies: merge priority, byte fallback, pre-tokenizer
// families, special tokens, BOS, end-of-generation markers.
#include <gtest/gtest.h>

#include <algorithm>

#include "clport/tokenizer.h"
#include "tiny_vocabs.h"

namespace clport {

namespace {

std::unique_ptr<Tokenizer> make(Vocab v) {
  auto t = Tokenizer::from_vocab(std::move(v));
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t.value()) : nullptr;
}

std::vector<int32_t> enc(const Tokenizer& t, std::string_view s, bool bos = false,
                         bool special = false) {
  auto r = t.encode(s, bos, special);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<int32_t>{};
}

using Ids = std::vector<int32_t>;

TEST(SpmEncoder, HigherScoreMergesFirst) {
  auto tok = make(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok);
  // "ab" (-2) beats "▁a" (-3): ▁ | ab.
  EXPECT_EQ(enc(*tok, "ab"), (Ids{259, 263}));
  Vocab flipped = testing::tiny_spm_vocab();
  flipped.scores[262] = -1.5f;  // now "▁a" wins: ▁a | b
  auto tok2 = make(std::move(flipped));
  ASSERT_TRUE(tok2);
  EXPECT_EQ(enc(*tok2, "ab"), (Ids{262, 261}));
}

TEST(SpmEncoder, UnknownCharactersFallBackToByteTokens) {
  auto tok = make(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok);
  // "é" is C3 A9; byte b is token 3 + b.
  EXPECT_EQ(enc(*tok, "a\xC3\xA9"), (Ids{262, 3 + 0xC3, 3 + 0xA9}));
  EXPECT_EQ(tok->decode(enc(*tok, "a\xC3\xA9")), "a\xC3\xA9");
  // (Ill-formed UTF-8 becomes U+FFFD first: invalid_utf8_test.cpp.)
}

TEST(SpmEncoder, BosAndSpacePrefixAfterSpecialTokens) {
  auto tok = make(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok);
  EXPECT_TRUE(tok->add_bos_default());
  EXPECT_EQ(enc(*tok, "", true), (Ids{1}));
  EXPECT_EQ(enc(*tok, "", false), (Ids{}));
  // Text after a special token gets the space prefix again, as in SentencePiece.
  EXPECT_EQ(enc(*tok, "a</s>a", false, true), (Ids{262, 2, 262}));
  // Without parse_special, "</s>" is plain text (here: bytes).
  Ids plain = enc(*tok, "</s>", false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 2), 0);
  // User-defined tokens are matched whole even without parse_special.
  EXPECT_EQ(enc(*tok, "<user>", false, false), (Ids{264}));
  Vocab no_prefix = testing::tiny_spm_vocab();
  no_prefix.add_space_prefix = false;
  auto tok2 = make(std::move(no_prefix));
  ASSERT_TRUE(tok2);
  EXPECT_EQ(enc(*tok2, "ab"), (Ids{263}));
  EXPECT_EQ(tok2->decode({259, 263}), " ab");  // nothing stripped without the prefix rule
}

TEST(BpeEncoder, LowestRankMergesFirst) {
  auto tok = make(testing::tiny_bpe_vocab());
  ASSERT_TRUE(tok);
  // Token id b spells byte b, so the space (Ġ) is id 32.
  // "abc" -> ab (rank 0) -> abc (rank 1). " abc": ab (rank 0) beats Ġa (rank 2) and
  // "Ġ ab" is no merge, so Ġ | abc.
  EXPECT_EQ(enc(*tok, "abc abc"), (Ids{257, 32, 257}));
  // " ab c" -> Ġ a b | Ġ c: ab first, then nothing joins Ġ|ab.
  EXPECT_EQ(enc(*tok, " ab c"), (Ids{32, 256, 32, 'c'}));
  // " a" -> Ġa.
  EXPECT_EQ(enc(*tok, " a"), (Ids{258}));
  EXPECT_EQ(tok->decode(enc(*tok, "abc abc")), "abc abc");
}

TEST(BpeEncoder, StarcoderRulesSplitEveryDigit) {
  // gpt-2 rules keep "12" together (and merge it); starcoder/smollm cut it into digits.
  auto gpt2 = make(testing::tiny_bpe_vocab("gpt-2"));
  auto smollm = make(testing::tiny_bpe_vocab("smollm"));
  auto starcoder = make(testing::tiny_bpe_vocab("starcoder"));
  ASSERT_TRUE(gpt2 && smollm && starcoder);
  EXPECT_EQ(enc(*gpt2, "a12"), (Ids{'a', 261}));
  EXPECT_EQ(enc(*smollm, "a12"), (Ids{'a', '1', '2'}));
  EXPECT_EQ(enc(*starcoder, "a12"), (Ids{'a', '1', '2'}));
}

TEST(BpeEncoder, UnknownPreTokenizerIsRefused) {
  auto t = Tokenizer::from_vocab(testing::tiny_bpe_vocab("no-such-rules"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().stage(), Stage::Unsupported);
  EXPECT_NE(t.status().message().find("no-such-rules"), std::string::npos);
  // Other known families build.
  for (const char* pre : {"default", "llama3", "qwen2", "llama-bpe", "mpt"}) {
    EXPECT_TRUE(Tokenizer::from_vocab(testing::tiny_bpe_vocab(pre)).ok()) << pre;
  }
}

TEST(SpecialTokens, ControlOnlyWhenParsedUserDefinedAlways) {
  auto tok = make(testing::tiny_bpe_vocab());
  ASSERT_TRUE(tok);
  EXPECT_EQ(enc(*tok, "a<|end|>", false, true), (Ids{'a', 259}));
  Ids plain = enc(*tok, "a<|end|>", false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 259), 0);
  EXPECT_EQ(tok->decode(plain), "a<|end|>");
  EXPECT_EQ(enc(*tok, "<user>ab", false, false), (Ids{260, 256}));
  // Rendering: control tokens hidden unless asked, user-defined always shown.
  EXPECT_EQ(tok->decode({'a', 259, 260}), "a<user>");
  EXPECT_EQ(tok->decode({'a', 259, 260}, true), "a<|end|><user>");
  EXPECT_TRUE(tok->is_eog(259));
  EXPECT_TRUE(tok->is_control(259));
  EXPECT_FALSE(tok->is_eog('a'));
  EXPECT_FALSE(tok->is_eog(-1));
  EXPECT_FALSE(tok->is_eog(100000));
  EXPECT_EQ(tok->find_token("<user>"), std::optional<int32_t>(260));
  EXPECT_EQ(tok->find_token("nope"), std::nullopt);
}

TEST(SpecialTokens, BosOnlyWhenTheVocabularyHasOne) {
  auto tok = make(testing::tiny_bpe_vocab());
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->bos(), -1);
  EXPECT_FALSE(tok->add_bos_default());
  EXPECT_EQ(enc(*tok, "a", true), (Ids{'a'}));
  Vocab v = testing::tiny_bpe_vocab();
  v.bos_id = 259;
  auto with_bos = make(std::move(v));
  ASSERT_TRUE(with_bos);
  EXPECT_EQ(enc(*with_bos, "a", true), (Ids{259, 'a'}));
}

TEST(Decode, OutOfRangeIdsRenderAsNothing) {
  auto tok = make(testing::tiny_bpe_vocab());
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->decode({'a', -5, 1 << 30, 'b'}), "ab");
  EXPECT_EQ(tok->token_to_piece(-1), "");
}

TEST(VocabValidation, BadVocabulariesAreModelErrors) {
  auto expect_model_error = [](Vocab v, const std::string& needle) {
    auto t = Tokenizer::from_vocab(std::move(v));
    ASSERT_FALSE(t.ok()) << needle;
    EXPECT_EQ(t.status().stage(), Stage::Model);
    EXPECT_NE(t.status().message().find(needle), std::string::npos) << t.status().message();
  };
  Vocab v = testing::tiny_bpe_vocab();
  v.merges.push_back("nospace");
  expect_model_error(v, "merges[4]");
  v = testing::tiny_bpe_vocab();
  v.merges.clear();
  expect_model_error(v, "merges");
  v = testing::tiny_bpe_vocab();
  v.eos_id = 262;
  expect_model_error(v, "eos_token_id");
  v = testing::tiny_bpe_vocab();
  v.types.pop_back();
  expect_model_error(v, "token_type");
  v = testing::tiny_bpe_vocab();
  v.types[5] = static_cast<TokenType>(42);
  expect_model_error(v, "token_type[5]");
  Vocab s = testing::tiny_spm_vocab();
  s.tokens[3] = "<0xZZ>";
  expect_model_error(s, "<0xZZ>");
  s = testing::tiny_spm_vocab();
  s.scores.resize(3);
  expect_model_error(s, "scores");
  expect_model_error(Vocab{}, "empty");
}

TEST(SpmEncoder, MissingByteTokensWithoutUnkIsAnError) {
  Vocab v = testing::tiny_spm_vocab();
  v.tokens[3 + 0xC3] = "x";  // no <0xC3> any more
  v.types[3 + 0xC3] = TokenType::Normal;
  v.unk_id = -1;
  auto tok = make(std::move(v));
  ASSERT_TRUE(tok);
  auto r = tok->encode("\xC3\xA9", false, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("<0xC3>"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace clport
