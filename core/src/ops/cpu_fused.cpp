// The fused patterns of plugin_abi.h, each computed as exactly the composition of the plain
// reference ops (through F32 temporaries), so a plugin's fused kernel is checked against the same
// numbers the unfused graph gives. The plain ops run through the registry, each after its own
// checks: a pattern's check covers only what the composition itself needs.
#include <cstring>
#include <vector>

#include "ops/cpu_common.h"
#include "ops/cpu_kernels.h"
#include "ops/op_registry.h"

namespace clport::cpu::detail {
namespace {

// A contiguous F32 temporary of shape ne, owned by the caller's vector.
HostTensor temp_f32(std::vector<float>& storage, std::array<int64_t, 4> ne) {
  storage.assign(static_cast<size_t>(ne[0] * ne[1] * ne[2] * ne[3]), 0.0f);
  return with_strides(HostTensor::contiguous(DType::F32, ne, storage.data()));
}

// View of dst's slots [pos0, pos0 + n) of K (which = 0) or V (which = 1) in a cache
// [head_dim, n_kv_head, n_ctx, 2].
HostTensor cache_slots(const HostTensor& cache, int64_t which, int64_t pos0, int64_t n) {
  HostTensor v = cache;
  v.ne = {cache.ne[0], cache.ne[1], n, 1};
  v.data = static_cast<uint8_t*>(cache.data) + which * cache.nb[3] + pos0 * cache.nb[2];
  return v;
}

OpParams norm_params(const OpParams& p) {
  OpParams n;
  n.eps = p.eps;
  return n;
}

// The plain mat-mul inside a fused pattern rounds its activations as the pattern's would.
OpParams mul_mat_params(const OpParams& p) {
  OpParams m;
  m.quantized_activations = p.quantized_activations;
  return m;
}

}  // namespace

Status check_rms_norm_mul_mat_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  return check_src_count("rms_norm_mul_mat", src, 3, 3);
}

Status rms_norm_mul_mat(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  std::vector<float> xn_data;
  const HostTensor xn = temp_f32(xn_data, src[1].ne);
  CLPORT_RETURN_IF_ERROR(ops::run_reference(CLPORT_OP_RMS_NORM, {src[1], src[2]}, xn, norm_params(p), n_threads));
  return ops::run_reference(CLPORT_OP_MUL_MAT, {src[0], xn}, dst, mul_mat_params(p), n_threads);
}

Status check_mul_mat_add_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  return check_src_count("mul_mat_add", src, 3, 3);
}

Status mul_mat_add(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  std::vector<float> y_data;
  const HostTensor y = temp_f32(y_data, dst.ne);
  CLPORT_RETURN_IF_ERROR(
      ops::run_reference(CLPORT_OP_MUL_MAT, {src[0], src[1]}, y, mul_mat_params(p), n_threads));
  return ops::run_reference(CLPORT_OP_ADD, {src[2], y}, dst, OpParams{}, n_threads);
}

Status check_rms_norm_mul_mat_swiglu_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  constexpr const char* kOp = "rms_norm_mul_mat_swiglu";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 4, 4));
  if (src[0].dtype != src[3].dtype || !same_shape(src[0], src[3]))
    return invalid(kOp, "gate " + describe(src[0]) + " and up " + describe(src[3]) + " weights differ");
  return Status::ok_status();
}

Status rms_norm_mul_mat_swiglu(const Srcs& src, const HostTensor& dst, const OpParams& p,
                               int n_threads) {
  std::vector<float> xn_data, gate_data, up_data;
  const HostTensor xn = temp_f32(xn_data, src[1].ne);
  CLPORT_RETURN_IF_ERROR(ops::run_reference(CLPORT_OP_RMS_NORM, {src[1], src[2]}, xn, norm_params(p), n_threads));
  const HostTensor gate = temp_f32(gate_data, dst.ne), up = temp_f32(up_data, dst.ne);
  CLPORT_RETURN_IF_ERROR(
      ops::run_reference(CLPORT_OP_MUL_MAT, {src[0], xn}, gate, mul_mat_params(p), n_threads));
  CLPORT_RETURN_IF_ERROR(ops::run_reference(CLPORT_OP_MUL_MAT, {src[3], xn}, up, mul_mat_params(p), n_threads));
  return ops::run_reference(CLPORT_OP_SWIGLU, {gate, up}, dst, OpParams{}, n_threads);
}

