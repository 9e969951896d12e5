// A configurable test plugin written against the raw C ABI (no SDK), compiled several times with
// different FAKE_* definitions: good plugins for ranking tests and deliberately broken ones for
// the refusal tests. It never touches OpenCL: create() ignores the host.
#include <cstring>
#include <stdexcept>
#include <string>

#include "clport_plugin/plugin_abi.h"

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_SCORE
#define FAKE_SCORE 50
#endif
#ifndef FAKE_FAMILY
#define FAKE_FAMILY "*"  // family the probe accepts; "*" = any
#endif
#ifndef FAKE_OPS
#define FAKE_OPS 0xFFFF  // bit (1 << kind) set = op supported
#endif
#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR CLPORT_PLUGIN_ABI_MAJOR
#endif
#ifndef FAKE_ABI_MINOR
#define FAKE_ABI_MINOR 7
#endif
#ifndef FAKE_OWNS_WEIGHT
#define FAKE_OWNS_WEIGHT 0  // what prepare_weight reports in *owns_weight
#endif
#ifndef FAKE_MUL_MAT_ROWS
#define FAKE_MUL_MAT_ROWS 0  // most activation rows of a MUL_MAT it claims; 0 = any
#endif

struct clport_plugin_error {
  int32_t code;
  std::string message;
};
struct clport_plugin_instance {
  int layouts = 0;
};
// A prepared launch remembers whether the test asked it to fail.
struct clport_launch {
  bool fail;
};

namespace {

// Tests ask an op to fail at enqueue with this scale (tests/plugins/test_support.h).
constexpr float kFailOnRequest = -7.0f;

int32_t probe(const clport_device_desc* d, const char** reason) {
#ifdef FAKE_THROW_IN_PROBE
  (void)d;
  (void)reason;
  throw std::runtime_error("fake probe exploded");
#else
  const bool any = std::strcmp(FAKE_FAMILY, "*") == 0;
  if (!any && (d->family == nullptr || std::strcmp(d->family, FAKE_FAMILY) != 0)) {
    *reason = "fake: wrong family";
    return 0;
  }
  *reason = "fake: family accepted";
  return FAKE_SCORE;
#endif
}

int32_t create(const clport_host*, const clport_device_desc*, clport_plugin_instance** out,
               clport_plugin_error** error) {
#if defined(FAKE_THROW_IN_CREATE)
  (void)out;
  (void)error;
  throw std::runtime_error("fake create exploded");
#elif defined(FAKE_FAIL_CREATE)
  *out = nullptr;
  *error = new clport_plugin_error{CLPORT_PLUGIN_ERROR, "fake create declined the device"};
  return CLPORT_PLUGIN_ERROR;
#else
  *error = nullptr;
  *out = new clport_plugin_instance;
  return CLPORT_PLUGIN_OK;
#endif
}

void destroy(clport_plugin_instance* instance) { delete instance; }

int32_t claim_op(clport_plugin_instance*, const clport_op* op) {
  if (op->kind == CLPORT_OP_MUL_MAT && op->src[0] != nullptr && op->src[0]->dtype == CLPORT_DTYPE_Q6_K) {
    return 0;  // every fake refuses one weight type, so tests can see a per-dtype fallback
  }
  if (FAKE_MUL_MAT_ROWS > 0 && op->kind == CLPORT_OP_MUL_MAT && op->src[1] != nullptr &&
      op->src[1]->ne[1] > FAKE_MUL_MAT_ROWS) {
    return 0;
  }
  return ((FAKE_OPS >> op->kind) & 1) != 0 ? 1 : 0;
}

int32_t prepare_weight(clport_plugin_instance* instance, const clport_tensor*, void** layout, int32_t* owns_weight,
                       clport_plugin_error**) {
  ++instance->layouts;
  *layout = new int(42);
  *owns_weight = FAKE_OWNS_WEIGHT;
  return CLPORT_PLUGIN_OK;
}
void release_layout(clport_plugin_instance* instance, void* layout) {
  --instance->layouts;
  delete static_cast<int*>(layout);
}

int32_t prepare_launch(clport_plugin_instance*, const clport_op* op, clport_launch** launch, clport_plugin_error** error) {
  *error = nullptr;
  *launch = new clport_launch{op->params.scale == kFailOnRequest};
  return CLPORT_PLUGIN_OK;
}
int32_t enqueue_launch(clport_plugin_instance*, clport_launch* launch, const clport_step*, clport_plugin_error** error) {
  if (launch->fail) {
    *error = new clport_plugin_error{7, std::string(FAKE_NAME) + " failed on request"};
    return CLPORT_PLUGIN_ERROR;
  }
  *error = nullptr;
  return CLPORT_PLUGIN_OK;
}
void release_launch(clport_plugin_instance*, clport_launch* launch) { delete launch; }

int32_t error_code(const clport_plugin_error* e) { return e->code; }
const char* error_message(const clport_plugin_error* e) { return e->message.c_str(); }
void release_error(clport_plugin_error* e) { delete e; }

const int64_t kTileCandidates[] = {2, 4, 8};
#ifdef FAKE_BAD_ENUM
const int64_t kModeCandidates[] = {0, 3};  // index 3: beyond the names
#else
const int64_t kModeCandidates[] = {0, 2};
#endif
const char* const kModeNames[] = {"off", "on", "auto"};
const clport_setting_decl kSettings[] = {
    {"tile", CLPORT_SETTING_INT, "a tunable (default 4)", 1, 64, "gemv", kTileCandidates, 3, nullptr, 0},
    {"fast", CLPORT_SETTING_BOOL, "a switch (default on)", 0, 1, nullptr, nullptr, 0, nullptr, 0},
    {"note", CLPORT_SETTING_TEXT, "free text (default empty)", 0, 0, nullptr, nullptr, 0, nullptr, 0},
    {"mode", CLPORT_SETTING_ENUM, "a tunable enum (default auto)", 0, 0, "gemv", kModeCandidates, 2, kModeNames, 3},
};

// Unused where FAKE_NO_ENTRY leaves the entry point out.
[[maybe_unused]] const clport_plugin kTable = {
#ifdef FAKE_SMALL_TABLE
    offsetof(clport_plugin, create),
#else
    sizeof(clport_plugin),
#endif
    FAKE_ABI_MAJOR, FAKE_ABI_MINOR, FAKE_NAME, "test", kSettings, sizeof(kSettings) / sizeof(kSettings[0]), &probe,
    &create, &destroy, &claim_op, &prepare_weight, &release_layout, &prepare_launch, &enqueue_launch, &release_launch,
    &error_code, &error_message, &release_error, nullptr /* prepare_group: groups nothing */,
    nullptr /* scratch_needs: keeps no scratch */};

}  // namespace

#ifndef FAKE_NO_ENTRY
extern "C" CLPORT_PLUGIN_EXPORT const clport_plugin* clport_plugin_entry(void) { return &kTable; }
#else
extern "C" CLPORT_PLUGIN_EXPORT int clport_not_the_entry(void) { return 0; }
#endif
