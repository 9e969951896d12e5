#include "clport_common/op_checks.hpp"

#include <cmath>
#include <limits>

namespace clport::plugin_common {
namespace {

constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();  // kernels index with int
constexpr int64_t kMaxCount = std::numeric_limits<uint32_t>::max();  // and count with uint

bool same_shape(const clport_tensor& a, const clport_tensor& b) {
  for (int i = 0; i < 4; ++i)
    if (a.ne[i] != b.ne[i]) return false;
  return true;
}

bool dims_ok(const clport_tensor& t) {
  for (int i = 0; i < 4; ++i)
    if (t.ne[i] < 1 || t.ne[i] > kMaxIndex) return false;
  return element_count(t) <= kMaxCount;
}

bool is_kv_dtype(int32_t d) { return d == CLPORT_DTYPE_F32 || d == CLPORT_DTYPE_F16 || is_quantized_kv(d); }

// is_contiguous, for block types too: nb[] are the dense strides of ne[] in whole blocks.
bool dense(const clport_tensor& t) {
  const DTypeInfo* info = dtype_info(t.dtype);
  if (info == nullptr || t.ne[0] % info->block_size != 0 || t.nb[0] != info->block_bytes) return false;
  int64_t stride = t.ne[0] / info->block_size * info->block_bytes;
  for (int i = 1; i < 4; ++i) {
    if (t.ne[i] > 1 && t.nb[i] != stride) return false;
    stride *= t.ne[i];
  }
  return true;
}

// Contiguous F32 tensor with sane dims.
std::string need_f32(const clport_tensor* t, const char* what) {
  if (t == nullptr) return std::string(what) + " is missing";
  if (t->dtype != CLPORT_DTYPE_F32) return std::string(what) + " must be F32";
  if (!dims_ok(*t)) return std::string(what) + " has an empty or too large shape";
  if (!is_contiguous(*t)) return std::string(what) + " must be contiguous";
  return "";
}

// A weight [K, N] with rows of whole blocks, each row at nb[1].
std::string need_weight(const clport_tensor* w) {
  if (w == nullptr) return "weight is missing";
  const DTypeInfo* info = dtype_info(w->dtype);
  if (info == nullptr || !is_weight_dtype(w->dtype)) return "weight dtype not supported";
  if (!dims_ok(*w) || w->ne[2] != 1 || w->ne[3] != 1) return "weight must be 2-D";
  if (w->ne[0] % info->block_size != 0) return "weight row is not a whole number of blocks";
  const int64_t row_bytes = w->ne[0] / info->block_size * info->block_bytes;
  if (info->block_size == 1 && w->nb[0] != info->block_bytes) return "weight elements not packed";
  if (w->nb[1] < row_bytes || w->nb[1] % offset_alignment(w->dtype) != 0)
    return "weight row stride too small or misaligned";
  if (w->layout != nullptr) return "weight carries a plugin layout these kernels do not read";
  return "";
}

std::string check_get_rows(const clport_op& op) {
  if (op.n_src != 2) return "get_rows takes 2 sources";
  if (auto e = need_weight(op.src[0]); !e.empty()) return e;
  const clport_tensor* idx = op.src[1];
  if (idx == nullptr || idx->dtype != CLPORT_DTYPE_I32 || !dims_ok(*idx) || !is_contiguous(*idx) ||
      idx->ne[1] * idx->ne[2] * idx->ne[3] != 1)
    return "indices must be a contiguous 1-D I32 tensor";
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  if (op.dst->ne[0] != op.src[0]->ne[0] || op.dst->ne[1] != idx->ne[0] || op.dst->ne[2] != 1 ||
      op.dst->ne[3] != 1)
    return "dst must be [D, n]";
  return "";
}

std::string check_rms_norm(const clport_op& op) {
  if (op.n_src != 1 && op.n_src != 2) return "rms_norm takes 1 or 2 sources";
  if (auto e = need_f32(op.src[0], "src0"); !e.empty()) return e;
  if (op.n_src == 2) {
    if (auto e = need_f32(op.src[1], "weight"); !e.empty()) return e;
    if (element_count(*op.src[1]) != op.src[0]->ne[0]) return "weight must have ne[0] elements";
  }
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  if (!same_shape(*op.src[0], *op.dst)) return "dst shape differs from src0";
  if (!(op.params.eps >= 0.0f)) return "eps must be >= 0";
  return "";
}

std::string check_mul_mat(const clport_op& op) {
  if (op.n_src != 2) return "mul_mat takes 2 sources";
  if (auto e = need_weight(op.src[0]); !e.empty()) return e;
  if (auto e = need_f32(op.src[1], "activations"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  if (x.ne[0] != w.ne[0] || x.ne[2] != 1 || x.ne[3] != 1) return "activations must be [K, M]";
  if (d.ne[0] != w.ne[1] || d.ne[1] != x.ne[1] || d.ne[2] != 1 || d.ne[3] != 1)
    return "dst must be [N, M]";
  return "";
}

// RoPE's parameters (params.rope, n_past) for heads of head_dim elements and n tokens.
std::string check_rope_params(const clport_op& op, int64_t head_dim, int64_t n) {
  const clport_rope_params& rope = op.params.rope;
  if (rope.mode != 0 && rope.mode != 2) return "rope mode must be 0 (normal) or 2 (neox)";
  if (head_dim % 2 != 0 || rope.n_rot <= 0 || rope.n_rot % 2 != 0 || rope.n_rot > head_dim)
    return "rope needs an even head_dim and an even n_rot <= head_dim";
  if (op.n_past < 0 || static_cast<int64_t>(op.n_past) + n > kMaxIndex) return "rope position offset out of range";
  if (!(rope.freq_base > 0.0f) || !(rope.freq_scale > 0.0f)) return "rope freq_base and freq_scale must be > 0";
  return "";
}

// F32 [head_dim, heads, n] with contiguous rows and float-aligned head / token strides (a
// slice of a fused projection).
std::string need_f32_rows(const clport_tensor* t, const char* what) {
  if (t == nullptr) return std::string(what) + " is missing";
  if (t->dtype != CLPORT_DTYPE_F32) return std::string(what) + " must be F32";
  if (!dims_ok(*t) || t->ne[3] != 1) return std::string(what) + " must be [head_dim, heads, n]";
  if (t->nb[0] != 4 || t->nb[1] % 4 != 0 || t->nb[2] % 4 != 0 || t->nb[1] < 4 * t->ne[0])
    return std::string(what) + " needs contiguous rows and float-aligned strides";
  return "";
}

// The frequency factors RoPE may carry as source `index`: F32 [n_rot / 2], contiguous.
std::string check_rope_factors(const clport_op& op, int index) {
  if (op.n_src <= index) return "";
  const clport_tensor* ff = op.src[index];
  if (auto e = need_f32(ff, "frequency factors"); !e.empty()) return e;
  if (ff->ne[0] != op.params.rope.n_rot / 2 || ff->ne[1] != 1 || ff->ne[2] != 1 || ff->ne[3] != 1)
    return "frequency factors must be [n_rot / 2]";
  return "";
}

std::string check_rope(const clport_op& op) {
  if (op.n_src != 1 && op.n_src != 2) return "rope takes x and optional frequency factors";
  if (auto e = check_rope_factors(op, 1); !e.empty()) return e;
  if (auto e = need_f32(op.src[0], "src0"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  const clport_tensor& x = *op.src[0];
  if (!same_shape(x, *op.dst) || x.ne[3] != 1) return "rope needs [head_dim, n_head, n_tokens]";
  return check_rope_params(op, x.ne[0], x.ne[2]);
}

// ATTENTION, and ROPE_ATTENTION (rotated q: any row / token stride, rope parameters).
std::string check_attention(const clport_op& op, const Tuning& t, bool rope) {
  if (op.n_src != 3 && !(rope && op.n_src == 4)) return "attention takes q, K, V (and rope frequency factors)";
  if (auto e = check_rope_factors(op, 3); !e.empty()) return e;
  if (auto e = rope ? need_f32_rows(op.src[0], "q") : need_f32(op.src[0], "q"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  if (rope) {
    if (auto e = check_rope_params(op, op.src[0]->ne[0], op.src[0]->ne[2]); !e.empty()) return e;
    if (!std::isfinite(op.params.attention.scale)) return "attention scale must be finite";
  }
  const clport_tensor &q = *op.src[0], *k = op.src[1], *v = op.src[2];
  if (k == nullptr || v == nullptr) return "K or V missing";
  for (const clport_tensor* c : {k, v}) {
    if (!is_kv_dtype(c->dtype)) return "K and V must be F16, F32, Q8_0 or Q4_0";
    const int64_t es = dtype_info(c->dtype)->block_bytes;
    for (int i = 0; i < 3; ++i)
      if (c->nb[i] % es != 0) return "K / V strides misalign";
    if (c->nb[0] != es) return "K/V head_dim must be packed";
    if (is_quantized_kv(c->dtype) && (c->ne[0] % 32 != 0 || c->offset % 2 != 0))
      return "a quantized K / V cache needs whole 32-element blocks at an even offset";
  }
  if (!dims_ok(*k) || !same_shape(*k, *v) || k->ne[3] != 1) return "K and V shapes differ";
  // One type shares its strides (kernels of that type); two types are the mixed kernels, which
  // take V's own strides.
  if (k->dtype == v->dtype && (k->nb[1] != v->nb[1] || k->nb[2] != v->nb[2])) return "K and V strides differ";
  if (!same_shape(q, *op.dst) || q.ne[3] != 1) return "dst must have q's shape";
  const int64_t hd = q.ne[0], n_head = q.ne[1], n_tokens = q.ne[2];
  if (k->ne[0] != hd) return "K head_dim differs from q";
  if (n_head % k->ne[1] != 0) return "n_head must be a multiple of n_kv_head";
  if (hd > (t.att_serial == 1 ? 256 : static_cast<int64_t>(t.att_wg) * t.att_dpt)) return "head_dim too large for att tuning";
  const int64_t n_past = op.n_past;
  if (n_past < 0 || n_past + n_tokens > k->ne[2]) return "n_past + n_tokens exceeds the cache";
  if (op.params.attention.window < 0) return "sliding window must be >= 0 (0 = none)";
  return "";
}

std::string check_kv_store_rope(const clport_op& op) {
  if (op.n_src != 2 && op.n_src != 3) return "kv_store_rope takes k, v (and frequency factors)";
  if (auto e = check_rope_factors(op, 2); !e.empty()) return e;
  if (auto e = need_f32_rows(op.src[0], "k"); !e.empty()) return e;
  if (auto e = need_f32_rows(op.src[1], "v"); !e.empty()) return e;
  const clport_tensor &k = *op.src[0], &v = *op.src[1], *c = op.dst;
  if (!same_shape(k, v)) return "k and v shapes differ";
  if (c == nullptr || !is_kv_dtype(c->dtype) || !dims_ok(*c) || !dense(*c))
    return "the KV cache must be a contiguous F16, F32, Q8_0 or Q4_0 tensor";
  // A quantized row is stored by one work-item from a private row of at most 256.
  if (is_quantized_kv(c->dtype) && (k.ne[0] % 32 != 0 || k.ne[0] > 256 || c->offset % 2 != 0))
    return "a quantized KV cache needs head_dim a multiple of 32, at most 256, at an even offset";
  if (c->ne[3] != 2 || c->ne[0] != k.ne[0] || c->ne[1] != k.ne[1])
    return "the KV cache must be [head_dim, n_kv_head, n_ctx, 2] matching k";
  if (auto e = check_rope_params(op, k.ne[0], k.ne[2]); !e.empty()) return e;
  if (op.n_past + k.ne[2] > c->ne[2]) return "positions exceed the cache";
  return "";
}

// One decode token's RoPE + KV store + attention (the attention_store_* kernels).
std::string check_rope_kv_store_attention(const clport_op& op, const Tuning& t) {
  if (op.n_src != 4) return "rope_kv_store_attention takes q, k, v and the KV cache";
  clport_op store = op;
  store.kind = CLPORT_OP_KV_STORE_ROPE;
  store.n_src = 2;
  store.src[0] = op.src[1];
  store.src[1] = op.src[2];
  store.dst = op.src[3];
  if (auto e = check_kv_store_rope(store); !e.empty()) return e;
  if (op.src[1]->ne[2] != 1 || op.src[0]->ne[2] != 1) return "fused KV store + attention runs one token at a time";
  // The attention half, on K and V views of the cache.
  clport_tensor k = *op.src[3];
  k.ne[3] = 1;
  clport_tensor v = k;
  v.offset += static_cast<uint64_t>(op.src[3]->nb[3]);
  clport_op att = op;
  att.kind = CLPORT_OP_ROPE_ATTENTION;
  att.n_src = 3;
  att.src[1] = &k;
  att.src[2] = &v;
  return check_attention(att, t, true);
}

// The *_CELLS ops: the cells I32 [2, n_tokens] (contiguous) at src[index], and the cache of every
// sequence [head_dim, n_kv_head, n_ctx, 2 n_seq], contiguous F16 or F32 (the cells kernels read
// and write those two types only).
std::string check_cells(const clport_op& op, int index, int64_t n_tokens, const clport_tensor* cache) {
  const clport_tensor* cells = op.src[index];
  if (cells->dtype != CLPORT_DTYPE_I32 || cells->ne[0] != 2 || cells->ne[1] != n_tokens || cells->ne[2] != 1 ||
      cells->ne[3] != 1 || cells->nb[0] != 4 || cells->nb[1] != 8)
    return "cells must be a contiguous I32 [2, n_tokens]";
  if (cache == nullptr || (cache->dtype != CLPORT_DTYPE_F16 && cache->dtype != CLPORT_DTYPE_F32) || !dims_ok(*cache) ||
      !dense(*cache) || cache->ne[3] < 2 || cache->ne[3] % 2 != 0)
    return "the cache of every sequence must be a contiguous F16 or F32 [head_dim, n_kv_head, n_ctx, 2 n_seq]";
  return "";
}

std::string check_kv_store_rope_cells(const clport_op& op) {
  if (op.n_src != 3 && op.n_src != 4) return "kv_store_rope_cells takes k, v, cells (and frequency factors)";
  if (auto e = check_rope_factors(op, 3); !e.empty()) return e;
  if (auto e = need_f32_rows(op.src[0], "k"); !e.empty()) return e;
  if (auto e = need_f32_rows(op.src[1], "v"); !e.empty()) return e;
  const clport_tensor &k = *op.src[0], &v = *op.src[1];
  if (!same_shape(k, v) || k.ne[3] != 1) return "k and v must both be [head_dim, n_kv_head, n_tokens]";
  if (auto e = check_cells(op, 2, k.ne[2], op.dst); !e.empty()) return e;
  if (op.dst->ne[0] != k.ne[0] || op.dst->ne[1] != k.ne[1]) return "the cache's head_dim and n_kv_head must be k's";
  return check_rope_params(op, k.ne[0], k.ne[2]);
}

std::string check_rope_attention_cells(const clport_op& op, const Tuning& t) {
  if (op.n_src != 3 && op.n_src != 4) return "rope_attention_cells takes q, the cache, cells (and frequency factors)";
  if (auto e = check_rope_factors(op, 3); !e.empty()) return e;
  if (auto e = need_f32_rows(op.src[0], "q"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  const clport_tensor &q = *op.src[0], &cache = *op.src[1];
  if (!same_shape(q, *op.dst) || q.ne[3] != 1) return "dst must have q's shape [head_dim, n_head, n_tokens]";
  if (auto e = check_cells(op, 2, q.ne[2], &cache); !e.empty()) return e;
  if (cache.ne[0] != q.ne[0]) return "the cache's head_dim differs from q's";
  if (q.ne[1] % cache.ne[1] != 0) return "n_head must be a multiple of n_kv_head";
  if (q.ne[0] > (t.att_serial == 1 ? 256 : static_cast<int64_t>(t.att_wg) * t.att_dpt)) return "head_dim too large for att tuning";
  if (op.params.attention.window < 0) return "sliding window must be >= 0 (0 = none)";
  if (!std::isfinite(op.params.attention.scale)) return "attention scale must be finite";
  return check_rope_params(op, q.ne[0], q.ne[2]);
}

// The GEMV-only fusions: weight (and second weight), activations [K, M] with M on the GEMV path.
std::string check_fused_gemv(const clport_op& op, const Tuning& t, int n_src) {
  if (op.n_src != n_src) return "fused mul_mat takes " + std::to_string(n_src) + " sources";
  clport_op plain = op;
  plain.kind = CLPORT_OP_MUL_MAT;
  plain.n_src = 2;
  if (auto e = check_mul_mat(plain); !e.empty()) return e;
  if (op.src[1]->ne[1] > t.gemv_max_m_for(op.src[0]->dtype)) return "fused mul_mat runs on the GEMV path only";
  return "";
}

std::string check_norm_input(const clport_op& op) {
  if (auto e = need_f32(op.src[2], "norm weight"); !e.empty()) return e;
  if (element_count(*op.src[2]) != op.src[1]->ne[0]) return "norm weight must have K elements";
  if (!(op.params.eps >= 0.0f)) return "eps must be >= 0";
  return "";
}

std::string check_rms_norm_mul_mat(const clport_op& op, const Tuning& t) {
  if (auto e = check_fused_gemv(op, t, 3); !e.empty()) return e;
  return check_norm_input(op);
}

std::string check_mul_mat_add(const clport_op& op, const Tuning& t) {
  if (auto e = check_fused_gemv(op, t, 3); !e.empty()) return e;
  if (auto e = need_f32(op.src[2], "residual"); !e.empty()) return e;
  if (!same_shape(*op.src[2], *op.dst)) return "residual shape differs from dst";
  return "";
}

std::string check_rms_norm_mul_mat_swiglu(const clport_op& op, const Tuning& t) {
  if (auto e = check_fused_gemv(op, t, 4); !e.empty()) return e;
  if (auto e = check_norm_input(op); !e.empty()) return e;
  if (auto e = need_weight(op.src[3]); !e.empty()) return e;
  const clport_tensor &g = *op.src[0], &u = *op.src[3];
  if (u.dtype != g.dtype || !same_shape(u, g) || u.nb[1] != g.nb[1])
    return "gate and up weights differ in dtype, shape or row stride";
  return "";
}

std::string check_unary(const clport_op& op) {
  if (op.n_src != 1) return "takes 1 source";
  if (auto e = need_f32(op.src[0], "src0"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  if (!same_shape(*op.src[0], *op.dst)) return "dst shape differs from src0";
  return "";
}

std::string check_binary(const clport_op& op, bool broadcast) {
  if (op.n_src != 2) return "takes 2 sources";
  if (auto e = need_f32(op.src[0], "src0"); !e.empty()) return e;
  if (auto e = need_f32(op.src[1], "src1"); !e.empty()) return e;
  if (auto e = need_f32(op.dst, "dst"); !e.empty()) return e;
  if (!same_shape(*op.src[0], *op.dst)) return "dst shape differs from src0";
  for (int i = 0; i < 4; ++i) {
    const int64_t a = op.src[0]->ne[i], b = op.src[1]->ne[i];
    if (broadcast ? (a % b != 0) : (a != b)) return "src1 shape does not broadcast to src0";
  }
  return "";
}

// COPY into a Q8_0 / Q4_0 cache slot: F32 rows of 32 k elements (k <= 8) quantized by one
// work-item each (copy_f32_q8_0 / _q4_0), into the same shape with contiguous blocks.
std::string check_copy_quantized(const clport_op& op) {
  const clport_tensor &s = *op.src[0], &d = *op.dst;
  if (s.dtype != CLPORT_DTYPE_F32) return "copy quantizes only F32";
  if (!dims_ok(s) || !dims_ok(d) || !same_shape(s, d)) return "a quantized copy needs equal shapes";
  if (s.ne[0] % 32 != 0 || s.ne[0] > 256) return "a quantized copy needs rows of 32 k <= 256 elements";
  for (int i = 0; i < 4; ++i)
    if (s.nb[i] <= 0 || s.nb[i] % 4 != 0) return "copy strides must be positive multiples of the element size";
  const int64_t bb = dtype_info(d.dtype)->block_bytes;
  if (d.nb[0] != bb || d.offset % 2 != 0) return "a quantized copy needs contiguous blocks at an even offset";
  for (int i = 1; i < 4; ++i)
    if (d.nb[i] <= 0 || d.nb[i] % bb != 0) return "a quantized copy's row strides must be whole blocks";
  return "";
}

std::string check_copy(const clport_op& op) {
  if (op.n_src != 1) return "copy takes 1 source";
  if (op.src[0] != nullptr && op.dst != nullptr && is_quantized_kv(op.dst->dtype)) return check_copy_quantized(op);
  for (const clport_tensor* t : {op.src[0], op.dst}) {
    if (t == nullptr) return "copy operand missing";
    if (t->dtype != CLPORT_DTYPE_F32 && t->dtype != CLPORT_DTYPE_F16)
      return "copy converts only between F32 and F16";
    if (!dims_ok(*t)) return "copy operand has an empty or too large shape";
    const int64_t es = dtype_info(t->dtype)->block_bytes;
    for (int i = 0; i < 4; ++i)
      if (t->nb[i] <= 0 || t->nb[i] % es != 0) return "copy strides must be positive multiples of the element size";
  }
  if (element_count(*op.src[0]) != element_count(*op.dst)) return "copy element counts differ";
  return "";
}

}  // namespace

bool is_weight_dtype(int32_t id) { return id != CLPORT_DTYPE_I32 && dtype_info(id) != nullptr; }

int64_t element_count(const clport_tensor& t) { return t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]; }

bool is_contiguous(const clport_tensor& t) {
  const DTypeInfo* info = dtype_info(t.dtype);
  if (info == nullptr || info->block_size != 1) return false;
  int64_t stride = info->block_bytes;
  for (int i = 0; i < 4; ++i) {
    if (t.ne[i] > 1 && t.nb[i] != stride) return false;
    stride *= t.ne[i];
  }
  return true;
}

uint64_t offset_alignment(int32_t dtype) {
  const DTypeInfo* info = dtype_info(dtype);
  if (info == nullptr) return 1;
  return info->block_size == 1 ? static_cast<uint64_t>(info->block_bytes) : 2;  // halves in blocks
}

std::string check_op(const clport_op& op, const Tuning& t) {
  if (op.struct_size < sizeof(clport_op)) return "clport_op from an older ABI";
  if (op.dst == nullptr || op.n_src < 1 || op.n_src > 4) return "bad operand count";
  for (int i = 0; i < op.n_src; ++i)
    if (op.src[i] == nullptr) return "source missing";
  switch (op.kind) {
    case CLPORT_OP_GET_ROWS: return check_get_rows(op);
    case CLPORT_OP_RMS_NORM: return check_rms_norm(op);
    case CLPORT_OP_MUL_MAT: return check_mul_mat(op);
    case CLPORT_OP_ROPE: return check_rope(op);
    case CLPORT_OP_ATTENTION: return check_attention(op, t, false);
    case CLPORT_OP_ROPE_ATTENTION: return check_attention(op, t, true);
    case CLPORT_OP_KV_STORE_ROPE: return check_kv_store_rope(op);
    case CLPORT_OP_ROPE_KV_STORE_ATTENTION: return check_rope_kv_store_attention(op, t);
    case CLPORT_OP_KV_STORE_ROPE_CELLS: return check_kv_store_rope_cells(op);
    case CLPORT_OP_ROPE_ATTENTION_CELLS: return check_rope_attention_cells(op, t);
    case CLPORT_OP_RMS_NORM_MUL_MAT: return check_rms_norm_mul_mat(op, t);
    case CLPORT_OP_MUL_MAT_ADD: return check_mul_mat_add(op, t);
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return check_rms_norm_mul_mat_swiglu(op, t);
    case CLPORT_OP_SOFTMAX:
    case CLPORT_OP_SILU:
    case CLPORT_OP_SCALE: return check_unary(op);
    case CLPORT_OP_SWIGLU:
    case CLPORT_OP_GEGLU: return check_binary(op, false);
    case CLPORT_OP_ADD:
    case CLPORT_OP_MUL: return check_binary(op, true);
    case CLPORT_OP_COPY: return check_copy(op);
    default: return "unknown op kind";
  }
}

std::string check_weight(const clport_tensor& weight) { return need_weight(&weight); }

}  // namespace clport::plugin_common
