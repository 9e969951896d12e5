#include "chat_prompt.h"

namespace clport::cli {

Result<ChatFormat> choose_chat_format(EngineCore& engine, const std::string& template_override, bool no_bos) {
  auto choice = choose_chat_template(engine.file(), template_override);
  if (!choice.ok()) return choice.status();
  const Tokenizer& tok = engine.tokenizer();
  ChatFormat format;
  format.family = choice->family;
  format.source = choice->source;
  format.stop_tokens = chat_stop_tokens(choice->family, tok);
  format.eos_text = tok.eos() >= 0 ? tok.token_to_piece(tok.eos(), true) : "";
  format.add_bos = !no_bos && tok.add_bos_default();
  return format;
}

std::string chat_format_line(const ChatFormat& format) {
  return "chat template: " + std::string(chat_family_name(format.family)) + " (from " + format.source + ")";
}

Result<std::string> format_conversation(const ChatFormat& format, const std::vector<ChatMessage>& messages) {
  return format_chat(format.family, messages, /*add_generation_prompt=*/true, format.eos_text);
}

Result<std::vector<int32_t>> encode_conversation(const Tokenizer& tokenizer, const ChatFormat& format,
                                                 const std::vector<ChatMessage>& messages) {
  auto text = format_conversation(format, messages);
  if (!text.ok()) return text.status();
  return tokenizer.encode(text.value(), format.add_bos, /*parse_special=*/true);
}

}  // namespace clport::cli
