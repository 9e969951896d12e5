// The OpenCL backend: tensors in pooled device buffers, ops dispatched through the plugin binding
// (best plugin per op, generic as fallback), and the CPU reference for any op no bound plugin
// serves (correct, slow, logged once per op).
#pragma once

#include <memory>

#include "backend/backend.h"
#include "binding/binding.h"
#include "runtime/device_context.h"

namespace clport {

std::unique_ptr<Backend> make_device_backend(std::shared_ptr<DeviceContext> context,
                                             std::shared_ptr<PluginManager> manager,
                                             std::unique_ptr<DeviceBinding> binding);

}  // namespace clport
