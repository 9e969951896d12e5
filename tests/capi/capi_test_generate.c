/* Generation contexts: sampler parameters, the token callback (continue, stop, the text it
 * streams), stop tokens, the error paths, a nested call, and handle lifetimes; then the device
 * path with a cache directory of the app's own. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <dirent.h>

#include "capi_test.h"

struct collected {
  int32_t tokens[256];
  int count;
  int stop_at;      /* return CLPORT_STOP after this many tokens (0: never) */
  char text[4096];
  size_t text_length;
  clport_model* model; /* set: tokenize inside the callback (the model's calls are allowed) */
  clport_context* nested; /* set: try a generation from inside the callback */
  clport_status nested_status;
  int tokenize_ok;
};

static int collect(void* user_data, int32_t token, const char* piece, size_t piece_length) {
  struct collected* c = (struct collected*)user_data;
  if (c->count < 256) c->tokens[c->count] = token;
  ++c->count;
  if (c->text_length + piece_length < sizeof c->text) {
    memcpy(c->text + c->text_length, piece, piece_length);
    c->text_length += piece_length;
    c->text[c->text_length] = '\0';
  }
  if (c->model != NULL) {
    int32_t* tokens = NULL;
    size_t n = 0;
    if (clport_tokenize(c->model, "cat", 3, 0, &tokens, &n) == CLPORT_OK && n > 0) ++c->tokenize_ok;
    clport_free(tokens);
  }
  if (c->nested != NULL) {
    const int32_t one = 5;
    c->nested_status = clport_generate(c->nested, &one, 1, 2, NULL, NULL, NULL);
    c->nested = NULL;
  }
  return c->stop_at > 0 && c->count >= c->stop_at ? CLPORT_STOP : CLPORT_CONTINUE;
}

/* The chat model on the CPU, a context with the given parameters, and a prompt. */
struct fixture {
  clport_runtime* runtime;
  clport_model* model;
  clport_context* context;
  int32_t* prompt;
  size_t n_prompt;
};

static int setup(struct fixture* f, const clport_context_params* params, uint32_t n_ctx) {
  memset(f, 0, sizeof *f);
  f->runtime = cpu_runtime();
  if (f->runtime == NULL) return 0;
  clport_model_options options;
  clport_model_options_init(&options);
  options.path = capi_model_path();
  options.n_ctx = n_ctx;
  if (clport_model_load(f->runtime, &options, &f->model) != CLPORT_OK) return 0;
  if (clport_context_create(f->model, params, &f->context) != CLPORT_OK) return 0;
  const char* text = "the cat sat on";
  return clport_tokenize(f->model, text, strlen(text), CLPORT_TOKENIZE_ADD_BOS, &f->prompt, &f->n_prompt) == CLPORT_OK;
}

static void teardown(struct fixture* f) {
  clport_free(f->prompt);
  clport_context_free(f->context);
  clport_model_free(f->model);
  clport_runtime_free(f->runtime);
}

static clport_generation_stats new_stats(void) {
  clport_generation_stats s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  return s;
}

void test_context_params(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  clport_context_params p;
  clport_context_params_init(&p);
  CHECK(p.struct_size == sizeof p);
  CHECK(p.temperature == 0.0f && p.top_k == 40 && p.top_p > 0.94f && p.top_p < 0.96f);
  CHECK(p.repeat_penalty == 1.0f && p.repeat_last_n == 64 && p.seed == 0);
  clport_context* c = (clport_context*)&p;
  struct {
    const char* needle;
    float temperature, top_p, repeat_penalty;
    int32_t top_k, repeat_last_n;
  } bad[] = {
      {"temperature nan is out of range 0 to 100", NAN, 0.9f, 1, 40, 64},
      {"temperature -1.000000 is out of range", -1, 0.9f, 1, 40, 64},
      {"temperature inf", INFINITY, 0.9f, 1, 40, 64},
      {"top_p 2.000000 is out of range 0 to 1", 0, 2, 1, 40, 64},
      {"repeat_penalty 0.000000 is out of range: greater than 0, up to 10", 0, 0.9f, 0, 40, 64},
      {"repeat_penalty 11.000000", 0, 0.9f, 11, 40, 64},
      {"top_k -1 is out of range 0 to 1048576", 0, 0.9f, 1, -1, 64},
      {"repeat_last_n -2 is out of range", 0, 0.9f, 1, 40, -2},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    clport_context_params_init(&p);
    p.temperature = bad[i].temperature;
    p.top_p = bad[i].top_p;
    p.repeat_penalty = bad[i].repeat_penalty;
    p.top_k = bad[i].top_k;
    p.repeat_last_n = bad[i].repeat_last_n;
    CHECK_STATUS(clport_context_create(f.model, &p, &c), CLPORT_ERR_INVALID_ARGUMENT, bad[i].needle);
    CHECK(c == NULL);
  }
  CHECK(contains(clport_model_error(f.model), "repeat_last_n -2"));
  clport_context_params_init(&p);
  p.struct_size = 1;
  CHECK_STATUS(clport_context_create(f.model, &p, &c), CLPORT_ERR_INVALID_ARGUMENT, "params->struct_size is 1");
  /* The range ends themselves are accepted. */
  clport_context_params_init(&p);
  p.temperature = 100;
  p.top_p = 1;
  p.repeat_penalty = 10;
  p.top_k = 0;
  p.repeat_last_n = 0;
  CHECK_STATUS(clport_context_create(f.model, &p, &c), CLPORT_OK, NULL);
  clport_context_free(c);
  teardown(&f);
}

