// clport_chat_apply / clport_chat_stop_tokens: a conversation in a chat family's format (named,
// or recognised in the file's tokenizer.chat_template) and the tokens that end its turns.
#include "capi/capi_internal.h"
#include "clport/chat_template.h"

namespace {

// The family by name, or the file's (a Model status saying why there is none).
clport::Result<clport::ChatFamily> capi_chat_family(clport::EngineCore& engine, const char* template_name) {
  auto choice = clport::choose_chat_template(engine.file(), template_name == nullptr ? "" : template_name);
  if (!choice.ok()) return choice.status();
  return choice->family;
}

}  // namespace

using clport::capi::guarded;
using clport::capi::invalid;

extern "C" {

clport_status clport_chat_apply(clport_model* model, const char* template_name,
                                const clport_chat_message* messages, size_t n_messages,
                                int32_t add_generation_prompt, char** out_text, size_t* out_length) {
  static const char* fn = "clport_chat_apply";
  if (out_text != nullptr) *out_text = nullptr;
  if (out_length != nullptr) *out_length = 0;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_text == nullptr) return invalid(&model->error, std::string(fn) + ": out_text is NULL");
    if (messages == nullptr && n_messages > 0) {
      return invalid(&model->error, std::string(fn) + ": messages is NULL but n_messages is " + std::to_string(n_messages));
    }
    std::vector<clport::ChatMessage> conversation;
    for (size_t i = 0; i < n_messages; ++i) {
      if (messages[i].role == nullptr || messages[i].content == nullptr) {
        return invalid(&model->error, std::string(fn) + ": messages[" + std::to_string(i) + "]." +
                                          (messages[i].role == nullptr ? "role" : "content") + " is NULL");
      }
      conversation.push_back({messages[i].role, messages[i].content});
    }
    clport::EngineCore& engine = *model->state->engine;
    auto family = capi_chat_family(engine, template_name);
    if (!family.ok()) return clport::capi::from_status(&model->error, family.status());
    const clport::Tokenizer& tok = engine.tokenizer();
    const std::string eos_text = tok.eos() >= 0 ? tok.token_to_piece(tok.eos(), true) : "";
    auto text = clport::format_chat(family.value(), conversation, add_generation_prompt != 0, eos_text);
    if (!text.ok()) return clport::capi::from_status(&model->error, text.status());
    *out_text = clport::capi::copy_text(text.value());
    if (out_length != nullptr) *out_length = text->size();
    return clport::capi::ok(&model->error);
  });
}

clport_status clport_chat_stop_tokens(clport_model* model, const char* template_name, int32_t** out_tokens,
                                      size_t* out_count) {
  static const char* fn = "clport_chat_stop_tokens";
  if (out_tokens != nullptr) *out_tokens = nullptr;
  if (out_count != nullptr) *out_count = 0;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_tokens == nullptr || out_count == nullptr) {
      return invalid(&model->error, std::string(fn) + ": " + (out_tokens == nullptr ? "out_tokens" : "out_count") + " is NULL");
    }
    clport::EngineCore& engine = *model->state->engine;
    auto family = capi_chat_family(engine, template_name);
    if (!family.ok()) return clport::capi::from_status(&model->error, family.status());
    const std::vector<int32_t> stops = clport::chat_stop_tokens(family.value(), engine.tokenizer());
    if (!stops.empty()) {
      *out_tokens = static_cast<int32_t*>(clport::capi::copy_out(stops.data(), stops.size() * sizeof(int32_t)));
    }
    *out_count = stops.size();
    return clport::capi::ok(&model->error);
  });
}

}  // extern "C"
