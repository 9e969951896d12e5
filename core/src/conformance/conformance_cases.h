// Internal: the catalogue of conformance cases (conformance_cases.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/cpu_ops.h"
#include "common/dtype.h"
#include "clport_plugin/plugin_abi.h"

namespace clport::conformance::detail {

enum class Fill {
  Normal,   // N(0, scale^2): activations, weights
  Indices,  // uniform integers in [0, index_limit)
  Factors,  // uniform in [1, 8]: RoPE frequency factors (Llama 3.x rope_freqs spans that range)
  // I32 [2, n] cells of a step over several sequences: token t's sequence uniform in
  // [0, index_limit), its position drawn without repeats from [0, positions), so no two tokens
  // store into one cell.
  Cells,
};

struct OperandSpec {
  DType dtype = DType::F32;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  std::array<int64_t, 4> nb{0, 0, 0, 0};  // all zero: contiguous
  int64_t view_offset = 0;                // bytes from the tensor's buffer region start to element 0
  int64_t region_bytes = 0;               // bytes of the region the view lives in (0: its extent)
  Fill fill = Fill::Normal;
  float scale = 1.0f;
  int64_t index_limit = 0;
  int64_t positions = 0;  // Cells: the cache's n_ctx
  bool prefilled = false;  // an output that starts with filled values (ops that update part of it)
};

struct CaseSpec {
  std::string op, dtype, shape;
  clport_op_kind kind = CLPORT_OP_COPY;
  std::vector<OperandSpec> src;
  OperandSpec dst;
  cpu::OpParams params;  // the op's parameters (its quantized_activations flag is not used)
  double threshold = 0.0;  // max NMSE; 0 means the values must match exactly
  int inout_src = -1;      // a source the op updates (a KV cache): checked like dst, not unchanged

  std::string name() const { return op + " " + dtype + " " + shape; }
};

// Every case; `small` keeps shapes tiny (for oclgrind) while still covering every op and dtype.
std::vector<CaseSpec> catalogue(bool small);

}  // namespace clport::conformance::detail
