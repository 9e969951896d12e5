// One OpenCL C source embedded into a binary at build time (cmake/EmbedKernels.cmake). Used by
// the core (kernels/) and by plugins (their own plugins/<name>/kernels/); header-only so that an
// out-of-tree plugin can use it too.
#pragma once

#include <cstddef>
#include <cstring>

namespace clport {

struct EmbeddedKernel {
  const char* name;  // path relative to the kernel directory, e.g. "blocks.cl"
  const char* source;
  std::size_t size;
};

// Linear lookup in a table terminated by {nullptr, nullptr, 0}; tables hold a few dozen files.
inline const EmbeddedKernel* find_embedded_kernel(const EmbeddedKernel* table, const char* name) {
  for (; table != nullptr && table->name != nullptr; ++table) {
    if (std::strcmp(table->name, name) == 0) return table;
  }
  return nullptr;
}

}  // namespace clport
