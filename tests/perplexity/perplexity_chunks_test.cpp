// Pins llama-perplexity's chunking: the stream starts with BOS when the vocabulary adds it,
// chunks are cut from the start of that stream, each chunk's first token becomes BOS, and the
// second half is scored against the stream's next tokens.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/model_checks.h"
#include "tiny_vocabs.h"

namespace clport {
namespace {

std::vector<int32_t> iota_tokens(size_t n, int32_t first) {
  std::vector<int32_t> t(n);
  std::iota(t.begin(), t.end(), first);
  return t;
}

TEST(PerplexityTokens, StartWithBosWhenTheVocabularyAddsIt) {
  auto tok = Tokenizer::from_vocab(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const std::string text = "ab ab a b ab";
  auto plain = tok.value()->encode(text, false, false);
  auto stream = perplexity_tokens(*tok.value(), text);
  ASSERT_TRUE(plain.ok() && stream.ok());
  ASSERT_EQ(stream->size(), plain->size() + 1);
  EXPECT_EQ(stream->front(), tok.value()->bos());
  EXPECT_TRUE(std::equal(plain->begin(), plain->end(), stream->begin() + 1));
}

TEST(PerplexityTokens, NoBosWhenTheVocabularyDoesNotAddIt) {
  Vocab v = testing::tiny_spm_vocab();
  v.add_bos = false;
  auto tok = Tokenizer::from_vocab(v);
  ASSERT_TRUE(tok.ok());
  auto plain = tok.value()->encode("ab a", false, false);
  auto stream = perplexity_tokens(*tok.value(), "ab a");
  ASSERT_TRUE(plain.ok() && stream.ok());
  EXPECT_EQ(stream.value(), plain.value());
}

TEST(PerplexityTokens, SpecialTokenTextStaysText) {
  auto tok = Tokenizer::from_vocab(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok.ok());
  auto stream = perplexity_tokens(*tok.value(), "a</s>b");
  ASSERT_TRUE(stream.ok());
  for (size_t i = 1; i < stream->size(); ++i) EXPECT_NE((*stream)[i], tok.value()->eos());
}

TEST(PerplexityChunk, FirstTokenBecomesBosAndTheSecondHalfIsScored) {
  // Stream 100, 101, ...: chunk c covers stream positions [8c, 8c + 8).
  const auto tokens = iota_tokens(8 * 2 + 5, 100);
  auto c0 = perplexity_chunk(tokens, 8, 0, /*bos=*/1);
  ASSERT_TRUE(c0.ok()) << c0.status().to_string();
  EXPECT_EQ(c0->input, (std::vector<int32_t>{1, 101, 102, 103, 104, 105, 106, 107}));
  EXPECT_EQ(c0->first_scored_row, 4u);
  // Rows 4, 5, 6 predict the stream's tokens 5, 6, 7; row 7 would predict past the chunk.
  EXPECT_EQ(c0->targets, (std::vector<int32_t>{105, 106, 107}));

  auto c1 = perplexity_chunk(tokens, 8, 1, 1);
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->input, (std::vector<int32_t>{1, 109, 110, 111, 112, 113, 114, 115}));
  EXPECT_EQ(c1->targets, (std::vector<int32_t>{113, 114, 115}));
}

TEST(PerplexityChunk, OddContextScoresFromHalfRoundedDown) {
  const auto tokens = iota_tokens(7, 0);
  auto c = perplexity_chunk(tokens, 7, 0, -1);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->input, tokens);  // bos < 0: the first token is kept
  EXPECT_EQ(c->first_scored_row, 3u);
  EXPECT_EQ(c->targets, (std::vector<int32_t>{4, 5, 6}));
}

TEST(PerplexityChunk, ChunksAreCutFromTheStreamThatStartsWithBos) {
  // The stream's BOS is position 0, so chunk 1 begins with the text's token n_ctx - 1 (replaced
  // by BOS) and its second token is the text's token n_ctx: one token earlier than chunks cut
  // from the text without BOS.
  auto tok = Tokenizer::from_vocab(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok.ok());
  std::string text;
  for (int i = 0; i < 40; ++i) text += i % 3 ? "ab " : "a b ";
  auto plain = tok.value()->encode(text, false, false);
  auto stream = perplexity_tokens(*tok.value(), text);
  ASSERT_TRUE(plain.ok() && stream.ok());
  const uint32_t n_ctx = 16;
  ASSERT_GE(stream->size(), 2u * n_ctx);
  auto c1 = perplexity_chunk(stream.value(), n_ctx, 1, tok.value()->bos());
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(c1->input[0], tok.value()->bos());
  EXPECT_EQ(c1->input[1], (*plain)[n_ctx]);
  EXPECT_EQ(c1->targets.front(), (*plain)[n_ctx + n_ctx / 2]);
  EXPECT_EQ(c1->targets.back(), (*plain)[2 * n_ctx - 2]);
}

TEST(PerplexityChunk, PartialChunkAndTinyContextAreRefused) {
  const auto tokens = iota_tokens(20, 0);
  auto partial = perplexity_chunk(tokens, 8, 2, 1);
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.status().stage(), Stage::InvalidArgument);
  EXPECT_NE(partial.status().message().find("2 whole chunks of 8"), std::string::npos)
      << partial.status().message();
  EXPECT_FALSE(perplexity_chunk(tokens, 1, 0, 1).ok());
  EXPECT_FALSE(perplexity_chunk(tokens, 0, 0, 1).ok());
}

}  // namespace
}  // namespace clport
