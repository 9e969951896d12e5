// The C API's status side: versions, status names, the per-thread and per-handle messages, and
// the one allocator every returned buffer comes from (clport_free).
#include <cstdlib>

#include "capi/capi_internal.h"
#include "common/version.h"

namespace clport::capi {
namespace {

thread_local std::string t_last_error;

void set_message(std::string* slot, const std::string& message) noexcept {
  try {
    *slot = message;
  } catch (...) {
    // Not even the message could be copied: keep a fixed one (assigning a short literal to a
    // cleared string does not allocate past the small-string buffer).
    slot->clear();
    try {
      *slot = "out of memory";
    } catch (...) {
    }
  }
}

}  // namespace

clport_status record(std::string* handle_error, clport_status status, const std::string& message) noexcept {
  set_message(&t_last_error, message);
  if (handle_error != nullptr) set_message(handle_error, message);
  return status;
}

clport_status from_status(std::string* handle_error, const Status& status) noexcept {
  if (status.ok()) return ok(handle_error);
  return record(handle_error, static_cast<clport_status>(status.stage()), status.message());
}

clport_status null_argument(const char* function, const char* argument) noexcept {
  try {
    return record(nullptr, CLPORT_ERR_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
  } catch (...) {
    return record(nullptr, CLPORT_ERR_INVALID_ARGUMENT, "a required argument is NULL");
  }
}

void* copy_out(const void* data, size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  if (n > 0) std::memcpy(p, data, n);
  return p;
}

char* copy_text(const std::string& text) {
  return static_cast<char*>(copy_out(text.c_str(), text.size() + 1));
}

}  // namespace clport::capi

extern "C" {

uint32_t clport_api_version(void) {
  return (static_cast<uint32_t>(CLPORT_API_VERSION_MAJOR) << 16) | CLPORT_API_VERSION_MINOR;
}

const char* clport_version_string(void) { return CLPORT_VERSION_STRING; }

const char* clport_status_name(clport_status status) {
  const int value = static_cast<int>(status);
  if (value < CLPORT_OK || value > CLPORT_ERR_WRONG_RESULT) return "unknown";
  return clport::stage_name(static_cast<clport::Stage>(status));
}

const char* clport_last_error(void) { return clport::capi::t_last_error.c_str(); }

void clport_free(void* pointer) { std::free(pointer); }

}  // extern "C"
