/* Several conversations on one model (clport_model_options.n_seq, 1.3): each context holds its
 * own, so interleaved and concurrent turns of two contexts write what each writes alone on a
 * model of its own; a fork continues as its source; a model whose conversations all have contexts
 * refuses another until one is freed; and the error paths. */
#include <pthread.h>
#include <stdlib.h>

#include "capi_test.h"

struct turn {
  clport_context* context;
  int32_t prompt[64];
  size_t n_prompt;
  int32_t reply[8];
  int count;
  int32_t cached;
  clport_status status;
};

static int keep_reply(void* user_data, int32_t token, const char* piece, size_t piece_length) {
  (void)piece;
  (void)piece_length;
  struct turn* t = (struct turn*)user_data;
  if (t->count < 8) t->reply[t->count++] = token;
  return CLPORT_CONTINUE;
}

/* One continued turn of 4 greedy tokens: the reply and how many prompt tokens were cached. */
static void* take_turn(void* arg) {
  struct turn* t = (struct turn*)arg;
  clport_generation_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  t->count = 0;
  t->status = clport_generate_continue(t->context, t->prompt, t->n_prompt, 4, keep_reply, t, &st);
  t->cached = st.cached_tokens;
  return NULL;
}

static clport_model* load_with_sequences(clport_runtime* runtime, uint32_t n_seq) {
  clport_model_options options;
  clport_model_options_init(&options);
  options.path = capi_plain_model_path();
  options.n_ctx = 128;
  options.n_seq = n_seq;
  clport_model* model = NULL;
  if (clport_model_load(runtime, &options, &model) != CLPORT_OK) return NULL;
  return model;
}

/* The conversation's next turn: its prompt so far, the reply, then `more` new tokens. */
static void next_turn(struct turn* t, const int32_t* more, size_t n_more) {
  for (int i = 0; i < t->count; ++i) t->prompt[t->n_prompt++] = t->reply[i];
  for (size_t i = 0; i < n_more; ++i) t->prompt[t->n_prompt++] = more[i];
}

/* The replies of two turns of `first` then `second` on a model of one conversation: what each
 * context of a shared model must write too. */
static void alone(clport_runtime* runtime, const int32_t* first, size_t n_first, const int32_t* second,
                  size_t n_second, struct turn* out) {
  clport_model* model = load_with_sequences(runtime, 1);
  REQUIRE(model != NULL);
  REQUIRE(clport_context_create(model, NULL, &out->context) == CLPORT_OK);
  memcpy(out->prompt, first, n_first * sizeof(int32_t));
  out->n_prompt = n_first;
  take_turn(out);
  CHECK(out->status == CLPORT_OK);
  next_turn(out, second, n_second);
  take_turn(out);
  CHECK(out->status == CLPORT_OK);
  clport_context_free(out->context);
  out->context = NULL;
  clport_model_free(model);
}

