// What the C API's files share: the handle structs behind the opaque pointers of clport.h, the
// per-thread and per-handle messages, and the boundary guard that turns every C++ exception
// (std::bad_alloc included) into a status.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "clport/clport.h"
#include "engine/engine_core.h"
#include "clport/status.h"

// The handles are C structs declared in clport.h; each holds a message slot for the last call.
struct clport_runtime {
  clport::EngineOptions engine;  // device, plugin, policy, cache dir, threads (no model yet)
  std::mutex mutex;              // one call at a time on this runtime
  std::string error;
};

namespace clport::capi {

// The loaded engine, shared by the model handle and every context made from it.
struct ModelState {
  std::unique_ptr<EngineCore> engine;
  std::string architecture;
  // Every backend the model has run on, the last being the current one: a deque, so the names
  // handed out by clport_model_get_info stay valid as long as the model.
  std::deque<std::string> backend_names;
  // One call at a time on a model and its contexts; recursive so that a token callback may use
  // the model's tokenizer calls on the generating thread.
  std::recursive_mutex mutex;
  bool generating = false;  // set during clport_generate: a nested generation is refused
  // By engine sequence: whether a context holds it (models of several sequences; with one, every
  // context shares sequence 0 and this stays empty).
  std::vector<bool> sequence_taken;
};

}  // namespace clport::capi

struct clport_model {
  std::shared_ptr<clport::capi::ModelState> state;
  std::string error;
};

struct clport_context {
  std::shared_ptr<clport::capi::ModelState> state;
  uint32_t seq = 0;  // the engine sequence holding this context's conversation
  clport::SamplerOptions sampling;
  std::vector<int32_t> stop_tokens;
  std::string error;
};

namespace clport::capi {

// Records the outcome of a call: the thread's message and, when given, the handle's. Never
// throws (a message that cannot be copied becomes a fixed one).
clport_status record(std::string* handle_error, clport_status status, const std::string& message) noexcept;
inline clport_status ok(std::string* handle_error) noexcept { return record(handle_error, CLPORT_OK, {}); }
inline clport_status invalid(std::string* handle_error, const std::string& message) noexcept {
  return record(handle_error, CLPORT_ERR_INVALID_ARGUMENT, message);
}
clport_status from_status(std::string* handle_error, const Status& status) noexcept;
// A NULL handle: the message names the function and the argument.
clport_status null_argument(const char* function, const char* argument) noexcept;

// Runs body (returning clport_status) with every exception caught at the boundary.
template <typename Body>
clport_status guarded(std::string* handle_error, const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return record(handle_error, CLPORT_ERR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return record(handle_error, CLPORT_ERR_INTERNAL, std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return record(handle_error, CLPORT_ERR_INTERNAL, std::string(function) + ": internal error");
  }
}

// guarded() with `mutex` held: a handle's message is only written under the handle's lock (and an
// exception from taking the lock is caught outside it).
template <typename Mutex, typename Body>
clport_status locked(Mutex& mutex, std::string* handle_error, const char* function, Body&& body) noexcept {
  return guarded(nullptr, function, [&] {
    std::lock_guard<Mutex> lock(mutex);
    return guarded(handle_error, function, body);
  });
}

// The readable prefix of an options struct: a caller built against an older header passes a
// smaller struct_size, and the fields it does not have keep their defaults.
template <typename Struct>
bool read_options(const Struct* given, Struct* out, const char* function, const char* argument,
                  std::string* handle_error, clport_status* status) {
  const size_t size = given->struct_size;
  if (size < sizeof(size_t) || size > (1u << 16)) {
    *status = invalid(handle_error, std::string(function) + ": " + argument + "->struct_size is " +
                                        std::to_string(size) +
                                        "; call the *_init function first");
    return false;
  }
  std::memcpy(out, given, size < sizeof(Struct) ? size : sizeof(Struct));
  out->struct_size = sizeof(Struct);
  return true;
}

// Copies bytes into a buffer the caller frees with clport_free (malloc'ed). n may be 0.
void* copy_out(const void* data, size_t n);
// A NUL-terminated copy of text for the caller.
char* copy_text(const std::string& text);

}  // namespace clport::capi
