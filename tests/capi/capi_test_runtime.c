/* Versions, status names, the NULL-handle path of every entry point, runtime options, the policy
 * (file and text), the devices report and the log callback. */
#include <stdlib.h>

#include "capi_test.h"

void test_version_and_status(void) {
  const uint32_t version = clport_api_version();
  CHECK(version >> 16 == CLPORT_API_VERSION_MAJOR);
  CHECK((version & 0xffffu) == CLPORT_API_VERSION_MINOR);
  CHECK(strlen(clport_version_string()) > 0);
  CHECK(strcmp(clport_status_name(CLPORT_OK), "ok") == 0);
  CHECK(strcmp(clport_status_name(CLPORT_ERR_INVALID_ARGUMENT), "invalid argument") == 0);
  CHECK(strcmp(clport_status_name(CLPORT_ERR_MODEL), "model") == 0);
  CHECK(strcmp(clport_status_name((clport_status)99), "unknown") == 0);
  CHECK(strcmp(clport_status_name((clport_status)-1), "unknown") == 0);
  /* A failure leaves a message; the next successful call clears it. */
  CHECK_STATUS(clport_runtime_create(NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_runtime is NULL");
  clport_runtime* runtime = NULL;
  CHECK_STATUS(clport_runtime_create(NULL, &runtime), CLPORT_OK, NULL);
  CHECK(strcmp(clport_last_error(), "") == 0);
  CHECK(runtime != NULL);
  clport_runtime_free(runtime);
  clport_free(NULL);
}

/* Every entry point that takes a handle refuses NULL with a message naming the function. */
void test_null_handles(void) {
  int32_t token = 1;
  int32_t* tokens = &token;
  size_t n = 7;
  char* text = (char*)"x";
  clport_model* model = (clport_model*)&n; /* never dereferenced: the calls fail first */
  clport_context* context = (clport_context*)&n;
  clport_model_info info;
  info.struct_size = sizeof info;
  clport_chat_message message = {"user", "hi"};
  clport_model_options options;
  clport_model_options_init(&options);
  options.path = "x.gguf";

  CHECK_STATUS(clport_runtime_report_json(NULL, &text, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_runtime_report_json: runtime is NULL");
  CHECK(text == NULL && n == 0); /* out-parameters are cleared on failure */
  CHECK_STATUS(clport_model_load(NULL, &options, &model), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_model_load: runtime is NULL");
  CHECK(model == NULL);
  CHECK_STATUS(clport_model_get_info(NULL, &info), CLPORT_ERR_INVALID_ARGUMENT, "clport_model_get_info: model is NULL");
  CHECK_STATUS(clport_model_report_json(NULL, &text, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_model_report_json: model is NULL");
  CHECK_STATUS(clport_tokenize(NULL, "a", 1, 0, &tokens, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_tokenize: model is NULL");
  CHECK(tokens == NULL && n == 0);
  CHECK_STATUS(clport_detokenize(NULL, &token, 1, 0, &text, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_detokenize: model is NULL");
  CHECK_STATUS(clport_chat_apply(NULL, NULL, &message, 1, 1, &text, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_chat_apply: model is NULL");
  CHECK_STATUS(clport_chat_stop_tokens(NULL, NULL, &tokens, &n), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_chat_stop_tokens: model is NULL");
  CHECK_STATUS(clport_context_create(NULL, NULL, &context), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_context_create: model is NULL");
  CHECK(context == NULL);
  CHECK_STATUS(clport_context_set_stop_tokens(NULL, &token, 1), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_context_set_stop_tokens: context is NULL");
  clport_generation_stats stats;
  stats.struct_size = sizeof stats;
  stats.delivered_tokens = 99;
  CHECK_STATUS(clport_generate(NULL, &token, 1, 4, NULL, NULL, &stats), CLPORT_ERR_INVALID_ARGUMENT,
               "clport_generate: context is NULL");
  CHECK(stats.delivered_tokens == 0); /* stats are filled in on failure too */
  /* Required out-pointers. */
  CHECK_STATUS(clport_model_load(NULL, &options, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_model is NULL");
  CHECK_STATUS(clport_context_create(NULL, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "out_context is NULL");
  /* Freeing NULL and reading the message of a NULL handle are harmless. */
  clport_runtime_free(NULL);
  clport_model_free(NULL);
  clport_context_free(NULL);
  CHECK(strcmp(clport_runtime_error(NULL), "") == 0);
  CHECK(strcmp(clport_model_error(NULL), "") == 0);
  CHECK(strcmp(clport_context_error(NULL), "") == 0);
  clport_runtime_options_init(NULL);
  clport_model_options_init(NULL);
  clport_context_params_init(NULL);
}

static clport_status create_with(const char* device, int32_t threads, clport_runtime** out) {
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.device = device;
  options.n_threads = threads;
  return clport_runtime_create(&options, out);
}

void test_runtime_options(void) {
  clport_runtime* runtime = (clport_runtime*)&runtime;
  CHECK_STATUS(create_with("gpu", 0, &runtime), CLPORT_ERR_INVALID_ARGUMENT,
               "device 'gpu' is not auto, cpu, or a device index 0 to 1023");
  CHECK(runtime == NULL);
  CHECK_STATUS(create_with("1024", 0, &runtime), CLPORT_ERR_INVALID_ARGUMENT, "device '1024'");
  CHECK_STATUS(create_with("-1", 0, &runtime), CLPORT_ERR_INVALID_ARGUMENT, "device '-1'");
  CHECK_STATUS(create_with("", 0, &runtime), CLPORT_ERR_INVALID_ARGUMENT, "device ''");
  CHECK_STATUS(create_with("cpu", -1, &runtime), CLPORT_ERR_INVALID_ARGUMENT, "n_threads -1 is out of range 0 to 1024");
  CHECK_STATUS(create_with("cpu", 1025, &runtime), CLPORT_ERR_INVALID_ARGUMENT, "n_threads 1025");
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.struct_size = 0;
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_INVALID_ARGUMENT,
               "options->struct_size is 0; call the *_init function first");
  /* Accepted: each device form. */
  const char* devices[] = {"auto", "cpu", "0", "1023"};
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; ++i) {
    CHECK_STATUS(create_with(devices[i], 2, &runtime), CLPORT_OK, NULL);
    clport_runtime_free(runtime);
  }
  /* A caller built against an older, shorter options struct: the missing fields keep defaults. */
  clport_runtime_options_init(&options);
  options.device = "cpu";
  options.struct_size = offsetof(clport_runtime_options, plugin);
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_OK, NULL);
  clport_runtime_free(runtime);
}

void test_runtime_policy(void) {
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  clport_runtime* runtime = NULL;
  /* Malformed text: a Config status with where it is. */
  options.policy_yaml = "version: 1\nprecision: [fp32\n";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_CONFIG, "<policy text 1>:");
  CHECK(runtime == NULL);
  options.policy_yaml = "version: 1\nno_such_key: 1\n";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_CONFIG, "no_such_key");
  options.policy_yaml = "version: 1\nprecision: fp32\nself_test: off\n";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_OK, NULL);
  clport_runtime_free(runtime);
  /* A policy file that does not exist, and one that is malformed. */
  options.policy_yaml = NULL;
  options.policy_file = "/nonexistent/clport-policy.yaml";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_CONFIG,
               "cannot open policy file '/nonexistent/clport-policy.yaml'");
  char path[4096];
  snprintf(path, sizeof path, "%s/bad_policy.yaml", capi_work_dir());
  FILE* f = fopen(path, "w");
  REQUIRE(f != NULL);
  fputs("version: 1\nrules:\n  - id: x\n    force: 7: 8\n", f);
  fclose(f);
  options.policy_file = path;
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_CONFIG, "bad_policy.yaml:");
  /* The forced plugin becomes a rule of the policy: its name is a plain word. */
  options.policy_file = NULL;
  options.plugin = "generic\n    deny_device: true";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_INVALID_ARGUMENT,
               "plugin 'generic\n    deny_device: true' is not a plugin name");
  options.plugin = "generic";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_OK, NULL);
  clport_runtime_free(runtime);
  /* A plain word that no plugin found answers to: refused here, naming the ones there are. */
  options.plugin = "nosuch";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_INVALID_ARGUMENT,
               "plugin 'nosuch' was not found; the plugins found are: ");
  CHECK(runtime == NULL);
  CHECK(contains(clport_last_error(), "generic"));
  options.plugin = NULL;
  /* A directory is not a policy file; a cache directory must be absolute (or "off"). */
  options.policy_file = capi_work_dir();
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_CONFIG, "is a directory; give a YAML file");
  options.policy_file = NULL;
  options.cache_dir = "relative/cache";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_ERR_INVALID_ARGUMENT,
               "cache directory 'relative/cache' is not an absolute path");
  options.cache_dir = "off";
  CHECK_STATUS(clport_runtime_create(&options, &runtime), CLPORT_OK, NULL);
  clport_runtime_free(runtime);
}

void test_runtime_report(void) {
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  /* No OpenCL library at all: the report says so, and the call still succeeds. */
  options.policy_yaml = "version: 1\nopencl_library: /nonexistent/libOpenCL.so\n";
  clport_runtime* runtime = NULL;
  REQUIRE(clport_runtime_create(&options, &runtime) == CLPORT_OK);
  char* json = NULL;
  size_t length = 0;
  CHECK_STATUS(clport_runtime_report_json(runtime, &json, &length), CLPORT_OK, NULL);
  REQUIRE(json != NULL);
  CHECK(length == strlen(json));
  CHECK(contains(json, "\"libraries_tried\""));
  CHECK(contains(json, "/nonexistent/libOpenCL.so"));
  CHECK(contains(json, "\"status\": \"library not found"));
  CHECK(strcmp(clport_runtime_error(runtime), "") == 0);
  clport_free(json);
  CHECK_STATUS(clport_runtime_report_json(runtime, NULL, &length), CLPORT_ERR_INVALID_ARGUMENT, "out_json is NULL");
  CHECK(contains(clport_runtime_error(runtime), "out_json is NULL")); /* the handle's copy */
  clport_runtime_free(runtime);
}

struct log_capture {
  int warnings;
  int engine_lines;
  char last[512];
};

static void capture(void* user_data, clport_log_severity level, const char* component, const char* message) {
  struct log_capture* c = (struct log_capture*)user_data;
  if (level == CLPORT_SEVERITY_WARN) ++c->warnings;
  if (strcmp(component, "engine") == 0) ++c->engine_lines;
  snprintf(c->last, sizeof c->last, "%s", message);
}

void test_log_callback(void) {
  struct log_capture c = {0, 0, ""};
  CHECK_STATUS(clport_set_log_callback(capture, &c), CLPORT_OK, NULL);
  CHECK_STATUS(clport_set_log_level((clport_log_severity)5), CLPORT_ERR_INVALID_ARGUMENT, "level 5 is not a clport_log_severity");
  CHECK_STATUS(clport_set_log_level(CLPORT_SEVERITY_WARN), CLPORT_OK, NULL);
  /* "auto" with no usable OpenCL library: the engine warns that it runs on the CPU. */
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.policy_yaml = "version: 1\nopencl_library: /nonexistent/libOpenCL.so\n";
  options.n_threads = 1;
  clport_runtime* runtime = NULL;
  REQUIRE(clport_runtime_create(&options, &runtime) == CLPORT_OK);
  clport_model* model = load_model(runtime, capi_plain_model_path());
  CHECK(model != NULL);
  CHECK(c.warnings >= 1);
  CHECK(c.engine_lines >= 1);
  CHECK(contains(c.last, "running on the CPU"));
  clport_model_free(model);
  /* Off: nothing is delivered. */
  const int before = c.warnings;
  CHECK_STATUS(clport_set_log_level(CLPORT_SEVERITY_OFF), CLPORT_OK, NULL);
  model = load_model(runtime, capi_plain_model_path());
  CHECK(c.warnings == before);
  clport_model_free(model);
  /* Removed: back to stderr, the callback is not called any more. */
  CHECK_STATUS(clport_set_log_level(CLPORT_SEVERITY_WARN), CLPORT_OK, NULL);
  CHECK_STATUS(clport_set_log_callback(NULL, NULL), CLPORT_OK, NULL);
  model = load_model(runtime, capi_plain_model_path());
  CHECK(c.warnings == before);
  clport_model_free(model);
  clport_runtime_free(runtime);
}
