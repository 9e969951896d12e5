/* Handles used from several threads at once: two contexts of one model generating on two threads
 * (the model serialises them: they share its KV cache) while a third thread tokenizes with the
 * same model, and a second model generating on a thread of its own. Every generation must give
 * the tokens it gives alone. */
#include <pthread.h>
#include <stdlib.h>

#include "capi_test.h"

struct job {
  clport_context* context; /* generate on it ... */
  clport_model* model;     /* ... or tokenize with it */
  const int32_t* prompt;
  size_t n_prompt;
  int32_t tokens[32];
  int count;
  int rounds;
  clport_status status;
};

static int record_token(void* user_data, int32_t token, const char* piece, size_t length) {
  (void)piece;
  (void)length;
  struct job* j = (struct job*)user_data;
  if (j->count < 32) j->tokens[j->count] = token;
  ++j->count;
  return CLPORT_CONTINUE;
}

static void* run_job(void* arg) {
  struct job* j = (struct job*)arg;
  for (int r = 0; r < j->rounds && j->status == CLPORT_OK; ++r) {
    if (j->context != NULL) {
      j->count = 0;
      j->status = clport_generate(j->context, j->prompt, j->n_prompt, 12, record_token, j, NULL);
    } else {
      int32_t* tokens = NULL;
      size_t n = 0;
      j->status = clport_tokenize(j->model, "the cat sat", 11, CLPORT_TOKENIZE_ADD_BOS, &tokens, &n);
      if (j->status == CLPORT_OK && n == 0) j->status = CLPORT_ERR_INTERNAL;
      clport_free(tokens);
    }
  }
  return NULL;
}

void test_threads(void) {
  clport_runtime* runtime = cpu_runtime();
  REQUIRE(runtime != NULL);
  clport_model* a = load_model(runtime, capi_model_path());
  clport_model* b = load_model(runtime, capi_plain_model_path());
  REQUIRE(a != NULL && b != NULL);
  clport_context *a1 = NULL, *a2 = NULL, *b1 = NULL;
  REQUIRE(clport_context_create(a, NULL, &a1) == CLPORT_OK);
  REQUIRE(clport_context_create(a, NULL, &a2) == CLPORT_OK);
  REQUIRE(clport_context_create(b, NULL, &b1) == CLPORT_OK);
  int32_t* prompt_a = NULL;
  int32_t* prompt_b = NULL;
  size_t n_a = 0, n_b = 0;
  REQUIRE(clport_tokenize(a, "the cat", 7, CLPORT_TOKENIZE_ADD_BOS, &prompt_a, &n_a) == CLPORT_OK);
  REQUIRE(clport_tokenize(b, "on the mat", 10, CLPORT_TOKENIZE_ADD_BOS, &prompt_b, &n_b) == CLPORT_OK);

  /* Alone first: the expected tokens. */
  struct job alone_a = {a1, NULL, prompt_a, n_a, {0}, 0, 1, CLPORT_OK};
  struct job alone_b = {b1, NULL, prompt_b, n_b, {0}, 0, 1, CLPORT_OK};
  run_job(&alone_a);
  run_job(&alone_b);
  REQUIRE(alone_a.status == CLPORT_OK && alone_b.status == CLPORT_OK && alone_a.count > 0 && alone_b.count > 0);

  struct job jobs[4] = {
      {a1, NULL, prompt_a, n_a, {0}, 0, 20, CLPORT_OK},
      {a2, NULL, prompt_a, n_a, {0}, 0, 20, CLPORT_OK},
      {NULL, a, NULL, 0, {0}, 0, 1000, CLPORT_OK},
      {b1, NULL, prompt_b, n_b, {0}, 0, 20, CLPORT_OK},
  };
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) REQUIRE(pthread_create(&threads[i], NULL, run_job, &jobs[i]) == 0);
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 4; ++i) CHECK(jobs[i].status == CLPORT_OK);
  for (int i = 0; i < 2; ++i) {
    CHECK(jobs[i].count == alone_a.count);
    CHECK(memcmp(jobs[i].tokens, alone_a.tokens, (size_t)alone_a.count * sizeof(int32_t)) == 0);
  }
  CHECK(jobs[3].count == alone_b.count);
  CHECK(memcmp(jobs[3].tokens, alone_b.tokens, (size_t)alone_b.count * sizeof(int32_t)) == 0);

  clport_free(prompt_a);
  clport_free(prompt_b);
  clport_context_free(a1);
  clport_context_free(a2);
  clport_context_free(b1);
  clport_model_free(a);
  clport_model_free(b);
  clport_runtime_free(runtime);
}
