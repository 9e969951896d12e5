// Status objects: every failure in clport is a value that names the stage that failed and says
// what a user can do about it. Nothing in the public API throws, asserts or aborts on bad input.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "clport/export.h"

namespace clport {

// The stage that failed. The numeric value (plus 10) is also the exit code of `clport check`, so
// values are stable: append only.
enum class Stage : int {
  Ok = 0,
  LibraryNotFound = 1,    // no OpenCL library could be opened
  SymbolMissing = 2,      // a required entry point is absent
  NoPlatform = 3,         // clGetPlatformIDs returned none / failed
  NoDevice = 4,           // platforms, but no device
  DeviceUnusable = 5,     // device type or capabilities not usable
  Context = 6,            // clCreateContext failed
  Queue = 7,              // command queue creation failed
  ProgramBuild = 8,       // kernel compile/link failed (message carries the build log)
  Plugin = 9,             // plugin load / ABI / probe / create problem
  Config = 10,            // malformed or invalid YAML policy
  Model = 11,             // malformed GGUF or unsupported model
  Io = 12,                // file system
  OutOfMemory = 13,       // host or device allocation failed
  InvalidArgument = 14,   // caller error
  Unsupported = 15,       // valid request this build/device cannot serve
  Device = 16,            // an OpenCL call failed at run time
  Internal = 17,          // a bug in clport
  WrongResult = 18,       // a kernel ran but computed wrong values (`clport check`'s test kernel)
};

CLPORT_API const char* stage_name(Stage stage);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Stage stage, std::string message) : stage_(stage), message_(std::move(message)) {}
  static Status ok_status() { return Status(); }

  bool ok() const { return stage_ == Stage::Ok; }
  explicit operator bool() const { return ok(); }
  Stage stage() const { return stage_; }
  const std::string& message() const { return message_; }
  // "stage: message", for logs and CLI output.
  CLPORT_API std::string to_string() const;

 private:
  Stage stage_ = Stage::Ok;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

// Propagate a failed Status from an expression returning Status.
#define CLPORT_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::clport::Status clport_status_ = (expr); \
    if (!clport_status_.ok()) return clport_status_; \
  } while (0)

}  // namespace clport
