// clport_context and clport_generate: sampler parameters checked against the CLI's ranges, and
// the engine's generation loop with the app's token callback (text streamed in whole UTF-8
// characters) and the reason it stopped.
#include <algorithm>
#include <cmath>

#include "capi/capi_internal.h"

namespace {

using clport::capi::guarded;
using clport::capi::invalid;

constexpr int32_t kCapiMaxTokens = 1 << 20;  // the CLI's -n / --top-k / --repeat-last-n range

// "" when the parameters are in range, else what is wrong (the CLI's ranges, see `clport run`).
std::string capi_check_params(const clport_context_params& p) {
  auto in = [](float v, float lo, float hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  if (!in(p.temperature, 0, 100)) return "temperature " + std::to_string(p.temperature) + " is out of range 0 to 100";
  if (p.top_k < 0 || p.top_k > kCapiMaxTokens) return "top_k " + std::to_string(p.top_k) + " is out of range 0 to 1048576";
  if (!in(p.top_p, 0, 1)) return "top_p " + std::to_string(p.top_p) + " is out of range 0 to 1";
  if (!in(p.repeat_penalty, 0, 10) || p.repeat_penalty == 0) {
    return "repeat_penalty " + std::to_string(p.repeat_penalty) + " is out of range: greater than 0, up to 10";
  }
  if (p.repeat_last_n < 0 || p.repeat_last_n > kCapiMaxTokens) {
    return "repeat_last_n " + std::to_string(p.repeat_last_n) + " is out of range 0 to 1048576";
  }
  return {};
}

void capi_fill_stats(clport_generation_stats* out, const clport::GenerationStats& st, int32_t delivered,
                     clport_stop_reason reason) {
  if (out == nullptr || out->struct_size < sizeof(size_t)) return;
  clport_generation_stats s{};
  s.struct_size = out->struct_size;
  s.prompt_tokens = st.prompt_tokens;
  s.delivered_tokens = delivered;
  s.stop_reason = reason;
  s.prompt_seconds = st.prompt_seconds;
  s.generation_seconds = st.generation_seconds;
  s.load_seconds = st.load_seconds;
  s.cached_tokens = st.cached_tokens;
  std::memcpy(out, &s, out->struct_size < sizeof(s) ? out->struct_size : sizeof(s));
}

// clport_generate (from position 0) and clport_generate_continue (from the cached sequence).
clport_status capi_generate(const char* fn, bool continue_cache, clport_context* context, const int32_t* prompt,
                            size_t n_prompt, int32_t n_predict, clport_token_callback callback, void* user_data,
                            clport_generation_stats* stats) {
  capi_fill_stats(stats, {}, 0, CLPORT_STOP_LENGTH);
  if (context == nullptr) return clport::capi::null_argument(fn, "context");
  return clport::capi::locked(context->state->mutex, &context->error, fn, [&] {
    if (prompt == nullptr || n_prompt == 0) {
      return invalid(&context->error, std::string(fn) + ": the prompt is " + (prompt == nullptr ? "NULL" : "empty") +
                                          "; it needs at least one token");
    }
    if (n_predict < 0 || n_predict > kCapiMaxTokens) {
      return invalid(&context->error, std::string(fn) + ": n_predict " + std::to_string(n_predict) +
                                          " is out of range 0 to 1048576");
    }
    clport::capi::ModelState& state = *context->state;
    if (state.generating) {
      return invalid(&context->error, std::string(fn) + ": a generation is already running on this model "
                                                        "(clport_generate called from a token callback?)");
    }
    clport::EngineCore& engine = *state.engine;
    const int32_t n_vocab = engine.tokenizer().n_vocab();
    for (size_t i = 0; i < n_prompt; ++i) {
      if (prompt[i] < 0 || prompt[i] >= n_vocab) {
        return invalid(&context->error, std::string(fn) + ": prompt[" + std::to_string(i) + "] = " +
                                            std::to_string(prompt[i]) + " is not a token id (0 to " +
                                            std::to_string(n_vocab - 1) + ")");
      }
    }
    state.generating = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{state.generating};

    clport::Sampler sampler(context->sampling);  // from the seed at every call: reproducible
    clport::TokenStreamDecoder decoder(engine.tokenizer());
    int32_t delivered = 0;
    bool stopped_by_callback = false;
    auto on_token = [&](int32_t token) {
      ++delivered;
      if (callback == nullptr) return true;
      const std::string piece = decoder.push(token);
      if (callback(user_data, token, piece.data(), piece.size()) != CLPORT_CONTINUE) {
        stopped_by_callback = true;
        return false;
      }
      return true;
    };
    clport::GenerationStats st;
    const std::vector<int32_t> tokens(prompt, prompt + n_prompt);
    // From position 0: the context's conversation is emptied first, so nothing is reused.
    clport::Status result = continue_cache ? clport::Status() : engine.rewind(engine.cached_tokens(context->seq).size(), context->seq);
    if (result.ok()) {
      result = engine.generate_reusing_cache(tokens, n_predict, sampler, on_token, &st, context->stop_tokens, context->seq);
    }
    const clport_stop_reason reason = stopped_by_callback    ? CLPORT_STOP_CALLBACK
                                      : delivered == n_predict ? CLPORT_STOP_LENGTH
                                                               : CLPORT_STOP_END_OF_GENERATION;
    capi_fill_stats(stats, st, delivered, reason);
    return clport::capi::from_status(&context->error, result);
  });
}

}  // namespace

extern "C" {

void clport_context_params_init(clport_context_params* params) {
  if (params == nullptr) return;
  const clport::SamplerOptions defaults;
  *params = clport_context_params{};
  params->struct_size = sizeof(clport_context_params);
  params->temperature = defaults.temperature;
  params->top_k = defaults.top_k;
  params->top_p = defaults.top_p;
  params->repeat_penalty = defaults.repeat_penalty;
  params->repeat_last_n = defaults.repeat_last_n;
  params->seed = defaults.seed;
}

clport_status clport_context_create(clport_model* model, const clport_context_params* params,
                                    clport_context** out_context) {
  static const char* fn = "clport_context_create";
  if (out_context == nullptr) return clport::capi::null_argument(fn, "out_context");
  *out_context = nullptr;
  if (model == nullptr) return clport::capi::null_argument(fn, "model");
  return clport::capi::locked(model->state->mutex, &model->error, fn, [&] {
    clport_context_params p;
    clport_context_params_init(&p);
    clport_status st = CLPORT_OK;
    if (params != nullptr && !clport::capi::read_options(params, &p, fn, "params", &model->error, &st)) return st;
    const std::string problem = capi_check_params(p);
    if (!problem.empty()) return invalid(&model->error, std::string(fn) + ": " + problem);
    auto context = std::make_unique<clport_context>();
    context->state = model->state;
    std::vector<bool>& taken = model->state->sequence_taken;
    if (!taken.empty()) {
      const auto free_seq = std::find(taken.begin(), taken.end(), false);
      if (free_seq == taken.end()) {
        return invalid(&model->error, std::string(fn) + ": each of the model's " + std::to_string(taken.size()) +
                                          " conversations has a context (free one, or load the model with a "
                                          "larger n_seq)");
      }
      context->seq = static_cast<uint32_t>(free_seq - taken.begin());
      *free_seq = true;
    }
    context->sampling.temperature = p.temperature;
    context->sampling.top_k = p.top_k;
    context->sampling.top_p = p.top_p;
    context->sampling.repeat_penalty = p.repeat_penalty;
    context->sampling.repeat_last_n = p.repeat_last_n;
    context->sampling.seed = p.seed;
    *out_context = context.release();
    return clport::capi::ok(&model->error);
  });
}

void clport_context_free(clport_context* context) {
  if (context == nullptr) return;
  // Its conversation goes back to the model, empty. Nothing here may throw out of a C function.
  static_cast<void>(clport::capi::guarded(nullptr, "clport_context_free", [&] {
    std::lock_guard<std::recursive_mutex> lock(context->state->mutex);
    std::vector<bool>& taken = context->state->sequence_taken;
    if (!taken.empty() && !context->state->generating) {
      clport::EngineCore& engine = *context->state->engine;
      static_cast<void>(engine.rewind(engine.cached_tokens(context->seq).size(), context->seq));
      taken[context->seq] = false;
    }
    return CLPORT_OK;
  }));
  delete context;
}

const char* clport_context_error(const clport_context* context) {
  return context == nullptr ? "" : context->error.c_str();
}

clport_status clport_context_set_stop_tokens(clport_context* context, const int32_t* tokens, size_t count) {
  static const char* fn = "clport_context_set_stop_tokens";
  if (context == nullptr) return clport::capi::null_argument(fn, "context");
  return clport::capi::locked(context->state->mutex, &context->error, fn, [&] {
    if (tokens == nullptr && count > 0) {
      return invalid(&context->error, std::string(fn) + ": tokens is NULL but count is " + std::to_string(count));
    }
    const int32_t n_vocab = context->state->engine->tokenizer().n_vocab();
    for (size_t i = 0; i < count; ++i) {
      if (tokens[i] < 0 || tokens[i] >= n_vocab) {
        return invalid(&context->error, std::string(fn) + ": tokens[" + std::to_string(i) + "] = " +
                                            std::to_string(tokens[i]) + " is not a token id (0 to " +
                                            std::to_string(n_vocab - 1) + ")");
      }
    }
    context->stop_tokens.assign(tokens, tokens + count);
    return clport::capi::ok(&context->error);
  });
}

clport_status clport_generate(clport_context* context, const int32_t* prompt, size_t n_prompt, int32_t n_predict,
                              clport_token_callback callback, void* user_data, clport_generation_stats* stats) {
  return capi_generate("clport_generate", false, context, prompt, n_prompt, n_predict, callback, user_data, stats);
}

clport_status clport_generate_continue(clport_context* context, const int32_t* prompt, size_t n_prompt,
                                       int32_t n_predict, clport_token_callback callback, void* user_data,
                                       clport_generation_stats* stats) {
  return capi_generate("clport_generate_continue", true, context, prompt, n_prompt, n_predict, callback, user_data,
                       stats);
}

}  // extern "C"

