// The shared kernels' scratch, declared at plan time (clport_plugin.scratch_needs) from the same
// sizes their launches grow it to: the integer GEMV's quantized activations (op_launch_q8a.cpp)
// and the split decode attention's partial results (op_launch.cpp, op_launch_cells.cpp). The
// host asks before any weight is placed, so a weight's layout is the one prepare_weight will give
// it.
#include <algorithm>

#include "clport_common/attention_parts.hpp"
#include "clport_common/op_checks.hpp"
#include "clport_common/op_runner.hpp"
#include "clport_common/packed_weight.hpp"

namespace clport::plugin_common {

std::vector<clport_scratch_need> OpRunner::scratch_needs(const clport_op& op) {
  std::vector<clport_scratch_need> needs;
  if (op.n_src < 1 || op.src[0] == nullptr || op.dst == nullptr) return needs;
  const clport_tensor& a = *op.src[0];
  if (op.kind == CLPORT_OP_ROPE_KV_STORE_ATTENTION) {
    // Split only for one token; n_past at its largest gives the most key ranges.
    clport_tensor one = a;
    one.ne[2] = 1;
    clport_op decode = op;
    decode.src[0] = &one;
    const int splits = attention_splits(decode);
    if (splits > 1) needs.push_back(attention_parts_.plan(attention_part_bytes(1, a.ne[1], a.ne[0], splits)));
    return needs;
  }
  if (op.kind == CLPORT_OP_ROPE_ATTENTION_CELLS && op.n_src > 1 && op.src[1] != nullptr && tuning_.att_serial != 1) {
    size_t most = 0;
    for (int64_t n = 1; n <= a.ne[2]; ++n) {
      const int splits = cells_attention_splits(n, a.ne[1], op.src[1]->ne[2]);
      if (splits > 1) most = std::max(most, attention_part_bytes(n, a.ne[1], a.ne[0], splits));
    }
    if (most > 0) needs.push_back(attention_parts_.plan(most));
    return needs;
  }
  if (op.n_src < 2 || op.src[1] == nullptr) return needs;
  // The integer GEMV reads a plain weight or its Rows8 layout, never the packed one.
  const bool rows8 = a.layout != nullptr ? rows8_layout(a) != nullptr : takes_rows8_layout(a);
  const bool packed = a.layout != nullptr ? !rows8
                                          : !rows8 && tuning_.gemv_packed == 1 && is_packable_dtype(a.dtype) &&
                                                check_weight(a).empty();
  clport_tensor plain = a;
  plain.layout = nullptr;
  clport_op plain_op = op;
  plain_op.src[0] = &plain;
  if (packed || !takes_q8a_gemv(plain_op)) return needs;
  needs.push_back(activations_.plan(q8a_scratch_bytes(op, rows8)));
  return needs;
}

}  // namespace clport::plugin_common
