// run_op: fills in default strides, runs the op's registered checks and reference (op_registry.h)
// and turns any exception (allocation failure in scratch buffers) into a Status.
#include <exception>
#include <new>
#include <string>

#include "ops/cpu_common.h"
#include "ops/op_registry.h"

namespace clport::cpu {

Status run_op(clport_op_kind kind, const std::vector<HostTensor>& src, const HostTensor& dst,
              const OpParams& params, int n_threads) {
  const ops::OpEntry* op = ops::find(kind);
  if (op == nullptr || op->reference == nullptr) {
    return Status(Stage::Unsupported,
                  "cpu: op kind " + std::to_string(static_cast<int>(kind)) + " is not implemented");
  }
  if (n_threads < 0) {
    return Status(Stage::InvalidArgument, "cpu: n_threads must be >= 0 (0 = all cores)");
  }
  try {
    std::vector<HostTensor> filled;
    filled.reserve(src.size());
    for (const auto& t : src) filled.push_back(detail::with_strides(t));
    return ops::run_reference(kind, filled, detail::with_strides(dst), params, n_threads);
  } catch (const std::bad_alloc&) {
    return Status(Stage::OutOfMemory, "cpu: out of host memory for op scratch buffers");
  } catch (const std::exception& e) {
    return Status(Stage::Internal, std::string("cpu: unexpected exception: ") + e.what());
  }
}

}  // namespace clport::cpu
