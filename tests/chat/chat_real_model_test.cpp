// The real SmolLM2-135M-Instruct file's tokenizer.chat_template is recognised as ChatML, and
// its end of turn <|im_end|> is a token of its vocabulary.
#include <gtest/gtest.h>

#include <cstdlib>

#include "clport/chat_template.h"
#include "gguf/gguf.h"
#include "clport/tokenizer.h"

namespace clport {
namespace {

TEST(ChatRealModel, SmolLM2TemplateIsChatMl) {
  const char* path = std::getenv("CLPORT_TEST_MODEL");
  ASSERT_NE(path, nullptr) << "CLPORT_TEST_MODEL is not set";
  auto file = GgufFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  auto choice = choose_chat_template(*file.value(), "");
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  EXPECT_EQ(choice->family, ChatFamily::ChatMl);
  EXPECT_EQ(choice->source, "tokenizer.chat_template");
  auto tok = Tokenizer::from_gguf(*file.value());
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const auto stop = chat_stop_tokens(choice->family, *tok.value());
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0], tok.value()->find_token("<|im_end|>").value());
}

}  // namespace
}  // namespace clport
