// The Adreno split weight layout (see kernels/adreno_repack.cl for the exact index formulas):
// quant words and scales in separate device arrays, transposed so that consecutive GEMV
// work-items (consecutive weight rows) read consecutive 32-bit words. Repacked on the device by
// the plugin's own kernels; buffers come from the host pool (host->alloc_buffer).
#pragma once

#include <cstdint>
#include <atomic>
#include <mutex>
#include <string>

#include "clport_plugin/dtype_table.hpp"
#include "clport_plugin/plugin_sdk.hpp"

namespace adreno {

// Weight dtypes the split layout (and the GEMV/GEMM kernels on it) cover.
bool is_split_dtype(int32_t dtype);
// Elements per quant block (32, 256 for Q6_K, 1 for F16) and bytes per GGUF block, from the
// SDK's dtype table.
int64_t block_elems(int32_t dtype);
int64_t block_bytes(int32_t dtype);
std::string dtype_suffix(int32_t dtype);  // "q4_0", "q6_k", "f16"

struct SplitSizes {
  uint64_t q_bytes = 0;   // quant words (F16: the halves, padded to whole words)
  uint64_t s_bytes = 0;   // f16 scales (Q4_1: d and m planes); 0 for F16
  uint64_t sc_bytes = 0;  // Q6_K int8 sub-block scales; 0 otherwise
  uint64_t q_texels = 0;  // image1d_buffer width in 32-bit words (F16: two halves per word)
};
SplitSizes split_sizes(int32_t dtype, int64_t K, int64_t N);

// One repacked weight. `magic` lets the plugin recognise its own handles in claim_op.
struct SplitWeight {
  static constexpr uint32_t kMagic = 0x41445231;  // "ADR1"
  uint32_t magic = kMagic;
  int32_t dtype = 0;
  int64_t K = 0, N = 0;
  SplitSizes sizes;
  cl_mem q = nullptr, s = nullptr, sc = nullptr;
  cl_mem q_image = nullptr;  // image1d_buffer view of q, or NULL (plain buffer path)
};

// Builds the repack program lazily and fills SplitWeights; owns nothing it hands out.
class SplitPacker {
 public:
  SplitPacker(const clport_host& host, const clport_device_desc& device, bool use_images);

  bool images_enabled() const { return use_images_; }
  // Allocates w's arrays (when `w.q` is NULL) sized for (dtype, K, N), then enqueues the repack
  // of `weight` (plain GGUF bytes) into them. Throws sdk::Failure.
  void pack(const clport_tensor& weight, SplitWeight& w);
  // Frees everything w holds (image view first) and clears it.
  void release(SplitWeight& w) noexcept;

 private:
  cl_mem alloc(uint64_t bytes);
  void make_image(SplitWeight& w);
  const clport_host& host_;
  clport::sdk::Host h_;
  bool use_images_;
  std::atomic<bool> logged_image_ok_{false}, logged_image_refused_{false};
  uint64_t image_max_texels_ = 0;
  std::mutex mutex_;
  clport::sdk::Program program_;
  clport::sdk::Kernel kernels_[5];  // f16, q4_0, q4_1, q8_0, q6_k
};

}  // namespace adreno