void test_sessions(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  const int32_t a1[] = {1, 40, 41, 42, 43}, a2[] = {50, 51}, b1[] = {1, 60, 61, 62, 63, 64, 65}, b2[] = {70};
  struct turn want_a, want_b;
  memset(&want_a, 0, sizeof want_a);
  memset(&want_b, 0, sizeof want_b);
  alone(runtime, a1, 5, a2, 2, &want_a);
  alone(runtime, b1, 7, b2, 1, &want_b);

  clport_model* model = load_with_sequences(runtime, 2);
  REQUIRE(model != NULL);
  clport_model_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(info.n_seq == 2);
  struct turn a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  REQUIRE(clport_context_create(model, NULL, &a.context) == CLPORT_OK);
  REQUIRE(clport_context_create(model, NULL, &b.context) == CLPORT_OK);
  clport_context* third = NULL;
  CHECK_STATUS(clport_context_create(model, NULL, &third), CLPORT_ERR_INVALID_ARGUMENT,
               "each of the model's 2 conversations has a context");
  CHECK(third == NULL);

  /* Interleaved first turns, then the second turns on two threads at once. */
  memcpy(a.prompt, a1, sizeof a1);
  a.n_prompt = 5;
  memcpy(b.prompt, b1, sizeof b1);
  b.n_prompt = 7;
  take_turn(&a);
  take_turn(&b);
  REQUIRE(a.status == CLPORT_OK && b.status == CLPORT_OK);
  next_turn(&a, a2, 2);
  next_turn(&b, b2, 1);
  pthread_t ta, tb;
  REQUIRE(pthread_create(&ta, NULL, take_turn, &a) == 0);
  REQUIRE(pthread_create(&tb, NULL, take_turn, &b) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  REQUIRE(a.status == CLPORT_OK && b.status == CLPORT_OK);
  /* Everything but the new turn and the last reply token (never fed back) came from each
   * context's own cache. */
  CHECK(a.cached == (int32_t)a.n_prompt - 3);
  CHECK(b.cached == (int32_t)b.n_prompt - 2);
  CHECK(a.count == want_a.count && memcmp(a.reply, want_a.reply, sizeof a.reply) == 0);
  CHECK(b.count == want_b.count && memcmp(b.reply, want_b.reply, sizeof b.reply) == 0);

  /* B goes; its conversation comes back empty to the next context, which forks A's. */
  clport_context_free(b.context);
  clport_context* c = NULL;
  REQUIRE(clport_context_create(model, NULL, &c) == CLPORT_OK);
  int32_t* cached = NULL;
  size_t n_cached = 1;
  CHECK(clport_context_cached_tokens(c, &cached, &n_cached) == CLPORT_OK);
  CHECK(n_cached == 0 && cached == NULL);
  CHECK_STATUS(clport_context_fork(c, a.context), CLPORT_OK, NULL);
  int32_t *from_a = NULL, *from_c = NULL;
  size_t n_a = 0, n_c = 0;
  CHECK(clport_context_cached_tokens(a.context, &from_a, &n_a) == CLPORT_OK);
  CHECK(clport_context_cached_tokens(c, &from_c, &n_c) == CLPORT_OK);
  CHECK(n_a > 0 && n_a == n_c && from_a && from_c && memcmp(from_a, from_c, n_a * sizeof(int32_t)) == 0);
  clport_free(from_a);
  clport_free(from_c);
  /* The same next turn on both: the same reply, all of the fork's conversation reused. */
  struct turn forked = a;
  forked.context = c;
  const int32_t a3[] = {80, 81};
  next_turn(&a, a3, 2);
  next_turn(&forked, a3, 2);
  take_turn(&a);
  take_turn(&forked);
  CHECK(a.status == CLPORT_OK && forked.status == CLPORT_OK);
  CHECK(forked.cached == (int32_t)forked.n_prompt - 3);
  CHECK(a.count == forked.count && memcmp(a.reply, forked.reply, sizeof a.reply) == 0);

  /* Error paths. */
  CHECK_STATUS(clport_context_fork(c, NULL), CLPORT_ERR_INVALID_ARGUMENT, "source is NULL");
  CHECK_STATUS(clport_context_fork(NULL, c), CLPORT_ERR_INVALID_ARGUMENT, "context");
  clport_model* other = load_with_sequences(runtime, 1);
  REQUIRE(other != NULL);
  clport_context* elsewhere = NULL;
  REQUIRE(clport_context_create(other, NULL, &elsewhere) == CLPORT_OK);
  CHECK_STATUS(clport_context_fork(c, elsewhere), CLPORT_ERR_INVALID_ARGUMENT, "another model");
  clport_context_free(elsewhere);
  clport_model_free(other);
  clport_model_options bad;
  clport_model_options_init(&bad);
  CHECK(bad.n_seq == 1);
  bad.path = capi_plain_model_path();
  bad.n_seq = 0;
  clport_model* none = NULL;
  CHECK_STATUS(clport_model_load(runtime, &bad, &none), CLPORT_ERR_INVALID_ARGUMENT,
               "options->n_seq 0 is out of range 1 to 256");
  CHECK(none == NULL);

  clport_context_free(a.context);
  clport_context_free(c);
  clport_model_free(model);
  clport_runtime_free(runtime);
}
