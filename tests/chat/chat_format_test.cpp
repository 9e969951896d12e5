// Pins every chat family's format of one two-turn conversation (system, user, assistant, user,
// then the generation prompt) as the exact text the model is given.
#include <gtest/gtest.h>

#include "clport/chat_template.h"

namespace clport {
namespace {

const std::vector<ChatMessage> kConversation = {
    {"system", "You are terse."},
    {"user", "Hi"},
    {"assistant", "Hello!"},
    {"user", "Name a colour."},
};

struct Expected {
  ChatFamily family;
  const char* text;
};

const Expected kExpected[] = {
    {ChatFamily::ChatMl,
     "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
     "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nName a colour.<|im_end|>\n"
     "<|im_start|>assistant\n"},
    {ChatFamily::Phi4,
     "<|im_start|>system<|im_sep|>You are terse.<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|>"
     "<|im_start|>assistant<|im_sep|>Hello!<|im_end|><|im_start|>user<|im_sep|>Name a colour."
     "<|im_end|><|im_start|>assistant<|im_sep|>"},
    {ChatFamily::Llama2, "[INST] You are terse.\nHi [/INST]Hello!</s>[INST] Name a colour. [/INST]"},
    {ChatFamily::Llama2Sys,
     "[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHi [/INST]Hello!</s>[INST] Name a colour. [/INST]"},
    {ChatFamily::Llama2SysBos,
     "[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHi [/INST]Hello!</s><s>[INST] Name a colour. [/INST]"},
    {ChatFamily::Llama2SysStrip,
     "[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHi [/INST]Hello!</s>[INST] Name a colour. [/INST]"},
    {ChatFamily::MistralV1,
     " [INST] You are terse.\n\nHi [/INST] Hello!</s> [INST] Name a colour. [/INST]"},
    {ChatFamily::MistralV3, "[INST] You are terse.\n\nHi[/INST] Hello!</s>[INST] Name a colour.[/INST]"},
    {ChatFamily::MistralV3Tekken, "[INST]You are terse.\n\nHi[/INST]Hello!</s>[INST]Name a colour.[/INST]"},
    {ChatFamily::MistralV7,
     "[SYSTEM_PROMPT] You are terse.[/SYSTEM_PROMPT][INST] Hi[/INST] Hello!</s>"
     "[INST] Name a colour.[/INST]"},
    {ChatFamily::MistralV7Tekken,
     "[SYSTEM_PROMPT]You are terse.[/SYSTEM_PROMPT][INST]Hi[/INST]Hello!</s>[INST]Name a colour.[/INST]"},
    {ChatFamily::Llama3,
     "<|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
     "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
     "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
     "<|start_header_id|>user<|end_header_id|>\n\nName a colour.<|eot_id|>"
     "<|start_header_id|>assistant<|end_header_id|>\n\n"},
    {ChatFamily::Gemma,
     "<start_of_turn>user\nYou are terse.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
     "<start_of_turn>user\nName a colour.<end_of_turn>\n<start_of_turn>model\n"},
    {ChatFamily::Phi3,
     "<|system|>\nYou are terse.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
     "<|user|>\nName a colour.<|end|>\n<|assistant|>\n"},
    {ChatFamily::Zephyr,
     "<|system|>\nYou are terse.</s>\n<|user|>\nHi</s>\n<|assistant|>\nHello!</s>\n"
     "<|user|>\nName a colour.</s>\n<|assistant|>\n"},
    {ChatFamily::Vicuna,
     "You are terse.\n\nUSER: Hi\nASSISTANT: Hello!</s>\nUSER: Name a colour.\nASSISTANT:"},
    {ChatFamily::VicunaOrca,
     "SYSTEM: You are terse.\nUSER: Hi\nASSISTANT: Hello!</s>\nUSER: Name a colour.\nASSISTANT:"},
    {ChatFamily::DeepSeek,
     "You are terse.### Instruction:\nHi\n### Response:\nHello!\n<|EOT|>\n"
     "### Instruction:\nName a colour.\n### Response:\n"},
    {ChatFamily::DeepSeek2,
     "You are terse.\n\nUser: Hi\n\nAssistant: Hello!<｜end▁of▁sentence｜>User: Name a colour.\n\n"
     "Assistant:"},
    {ChatFamily::DeepSeek3,
     "You are terse.\n\n<｜User｜>Hi<｜Assistant｜>Hello!<｜end▁of▁sentence｜><｜User｜>Name a colour."
     "<｜Assistant｜>"},
    {ChatFamily::CommandR,
     "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are terse.<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hi<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>Hello!<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Name a colour.<|END_OF_TURN_TOKEN|>"
     "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"},
};

TEST(ChatFormat, EveryFamilyFormatsTheTwoTurnConversation) {
  for (const auto& e : kExpected) {
    auto text = format_chat(e.family, kConversation, /*add_generation_prompt=*/true);
    ASSERT_TRUE(text.ok()) << chat_family_name(e.family) << ": " << text.status().to_string();
    EXPECT_EQ(text.value(), e.text) << chat_family_name(e.family);
  }
}

TEST(ChatFormat, EveryFamilyIsPinned) {
  for (ChatFamily family : all_chat_families()) {
    const bool pinned = std::any_of(std::begin(kExpected), std::end(kExpected),
                                    [&](const Expected& e) { return e.family == family; });
    EXPECT_TRUE(pinned) << chat_family_name(family) << " has no expected format";
  }
}

TEST(ChatFormat, GenerationPromptOpensTheAssistantTurn) {
  const std::vector<ChatMessage> one = {{"user", "Hi"}};
  auto with = format_chat(ChatFamily::Gemma, one, true);
  auto without = format_chat(ChatFamily::Gemma, one, false);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(without.value(), "<start_of_turn>user\nHi<end_of_turn>\n");
  EXPECT_EQ(with.value(), without.value() + "<start_of_turn>model\n");
  // Llama 2's user turn already ends in the answer's header.
  auto l2 = format_chat(ChatFamily::Llama2Sys, one, true);
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(l2.value(), "[INST] Hi [/INST]");
}

TEST(ChatFormat, TrimmingFamiliesTrimAndOthersKeepSpaces) {
  const std::vector<ChatMessage> spaced = {{"user", "  Hi \n"}};
  auto llama3 = format_chat(ChatFamily::Llama3, spaced, false);
  auto chatml = format_chat(ChatFamily::ChatMl, spaced, false);
  auto strip = format_chat(ChatFamily::Llama2SysStrip, spaced, false);
  ASSERT_TRUE(llama3.ok() && chatml.ok() && strip.ok());
  EXPECT_EQ(llama3.value(), "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>");
  EXPECT_EQ(chatml.value(), "<|im_start|>user\n  Hi \n<|im_end|>\n");
  EXPECT_EQ(strip.value(), "[INST] Hi [/INST]");
}

TEST(ChatFormat, EosTextComesFromTheVocabulary) {
  // StableLM's Zephyr ends turns with <|endoftext|>, its EOS.
  auto text = format_chat(ChatFamily::Zephyr, {{"user", "Hi"}}, true, "<|endoftext|>");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "<|user|>\nHi<|endoftext|>\n<|assistant|>\n");
}

TEST(ChatFormat, UnknownRoleIsAnError) {
  auto text = format_chat(ChatFamily::ChatMl, {{"tool", "42"}}, true);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().stage(), Stage::InvalidArgument);
  EXPECT_NE(text.status().message().find("'tool'"), std::string::npos);
}

}  // namespace
}  // namespace clport
