// The op registry: everything the core knows about an op kind, given once, by the op's own file
// under ops/registry/. Its name, its operand checks, its CPU reference, how the fast CPU backend
// runs it and its conformance cases are found here rather than in switches spread over the
// dispatchers, so adding an op means its registry file, one registration line and its kernels.
// Plugins keep their own kernels and claims: they speak the C ABI and never see this.
#pragma once

#include <cstdint>
#include <vector>

#include "clport/export.h"
#include "clport/status.h"
#include "clport_plugin/plugin_abi.h"
#include "ops/cpu_ops.h"

namespace clport::fastcpu {
struct FastContext;
}
namespace clport::conformance::detail {
struct CaseSpec;
}

namespace clport::ops {

using Srcs = std::vector<cpu::HostTensor>;
// Validates the operands and parameters (shapes, dtypes, strides, values the op reads to address
// memory) so that the implementations behind it can take them as given. Reference and fast
// kernel share it: a bad call gets the same error on both backends.
using CheckFn = Status (*)(const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p);
// The plain reference (plugin_abi.h semantics), called only after the op's check.
using ReferenceFn = Status (*)(const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p,
                               int n_threads);
// The fast CPU backend's own kernel, called only after the op's check.
using FastKernelFn = Status (*)(fastcpu::FastContext& ctx, const Srcs& src, const cpu::HostTensor& dst,
                                const cpu::OpParams& p);
// Appends the op's conformance cases; `small` keeps shapes tiny (oclgrind) while still covering
// every dtype the op takes. The catalogue sets each case's kind and op name from the entry.
using CasesFn = void (*)(std::vector<conformance::detail::CaseSpec>& out, bool small);

// How the fast CPU backend runs an op.
enum class FastCpu : uint8_t {
  Reference,          // the reference serves, on the backend's threads
  ReferenceOnCaller,  // the reference on the calling thread: memory-bound and small in a forward
                      // pass, so waking threads costs more than it saves
  Kernel,             // its own kernel (fast_kernel)
};

// What kind of dtype an op's key operand has (key_source): a driver self-test checks the ops of
// a model by the model's tensor types and its KV-cache types.
enum class KeyKind : uint8_t { Tensor, KvCache, KvCacheOrTensor };

struct OpEntry {
  clport_op_kind kind = CLPORT_OP_COUNT_;
  const char* name = "?";        // "RMS_NORM+MUL_MAT": logs, errors, `clport devices`
  const char* short_name = "?";  // "rms_norm+mul_mat": profiles, conformance case names
  CheckFn check = nullptr;
  ReferenceFn reference = nullptr;
  FastCpu fast = FastCpu::Reference;
  FastKernelFn fast_kernel = nullptr;  // FastCpu::Kernel only
  // FastCpu::Kernel: the dtypes of the key operand (key_source) the kernel takes; NULL: all.
  // A plan takes a fused pattern on the fast CPU backend only where its kernel takes it.
  bool (*fast_takes)(DType key) = nullptr;
  CasesFn cases = nullptr;
  // The operand whose dtype tells variants of the op apart (which a self-test verdict takes out
  // of service): a source index, or kKeyDst for the destination.
  int8_t key_source = 0;
  KeyKind key_kind = KeyKind::Tensor;
  // Sources that are weights (bit i: src i), which a plugin may repack with prepare_weight.
  uint8_t weight_sources = 0;
  // Multiplies a weight by activations: an integer path may round the activations to 8-bit
  // blocks (cpu::OpParams::quantized_activations).
  bool mat_mul = false;
  // A fused pattern of plugin_abi.h: a plan takes it only where a plugin claims it.
  bool fused = false;
};

inline constexpr int8_t kKeyDst = -1;

// The entry of `kind`, nullptr when no op of that kind is registered.
const OpEntry* find(int32_t kind);
// Every registered op, in kind order.
const std::vector<const OpEntry*>& all();

// The op's check, then its reference: what cpu::run_op does once strides are filled in, and how
// a fused pattern's reference runs the plain ops it is composed of.
Status run_reference(clport_op_kind kind, const Srcs& src, const cpu::HostTensor& dst, const cpu::OpParams& p,
                     int n_threads);

}  // namespace clport::ops

namespace clport {

// Human-readable op name ("MUL_MAT"), "?" when unknown.
CLPORT_API const char* op_kind_name(int32_t kind);

}  // namespace clport
