// The llama.cpp vocabulary test sets: every input must encode to exactly the ids llama.cpp
// produces (no BOS), and decoding must give the input back. Missing data is a failure, never a
// skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "gguf/gguf.h"
#include "clport/tokenizer.h"
#include "vocab_test_data.h"

namespace clport {
namespace {

using testing::VocabTestCase;

std::string show_ids(const std::vector<int32_t>& ids) {
  std::ostringstream ss;
  for (size_t i = 0; i < ids.size(); ++i) ss << (i ? " " : "") << ids[i];
  return "[" + ss.str() + "]";
}

std::string show_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

class VocabFileTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string name = GetParam();
    std::string error;
    ASSERT_TRUE(testing::load_vocab_cases(name, cases_, error)) << error;
    ASSERT_FALSE(cases_.empty()) << name << ": no test cases";
    auto file = GgufFile::open(testing::vocab_dir() + "/" + name + ".gguf");
    ASSERT_TRUE(file.ok()) << file.status().to_string();
    file_ = file.value();
    auto tok = Tokenizer::from_gguf(*file_);
    ASSERT_TRUE(tok.ok()) << tok.status().to_string();
    tok_ = std::move(tok.value());
  }

  std::vector<VocabTestCase> cases_;
  std::shared_ptr<GgufFile> file_;
  std::unique_ptr<Tokenizer> tok_;
};

TEST_P(VocabFileTest, EncodesExactlyLikeLlamaCpp) {
  // 46 inputs per set in the shipped data; guards against a parser that silently drops cases.
  EXPECT_EQ(cases_.size(), 46u);
  size_t passed = 0;
  for (size_t i = 0; i < cases_.size(); ++i) {
    const VocabTestCase& c = cases_[i];
    auto ids = tok_->encode(c.input, /*add_bos=*/false, /*parse_special=*/false);
    ASSERT_TRUE(ids.ok()) << "case " << i << ": " << ids.status().to_string();
    if (ids.value() == c.expected) {
      ++passed;
    } else {
      ADD_FAILURE() << "case " << i << " " << show_text(c.input) << "\n  expected "
                    << show_ids(c.expected) << "\n  got      " << show_ids(ids.value());
    }
  }
  EXPECT_EQ(passed, cases_.size()) << passed << "/" << cases_.size() << " cases match";
}

TEST_P(VocabFileTest, DecodeRoundTrips) {
  for (size_t i = 0; i < cases_.size(); ++i) {
    const VocabTestCase& c = cases_[i];
    // The expected ids decode to the input: checks decoding on its own ...
    EXPECT_EQ(tok_->decode(c.expected), c.input) << "case " << i << " (expected ids)";
    // ... and through our own encoder, with and without BOS.
    auto ids = tok_->encode(c.input, false, false);
    ASSERT_TRUE(ids.ok()) << ids.status().to_string();
    EXPECT_EQ(tok_->decode(ids.value()), c.input) << "case " << i;
    auto with_bos = tok_->encode(c.input, true, false);
    ASSERT_TRUE(with_bos.ok()) << with_bos.status().to_string();
    if (tok_->bos() >= 0) {
      ASSERT_FALSE(with_bos->empty());
      EXPECT_EQ(with_bos->front(), tok_->bos());
    }
    EXPECT_EQ(tok_->decode(with_bos.value()), c.input) << "case " << i << " with BOS";
  }
}

TEST_P(VocabFileTest, StreamingDecodeMatchesWholeDecode) {
  for (size_t i = 0; i < cases_.size(); ++i) {
    const VocabTestCase& c = cases_[i];
    TokenStreamDecoder stream(*tok_, false, /*strip_space_prefix=*/true);
    std::string streamed;
    for (int32_t id : c.expected) {
      const std::string part = stream.push(id);
      // Every chunk handed out is whole characters: never ends inside a UTF-8 sequence.
      if (!part.empty()) {
        const auto last = static_cast<unsigned char>(part.back());
        EXPECT_TRUE(last < 0x80 || (last & 0xC0) == 0x80) << "case " << i;
      }
      streamed += part;
    }
    streamed += stream.flush();
    EXPECT_EQ(streamed, c.input) << "case " << i;
  }
}

TEST_P(VocabFileTest, EndOfSequenceTokenIsSpecialAndEndsGeneration) {
  const int32_t eos = tok_->eos();
  ASSERT_GE(eos, 0);
  EXPECT_TRUE(tok_->is_eog(eos));
  const std::string eos_text = tok_->vocab().tokens[static_cast<size_t>(eos)];
  const std::string text = "Hi" + eos_text + "there";
  auto special = tok_->encode(text, false, /*parse_special=*/true);
  ASSERT_TRUE(special.ok());
  auto plain = tok_->encode(text, false, /*parse_special=*/false);
  ASSERT_TRUE(plain.ok());
  // Parsed: exactly one EOS id in the middle. Not parsed: the marker is spelled out in pieces.
  EXPECT_EQ(std::count(special->begin(), special->end(), eos), 1);
  EXPECT_EQ(std::count(plain->begin(), plain->end(), eos), 0);
  EXPECT_GT(plain->size(), special->size());
  EXPECT_EQ(tok_->decode(plain.value()), text);
  // Control tokens are hidden unless asked for.
  EXPECT_EQ(tok_->token_to_piece(eos), "");
  EXPECT_EQ(tok_->token_to_piece(eos, true), eos_text);
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, VocabFileTest,
                         ::testing::Values("ggml-vocab-gpt-2", "ggml-vocab-starcoder",
                                           "ggml-vocab-llama-spm"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           name = name.substr(std::string("ggml-vocab-").size());
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace clport
