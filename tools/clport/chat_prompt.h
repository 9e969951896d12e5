// A conversation as the model reads it: the chat format (the file's template, or --chat-template),
// the messages written in it and tokenized, and the tokens that end the assistant's turn. Shared
// by `run --chat` (one turn) and `chat` (the whole conversation, every turn).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport/chat_template.h"
#include "engine/engine_core.h"

namespace clport::cli {

struct ChatFormat {
  ChatFamily family = ChatFamily::ChatMl;
  std::string source;                // where the family came from, for the user
  std::vector<int32_t> stop_tokens;  // the family's end of turn
  std::string eos_text;              // the vocabulary's EOS text, for families that end turns with it
  bool add_bos = true;
};

// `template_override`: a family name ("" = recognise the file's template). no_bos leaves out the
// BOS token the vocabulary would add.
Result<ChatFormat> choose_chat_format(EngineCore& engine, const std::string& template_override, bool no_bos);

// "chat template: chatml (from tokenizer.chat_template)", the line both commands print on stderr.
std::string chat_format_line(const ChatFormat& format);

// The messages in the format, opening the assistant's turn: as text, and as tokens (special tokens
// parsed, as the template writes them).
Result<std::string> format_conversation(const ChatFormat& format, const std::vector<ChatMessage>& messages);
Result<std::vector<int32_t>> encode_conversation(const Tokenizer& tokenizer, const ChatFormat& format,
                                                 const std::vector<ChatMessage>& messages);

}  // namespace clport::cli
