/* Model loading (its errors, its options), the model's info and report, tokenization and chat
 * templates, on the random models the suite writes (CMakeLists.txt). */
#include <stdlib.h>

#include "capi_test.h"

void test_model_load_errors(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model_options options;
  clport_model_options_init(&options);
  clport_model* model = (clport_model*)&options;
  options.path = "/nonexistent/model.gguf";
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_IO,
               "cannot open GGUF file '/nonexistent/model.gguf'");
  CHECK(model == NULL);
  CHECK(contains(clport_runtime_error(runtime), "/nonexistent/model.gguf"));
  options.path = capi_malformed_path();
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_MODEL, "bad magic");
  options.path = capi_work_dir(); /* a directory */
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_IO, "is not a regular file");
  options.path = NULL;
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_INVALID_ARGUMENT, "options->path is NULL or empty");
  options.path = "";
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_INVALID_ARGUMENT, "options->path is NULL or empty");
  options.path = capi_model_path();
  options.n_ctx = 1048577;
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_INVALID_ARGUMENT,
               "options->n_ctx 1048577 is out of range 0 to 1048576");
  CHECK_STATUS(clport_model_load(runtime, NULL, &model), CLPORT_ERR_INVALID_ARGUMENT, "options is NULL");
  options.n_ctx = 64;
  options.struct_size = 3;
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_INVALID_ARGUMENT, "struct_size is 3");
  CHECK(model == NULL);
  clport_runtime_free(runtime);
  /* A device index the machine does not have: no fallback to the CPU for a named device. */
  clport_runtime_options ro;
  clport_runtime_options_init(&ro);
  ro.device = "1023";
  REQUIRE(clport_runtime_create(&ro, &runtime) == CLPORT_OK);
  options.struct_size = sizeof options;
  CHECK_STATUS(clport_model_load(runtime, &options, &model), CLPORT_ERR_INVALID_ARGUMENT, "device 1023 does not exist");
  clport_runtime_free(runtime);
}

