// The conversation a context holds in its model's KV cache: its tokens, rewinding it, saving it
// to a file and loading it back, forking another context's (clport/engine.h's EngineCore methods
// behind each, on the context's engine sequence).
#include "capi/capi_internal.h"

namespace {

using clport::capi::invalid;

// The engine of a context with its model's lock held, refusing a call from inside a token
// callback (the generation owns the cache then).
template <typename Body>
clport_status with_engine(clport_context* context, const char* fn, Body&& body) {
  if (context == nullptr) return clport::capi::null_argument(fn, "context");
  return clport::capi::locked(context->state->mutex, &context->error, fn, [&] {
    if (context->state->generating) {
      return invalid(&context->error, std::string(fn) + ": a generation is running on this model "
                                                        "(called from a token callback?)");
    }
    return body(*context->state->engine);
  });
}

}  // namespace

extern "C" {

clport_status clport_context_cached_tokens(clport_context* context, int32_t** out_tokens, size_t* out_count) {
  static const char* fn = "clport_context_cached_tokens";
  if (out_tokens != nullptr) *out_tokens = nullptr;
  if (out_count != nullptr) *out_count = 0;
  return with_engine(context, fn, [&](clport::EngineCore& engine) {
    if (out_tokens == nullptr || out_count == nullptr) {
      return invalid(&context->error, std::string(fn) + ": " + (out_tokens == nullptr ? "out_tokens" : "out_count") + " is NULL");
    }
    const std::vector<int32_t>& tokens = engine.cached_tokens(context->seq);
    if (!tokens.empty()) {
      *out_tokens = static_cast<int32_t*>(clport::capi::copy_out(tokens.data(), tokens.size() * sizeof(int32_t)));
    }
    *out_count = tokens.size();
    return clport::capi::ok(&context->error);
  });
}

clport_status clport_context_rewind(clport_context* context, size_t n_tokens) {
  static const char* fn = "clport_context_rewind";
  return with_engine(context, fn, [&](clport::EngineCore& engine) {
    const clport::Status s = engine.rewind(n_tokens, context->seq);
    if (!s.ok()) return invalid(&context->error, std::string(fn) + ": n_tokens: " + s.message());
    return clport::capi::ok(&context->error);
  });
}

clport_status clport_context_save_state(clport_context* context, const char* path) {
  static const char* fn = "clport_context_save_state";
  return with_engine(context, fn, [&](clport::EngineCore& engine) {
    if (path == nullptr || *path == '\0') return invalid(&context->error, std::string(fn) + ": path is NULL or empty");
    return clport::capi::from_status(&context->error, engine.save_state(path, context->seq));
  });
}

clport_status clport_context_load_state(clport_context* context, const char* path) {
  static const char* fn = "clport_context_load_state";
  return with_engine(context, fn, [&](clport::EngineCore& engine) {
    if (path == nullptr || *path == '\0') return invalid(&context->error, std::string(fn) + ": path is NULL or empty");
    return clport::capi::from_status(&context->error, engine.load_state(path, context->seq));
  });
}

clport_status clport_context_fork(clport_context* context, const clport_context* source) {
  static const char* fn = "clport_context_fork";
  return with_engine(context, fn, [&](clport::EngineCore& engine) {
    if (source == nullptr) return invalid(&context->error, std::string(fn) + ": source is NULL");
    if (source->state != context->state) {
      return invalid(&context->error, std::string(fn) + ": source is a context of another model");
    }
    return clport::capi::from_status(&context->error, engine.fork(source->seq, context->seq));
  });
}

}  // extern "C"
