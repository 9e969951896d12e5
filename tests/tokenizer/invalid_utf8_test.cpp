// Ill-formed UTF-8 in text to encode: each maximal subpart becomes one U+FFFD (the Unicode
// standard's recommended substitution, which llama.cpp's tokenizer also applies), for both
// tokenizer kinds, and decoding gives back exactly the replaced text.
#include <gtest/gtest.h>

#include <algorithm>

#include "gguf/gguf.h"
#include "clport/tokenizer.h"
#include "tiny_vocabs.h"
#include "tokenizer/utf8.h"
#include "vocab_test_data.h"

namespace clport {
namespace {

#define FFFD "\xEF\xBF\xBD"

TEST(Utf8Replacement, MaximalSubpartsBecomeOneReplacementEach) {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"plain ascii", "plain ascii"},
      {"\xD0\xB4 \xE2\x82\xAC \xF0\x9F\x98\x81", "\xD0\xB4 \xE2\x82\xAC \xF0\x9F\x98\x81"},
      {"Hello \xFF\xFE bad", "Hello " FFFD FFFD " bad"},
      // The Unicode standard's own example (chapter 3, U+FFFD substitution of maximal subparts).
      {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
       "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d"},
      {"\xC0\xAF", FFFD FFFD},                // overlong: C0 never starts a sequence
      {"\xE0\x80\xAF", FFFD FFFD FFFD},       // overlong three-byte form
      {"\xED\xA0\x80", FFFD FFFD FFFD},       // a surrogate
      {"\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD},  // past U+10FFFF
      {"\xF5\x80", FFFD FFFD},
      {"ab\xF0\x9F\x98", "ab" FFFD},          // a truncated character at the end: one
      {"\xE2\x82x", FFFD "x"},
      {std::string("a\0b", 3), std::string("a\0b", 3)},  // NUL is a valid character
  };
  for (const Case& c : cases) {
    EXPECT_EQ(tok::replace_invalid_utf8(c.in), c.out) << "input of " << c.in.size() << " bytes";
    EXPECT_EQ(tok::is_valid_utf8(c.in), c.in == c.out);
    EXPECT_TRUE(tok::is_valid_utf8(c.out));
  }
}

std::unique_ptr<Tokenizer> make(Vocab v) {
  auto t = Tokenizer::from_vocab(std::move(v));
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t.value()) : nullptr;
}

std::vector<int32_t> enc(const Tokenizer& t, std::string_view s) {
  auto r = t.encode(s, false, false);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<int32_t>{};
}

TEST(InvalidUtf8, SpmEncodesReplacementCharacters) {
  auto tok = make(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok);
  const std::string bad = "b\xFF\xC3";
  EXPECT_EQ(enc(*tok, bad), enc(*tok, "b" FFFD FFFD));
  EXPECT_EQ(tok->decode(enc(*tok, bad)), "b" FFFD FFFD);
}

TEST(InvalidUtf8, BpeEncodesReplacementCharacters) {
  auto tok = make(testing::tiny_bpe_vocab());
  ASSERT_TRUE(tok);
  const std::string bad = "a\xFF\xFE b\xC3";
  // Token id b spells byte b in the tiny vocabulary: U+FFFD is EF BF BD.
  const std::vector<int32_t> fffd = {0xEF, 0xBF, 0xBD};
  std::vector<int32_t> expected = {'a'};
  for (int i = 0; i < 2; ++i) expected.insert(expected.end(), fffd.begin(), fffd.end());
  expected.insert(expected.end(), {32, 'b'});
  expected.insert(expected.end(), fffd.begin(), fffd.end());
  EXPECT_EQ(enc(*tok, bad), expected);
  EXPECT_EQ(tok->decode(enc(*tok, bad)), "a" FFFD FFFD " b" FFFD);
}

class InvalidUtf8VocabFile : public ::testing::TestWithParam<const char*> {};

// The shared vocabularies (what llama.cpp's tokenizer gives: the ids of the replaced text), with
// special-token parsing on and off, and decoding back to the replaced text.
TEST_P(InvalidUtf8VocabFile, EncodesAsTheReplacedText) {
  auto file = GgufFile::open(testing::vocab_dir() + "/" + GetParam() + ".gguf");
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto made = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  const Tokenizer& tok = *made.value();
  const std::string inputs[] = {"Hello \xFF\xFE bad", "\xC3(\xE2\x82 end\xF0\x9F\x98", "\x80"};
  for (const std::string& in : inputs) {
    const std::string replaced = tok::replace_invalid_utf8(in);
    for (bool special : {false, true}) {
      auto got = tok.encode(in, false, special);
      auto want = tok.encode(replaced, false, special);
      ASSERT_TRUE(got.ok() && want.ok());
      EXPECT_EQ(got.value(), want.value());
      EXPECT_EQ(tok.decode(got.value()), replaced);
      // No unknown or control token stands in for the bad bytes.
      for (int32_t id : got.value()) {
        EXPECT_NE(id, tok.unk());
        EXPECT_FALSE(tok.is_control(id)) << "id " << id;
      }
    }
  }
}

// SmolLM2's vocabulary family has no token for the bytes C0, C1, F1 and F5..FF: a character
// holding one (U+40000 is F1 80 80 80) becomes U+FFFD, never the unknown token, which there is
// <|endoftext|>.
TEST(InvalidUtf8, BpeCharacterWithoutByteTokensIsReplaced) {
  auto file = GgufFile::open(testing::vocab_dir() + "/ggml-vocab-starcoder.gguf");
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto made = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  const Tokenizer& tok = *made.value();
  auto got = tok.encode("a\xF1\x80\x80\x80" "b \xF5", false, false);
  auto want = tok.encode("a" FFFD "b " FFFD, false, false);
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(got.value(), want.value());
  EXPECT_EQ(tok.decode(got.value()), "a" FFFD "b " FFFD);
  for (int32_t id : got.value()) EXPECT_FALSE(tok.is_control(id)) << "id " << id;
  // Characters it can spell are untouched.
  auto plain = tok.encode("\xE4\xBD\xA0\xF0\x9F\x98\x81", false, false);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(tok.decode(plain.value()), "\xE4\xBD\xA0\xF0\x9F\x98\x81");
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, InvalidUtf8VocabFile,
                         ::testing::Values("ggml-vocab-gpt-2", "ggml-vocab-starcoder",
                                           "ggml-vocab-llama-spm"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = std::string(info.param).substr(11);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace clport
