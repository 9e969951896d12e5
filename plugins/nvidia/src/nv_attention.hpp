// Launches the NVIDIA prompt attention: ATTENTION and ROPE_ATTENTION over a batch of query tokens,
// one work-group per (head, block of tokens) sharing tiles of keys and values in local memory. On
// an F16 cache with inline PTX, the tensor-core kernel (kernels/nv_attention_mma.cl); otherwise
// the plain OpenCL C one (kernels/nv_attention.cl). A decode step (few tokens) stays on the shared
// kernels, whose split attention suits one query row.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "clport_plugin/plugin_sdk.hpp"

namespace nvidia {

class NvAttention {
 public:
  // mma: whether the tensor-core kernel may run (inline PTX usable and not turned off); async:
  // whether it stages its tiles by asynchronous copies and reads them by ldmatrix (ptx_probe.hpp).
  NvAttention(const clport_host& host, uint64_t local_mem_bytes, bool mma, bool async);
  // Whether this kernel serves op, which the shared checks have accepted: the attention kinds
  // above, at least kMinTokens queries, a head size it compiles for, a cache of F16 or F32.
  bool takes(const clport_op& op) const;
  void enqueue(const clport_op& op);

  static constexpr int64_t kMinTokens = 8;

 private:
  struct Tiles {
    int bq = 0, bk = 0;  // query tokens per work-group, keys per tile
  };
  static Tiles tiles(int64_t head_dim);
  // Whether op goes to the tensor-core kernel: F16 cache, head size a multiple of 16, the cache
  // rows aligned for its 16-byte loads.
  bool on_tensor_cores(const clport_op& op) const;
  const clport::sdk::Kernel& kernel(int64_t head_dim, const std::string& name);

  const clport_host& host_;
  clport::sdk::Host h_;
  uint64_t local_mem_bytes_;
  bool mma_, async_;
  std::mutex mutex_;
  std::map<int64_t, clport::sdk::Program> programs_;  // one per head size
  std::map<std::string, clport::sdk::Kernel> kernels_;
};

}  // namespace nvidia
