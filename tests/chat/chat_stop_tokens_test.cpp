// The end-of-turn tokens each family stops at, resolved through the vocabulary, EOS when the
// vocabulary lacks them.
#include <gtest/gtest.h>

#include "clport/chat_template.h"
#include "tiny_vocabs.h"

namespace clport {
namespace {

// The tiny SentencePiece vocabulary (EOS "</s>" = 2) plus Gemma's and Llama 3's turn markers.
std::unique_ptr<Tokenizer> chat_tokenizer() {
  Vocab v = testing::tiny_spm_vocab();
  for (const char* marker : {"<start_of_turn>", "<end_of_turn>", "<|eot_id|>", "<|eom_id|>"}) {
    v.tokens.push_back(marker);
    v.scores.push_back(0);
    v.types.push_back(TokenType::Control);
  }
  auto tok = Tokenizer::from_vocab(v);
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  return tok.ok() ? std::move(tok.value()) : nullptr;
}

TEST(ChatStopTokens, TheFamilysEndOfTurnTokens) {
  auto tok = chat_tokenizer();
  ASSERT_TRUE(tok);
  const int32_t end_of_turn = tok->find_token("<end_of_turn>").value();
  EXPECT_EQ(chat_stop_tokens(ChatFamily::Gemma, *tok), std::vector<int32_t>{end_of_turn});
  const std::vector<int32_t> llama3 = {tok->find_token("<|eot_id|>").value(),
                                       tok->find_token("<|eom_id|>").value()};
  EXPECT_EQ(chat_stop_tokens(ChatFamily::Llama3, *tok), llama3);
}

TEST(ChatStopTokens, FallBackToEosWhenTheVocabularyLacksThem) {
  auto tok = chat_tokenizer();
  ASSERT_TRUE(tok);
  EXPECT_EQ(chat_stop_tokens(ChatFamily::ChatMl, *tok), std::vector<int32_t>{tok->eos()});
  EXPECT_EQ(chat_stop_tokens(ChatFamily::Phi3, *tok), std::vector<int32_t>{tok->eos()});
}

TEST(ChatStopTokens, EosFamiliesStopAtEos) {
  auto tok = chat_tokenizer();
  ASSERT_TRUE(tok);
  for (ChatFamily f : {ChatFamily::Llama2Sys, ChatFamily::MistralV7, ChatFamily::Zephyr,
                       ChatFamily::Vicuna, ChatFamily::DeepSeek3}) {
    EXPECT_TRUE(chat_end_of_turn_texts(f).empty()) << chat_family_name(f);
    EXPECT_EQ(chat_stop_tokens(f, *tok), std::vector<int32_t>{tok->eos()}) << chat_family_name(f);
  }
}

TEST(ChatStopTokens, EveryTurnMarkerFamilyNamesItsTokens) {
  EXPECT_EQ(chat_end_of_turn_texts(ChatFamily::ChatMl), std::vector<std::string_view>{"<|im_end|>"});
  EXPECT_EQ(chat_end_of_turn_texts(ChatFamily::Gemma), std::vector<std::string_view>{"<end_of_turn>"});
  EXPECT_EQ(chat_end_of_turn_texts(ChatFamily::Phi3), std::vector<std::string_view>{"<|end|>"});
  EXPECT_EQ(chat_end_of_turn_texts(ChatFamily::CommandR),
            std::vector<std::string_view>{"<|END_OF_TURN_TOKEN|>"});
  EXPECT_EQ(chat_end_of_turn_texts(ChatFamily::DeepSeek), std::vector<std::string_view>{"<|EOT|>"});
}

}  // namespace
}  // namespace clport
