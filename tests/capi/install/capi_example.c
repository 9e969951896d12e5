/* A C program as an app would write it against the installed clport.h and pkg-config file
 * (tests/capi/install/install_test.cmake builds it with only a C compiler):
 *   capi_example MODEL.gguf MALFORMED.gguf [DEVICE]
 * loads the model, streams 32 greedy tokens through the callback, stops a second run at the
 * fifth token from the callback, and checks the error paths (missing file, malformed file, NULL
 * handle). Exits 0 when every check held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clport/clport.h>

static int failures = 0;
static int checks = 0;

static void check(int ok, const char* what) {
  ++checks;
  if (!ok) {
    ++failures;
    fprintf(stderr, "FAILED: %s (last error: %s)\n", what, clport_last_error());
  }
}

struct stream {
  int count;
  int stop_at; /* 0: never */
  int32_t tokens[64];
};

static int on_token(void* user_data, int32_t token, const char* piece, size_t piece_length) {
  struct stream* s = (struct stream*)user_data;
  if (s->count < 64) s->tokens[s->count] = token;
  ++s->count;
  fwrite(piece, 1, piece_length, stdout);
  fflush(stdout);
  return s->stop_at > 0 && s->count >= s->stop_at ? CLPORT_STOP : CLPORT_CONTINUE;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.gguf MALFORMED.gguf [DEVICE]\n", argv[0]);
    return 2;
  }
  check(clport_api_version() >> 16 == CLPORT_API_VERSION_MAJOR, "the library's major version is the header's");
  printf("clport %s, C API %u.%u\n", clport_version_string(), (unsigned)(clport_api_version() >> 16),
         (unsigned)(clport_api_version() & 0xffff));

  clport_runtime_options ro;
  clport_runtime_options_init(&ro);
  ro.device = argc > 3 ? argv[3] : "cpu";
  clport_runtime* runtime = NULL;
  if (clport_runtime_create(&ro, &runtime) != CLPORT_OK) {
    fprintf(stderr, "runtime: %s\n", clport_last_error());
    return 1;
  }

  /* Error paths: a missing file, a malformed one, a NULL handle. */
  clport_model_options mo;
  clport_model_options_init(&mo);
  clport_model* model = NULL;
  mo.path = "/nonexistent/model.gguf";
  check(clport_model_load(runtime, &mo, &model) == CLPORT_ERR_IO && model == NULL, "a missing file is CLPORT_ERR_IO");
  check(strstr(clport_last_error(), "/nonexistent/model.gguf") != NULL, "the message names the missing file");
  mo.path = argv[2];
  check(clport_model_load(runtime, &mo, &model) == CLPORT_ERR_MODEL && model == NULL,
        "a malformed file is CLPORT_ERR_MODEL");
  printf("malformed file: %s\n", clport_last_error());
  check(clport_model_load(NULL, &mo, &model) == CLPORT_ERR_INVALID_ARGUMENT, "a NULL runtime is refused");

  mo.path = argv[1];
  mo.n_ctx = 512;
  if (clport_model_load(runtime, &mo, &model) != CLPORT_OK) {
    fprintf(stderr, "load %s: %s\n", argv[1], clport_last_error());
    return 1;
  }
  clport_runtime_free(runtime);
  clport_model_info info;
  info.struct_size = sizeof info;
  check(clport_model_get_info(model, &info) == CLPORT_OK, "model info");
  printf("model: %s, %d tokens, backend %s\n", info.architecture, info.n_vocab, info.backend);

  /* The chat format of the file, written and tokenized as the model expects it. */
  const clport_chat_message messages[] = {{"user", "What is the capital of France?"}};
  char* chat = NULL;
  check(clport_chat_apply(model, NULL, messages, 1, 1, &chat, NULL) == CLPORT_OK && chat != NULL, "chat template");
  int32_t* chat_tokens = NULL;
  size_t n_chat = 0;
  check(clport_tokenize(model, chat, strlen(chat), CLPORT_TOKENIZE_PARSE_SPECIAL | (info.add_bos ? CLPORT_TOKENIZE_ADD_BOS : 0),
                        &chat_tokens, &n_chat) == CLPORT_OK && n_chat > 0,
        "tokenize the chat prompt");
  clport_free(chat_tokens);
  clport_free(chat);

  /* A completion: 32 tokens through the callback. */
  const char* prompt_text = "Once upon a time, in a small village by the sea,";
  int32_t* prompt = NULL;
  size_t n_prompt = 0;
  check(clport_tokenize(model, prompt_text, strlen(prompt_text), info.add_bos ? CLPORT_TOKENIZE_ADD_BOS : 0, &prompt,
                        &n_prompt) == CLPORT_OK, "tokenize the prompt");
  clport_context* context = NULL;
  check(clport_context_create(model, NULL, &context) == CLPORT_OK, "context");
  struct stream full = {0, 0, {0}};
  clport_generation_stats stats;
  stats.struct_size = sizeof stats;
  printf("%s", prompt_text);
  check(clport_generate(context, prompt, n_prompt, 32, on_token, &full, &stats) == CLPORT_OK, "generate 32 tokens");
  printf("\n");
  check(full.count == 32 && stats.delivered_tokens == 32 && stats.stop_reason == CLPORT_STOP_LENGTH,
        "32 tokens delivered");
  printf("generated %d tokens: prompt %.1f tok/s, generation %.1f tok/s\n", stats.delivered_tokens,
         stats.prompt_seconds > 0 ? stats.prompt_tokens / stats.prompt_seconds : 0.0,
         stats.generation_seconds > 0 ? stats.delivered_tokens / stats.generation_seconds : 0.0);

  /* Stopped by the callback at the fifth token: exactly five, the same five. */
  struct stream part = {0, 5, {0}};
  check(clport_generate(context, prompt, n_prompt, 32, on_token, &part, &stats) == CLPORT_OK, "generate, stopped");
  printf("\n");
  check(part.count == 5 && stats.delivered_tokens == 5 && stats.stop_reason == CLPORT_STOP_CALLBACK,
        "exactly 5 tokens when the callback stops at the fifth");
  check(memcmp(part.tokens, full.tokens, 5 * sizeof(int32_t)) == 0, "the same first 5 tokens");

  char* text = NULL;
  check(clport_detokenize(model, full.tokens, 32, 0, &text, NULL) == CLPORT_OK && strlen(text) > 0, "detokenize");
  clport_free(text);
  char* report = NULL;
  check(clport_model_report_json(model, &report, NULL) == CLPORT_OK && strstr(report, "\"op_bindings\"") != NULL,
        "model report");
  clport_free(report);
  check(clport_generate(NULL, prompt, n_prompt, 1, NULL, NULL, NULL) == CLPORT_ERR_INVALID_ARGUMENT,
        "a NULL context is refused");

  clport_free(prompt);
  clport_context_free(context);
  clport_model_free(model);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
