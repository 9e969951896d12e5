#include "clport/status.h"

namespace clport {

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::Ok: return "ok";
    case Stage::LibraryNotFound: return "library not found";
    case Stage::SymbolMissing: return "required symbol missing";
    case Stage::NoPlatform: return "no platform";
    case Stage::NoDevice: return "no device";
    case Stage::DeviceUnusable: return "device unusable";
    case Stage::Context: return "context creation failed";
    case Stage::Queue: return "queue creation failed";
    case Stage::ProgramBuild: return "program build failed";
    case Stage::Plugin: return "plugin";
    case Stage::Config: return "config";
    case Stage::Model: return "model";
    case Stage::Io: return "i/o";
    case Stage::OutOfMemory: return "out of memory";
    case Stage::InvalidArgument: return "invalid argument";
    case Stage::Unsupported: return "unsupported";
    case Stage::Device: return "device error";
    case Stage::Internal: return "internal error";
    case Stage::WrongResult: return "wrong result";
  }
  return "unknown stage";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(stage_name(stage_)) + ": " + message_;
}

}  // namespace clport
