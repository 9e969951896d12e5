/* capi_tests CASE: runs one case of the C API tests and exits 0 when every check passed. The
 * cases are registered one by one with ctest (CMakeLists.txt). */
#include <stdlib.h>

#include "capi_test.h"

int capi_test_failures = 0;

int capi_check_status(clport_status got, clport_status expected, const char* needle, const char* file,
                      int line, const char* call) {
  const char* message = clport_last_error();
  int ok = got == expected;
  if (ok && needle != NULL && !contains(message, needle)) ok = 0;
  if (ok && expected != CLPORT_OK && message[0] == '\0') ok = 0; /* every failure says why */
  if (!ok) {
    fprintf(stderr, "%s:%d: %s\n  returned %d (%s), expected %d (%s)\n  message: '%s'\n  wanted in it: '%s'\n",
            file, line, call, (int)got, clport_status_name(got), (int)expected, clport_status_name(expected),
            message, needle == NULL ? "" : needle);
  }
  return ok;
}

int contains(const char* haystack, const char* needle) {
  return haystack != NULL && needle != NULL && strstr(haystack, needle) != NULL;
}

const char* capi_model_path(void) { return CAPI_MODEL; }
const char* capi_plain_model_path(void) { return CAPI_PLAIN_MODEL; }
const char* capi_malformed_path(void) { return CAPI_MALFORMED; }
const char* capi_work_dir(void) { return CAPI_WORK_DIR; }

clport_runtime* cpu_runtime(void) {
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.device = "cpu";
  options.n_threads = 1;
  clport_runtime* runtime = NULL;
  if (clport_runtime_create(&options, &runtime) != CLPORT_OK) {
    fprintf(stderr, "cpu runtime: %s\n", clport_last_error());
    ++capi_test_failures;
    return NULL;
  }
  return runtime;
}

clport_model* load_model(clport_runtime* runtime, const char* path) {
  clport_model_options options;
  clport_model_options_init(&options);
  options.path = path;
  clport_model* model = NULL;
  if (clport_model_load(runtime, &options, &model) != CLPORT_OK) {
    fprintf(stderr, "load %s: %s\n", path, clport_last_error());
    ++capi_test_failures;
    return NULL;
  }
  return model;
}

/* The cases, one file per area. */
#define CAPI_CASES(X)                                                                              \
  X(version_and_status) X(null_handles) X(runtime_options) X(runtime_policy) X(runtime_report)     \
  X(log_callback) X(model_load_errors) X(model_info_and_report) X(model_options)                   \
  X(tokenize_roundtrip) X(tokenize_errors) X(chat_apply) X(chat_errors) X(context_params)          \
  X(generate_callback) X(generate_stops) X(generate_errors) X(generate_context_full)                \
  X(generate_reentry) X(context_outlives_model) X(device_cache_dir) X(threads) X(conversation)      \
  X(sessions) X(device_start)

#define DECLARE(name) void test_##name(void);
CAPI_CASES(DECLARE)

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
  }
#define RUN(name)                               \
  if (strcmp(argv[1], #name) == 0) {            \
    test_##name();                              \
    printf("%s: %s\n", #name, capi_test_failures ? "FAILED" : "passed"); \
    return capi_test_failures ? 1 : 0;          \
  }
  CAPI_CASES(RUN)
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
