/* Conversations through the C API: a continued generation reuses the cached sequence and writes
 * what a generation from zero writes; the cached tokens, rewind, and a state saved and loaded into
 * another model handle; the error paths of each call. */
#include <stdio.h>
#include <stdlib.h>

#include "capi_test.h"

struct tokens {
  int32_t ids[64];
  int count;
};

static int keep(void* user_data, int32_t token, const char* piece, size_t piece_length) {
  (void)piece;
  (void)piece_length;
  struct tokens* t = (struct tokens*)user_data;
  if (t->count < 64) t->ids[t->count++] = token;
  return CLPORT_CONTINUE;
}

static clport_model* load_plain(clport_runtime* runtime) {
  clport_model_options options;
  clport_model_options_init(&options);
  options.path = capi_plain_model_path();
  options.n_ctx = 128;
  clport_model* model = NULL;
  if (clport_model_load(runtime, &options, &model) != CLPORT_OK) return NULL;
  return model;
}

static clport_generation_stats stats_init(void) {
  clport_generation_stats s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  return s;
}

void test_conversation(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* model = load_plain(runtime);
  REQUIRE(model != NULL);
  clport_context* context = NULL;
  REQUIRE(clport_context_create(model, NULL, &context) == CLPORT_OK);

  /* Turn 1 from zero; then the conversation so far plus a new turn, continued. */
  int32_t conversation[64] = {1, 40, 41, 42, 43};
  size_t n = 5;
  struct tokens reply = {{0}, 0};
  clport_generation_stats st = stats_init();
  REQUIRE(clport_generate(context, conversation, n, 4, keep, &reply, &st) == CLPORT_OK);
  REQUIRE(reply.count == 4);
  CHECK(st.cached_tokens == 0);
  int32_t* cached = NULL;
  size_t n_cached = 0;
  CHECK_STATUS(clport_context_cached_tokens(context, &cached, &n_cached), CLPORT_OK, NULL);
  CHECK(n_cached == n + 3); /* the prompt and the replies fed back: not the last */
  clport_free(cached);
  for (int i = 0; i < reply.count; ++i) conversation[n++] = reply.ids[i];
  conversation[n++] = 50;
  conversation[n++] = 51;
  struct tokens continued = {{0}, 0};
  st = stats_init();
  REQUIRE(clport_generate_continue(context, conversation, n, 4, keep, &continued, &st) == CLPORT_OK);
  CHECK(st.prompt_tokens == (int32_t)n);
  CHECK(st.cached_tokens == 8);

  /* The same conversation from zero on a context of another model handle writes the same. */
  clport_model* other = load_plain(runtime);
  REQUIRE(other != NULL);
  clport_context* fresh = NULL;
  REQUIRE(clport_context_create(other, NULL, &fresh) == CLPORT_OK);
  struct tokens from_zero = {{0}, 0};
  REQUIRE(clport_generate(fresh, conversation, n, 4, keep, &from_zero, NULL) == CLPORT_OK);
  CHECK(from_zero.count == continued.count &&
        memcmp(from_zero.ids, continued.ids, sizeof(int32_t) * (size_t)continued.count) == 0);

  /* Save after turn 2, load into the other handle, continue both the same way. */
  char path[512];
  snprintf(path, sizeof path, "%s/conversation.clstate", capi_work_dir());
  CHECK_STATUS(clport_context_save_state(context, path), CLPORT_OK, NULL);
  CHECK_STATUS(clport_context_load_state(fresh, path), CLPORT_OK, NULL);
  for (int i = 0; i < continued.count; ++i) conversation[n++] = continued.ids[i];
  conversation[n++] = 60;
  struct tokens a = {{0}, 0}, b = {{0}, 0};
  clport_generation_stats sa = stats_init(), sb = stats_init();
  REQUIRE(clport_generate_continue(context, conversation, n, 4, keep, &a, &sa) == CLPORT_OK);
  REQUIRE(clport_generate_continue(fresh, conversation, n, 4, keep, &b, &sb) == CLPORT_OK);
  CHECK(sa.cached_tokens == sb.cached_tokens && sb.cached_tokens > 8);
  CHECK(a.count == b.count && memcmp(a.ids, b.ids, sizeof(int32_t) * (size_t)a.count) == 0);

  /* Rewind: the cache shrinks; too far is refused. */
  CHECK_STATUS(clport_context_cached_tokens(context, &cached, &n_cached), CLPORT_OK, NULL);
  clport_free(cached);
  CHECK_STATUS(clport_context_rewind(context, n_cached + 1), CLPORT_ERR_INVALID_ARGUMENT, "cannot rewind");
  CHECK_STATUS(clport_context_rewind(context, 3), CLPORT_OK, NULL);
  size_t after = 0;
  CHECK_STATUS(clport_context_cached_tokens(context, &cached, &after), CLPORT_OK, NULL);
  CHECK(after == n_cached - 3);
  clport_free(cached);

  /* Errors: NULL arguments, a missing or damaged file, a file of another model. */
  CHECK_STATUS(clport_context_rewind(NULL, 1), CLPORT_ERR_INVALID_ARGUMENT, "context");
  CHECK_STATUS(clport_context_save_state(context, NULL), CLPORT_ERR_INVALID_ARGUMENT, "path is NULL or empty");
  CHECK_STATUS(clport_context_load_state(context, ""), CLPORT_ERR_INVALID_ARGUMENT, "path is NULL or empty");
  size_t unused = 7;
  CHECK_STATUS(clport_context_cached_tokens(context, NULL, &unused), CLPORT_ERR_INVALID_ARGUMENT, "out_tokens is NULL");
  CHECK(unused == 0);
  CHECK_STATUS(clport_context_load_state(context, "/nonexistent/state"), CLPORT_ERR_IO, "cannot open");
  FILE* f = fopen(path, "r+b");
  REQUIRE(f != NULL);
  REQUIRE(fseek(f, 40, SEEK_SET) == 0);
  REQUIRE(fputc('#', f) != EOF);
  REQUIRE(fclose(f) == 0);
  CHECK_STATUS(clport_context_load_state(context, path), CLPORT_ERR_IO, "checksum");
  CHECK_STATUS(clport_context_cached_tokens(context, &cached, &n_cached), CLPORT_OK, NULL);
  CHECK(n_cached == after); /* the refused load left the cache as it was */
  clport_free(cached);
  clport_model* chat = load_model(runtime, capi_model_path());
  REQUIRE(chat != NULL);
  clport_context* chat_context = NULL;
  REQUIRE(clport_context_create(chat, NULL, &chat_context) == CLPORT_OK);
  CHECK_STATUS(clport_context_save_state(context, path), CLPORT_OK, NULL);
  CHECK_STATUS(clport_context_load_state(chat_context, path), CLPORT_ERR_INVALID_ARGUMENT, "model file SHA-256");
  remove(path);

  clport_context_free(chat_context);
  clport_model_free(chat);
  clport_context_free(fresh);
  clport_model_free(other);
  clport_context_free(context);
  clport_model_free(model);
  clport_runtime_free(runtime);
}
