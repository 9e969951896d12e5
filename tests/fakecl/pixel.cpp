// libclport_fakecl_pixel: stands in for Pixel phones' libOpenCL-pixel.so, which exports no cl*
// symbols, only enableOpenCL() and loadOpenCLPointer(name), and hands out nothing before
// enableOpenCL() was called. Pointers come from the real implementation (FAKECL_TARGET).
#include <atomic>

#include "real_opencl.h"

namespace {
std::atomic<bool> g_enabled{false};
}  // namespace

extern "C" __attribute__((visibility("default"))) void enableOpenCL() { g_enabled = true; }

extern "C" __attribute__((visibility("default"))) void* loadOpenCLPointer(const char* name) {
  if (!g_enabled || name == nullptr) return nullptr;
  return fakecl::real_symbol(name);
}
