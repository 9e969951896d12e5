// clport_tokenize / clport_detokenize: the model's tokenizer; results allocated for the caller.
#include <string_view>

#include "capi/capi_internal.h"

using clport::capi::guarded;
using clport::capi::invalid;

extern "C" {

clport_status clport_tokenize(clport_model* model, const char* text, size_t text_length, uint32_t flags,
                              int32_t** out_tokens, size_t* out_count) {
  static const char* fn = "clport_tokenize";
  if (out_tokens != nullptr) *out_tokens = nullptr;
  if (out_count != nullptr) *out_count = 0;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_tokens == nullptr || out_count == nullptr) {
      return invalid(&model->error, std::string(fn) + ": " + (out_tokens == nullptr ? "out_tokens" : "out_count") + " is NULL");
    }
    if (text == nullptr && text_length > 0) {
      return invalid(&model->error, std::string(fn) + ": text is NULL but text_length is " + std::to_string(text_length));
    }
    const uint32_t known = CLPORT_TOKENIZE_ADD_BOS | CLPORT_TOKENIZE_PARSE_SPECIAL;
    if ((flags & ~known) != 0) {
      return invalid(&model->error, std::string(fn) + ": unknown flag bits " + std::to_string(flags & ~known) +
                                        " (CLPORT_TOKENIZE_ADD_BOS = 1, CLPORT_TOKENIZE_PARSE_SPECIAL = 2)");
    }
    const clport::Tokenizer& tok = model->state->engine->tokenizer();
    auto ids = tok.encode(std::string_view(text == nullptr ? "" : text, text_length),
                          (flags & CLPORT_TOKENIZE_ADD_BOS) != 0, (flags & CLPORT_TOKENIZE_PARSE_SPECIAL) != 0);
    if (!ids.ok()) return clport::capi::from_status(&model->error, ids.status());
    if (!ids->empty()) {
      *out_tokens = static_cast<int32_t*>(clport::capi::copy_out(ids->data(), ids->size() * sizeof(int32_t)));
    }
    *out_count = ids->size();
    return clport::capi::ok(&model->error);
  });
}

clport_status clport_detokenize(clport_model* model, const int32_t* tokens, size_t count, uint32_t flags,
                                char** out_text, size_t* out_length) {
  static const char* fn = "clport_detokenize";
  if (out_text != nullptr) *out_text = nullptr;
  if (out_length != nullptr) *out_length = 0;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    if (out_text == nullptr) return invalid(&model->error, std::string(fn) + ": out_text is NULL");
    if (tokens == nullptr && count > 0) {
      return invalid(&model->error, std::string(fn) + ": tokens is NULL but count is " + std::to_string(count));
    }
    if ((flags & ~static_cast<uint32_t>(CLPORT_DETOKENIZE_RENDER_SPECIAL)) != 0) {
      return invalid(&model->error, std::string(fn) + ": unknown flags (CLPORT_DETOKENIZE_RENDER_SPECIAL = 1 is the only one)");
    }
    const clport::Tokenizer& tok = model->state->engine->tokenizer();
    for (size_t i = 0; i < count; ++i) {
      if (tokens[i] < 0 || tokens[i] >= tok.n_vocab()) {
        return invalid(&model->error, std::string(fn) + ": tokens[" + std::to_string(i) + "] = " +
                                          std::to_string(tokens[i]) + " is not a token id (0 to " +
                                          std::to_string(tok.n_vocab() - 1) + ")");
      }
    }
    const std::string text =
        tok.decode(std::vector<int32_t>(tokens, tokens + count), (flags & CLPORT_DETOKENIZE_RENDER_SPECIAL) != 0);
    *out_text = clport::capi::copy_text(text);
    if (out_length != nullptr) *out_length = text.size();
    return clport::capi::ok(&model->error);
  });
}

}  // extern "C"
