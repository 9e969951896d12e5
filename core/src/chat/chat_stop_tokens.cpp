// The tokens that end an assistant turn, per chat family, resolved through the vocabulary.
#include "clport/chat_template.h"
#include "clport/tokenizer.h"

namespace clport {

std::vector<std::string_view> chat_end_of_turn_texts(ChatFamily family) {
  switch (family) {
    case ChatFamily::ChatMl:
    case ChatFamily::Phi4:
      return {"<|im_end|>"};
    case ChatFamily::Llama3:
      return {"<|eot_id|>", "<|eom_id|>"};
    case ChatFamily::Gemma:
      return {"<end_of_turn>"};
    case ChatFamily::Phi3:
      return {"<|end|>"};
    case ChatFamily::DeepSeek:
      return {"<|EOT|>"};
    case ChatFamily::CommandR:
      return {"<|END_OF_TURN_TOKEN|>"};
    default:
      return {};  // the turn ends with the vocabulary's EOS
  }
}

std::vector<int32_t> chat_stop_tokens(ChatFamily family, const Tokenizer& tokenizer) {
  std::vector<int32_t> ids;
  for (std::string_view text : chat_end_of_turn_texts(family)) {
    if (auto id = tokenizer.find_token(text)) ids.push_back(*id);
  }
  if (ids.empty() && tokenizer.eos() >= 0) ids.push_back(tokenizer.eos());
  return ids;
}

}  // namespace clport
