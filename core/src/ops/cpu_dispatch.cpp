// run_op: fills in default strides, routes to the op's implementation and turns any exception
// (allocation failure in scratch buffers) into a Status.
#include <exception>
#include <new>
#include <string>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::cpu {
namespace {

using detail::Srcs;
using OpFn = Status (*)(const Srcs&, const HostTensor&, const OpParams&, int);

OpFn op_function(clport_op_kind kind) {
  switch (kind) {
    case CLPORT_OP_GET_ROWS: return detail::get_rows;
    case CLPORT_OP_RMS_NORM: return detail::rms_norm;
    case CLPORT_OP_MUL_MAT: return detail::mul_mat;
    case CLPORT_OP_ROPE: return detail::rope;
    case CLPORT_OP_ATTENTION: return detail::attention;
    case CLPORT_OP_SOFTMAX: return detail::softmax;
    case CLPORT_OP_SILU: return detail::silu;
    case CLPORT_OP_SWIGLU: return detail::swiglu;
    case CLPORT_OP_GEGLU: return detail::geglu;
    case CLPORT_OP_ADD: return detail::add;
    case CLPORT_OP_MUL: return detail::mul;
    case CLPORT_OP_SCALE: return detail::scale;
    case CLPORT_OP_COPY: return detail::copy;
    case CLPORT_OP_RMS_NORM_MUL_MAT: return detail::rms_norm_mul_mat;
    case CLPORT_OP_MUL_MAT_ADD: return detail::mul_mat_add;
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return detail::rms_norm_mul_mat_swiglu;
    case CLPORT_OP_KV_STORE_ROPE: return detail::kv_store_rope;
    case CLPORT_OP_ROPE_ATTENTION: return detail::rope_attention;
    case CLPORT_OP_ROPE_KV_STORE_ATTENTION: return detail::rope_kv_store_attention;
    case CLPORT_OP_KV_STORE_ROPE_CELLS: return detail::kv_store_rope_cells;
    case CLPORT_OP_ROPE_ATTENTION_CELLS: return detail::rope_attention_cells;
    default: return nullptr;
  }
}

}  // namespace

Status run_op(clport_op_kind kind, const std::vector<HostTensor>& src, const HostTensor& dst,
              const OpParams& params, int n_threads) {
  const OpFn fn = op_function(kind);
  if (fn == nullptr) {
    return Status(Stage::Unsupported,
                  "cpu: op kind " + std::to_string(static_cast<int>(kind)) + " is not implemented");
  }
  if (n_threads < 0) {
    return Status(Stage::InvalidArgument, "cpu: n_threads must be >= 0 (0 = all cores)");
  }
  try {
    Srcs filled;
    filled.reserve(src.size());
    for (const auto& t : src) filled.push_back(detail::with_strides(t));
    return fn(filled, detail::with_strides(dst), params, n_threads);
  } catch (const std::bad_alloc&) {
    return Status(Stage::OutOfMemory, "cpu: out of host memory for op scratch buffers");
  } catch (const std::exception& e) {
    return Status(Stage::Internal, std::string("cpu: unexpected exception: ") + e.what());
  }
}

}  // namespace clport::cpu
