// Chat templates: which conversation format a model was trained with, recognised from the Jinja
// text in its `tokenizer.chat_template` (or named by the user), how a conversation is written in
// that format, and which tokens end the assistant's turn.
//
// clport does not run Jinja: each known family's format is written out in C++ (chat_format.cpp),
// and a template is recognised by the marker strings its text contains (chat_template.cpp). A
// template that matches no family is an error, never a silent fallback to ChatML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clport/export.h"
#include "clport/status.h"

namespace clport {

class GgufFile;
class Tokenizer;

enum class ChatFamily {
  ChatMl,           // <|im_start|>role\n...<|im_end|> (Qwen, SmolLM, Hermes, ...)
  Phi4,             // <|im_start|>role<|im_sep|>...<|im_end|>
  Llama2,           // [INST] ... [/INST], no system block: the system text opens the first turn
  Llama2Sys,        // Llama 2 with a <<SYS>> block in the first turn
  Llama2SysBos,     // ... and <s> before every later [INST]
  Llama2SysStrip,   // ... and every message stripped of surrounding whitespace
  MistralV1,        // " [INST] ... [/INST] answer</s>"
  MistralV3,        // "[INST] ...[/INST] answer</s>", the answer trimmed
  MistralV3Tekken,  // "[INST]...[/INST]answer</s>"
  MistralV7,        // [SYSTEM_PROMPT] ...[/SYSTEM_PROMPT][INST] ...[/INST]
  MistralV7Tekken,  // the same without the spaces
  Llama3,           // <|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|>
  Gemma,            // <start_of_turn>user|model\n...<end_of_turn>
  Phi3,             // <|role|>\n...<|end|>
  Zephyr,           // <|role|>\n...EOS
  Vicuna,           // USER: ... ASSISTANT: ...</s>
  VicunaOrca,       // Vicuna with a "SYSTEM: " line
  DeepSeek,         // ### Instruction: / ### Response: ... <|EOT|> (DeepSeek Coder)
  DeepSeek2,        // User: ... Assistant: ...EOS
  DeepSeek3,        // <｜User｜>...<｜Assistant｜>...EOS (DeepSeek V3, R1)
  CommandR,         // <|START_OF_TURN_TOKEN|><|USER_TOKEN|>...<|END_OF_TURN_TOKEN|>
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// The family's name as `--chat-template` takes it (llama.cpp's names), e.g. "chatml", "llama3".
CLPORT_API std::string_view chat_family_name(ChatFamily family);
// Every family, in the order the names are listed to users.
CLPORT_API const std::vector<ChatFamily>& all_chat_families();
// "chatml, phi4, llama2, ...": for messages that tell the user what --chat-template takes.
CLPORT_API std::string chat_family_names();
// A name from chat_family_name(); anything else is an InvalidArgument status listing the names.
CLPORT_API Result<ChatFamily> chat_family_from_name(std::string_view name);
// The family whose markers the Jinja text contains; nullopt when none matches.
CLPORT_API std::optional<ChatFamily> detect_chat_family(std::string_view template_text);

struct ChatTemplateChoice {
  ChatFamily family = ChatFamily::ChatMl;
  std::string source;  // where it came from, for the user: "--chat-template" or the metadata key
};

// The format to use for `file`: `name_override` when it is not empty (an unknown name is an
// error listing the names), else the family recognised in tokenizer.chat_template. A file
// without a template, or with one no family matches, is a Model status that says so and names
// --chat-template and its values.
CLPORT_API Result<ChatTemplateChoice> choose_chat_template(const GgufFile& file,
                                                           std::string_view name_override);

// The conversation written in `family`'s format. add_generation_prompt appends the header that
// opens the assistant's turn (families whose user turn already ends in one, such as Llama 2's
// "[/INST]", have nothing to add). `eos_text` is the vocabulary's EOS token text, written where
// the family ends a turn with EOS (Llama 2, Mistral, Zephyr, Vicuna, DeepSeek 2/3); empty means
// the family's usual EOS text. The text holds no BOS: the tokenizer adds it. A role other than
// system, user and assistant is an InvalidArgument status.
CLPORT_API Result<std::string> format_chat(ChatFamily family, const std::vector<ChatMessage>& messages,
                                           bool add_generation_prompt, std::string_view eos_text = {});

// The token texts that end an assistant turn in this family ("<|im_end|>", "<end_of_turn>", ...);
// empty for the families that end turns with the vocabulary's EOS.
CLPORT_API std::vector<std::string_view> chat_end_of_turn_texts(ChatFamily family);
// Those texts resolved through the vocabulary; where none of them is a token, the vocabulary's
// EOS (empty when it has none either).
CLPORT_API std::vector<int32_t> chat_stop_tokens(ChatFamily family, const Tokenizer& tokenizer);

}  // namespace clport
