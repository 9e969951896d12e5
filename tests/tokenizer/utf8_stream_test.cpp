// Streaming output must never cut a UTF-8 character in two, and must not swallow bytes.
#include <gtest/gtest.h>

#include "clport/tokenizer.h"
#include "tiny_vocabs.h"

namespace clport {
namespace {

TEST(Utf8StreamBuffer, HoldsIncompleteSequencesUntilComplete) {
  Utf8StreamBuffer b;
  EXPECT_EQ(b.push("\xE2"), "");
  EXPECT_EQ(b.push("\x82"), "");
  EXPECT_EQ(b.push("\xAC"), "\xE2\x82\xAC");  // €
  EXPECT_EQ(b.push("a\xF0\x9F"), "a");
  EXPECT_EQ(b.pending(), 2u);
  EXPECT_EQ(b.push("\x98\x81" "b"), "\xF0\x9F\x98\x81" "b");  // 😁b
  EXPECT_EQ(b.pending(), 0u);
}

TEST(Utf8StreamBuffer, InvalidBytesPassThroughAndFlushReturnsTheRest) {
  Utf8StreamBuffer b;
  EXPECT_EQ(b.push("\xFF" "x"), "\xFF" "x");
  EXPECT_EQ(b.push("\x80\x80"), "\x80\x80");  // stray continuation bytes are not held
  EXPECT_EQ(b.push("y\xC3"), "y");
  EXPECT_EQ(b.flush(), "\xC3");
  EXPECT_EQ(b.flush(), "");
}

TEST(TokenStreamDecoder, ByteTokensOfOneCharacterComeOutTogether) {
  auto tok = Tokenizer::from_vocab(testing::tiny_spm_vocab());
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  // "a😁" -> ▁a then four byte tokens (3 + byte).
  auto ids = (*tok)->encode("a\xF0\x9F\x98\x81", false, false);
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->size(), 5u);
  TokenStreamDecoder stream(**tok, false, /*strip_space_prefix=*/true);
  EXPECT_EQ(stream.push((*ids)[0]), "a");  // the space prefix is removed from the first text
  EXPECT_EQ(stream.push((*ids)[1]), "");
  EXPECT_EQ(stream.push((*ids)[2]), "");
  EXPECT_EQ(stream.push((*ids)[3]), "");
  EXPECT_EQ(stream.push((*ids)[4]), "\xF0\x9F\x98\x81");
  EXPECT_EQ(stream.flush(), "");
  // A continuation keeps its leading space.
  TokenStreamDecoder continuation(**tok);
  EXPECT_EQ(continuation.push((*ids)[0]), " a");
}

}  // namespace
}  // namespace clport
