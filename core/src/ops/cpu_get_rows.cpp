// GET_ROWS: dst[D, n] = dequant(src0[D, rows])[:, src1[n]] (embedding lookup).
#include <cstring>

#include "quant/quant.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"

namespace clport::cpu::detail {

Status check_get_rows_operands(const Srcs& src, const HostTensor& dst, const OpParams&) {
  constexpr const char* kOp = "get_rows";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 2, 2));
  const HostTensor& table = src[0];
  const HostTensor& ids = src[1];
  CLPORT_RETURN_IF_ERROR(check_weight_tensor(kOp, "src0 (table)", table));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (ids)", ids, {DType::I32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  if (table.ne[2] != 1 || table.ne[3] != 1)
    return unsupported(kOp, "src0 must be 2-D, got " + describe(table));
  if (ids.ne[1] != 1 || ids.ne[2] != 1 || ids.ne[3] != 1)
    return unsupported(kOp, "src1 must be 1-D, got " + describe(ids));
  const int64_t n = ids.ne[0];
  if (dst.ne[0] != table.ne[0] || dst.ne[1] != n || dst.ne[2] != 1 || dst.ne[3] != 1) {
    return invalid(kOp, "dst must be [" + std::to_string(table.ne[0]) + ", " + std::to_string(n) +
                            "], got " + describe(dst));
  }
  // Check every id before writing anything, so a bad id leaves dst untouched.
  const auto* id_data = static_cast<const int32_t*>(ids.data);
  for (int64_t i = 0; i < n; ++i) {
    if (id_data[i] < 0 || id_data[i] >= table.ne[1]) {
      return invalid(kOp, "row id " + std::to_string(id_data[i]) + " at position " +
                              std::to_string(i) + " is outside [0, " + std::to_string(table.ne[1]) +
                              ")");
    }
  }
  return Status::ok_status();
}

Status get_rows(const Srcs& src, const HostTensor& dst, const OpParams&, int) {
  const HostTensor& table = src[0];
  const auto* id_data = static_cast<const int32_t*>(src[1].data);
  for (int64_t i = 0; i < src[1].ne[0]; ++i) {
    CLPORT_RETURN_IF_ERROR(
        dequantize_row(table.dtype, row_ptr(table, id_data[i]), row_f32(dst, i), table.ne[0]));
  }
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
