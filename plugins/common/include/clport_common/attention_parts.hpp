// The partial results of a split attention as kernels/attention_merge.cl reads them: per (token,
// head), n_split ranges of head_dim + 2 floats. Shared by the launches that write them (the
// shared kernels' split attention, the nvidia plugin's decode attention) and by the scratch they
// declare, so the two never disagree.
#pragma once

#include <cstddef>
#include <cstdint>

namespace clport::plugin_common {

inline size_t attention_part_bytes(int64_t n_tokens, int64_t n_head, int64_t head_dim, int n_split) {
  return static_cast<size_t>(n_tokens * n_head) * static_cast<size_t>(n_split) * static_cast<size_t>(head_dim + 2) *
         sizeof(float);
}

}  // namespace clport::plugin_common
