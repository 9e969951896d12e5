// ATTENTION: causal scaled-dot-product attention of q[head_dim, n_head, n_tokens] over a KV
// cache [head_dim, n_kv_head, n_ctx] (K and V each F16, F32, Q8_0 or Q4_0, the two may differ). Query t (absolute position n_past + t) sees
// keys 0 .. n_past + t, or with a sliding window W (params.attention.window > 0) only the last W of them;
// head h reads kv head h / (n_head / n_kv_head). Softmax subtracts the row maximum, so large
// scores do not overflow.
#include <algorithm>
#include <cmath>
#include <vector>

#include "quant/quant.h"
#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/cpu_parallel.h"
#include "quant/quant_blocks.h"

namespace clport::cpu::detail {
namespace {

// The cache rows a batch needs, as F32 rows indexed [kv_head][position]. F32 caches are used in
// place; F16 and quantized caches are decoded once per call rather than once per query head (a
// quantized row decodes exactly as dequantize_row does, the value every backend reads).
class KvRows {
 public:
  KvRows(const HostTensor& cache, int64_t n_used, int threads) : cache_(cache), n_used_(n_used) {
    if (cache.dtype == DType::F32) return;
    const int64_t hd = cache.ne[0], n_kv = cache.ne[1];
    converted_.resize(static_cast<size_t>(hd * n_kv * n_used));
    run_parallel(threads, n_kv * n_used, [&](int, int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t kv = r / n_used, pos = r % n_used;
        float* out = converted_.data() + r * hd;
        if (cache.dtype == DType::F16) {
          quant::half_row_to_float(row_ptr(cache, kv, pos), out, hd);
        } else {
          (void)dequantize_row(cache.dtype, row_ptr(cache, kv, pos), out, hd);  // dtype and hd checked
        }
      }
    });
  }
  const float* row(int64_t kv, int64_t pos) const {
    if (converted_.empty()) return row_f32(cache_, kv, pos);
    return converted_.data() + (kv * n_used_ + pos) * cache_.ne[0];
  }

 private:
  const HostTensor& cache_;
  int64_t n_used_;
  std::vector<float> converted_;
};


}  // namespace

int64_t first_visible_key(int64_t n_keys, int32_t window) {
  return window > 0 ? std::max<int64_t>(0, n_keys - window) : 0;
}

Status check_attention_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  constexpr const char* kOp = "attention";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 3, 3));
  const HostTensor& q = src[0];
  const HostTensor& k = src[1];
  const HostTensor& v = src[2];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0 (q)", q, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src1 (K cache)", k, {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src2 (V cache)", v, {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0 (q)", q, "dst", dst));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src1 (K cache)", k, "src2 (V cache)", v));
  if (q.ne[3] != 1 || k.ne[3] != 1) return unsupported(kOp, "q and caches must be at most 3-D");
  if (k.ne[0] != q.ne[0]) {
    return invalid(kOp, "head_dim of q " + describe(q) + " and K cache " + describe(k) + " differ");
  }
  if (q.ne[1] % k.ne[1] != 0) {
    return invalid(kOp, "n_head " + std::to_string(q.ne[1]) + " is not a multiple of n_kv_head " +
                            std::to_string(k.ne[1]));
  }
  const int64_t n_past = p.n_past;
  if (n_past < 0) return invalid(kOp, "n_past must be >= 0");
  if (n_past + q.ne[2] > k.ne[2]) {
    return invalid(kOp, "n_past " + std::to_string(n_past) + " + n_tokens " +
                            std::to_string(q.ne[2]) + " exceeds the cache length " +
                            std::to_string(k.ne[2]));
  }
  if (!std::isfinite(p.attention.scale)) return invalid(kOp, "the attention scale must be finite");
  if (p.attention.window < 0) return invalid(kOp, "the sliding window must be >= 0 (0 = none)");
  return Status::ok_status();
}

Status attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor& q = src[0];
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_tokens = q.ne[2];
  const int64_t group = n_head / src[1].ne[1];
  const int64_t n_past = p.n_past;
  const int64_t n_used = n_past + n_tokens;
  const float scale = p.attention.scale;

  const int64_t items = n_head * n_tokens;
  const int threads = plan_threads(items, 4.0 * static_cast<double>(hd * n_used), n_threads);
  const KvRows keys(src[1], n_used, threads);
  const KvRows values(src[2], n_used, threads);
  std::vector<std::vector<float>> scores(static_cast<size_t>(threads));
  std::vector<std::vector<float>> acc(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    scores[static_cast<size_t>(t)].resize(static_cast<size_t>(n_used));
    acc[static_cast<size_t>(t)].resize(static_cast<size_t>(hd));
  }

  run_parallel(threads, items, [&](int thread, int64_t begin, int64_t end) {
    float* s = scores[static_cast<size_t>(thread)].data();
    float* out_acc = acc[static_cast<size_t>(thread)].data();
    for (int64_t item = begin; item < end; ++item) {
      const int64_t t = item / n_head, h = item % n_head;
      const int64_t kv = h / group;
      const int64_t n_keys = n_past + t + 1;  // causal: positions 0 .. n_past + t
      const int64_t first = first_visible_key(n_keys, p.attention.window);
      const float* qrow = row_f32(q, h, t);
      float max = -INFINITY;
      for (int64_t j = first; j < n_keys; ++j) {
        s[j] = scale * dot(qrow, keys.row(kv, j), hd);
        max = std::max(max, s[j]);
      }
      double sum = 0.0;
      for (int64_t j = first; j < n_keys; ++j) {
        s[j] = std::exp(s[j] - max);
        sum += s[j];
      }
      std::fill(out_acc, out_acc + hd, 0.0f);
      for (int64_t j = first; j < n_keys; ++j) {
        const float* vrow = values.row(kv, j);
        const float w = s[j];
        for (int64_t d = 0; d < hd; ++d) out_acc[d] += w * vrow[d];
      }
      const auto inv = static_cast<float>(1.0 / sum);
      float* out = row_f32(dst, h, t);
      for (int64_t d = 0; d < hd; ++d) out[d] = out_acc[d] * inv;
    }
  });
  return Status::ok_status();
}

}  // namespace clport::cpu::detail
