/* 1.4: a cpu_first_start model on a device never set up starts on the CPU path and moves to the
 * device (clport_model_wait_for_device, info.device_start and info.backend follow it), and program
 * bundles go out of one cache and into another (clport_cache_export / clport_cache_import), with
 * a truncated bundle refused and the error paths. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capi_test.h"

static clport_runtime* device_runtime(const char* cache_dir, const char* device) {
  clport_runtime_options options;
  clport_runtime_options_init(&options);
  options.device = device;
  options.cache_dir = cache_dir;
  /* No self-test: its cached verdict is what marks a device as set up, so this is a first start. */
  options.policy_yaml = "version: 1\nself_test: off\n";
  clport_runtime* runtime = NULL;
  if (clport_runtime_create(&options, &runtime) != CLPORT_OK) return NULL;
  return runtime;
}

static void copy_prefix(const char* from, const char* to, long keep_divisor) {
  FILE* in = fopen(from, "rb");
  FILE* out = fopen(to, "wb");
  if (in == NULL || out == NULL) {
    if (in) fclose(in);
    if (out) fclose(out);
    return;
  }
  fseek(in, 0, SEEK_END);
  const long size = ftell(in);
  fseek(in, 0, SEEK_SET);
  for (long i = 0; i < size / keep_divisor; ++i) fputc(fgetc(in), out);
  fclose(in);
  fclose(out);
}

void test_device_start(void) {
  char dir[2048], bundle[2048], truncated[2048], other[2048];
  snprintf(dir, sizeof dir, "%s/device_start_%d", capi_work_dir(), (int)getpid());
  snprintf(other, sizeof other, "%s/device_start_other_%d", capi_work_dir(), (int)getpid());
  snprintf(bundle, sizeof bundle, "%s/device_start_%d.bundle", capi_work_dir(), (int)getpid());
  snprintf(truncated, sizeof truncated, "%s/device_start_%d.truncated", capi_work_dir(), (int)getpid());
  mkdir(dir, 0700);
  mkdir(other, 0700);
  clport_runtime* runtime = device_runtime(dir, "auto");
  REQUIRE(runtime != NULL);

  clport_model_options mo;
  clport_model_options_init(&mo);
  mo.path = capi_plain_model_path();
  mo.cpu_first_start = 1;
  clport_model* model = NULL;
  CHECK_STATUS(clport_model_load(runtime, &mo, &model), CLPORT_OK, NULL);
  REQUIRE(model != NULL);
  clport_model_info info;
  info.struct_size = sizeof info;
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(info.device_start == CLPORT_DEVICE_START_LOADING || info.device_start == CLPORT_DEVICE_START_READY);
  CHECK(strcmp(info.backend, "cpu") == 0);
  const char* first_backend = info.backend;

  CHECK_STATUS(clport_model_wait_for_device(model), CLPORT_OK, NULL);
  REQUIRE(clport_model_get_info(model, &info) == CLPORT_OK);
  CHECK(info.device_start == CLPORT_DEVICE_START_MOVED);
  CHECK(strncmp(info.backend, "opencl:", 7) == 0);
  CHECK(strcmp(first_backend, "cpu") == 0); /* the name handed out first is still valid */
  /* It generates on the device. */
  clport_context* context = NULL;
  REQUIRE(clport_context_create(model, NULL, &context) == CLPORT_OK);
  const int32_t prompt[] = {5, 6, 7};
  CHECK_STATUS(clport_generate(context, prompt, 3, 2, NULL, NULL, NULL), CLPORT_OK, NULL);
  clport_context_free(context);
  CHECK_STATUS(clport_model_wait_for_device(NULL), CLPORT_ERR_INVALID_ARGUMENT, "model");
  clport_model_free(model);

  /* The cache it built, out and back in. */
  CHECK_STATUS(clport_cache_export(runtime, bundle), CLPORT_OK, NULL);
  size_t imported = 99, skipped = 99;
  CHECK_STATUS(clport_cache_import(runtime, bundle, &imported, &skipped), CLPORT_OK, NULL);
  CHECK(imported == 0 && skipped == 0); /* all there already */
  clport_runtime* fresh = device_runtime(other, "auto");
  REQUIRE(fresh != NULL);
  CHECK_STATUS(clport_cache_import(fresh, bundle, &imported, &skipped), CLPORT_OK, NULL);
  CHECK(imported > 0 && skipped == 0);
  copy_prefix(bundle, truncated, 2);
  CHECK_STATUS(clport_cache_import(fresh, truncated, NULL, NULL), CLPORT_ERR_IO, "damaged");
  CHECK_STATUS(clport_cache_import(fresh, NULL, NULL, NULL), CLPORT_ERR_INVALID_ARGUMENT, "path");
  CHECK_STATUS(clport_cache_export(fresh, ""), CLPORT_ERR_INVALID_ARGUMENT, "path");
  CHECK_STATUS(clport_cache_export(NULL, bundle), CLPORT_ERR_INVALID_ARGUMENT, "runtime");
  clport_runtime_free(fresh);
  clport_runtime* cpu = device_runtime(other, "cpu");
  REQUIRE(cpu != NULL);
  CHECK_STATUS(clport_cache_export(cpu, bundle), CLPORT_ERR_INVALID_ARGUMENT, "CPU path");
  clport_runtime_free(cpu);
  clport_runtime_free(runtime);
  remove(bundle);
  remove(truncated);
}