void test_generate_callback(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  struct collected a;
  memset(&a, 0, sizeof a);
  clport_generation_stats stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 16, collect, &a, &stats), CLPORT_OK, NULL);
  CHECK(stats.prompt_tokens == (int32_t)f.n_prompt);
  CHECK(stats.delivered_tokens == a.count);
  CHECK(a.count > 0 && a.count <= 16);
  CHECK(stats.stop_reason == (a.count == 16 ? CLPORT_STOP_LENGTH : CLPORT_STOP_END_OF_GENERATION));
  CHECK(stats.load_seconds > 0 && stats.prompt_seconds > 0 && stats.generation_seconds >= 0);
  /* The streamed pieces are the text of the tokens (a continuation: no prefix space removed). */
  char* text = NULL;
  REQUIRE(clport_detokenize(f.model, a.tokens, (size_t)a.count, 0, &text, NULL) == CLPORT_OK);
  CHECK(strlen(text) == a.text_length || strlen(text) + 1 == a.text_length);
  CHECK(contains(a.text, text));
  clport_free(text);
  /* Greedy is reproducible, and so is sampling with a seed (every call starts from it). */
  struct collected b;
  memset(&b, 0, sizeof b);
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 16, collect, &b, NULL), CLPORT_OK, NULL);
  CHECK(b.count == a.count && memcmp(a.tokens, b.tokens, (size_t)a.count * sizeof(int32_t)) == 0);
  clport_context_params p;
  clport_context_params_init(&p);
  p.temperature = 1.5f;
  p.top_k = 0;
  p.top_p = 1;
  p.seed = 42;
  clport_context* sampled = NULL;
  REQUIRE(clport_context_create(f.model, &p, &sampled) == CLPORT_OK);
  struct collected s1, s2;
  memset(&s1, 0, sizeof s1);
  memset(&s2, 0, sizeof s2);
  CHECK_STATUS(clport_generate(sampled, f.prompt, f.n_prompt, 16, collect, &s1, NULL), CLPORT_OK, NULL);
  CHECK_STATUS(clport_generate(sampled, f.prompt, f.n_prompt, 16, collect, &s2, NULL), CLPORT_OK, NULL);
  CHECK(s1.count == s2.count && memcmp(s1.tokens, s2.tokens, (size_t)s1.count * sizeof(int32_t)) == 0);
  clport_context_free(sampled);
  /* No callback: the tokens are generated all the same. */
  stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 16, NULL, NULL, &stats), CLPORT_OK, NULL);
  CHECK(stats.delivered_tokens == a.count);
  /* n_predict 0 evaluates the prompt only. */
  struct collected z;
  memset(&z, 0, sizeof z);
  stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 0, collect, &z, &stats), CLPORT_OK, NULL);
  CHECK(z.count == 0 && stats.delivered_tokens == 0 && stats.stop_reason == CLPORT_STOP_LENGTH);
  /* The model's tokenizer is usable from inside the callback. */
  struct collected t;
  memset(&t, 0, sizeof t);
  t.model = f.model;
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 4, collect, &t, NULL), CLPORT_OK, NULL);
  CHECK(t.tokenize_ok == t.count && t.count > 0);
  teardown(&f);
}

