// Internal: host + device storage of one conformance operand, with guard regions.
//
// Device buffer layout: [kGuardBytes][region][kGuardBytes]. The tensor's element 0 sits at
// kGuardBytes + view_offset, so every op also runs at a non-zero buffer offset. Everything that is
// not an element of an output view (the guards, and the gaps of a strided view) starts as a
// sentinel pattern and must still hold it after the op.
//
// The tuner (devtools/) sets up and checks its operands with the functions marked CLPORT_API:
// exported from libclport for it, though this header is not installed.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/cpu_ops.h"
#include "runtime/device_context.h"
#include "clport/export.h"
#include "clport/status.h"
#include "conformance_cases.h"

namespace clport::conformance::detail {

inline constexpr int64_t kGuardBytes = 256;

struct Operand {
  OperandSpec spec;
  std::array<int64_t, 4> nb{};     // effective byte strides
  int64_t tensor_offset = 0;       // byte offset of element 0 inside the buffer
  std::vector<uint8_t> initial;    // the whole buffer as uploaded
  cl_mem buffer = nullptr;

  // Host view for the CPU reference over `bytes` (a copy of the buffer).
  cpu::HostTensor host_view(std::vector<uint8_t>& bytes) const;
  // The C ABI tensor over the device buffer (buffer may be NULL for supports_op).
  CLPORT_API clport_tensor device_view(bool with_buffer) const;
  // Byte offsets of every element, in logical order (plain dtypes only).
  std::vector<int64_t> element_offsets() const;
};

// Sizes, strides and contents: sources get random data, outputs the sentinel pattern.
CLPORT_API Operand make_operand(const OperandSpec& spec, bool is_output, std::mt19937_64& rng);

// The element values of a plain (F32/F16) operand read out of `bytes`.
CLPORT_API std::vector<float> gather_values(const Operand& op, const std::vector<uint8_t>& bytes);

// The CPU reference of a case, run on host copies of the operands' initial bytes: the copies
// after the op (an updated source, such as a KV cache, changes in src).
struct HostReference {
  std::vector<std::vector<uint8_t>> src;
  std::vector<uint8_t> dst;
};
// quantized_activations: cpu::OpParams::quantized_activations. Returns cpu::run_op's status as is.
CLPORT_API Status run_host_reference(const CaseSpec& spec, const std::vector<Operand>& src, const Operand& dst,
                                     bool quantized_activations, HostReference* out);

// The message of a plugin's error object, which it releases ("plugin gave no error object" for NULL).
std::string take_plugin_error(const clport_plugin& table, clport_plugin_error* error);

// Empty when every byte that is not an element of the view still equals op.initial, else a
// description of the first damaged byte.
std::string check_untouched(const Operand& op, const std::vector<uint8_t>& bytes);

}  // namespace clport::conformance::detail