Status check_kv_store_rope_operands(const Srcs& src, const HostTensor& dst, const OpParams& p) {
  constexpr const char* kOp = "kv_store_rope";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 2, 3));
  const HostTensor &k = src[0], &v = src[1];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst (KV cache)", dst, {DType::F32, DType::F16, DType::Q8_0, DType::Q4_0}));
  if (dst.ne[3] != 2) return invalid(kOp, "dst must be a [head_dim, n_kv_head, n_ctx, 2] cache, got " + describe(dst));
  if (!same_shape(k, v) || k.ne[0] != dst.ne[0] || k.ne[1] != dst.ne[1] || k.ne[3] != 1)
    return invalid(kOp, "k " + describe(k) + " and v " + describe(v) + " must be [head_dim, n_kv_head, n] of the cache");
  const int64_t pos0 = p.n_past, n = k.ne[2];
  if (pos0 < 0 || pos0 + n > dst.ne[2])
    return invalid(kOp, "positions " + std::to_string(pos0) + " + " + std::to_string(n) +
                            " do not fit the cache of " + std::to_string(dst.ne[2]));
  return Status::ok_status();
}

Status kv_store_rope(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor &k = src[0], &v = src[1];
  const int64_t pos0 = p.n_past, n = k.ne[2];
  std::vector<float> k_data;
  const HostTensor k_rope = temp_f32(k_data, k.ne);
  CLPORT_RETURN_IF_ERROR(
      ops::run_reference(CLPORT_OP_ROPE, src.size() == 3 ? Srcs{k, src[2]} : Srcs{k}, k_rope, p, n_threads));
  CLPORT_RETURN_IF_ERROR(
      ops::run_reference(CLPORT_OP_COPY, {k_rope}, cache_slots(dst, 0, pos0, n), OpParams{}, n_threads));
  return ops::run_reference(CLPORT_OP_COPY, {v}, cache_slots(dst, 1, pos0, n), OpParams{}, n_threads);
}

Status check_rope_attention_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  return check_src_count("rope_attention", src, 3, 4);
}

Status rope_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  std::vector<float> q_data;
  const HostTensor q_rope = temp_f32(q_data, src[0].ne);
  CLPORT_RETURN_IF_ERROR(ops::run_reference(CLPORT_OP_ROPE, src.size() == 4 ? Srcs{src[0], src[3]} : Srcs{src[0]},
                                            q_rope, p, n_threads));
  OpParams att;
  att.n_past = p.n_past;
  att.attention = p.attention;
  return ops::run_reference(CLPORT_OP_ATTENTION, {q_rope, src[1], src[2]}, dst, att, n_threads);
}

Status check_rope_kv_store_attention_operands(const Srcs& src, const HostTensor&, const OpParams&) {
  constexpr const char* kOp = "rope_kv_store_attention";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 4, 4));
  const HostTensor& cache = src[3];
  if (cache.ne[3] != 2) return invalid(kOp, "src3 must be a [head_dim, n_kv_head, n_ctx, 2] cache, got " + describe(cache));
  return Status::ok_status();
}

Status rope_kv_store_attention(const Srcs& src, const HostTensor& dst, const OpParams& p, int n_threads) {
  const HostTensor& cache = src[3];
  CLPORT_RETURN_IF_ERROR(ops::run_reference(CLPORT_OP_KV_STORE_ROPE, {src[1], src[2]}, cache, p, n_threads));
  const KvHalves kv = kv_halves(cache);
  return ops::run_reference(CLPORT_OP_ROPE_ATTENTION, {src[0], kv.k, kv.v}, dst, p, n_threads);
}

}  // namespace clport::cpu::detail