void test_model_info_and_report(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_model(runtime, capi_model_path());
  REQUIRE(model != NULL);
  clport_runtime_free(runtime); /* the model does not need its runtime any more */
  clport_model_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_STATUS(clport_model_get_info(model, &info), CLPORT_OK, NULL);
  CHECK(info.struct_size == sizeof info);
  CHECK(info.n_vocab >= 300);
  CHECK(info.n_ctx == 128); /* 2048 asked, capped at the model's own 128 */
  CHECK(info.n_ctx_train == 128);
  CHECK(info.n_layer == 1);
  CHECK(info.n_embd == 256);
  CHECK(info.bos >= 0 && info.eos >= 0 && info.bos != info.eos);
  CHECK(strcmp(info.architecture, "llama") == 0);
  CHECK(strcmp(info.backend, "cpu") == 0);
  /* An older, shorter struct gets only its fields. */
  clport_model_info small;
  memset(&small, 0x5a, sizeof small);
  small.struct_size = offsetof(clport_model_info, n_ctx);
  CHECK_STATUS(clport_model_get_info(model, &small), CLPORT_OK, NULL);
  CHECK(small.n_vocab == info.n_vocab);
  CHECK(small.struct_size == offsetof(clport_model_info, n_ctx));
  CHECK(small.n_ctx == 0x5a5a5a5au); /* untouched */
  small.struct_size = 0;
  CHECK_STATUS(clport_model_get_info(model, &small), CLPORT_ERR_INVALID_ARGUMENT, "set it to sizeof(clport_model_info)");
  CHECK_STATUS(clport_model_get_info(model, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_info is NULL");
  CHECK(contains(clport_model_error(model), "out_info is NULL"));

  char* json = NULL;
  size_t length = 0;
  CHECK_STATUS(clport_model_report_json(model, &json, &length), CLPORT_OK, NULL);
  REQUIRE(json != NULL);
  CHECK(length == strlen(json));
  CHECK(contains(json, "\"architecture\": \"llama\""));
  CHECK(contains(json, "\"name\": \"cpu\""));
  CHECK(contains(json, "\"decode_nodes\""));
  CHECK(contains(json, "\"op\": \"MUL_MAT q8_0 gemv\""));
  CHECK(contains(json, "\"op\": \"RMS_NORM+MUL_MAT q8_0\""));
  CHECK(contains(json, "\"fusion\": true"));
  CHECK(strcmp(clport_model_error(model), "") == 0);
  clport_free(json);
  CHECK_STATUS(clport_model_report_json(model, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_json is NULL");
  clport_model_free(model);
}

/* n_ctx, fp32, no_fusion and the runtime's threads reach the engine: the report shows them. */
void test_model_options(void) {
  clport_runtime_options ro;
  clport_runtime_options_init(&ro);
  ro.device = "cpu";
  ro.n_threads = 1;
  clport_runtime* runtime = NULL;
  REQUIRE(clport_runtime_create(&ro, &runtime) == CLPORT_OK);
  clport_model_options options;
  clport_model_options_init(&options);
  CHECK(options.n_ctx == 2048 && options.fp32 == 0 && options.no_fusion == 0);
  options.path = capi_plain_model_path();
  options.n_ctx = 16;
  options.fp32 = 1;
  options.no_fusion = 1;
  clport_model* model = NULL;
  REQUIRE(clport_model_load(runtime, &options, &model) == CLPORT_OK);
  clport_model_info info;
  info.struct_size = sizeof info;
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(info.n_ctx == 16);
  char* json = NULL;
  REQUIRE(clport_model_report_json(model, &json, NULL) == CLPORT_OK);
  CHECK(contains(json, "\"n_ctx\": 16"));
  CHECK(contains(json, "1 threads, float activations"));
  CHECK(contains(json, "\"fusion\": false"));
  clport_free(json);
  clport_model_free(model);
  /* n_ctx 0: the model's own context length. */
  options.n_ctx = 0;
  options.fp32 = 0;
  REQUIRE(clport_model_load(runtime, &options, &model) == CLPORT_OK);
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(info.n_ctx == 128);
  REQUIRE(clport_model_report_json(model, &json, NULL) == CLPORT_OK);
  CHECK(contains(json, "8-bit activations"));
  clport_free(json);
  clport_model_free(model);
  clport_runtime_free(runtime);
}

void test_tokenize_roundtrip(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_model(runtime, capi_model_path());
  REQUIRE(model != NULL);
  clport_model_info info;
  info.struct_size = sizeof info;
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);

  /* No spaces: the random vocabulary has no token for U+2581, so a space comes back as the
   * three byte tokens of that character (as llama.cpp decodes them too). */
  const char* text = "thecat";
  int32_t* tokens = NULL;
  size_t count = 0;
  CHECK_STATUS(clport_tokenize(model, text, strlen(text), 0, &tokens, &count), CLPORT_OK, NULL);
  REQUIRE(tokens != NULL && count > 0);
  char* back = NULL;
  size_t length = 0;
  CHECK_STATUS(clport_detokenize(model, tokens, count, 0, &back, &length), CLPORT_OK, NULL);
  REQUIRE(back != NULL);
  CHECK(strcmp(back, text) == 0);
  CHECK(length == strlen(text));
  clport_free(back);

  /* BOS first when asked for; rendered only with RENDER_SPECIAL. */
  int32_t* with_bos = NULL;
  size_t with_bos_count = 0;
  CHECK_STATUS(clport_tokenize(model, text, strlen(text), CLPORT_TOKENIZE_ADD_BOS, &with_bos, &with_bos_count),
               CLPORT_OK, NULL);
  REQUIRE(with_bos != NULL);
  CHECK(with_bos_count == count + 1);
  CHECK(with_bos[0] == info.bos);
  CHECK(memcmp(with_bos + 1, tokens, count * sizeof(int32_t)) == 0);
  CHECK_STATUS(clport_detokenize(model, with_bos, with_bos_count, 0, &back, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(back, text) == 0);
  clport_free(back);
  CHECK_STATUS(clport_detokenize(model, with_bos, with_bos_count, CLPORT_DETOKENIZE_RENDER_SPECIAL, &back, NULL),
               CLPORT_OK, NULL);
  CHECK(contains(back, "<s>"));
  clport_free(back);
  clport_free(with_bos);

  /* A length, not a NUL, ends the text: the first 3 bytes only. */
  int32_t* prefix = NULL;
  size_t prefix_count = 0;
  CHECK_STATUS(clport_tokenize(model, text, 3, 0, &prefix, &prefix_count), CLPORT_OK, NULL);
  CHECK_STATUS(clport_detokenize(model, prefix, prefix_count, 0, &back, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(back, "the") == 0);
  clport_free(back);
  clport_free(prefix);

  /* Control tokens in the text: split into bytes, or one id with PARSE_SPECIAL. */
  const char* marked = "<start_of_turn>";
  int32_t* plain = NULL;
  size_t plain_count = 0;
  int32_t* special = NULL;
  size_t special_count = 0;
  CHECK_STATUS(clport_tokenize(model, marked, strlen(marked), 0, &plain, &plain_count), CLPORT_OK, NULL);
  CHECK_STATUS(clport_tokenize(model, marked, strlen(marked), CLPORT_TOKENIZE_PARSE_SPECIAL, &special, &special_count),
               CLPORT_OK, NULL);
  CHECK(plain_count > 1);
  CHECK(special_count == 1);
  clport_free(plain);
  clport_free(special);

  /* Ill-formed UTF-8 comes back as U+FFFD, one per maximal subpart; a NUL inside the length is
   * text and comes back too. (No spaces, as above.) */
  const char ill[] = "Hi\xFF\xFE\0x\xE2\x82";
  const char replaced[] = "Hi\xEF\xBF\xBD\xEF\xBF\xBD\0x\xEF\xBF\xBD";
  int32_t* ill_tokens = NULL;
  size_t ill_count = 0;
  CHECK_STATUS(clport_tokenize(model, ill, sizeof ill - 1, 0, &ill_tokens, &ill_count), CLPORT_OK, NULL);
  CHECK_STATUS(clport_detokenize(model, ill_tokens, ill_count, 0, &back, &length), CLPORT_OK, NULL);
  REQUIRE(back != NULL);
  CHECK(length == sizeof replaced - 1 && memcmp(back, replaced, length) == 0);
  clport_free(back);
  clport_free(ill_tokens);

  /* Empty input. */
  int32_t* none = (int32_t*)&count;
  CHECK_STATUS(clport_tokenize(model, NULL, 0, 0, &none, &count), CLPORT_OK, NULL);
  CHECK(none == NULL && count == 0);
  CHECK_STATUS(clport_detokenize(model, NULL, 0, 0, &back, &length), CLPORT_OK, NULL);
  CHECK(back != NULL && back[0] == '\0' && length == 0);
  clport_free(back);
  clport_free(tokens);
  clport_model_free(model);
  clport_runtime_free(runtime);
}

void test_tokenize_errors(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_model(runtime, capi_model_path());
  REQUIRE(model != NULL);
  int32_t* tokens = NULL;
  size_t count = 0;
  char* text = NULL;
  CHECK_STATUS(clport_tokenize(model, NULL, 4, 0, &tokens, &count), CLPORT_ERR_INVALID_ARGUMENT,
               "text is NULL but text_length is 4");
  CHECK_STATUS(clport_tokenize(model, "a", 1, 4, &tokens, &count), CLPORT_ERR_INVALID_ARGUMENT, "unknown flag bits 4");
  CHECK_STATUS(clport_tokenize(model, "a", 1, 0, NULL, &count), CLPORT_ERR_INVALID_ARGUMENT, "out_tokens is NULL");
  CHECK_STATUS(clport_tokenize(model, "a", 1, 0, &tokens, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_count is NULL");
  CHECK(contains(clport_model_error(model), "out_count is NULL"));
  const int32_t bad[] = {5, 100000, 6};
  CHECK_STATUS(clport_detokenize(model, bad, 3, 0, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "tokens[1] = 100000 is not a token id");
  CHECK(text == NULL);
  const int32_t negative[] = {-1};
  CHECK_STATUS(clport_detokenize(model, negative, 1, 0, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT, "tokens[0] = -1");
  CHECK_STATUS(clport_detokenize(model, NULL, 2, 0, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT, "tokens is NULL but count is 2");
  CHECK_STATUS(clport_detokenize(model, bad, 1, 2, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT, "unknown flags");
  CHECK_STATUS(clport_detokenize(model, bad, 1, 0, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_text is NULL");
  /* A success clears the handle's message. */
  CHECK_STATUS(clport_detokenize(model, bad, 1, 0, &text, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(clport_model_error(model), "") == 0);
  clport_free(text);
  clport_model_free(model);
  clport_runtime_free(runtime);
}

void test_chat_apply(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_model(runtime, capi_model_path());
  REQUIRE(model != NULL);
  const clport_chat_message messages[] = {{"system", "brief"}, {"user", "cat"}};
  char* text = NULL;
  size_t length = 0;
  /* The file's template (Gemma's). */
  CHECK_STATUS(clport_chat_apply(model, NULL, messages, 2, 1, &text, &length), CLPORT_OK, NULL);
  REQUIRE(text != NULL);
  CHECK(strcmp(text, "<start_of_turn>user\nbrief\n\ncat<end_of_turn>\n<start_of_turn>model\n") == 0);
  CHECK(length == strlen(text));
  clport_free(text);
  /* Without the generation prompt, and in a named family. */
  CHECK_STATUS(clport_chat_apply(model, NULL, messages + 1, 1, 0, &text, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(text, "<start_of_turn>user\ncat<end_of_turn>\n") == 0);
  clport_free(text);
  CHECK_STATUS(clport_chat_apply(model, "chatml", messages + 1, 1, 1, &text, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(text, "<|im_start|>user\ncat<|im_end|>\n<|im_start|>assistant\n") == 0);
  clport_free(text);

  /* The end of a Gemma turn is one token, which renders as its marker. */
  int32_t* stops = NULL;
  size_t n_stops = 0;
  CHECK_STATUS(clport_chat_stop_tokens(model, NULL, &stops, &n_stops), CLPORT_OK, NULL);
  REQUIRE(stops != NULL && n_stops >= 1);
  CHECK_STATUS(clport_detokenize(model, stops, 1, CLPORT_DETOKENIZE_RENDER_SPECIAL, &text, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(text, "<end_of_turn>") == 0);
  clport_free(text);
  clport_free(stops);
  clport_model_free(model);
  clport_runtime_free(runtime);
}

void test_chat_errors(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_model(runtime, capi_model_path());
  clport_model* plain = load_model(runtime, capi_plain_model_path());
  REQUIRE(model != NULL && plain != NULL);
  const clport_chat_message user[] = {{"user", "cat"}};
  char* text = NULL;
  int32_t* tokens = NULL;
  size_t n = 0;
  CHECK_STATUS(clport_chat_apply(model, "llama9", user, 1, 1, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "unknown chat template 'llama9'; known: chatml, phi4, llama2");
  CHECK(text == NULL);
  CHECK_STATUS(clport_chat_apply(plain, NULL, user, 1, 1, &text, NULL), CLPORT_ERR_MODEL,
               "no chat template (tokenizer.chat_template)");
  CHECK_STATUS(clport_chat_stop_tokens(plain, NULL, &tokens, &n), CLPORT_ERR_MODEL, "no chat template");
  CHECK_STATUS(clport_chat_stop_tokens(model, "llama9", &tokens, &n), CLPORT_ERR_INVALID_ARGUMENT, "llama9");
  CHECK_STATUS(clport_chat_stop_tokens(model, NULL, NULL, &n), CLPORT_ERR_INVALID_ARGUMENT, "out_tokens is NULL");
  const clport_chat_message bad_role[] = {{"narrator", "once"}};
  CHECK_STATUS(clport_chat_apply(model, NULL, bad_role, 1, 1, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT, "narrator");
  const clport_chat_message null_role[] = {{"user", "a"}, {NULL, "b"}};
  CHECK_STATUS(clport_chat_apply(model, NULL, null_role, 2, 1, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "messages[1].role is NULL");
  const clport_chat_message null_content[] = {{"user", NULL}};
  CHECK_STATUS(clport_chat_apply(model, NULL, null_content, 1, 1, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "messages[0].content is NULL");
  CHECK_STATUS(clport_chat_apply(model, NULL, NULL, 1, 1, &text, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "messages is NULL but n_messages is 1");
  CHECK_STATUS(clport_chat_apply(model, NULL, user, 1, 1, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_text is NULL");
  /* No messages: only the generation prompt. */
  CHECK_STATUS(clport_chat_apply(model, NULL, NULL, 0, 1, &text, NULL), CLPORT_OK, NULL);
  CHECK(strcmp(text, "<start_of_turn>model\n") == 0);
  clport_free(text);
  clport_model_free(plain);
  clport_model_free(model);
  clport_runtime_free(runtime);
}
