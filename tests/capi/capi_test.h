/* A small test harness for the C API tests (plain C11): each case is a function; CHECK records a
 * failure with its line and goes on, REQUIRE returns from the case. */
#ifndef CLPORT_CAPI_TEST_H
#define CLPORT_CAPI_TEST_H

#include <stdio.h>
#include <string.h>

#include "clport/clport.h"

extern int capi_test_failures;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++capi_test_failures;                                                     \
    }                                                                           \
  } while (0)

#define REQUIRE(cond)                                                             \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
      ++capi_test_failures;                                                       \
      return;                                                                     \
    }                                                                             \
  } while (0)

/* A call's status is `expected`, and the thread's message contains `needle` (NULL: any). */
#define CHECK_STATUS(call, expected, needle)                                                      \
  do {                                                                                            \
    clport_status capi_st_ = (call);                                                              \
    if (!capi_check_status(capi_st_, (expected), (needle), __FILE__, __LINE__, #call)) {          \
      ++capi_test_failures;                                                                       \
    }                                                                                             \
  } while (0)

int capi_check_status(clport_status got, clport_status expected, const char* needle, const char* file,
                      int line, const char* call);
int contains(const char* haystack, const char* needle);

/* The test models (paths from the build, see CMakeLists.txt). */
const char* capi_model_path(void);       /* random llama, Gemma chat template */
const char* capi_plain_model_path(void); /* random llama, no chat template */
const char* capi_malformed_path(void);   /* a malformed GGUF from the fuzz corpus */
const char* capi_work_dir(void);         /* a directory the tests may write to */

/* A runtime on the CPU path and the chat model on it; REQUIRE-style helpers return NULL on
 * failure (after recording it). */
clport_runtime* cpu_runtime(void);
clport_model* load_model(clport_runtime* runtime, const char* path);

#endif