void test_generate_stops(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  struct collected all;
  memset(&all, 0, sizeof all);
  REQUIRE(clport_generate(f.context, f.prompt, f.n_prompt, 12, collect, &all, NULL) == CLPORT_OK);
  REQUIRE(all.count >= 6);
  /* The callback stops it: exactly as many tokens as it took, the same ones. */
  struct collected part;
  memset(&part, 0, sizeof part);
  part.stop_at = 5;
  clport_generation_stats stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 12, collect, &part, &stats), CLPORT_OK, NULL);
  CHECK(part.count == 5);
  CHECK(stats.delivered_tokens == 5);
  CHECK(stats.stop_reason == CLPORT_STOP_CALLBACK);
  CHECK(memcmp(part.tokens, all.tokens, 5 * sizeof(int32_t)) == 0);
  /* Any non-zero return stops too. */
  part.count = 0;
  part.stop_at = 1;
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 12, collect, &part, &stats), CLPORT_OK, NULL);
  CHECK(part.count == 1 && stats.stop_reason == CLPORT_STOP_CALLBACK);
  /* A stop token ends it before that token is delivered. */
  CHECK_STATUS(clport_context_set_stop_tokens(f.context, &all.tokens[3], 1), CLPORT_OK, NULL);
  struct collected stopped;
  memset(&stopped, 0, sizeof stopped);
  stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 12, collect, &stopped, &stats), CLPORT_OK, NULL);
  int first = 0;
  while (first < 3 && all.tokens[first] != all.tokens[3]) ++first;
  CHECK(stopped.count == first);
  CHECK(stats.stop_reason == CLPORT_STOP_END_OF_GENERATION);
  /* Cleared: the whole run again. */
  CHECK_STATUS(clport_context_set_stop_tokens(f.context, NULL, 0), CLPORT_OK, NULL);
  memset(&stopped, 0, sizeof stopped);
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 12, collect, &stopped, NULL), CLPORT_OK, NULL);
  CHECK(stopped.count == all.count);
  const int32_t bad[] = {1, 999999};
  CHECK_STATUS(clport_context_set_stop_tokens(f.context, bad, 2), CLPORT_ERR_INVALID_ARGUMENT,
               "tokens[1] = 999999 is not a token id");
  CHECK_STATUS(clport_context_set_stop_tokens(f.context, NULL, 3), CLPORT_ERR_INVALID_ARGUMENT,
               "tokens is NULL but count is 3");
  CHECK(contains(clport_context_error(f.context), "tokens is NULL"));
  teardown(&f);
}

void test_generate_errors(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  clport_generation_stats stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, NULL, 3, 4, NULL, NULL, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "the prompt is NULL; it needs at least one token");
  CHECK_STATUS(clport_generate(f.context, f.prompt, 0, 4, NULL, NULL, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "the prompt is empty");
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, -1, NULL, NULL, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "n_predict -1 is out of range 0 to 1048576");
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 1048577, NULL, NULL, &stats),
               CLPORT_ERR_INVALID_ARGUMENT, "n_predict 1048577");
  const int32_t bad_prompt[] = {1, 2, 700000};
  CHECK_STATUS(clport_generate(f.context, bad_prompt, 3, 4, NULL, NULL, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "prompt[2] = 700000 is not a token id");
  CHECK(contains(clport_context_error(f.context), "prompt[2]"));
  /* stats with a bad struct_size are left alone; NULL stats are fine. */
  clport_generation_stats odd;
  memset(&odd, 0x7f, sizeof odd);
  odd.struct_size = 0;
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 1, NULL, NULL, &odd), CLPORT_OK, NULL);
  CHECK(odd.delivered_tokens == 0x7f7f7f7f);
  CHECK(strcmp(clport_context_error(f.context), "") == 0);
  teardown(&f);
}

void test_generate_context_full(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 8));
  REQUIRE(f.n_prompt >= 4);
  /* A 4-token prompt fits; the 20 tokens after it do not: the 5 that fit are delivered first. */
  struct collected c;
  memset(&c, 0, sizeof c);
  clport_generation_stats stats = new_stats();
  CHECK_STATUS(clport_generate(f.context, f.prompt, 4, 20, collect, &c, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "context full after 5 of 20 tokens: the context holds 8 tokens");
  CHECK(stats.delivered_tokens == 5 && c.count == 5);
  /* A prompt longer than the context. */
  int32_t long_prompt[12];
  for (int i = 0; i < 12; ++i) long_prompt[i] = f.prompt[i % (int)f.n_prompt];
  CHECK_STATUS(clport_generate(f.context, long_prompt, 12, 1, NULL, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT,
               "context full: the prompt has 12 tokens but the context holds 8");
  teardown(&f);
}

void test_generate_reentry(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  clport_context* other = NULL;
  REQUIRE(clport_context_create(f.model, NULL, &other) == CLPORT_OK);
  struct collected c;
  memset(&c, 0, sizeof c);
  c.nested = other;
  c.nested_status = CLPORT_OK;
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 4, collect, &c, NULL), CLPORT_OK, NULL);
  CHECK(c.nested_status == CLPORT_ERR_INVALID_ARGUMENT);
  CHECK(contains(clport_context_error(other), "a generation is already running on this model"));
  CHECK(c.count >= 1);
  /* Afterwards the other context generates normally. */
  CHECK_STATUS(clport_generate(other, f.prompt, f.n_prompt, 2, NULL, NULL, NULL), CLPORT_OK, NULL);
  clport_context_free(other);
  teardown(&f);
}

void test_context_outlives_model(void) {
  struct fixture f;
  REQUIRE(setup(&f, NULL, 128));
  struct collected before;
  memset(&before, 0, sizeof before);
  REQUIRE(clport_generate(f.context, f.prompt, f.n_prompt, 6, collect, &before, NULL) == CLPORT_OK);
  clport_model_free(f.model);
  clport_runtime_free(f.runtime);
  f.model = NULL;
  f.runtime = NULL;
  struct collected after;
  memset(&after, 0, sizeof after);
  CHECK_STATUS(clport_generate(f.context, f.prompt, f.n_prompt, 6, collect, &after, NULL), CLPORT_OK, NULL);
  CHECK(after.count == before.count && memcmp(after.tokens, before.tokens, (size_t)after.count * sizeof(int32_t)) == 0);
  teardown(&f);
}

/* How many files in dir end in suffix; with remove set, deletes them instead. */
static int count_files(const char* dir, const char* suffix, int remove_them) {
  DIR* d = opendir(dir);
  if (d == NULL) return -1;
  int n = 0;
  for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
    const size_t len = strlen(e->d_name), slen = strlen(suffix);
    if (len > slen && strcmp(e->d_name + len - slen, suffix) == 0) {
      ++n;
      if (remove_them) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
      }
    }
  }
  closedir(d);
  return n;
}

/* On the OpenCL device (PoCL here): the app's cache directory receives the compiled programs,
 * and the policy text reaches the engine (self-test off: no verdict file). */
void test_device_cache_dir(void) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/app_cache", capi_work_dir());
  mkdir(dir, 0700);
  count_files(dir, "", 1); /* start empty */
  REQUIRE(count_files(dir, ".clbin", 0) == 0);
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.device = "0";
  options.cache_dir = dir;
  options.policy_yaml = "version: 1\nself_test: off\n";
  clport_runtime* runtime = NULL;
  REQUIRE(clport_runtime_create(&options, &runtime) == CLPORT_OK);
  clport_model_options mo;
  clport_model_options_init(&mo);
  mo.path = capi_plain_model_path();
  clport_model* model = NULL;
  CHECK_STATUS(clport_model_load(runtime, &mo, &model), CLPORT_OK, NULL);
  REQUIRE(model != NULL);
  clport_model_info info;
  info.struct_size = sizeof info;
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(strncmp(info.backend, "opencl:", 7) == 0);
  /* Kernels are built at their first use. */
  clport_context* context = NULL;
  REQUIRE(clport_context_create(model, NULL, &context) == CLPORT_OK);
  const int32_t prompt[] = {5, 6, 7};
  clport_generation_stats stats = new_stats();
  CHECK_STATUS(clport_generate(context, prompt, 3, 2, NULL, NULL, &stats), CLPORT_OK, NULL);
  CHECK(stats.prompt_tokens == 3);
  clport_context_free(context);
  CHECK(count_files(dir, ".clbin", 0) > 0);
  CHECK(count_files(dir, ".json", 0) == 0); /* no self-test verdict: the policy text turned it off */
  char* json = NULL;
  REQUIRE(clport_model_report_json(model, &json, NULL) == CLPORT_OK);
  CHECK(contains(json, "\"plugin\": \"generic\""));
  clport_free(json);
  /* The runtime's report sees the same device. */
  REQUIRE(clport_runtime_report_json(runtime, &json, NULL) == CLPORT_OK);
  CHECK(contains(json, "\"status\": \"ok\""));
  CHECK(contains(json, "\"has_device\": true"));
  clport_free(json);
  clport_model_free(model);
  clport_runtime_free(runtime);
}
