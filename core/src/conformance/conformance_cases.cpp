// The conformance catalogue. Shapes are chosen to hit the awkward paths of any implementation:
// a single row or token, sizes that are odd or not a multiple of any work-group or tile, a large
// GEMV, several GEMM tile edges, attention with n_past > 0, grouped-query heads, long contexts
// (more keys than one work-group) and strided destinations, while the whole run stays within a
// couple of minutes on a 2-core PoCL machine.
#include "conformance_cases.h"

#include <cmath>
#include <optional>
#include <string>

namespace clport::conformance::detail {
namespace {

// NMSE thresholds. Exact ops must match bit for bit (value-wise); ops whose only difference to
// the reference is float summation order or a libm ulp get tight bounds; trigonometry of large
// angles (rope) and long dot products a little more room.
constexpr double kExact = 0.0;
constexpr double kNearExact = 1e-12;  // single multiply per element (dequant, add, mul, scale)
constexpr double kReduce = 1e-10;     // reductions / exp: rms_norm, softmax, silu, swiglu
constexpr double kMatMul = 1e-6;  // dot products of up to 14k terms; GPU FMA and reduction order
constexpr double kAttention = 1e-6;
constexpr double kRope = 1e-6;        // float pow/sin/cos of angles up to ~1e3 rad
// A store into a Q8_0 / Q4_0 KV cache, compared decoded. The device quantizes as the reference
// does (same scale, same rounding), so the blocks match; the bound leaves room for a code that a
// ulp of RoPE or of a non-IEEE float division puts on the other side of a rounding tie (one such
// code in a case is ~1e-8), while any rounding or layout that differs (truncation, nibble order)
// costs at least the quantization error itself, ~5e-5 for Q8_0 and ~1e-2 for Q4_0.
constexpr double kKvQuant = 1e-6;

using Ne = std::array<int64_t, 4>;

OperandSpec f32(Ne ne, float scale = 1.0f) {
  OperandSpec o;
  o.ne = ne;
  o.scale = scale;
  return o;
}

OperandSpec typed(DType d, Ne ne, float scale = 1.0f) {
  OperandSpec o = f32(ne, scale);
  o.dtype = d;
  return o;
}

std::string dims(Ne ne) {
  int last = 0;
  for (int i = 1; i < 4; ++i)
    if (ne[i] != 1) last = i;
  std::string s = std::to_string(ne[0]);
  for (int i = 1; i <= last; ++i) s += "x" + std::to_string(ne[i]);
  return s;
}

std::string tname(DType d) { return std::string(dtype_name(d)); }

void get_rows(std::vector<CaseSpec>& out, DType d, int64_t D, int64_t rows, int64_t n) {
  CaseSpec c;
  c.op = "get_rows";
  c.dtype = tname(d);
  c.shape = "D=" + std::to_string(D) + " rows=" + std::to_string(rows) + " n=" + std::to_string(n);
  c.kind = CLPORT_OP_GET_ROWS;
  OperandSpec idx = typed(DType::I32, {n, 1, 1, 1});
  idx.fill = Fill::Indices;
  idx.index_limit = rows;
  c.src = {typed(d, {D, rows, 1, 1}), idx};
  c.dst = f32({D, n, 1, 1});
  c.threshold = d == DType::F32 || d == DType::F16 || d == DType::BF16 ? kExact : kNearExact;
  out.push_back(c);
}

void mul_mat(std::vector<CaseSpec>& out, DType d, int64_t K, int64_t N, int64_t M) {
  CaseSpec c;
  c.op = "mul_mat";
  c.dtype = tname(d);
  c.shape = "K=" + std::to_string(K) + " N=" + std::to_string(N) + " M=" + std::to_string(M);
  c.kind = CLPORT_OP_MUL_MAT;
  c.src = {typed(d, {K, N, 1, 1}, 0.5f), f32({K, M, 1, 1})};
  c.dst = f32({N, M, 1, 1});
  c.threshold = kMatMul;
  out.push_back(c);
}

void rms_norm(std::vector<CaseSpec>& out, Ne ne, bool weight) {
  CaseSpec c;
  c.op = "rms_norm";
  c.dtype = weight ? "f32 +w" : "f32";
  c.shape = dims(ne);
  c.kind = CLPORT_OP_RMS_NORM;
  c.src = {f32(ne, 3.0f)};
  if (weight) c.src.push_back(f32({ne[0], 1, 1, 1}));
  c.dst = f32(ne);
  c.params.eps = 1e-5f;
  c.threshold = kReduce;
  out.push_back(c);
}

// RoPE frequency factors [n_rot / 2] appended as the op's last source.
OperandSpec rope_factors(int64_t n_rot) {
  OperandSpec o = f32({n_rot / 2, 1, 1, 1});
  o.fill = Fill::Factors;
  return o;
}

void rope(std::vector<CaseSpec>& out, int mode, Ne ne, int n_rot, int pos0, float scale, bool factors = false) {
  CaseSpec c;
  c.op = "rope";
  c.dtype = mode == 2 ? "f32 neox" : "f32 normal";
  c.shape = dims(ne) + " rot=" + std::to_string(n_rot) + " pos=" + std::to_string(pos0) +
            (scale != 1.0f ? " fs=0.5" : "") + (factors ? " ff" : "");
  c.kind = CLPORT_OP_ROPE;
  c.src = {f32(ne)};
  if (factors) c.src.push_back(rope_factors(n_rot));
  c.dst = f32(ne);
  c.params.n_past = pos0;
  c.params.rope = clport_rope_params{mode, n_rot, 10000.0f, scale};
  c.threshold = kRope;
  out.push_back(c);
}

// window > 0: a sliding window of that many keys (Gemma 3's local layers).
std::string window_suffix(int32_t window) { return window > 0 ? " win=" + std::to_string(window) : ""; }

// K and V of types kv and v_type (kv for both unless given). A
// quantized cache is compared with a reference that reads the same quantized bytes (operands are
// filled once and both sides decode them alike), so only summation order differs: the float
// bound of an F16 cache holds.
void attention(std::vector<CaseSpec>& out, DType kv, int64_t hd, int64_t nh, int64_t nkv,
               int64_t nt, int64_t n_past, int64_t n_ctx, int32_t window = 0, std::optional<DType> v = std::nullopt) {
  const DType v_type = v.value_or(kv);
  CaseSpec c;
  c.op = "attention";
  c.dtype = "kv " + tname(kv) + (v_type != kv ? "/" + tname(v_type) : "");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " t=" + std::to_string(nt) + " past=" + std::to_string(n_past) +
            " ctx=" + std::to_string(n_ctx) + window_suffix(window);
  c.kind = CLPORT_OP_ATTENTION;
  c.src = {f32({hd, nh, nt, 1}), typed(kv, {hd, nkv, n_ctx, 1}), typed(v_type, {hd, nkv, n_ctx, 1})};
  c.dst = f32({hd, nh, nt, 1});
  c.params.n_past = static_cast<int32_t>(n_past);
  c.params.attention = clport_attention_params{1.0f / std::sqrt(static_cast<float>(hd)), window};
  c.threshold = kAttention;
  out.push_back(c);
}

void unary(std::vector<CaseSpec>& out, const char* op, clport_op_kind kind, Ne ne, float f0,
           double threshold) {
  CaseSpec c;
  c.op = op;
  c.dtype = "f32";
  c.shape = dims(ne);
  c.kind = kind;
  c.src = {f32(ne, 2.0f)};
  c.dst = f32(ne);
  c.params.scale = f0;
  c.threshold = threshold;
  out.push_back(c);
}

void binary(std::vector<CaseSpec>& out, const char* op, clport_op_kind kind, Ne a, Ne b,
            double threshold) {
  CaseSpec c;
  c.op = op;
  c.dtype = "f32";
  c.shape = dims(a) + (a == b ? "" : " bcast " + dims(b));
  c.kind = kind;
  c.src = {f32(a, 2.0f), f32(b)};
  c.dst = f32(a);
  c.threshold = threshold;
  out.push_back(c);
}

void copy(std::vector<CaseSpec>& out, DType s, DType d, Ne ne) {
  CaseSpec c;
  c.op = "copy";
  c.dtype = tname(s) + "->" + tname(d);
  c.shape = dims(ne);
  c.kind = CLPORT_OP_COPY;
  c.src = {typed(s, ne, 4.0f)};
  c.dst = typed(d, ne);
  c.threshold = kExact;
  out.push_back(c);
}

// Writes [hd, nkv, nt] into slot `pos` of a [hd, nkv, n_ctx] cache of type d (F32 / F16 copied,
// Q8_0 / Q4_0 quantized a row of 32-value blocks at a time): everything around the slot must stay
// untouched.
void copy_into_cache(std::vector<CaseSpec>& out, DType d, int64_t hd, int64_t nkv, int64_t nt,
                     int64_t pos, int64_t n_ctx) {
  CaseSpec c;
  c.op = "copy";
  c.dtype = "f32->" + tname(d) + " strided";
  c.shape = std::to_string(hd) + "x" + std::to_string(nkv) + "x" + std::to_string(nt) +
            " into cache slot " + std::to_string(pos) + "/" + std::to_string(n_ctx);
  c.kind = CLPORT_OP_COPY;
  c.src = {f32({hd, nkv, nt, 1}, 4.0f)};
  const int64_t bb = traits(d).block_bytes, row = hd / traits(d).block_size * bb;
  c.dst = typed(d, {hd, nkv, nt, 1});
  c.dst.nb = {bb, row, row * nkv, row * nkv * n_ctx};
  c.dst.view_offset = pos * row * nkv;
  c.dst.region_bytes = row * nkv * n_ctx;
  c.threshold = traits(d).block_size > 1 ? kKvQuant : kExact;
  out.push_back(c);
}

// Every other element of the destination (element stride 2): the gaps must stay untouched.
void copy_gapped(std::vector<CaseSpec>& out, DType d, int64_t n, int64_t rows) {
  CaseSpec c;
  c.op = "copy";
  c.dtype = "f32->" + tname(d) + " gapped";
  c.shape = std::to_string(n) + "x" + std::to_string(rows) + " stride 2";
  c.kind = CLPORT_OP_COPY;
  c.src = {f32({n, rows, 1, 1}, 4.0f)};
  const int64_t es = traits(d).block_bytes;
  c.dst = typed(d, {n, rows, 1, 1});
  c.dst.nb = {2 * es, 2 * es * n, 2 * es * n * rows, 2 * es * n * rows};
  c.dst.region_bytes = 2 * es * n * rows;
  c.threshold = kExact;
  out.push_back(c);
}

// The fused mat-muls (GEMV path): norm in front, residual add or SwiGLU behind.
void fused_mul_mat(std::vector<CaseSpec>& out, clport_op_kind kind, DType d, int64_t K, int64_t N, int64_t M) {
  CaseSpec c;
  c.op = kind == CLPORT_OP_RMS_NORM_MUL_MAT ? "rms_norm+mul_mat"
         : kind == CLPORT_OP_MUL_MAT_ADD    ? "mul_mat+add"
                                            : "rms_norm+mul_mat+swiglu";
  c.dtype = tname(d);
  c.shape = "K=" + std::to_string(K) + " N=" + std::to_string(N) + " M=" + std::to_string(M);
  c.kind = kind;
  c.src = {typed(d, {K, N, 1, 1}, 0.5f), f32({K, M, 1, 1}, 3.0f)};
  if (kind == CLPORT_OP_MUL_MAT_ADD) {
    c.src.push_back(f32({N, M, 1, 1}));
  } else {
    c.src.push_back(f32({K, 1, 1, 1}));
    c.params.eps = 1e-5f;
  }
  if (kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU) c.src.push_back(typed(d, {K, N, 1, 1}, 0.5f));
  c.dst = f32({N, M, 1, 1});
  c.threshold = kMatMul;
  out.push_back(c);
}

// [hd, heads, n] slice of a fused projection of `row` floats per token, starting at float `at`.
OperandSpec projection_slice(int64_t hd, int64_t heads, int64_t n, int64_t row, int64_t at) {
  OperandSpec o = f32({hd, heads, n, 1});
  o.nb = {4, 4 * hd, 4 * row, 4 * row * n};
  o.view_offset = 4 * at;
  o.region_bytes = 4 * row * n;
  return o;
}

// K rotated and K, V stored at positions pos.. of a [hd, nkv, n_ctx, 2] cache (the rest of the
// cache holds values that must survive), from slices of one fused Q/K/V row.
void kv_store_rope(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                   int64_t n, int64_t pos, int64_t n_ctx, bool factors = false) {
  CaseSpec c;
  c.op = "rope+kv_store";
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " kv=" + std::to_string(nkv) + " n=" + std::to_string(n) +
            " pos=" + std::to_string(pos) + " ctx=" + std::to_string(n_ctx) + (factors ? " ff" : "");
  c.kind = CLPORT_OP_KV_STORE_ROPE;
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nkv, n, row, hd * nh), projection_slice(hd, nkv, n, row, hd * (nh + nkv))};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = typed(kv, {hd, nkv, n_ctx, 2});
  c.dst.prefilled = true;
  c.params.n_past = static_cast<int32_t>(pos);
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.threshold = traits(kv).block_size > 1 ? kKvQuant : kRope;
  out.push_back(c);
}

// RoPE over the whole head at position n_past, base 10000, and attention's 1/sqrt(hd) scale.
void set_rope_attention_params(CaseSpec& c, int mode, int64_t n_past, int64_t hd) {
  c.params.n_past = static_cast<int32_t>(n_past);
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.params.attention.scale = 1.0f / std::sqrt(static_cast<float>(hd));
}

// Attention whose query (a slice of a fused projection) is rotated first.
void rope_attention(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                    int64_t nt, int64_t n_past, int64_t n_ctx, int32_t window = 0, bool factors = false) {
  CaseSpec c;
  c.op = "rope+attention";
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " t=" + std::to_string(nt) + " past=" + std::to_string(n_past) + " ctx=" + std::to_string(n_ctx) +
            window_suffix(window) + (factors ? " ff" : "");
  c.kind = CLPORT_OP_ROPE_ATTENTION;
  c.src = {projection_slice(hd, nh, nt, hd * (nh + 2 * nkv), 0), typed(kv, {hd, nkv, n_ctx, 1}),
           typed(kv, {hd, nkv, n_ctx, 1})};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = f32({hd, nh, nt, 1});
  set_rope_attention_params(c, mode, n_past, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

// One decode token's RoPE + KV store + attention: its K and V are slices of the projection, the
// cache (src3) holds the earlier positions.
void rope_kv_store_attention(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                             int64_t n_past, int64_t n_ctx, int32_t window = 0) {
  CaseSpec c;
  c.op = "rope+kv_store+attention";
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) +
            " past=" + std::to_string(n_past) + " ctx=" + std::to_string(n_ctx) + window_suffix(window);
  c.kind = CLPORT_OP_ROPE_KV_STORE_ATTENTION;
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nh, 1, row, 0), projection_slice(hd, nkv, 1, row, hd * nh),
           projection_slice(hd, nkv, 1, row, hd * (nh + nkv)), typed(kv, {hd, nkv, n_ctx, 2})};
  c.dst = f32({hd, nh, 1, 1});
  c.inout_src = 3;  // the cache: slot n_past gets this token's K and V
  set_rope_attention_params(c, mode, n_past, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

// The cells of n tokens over n_seq sequences of n_ctx positions (each token's own cell).
OperandSpec cells_of(int64_t n, int64_t n_seq, int64_t n_ctx) {
  OperandSpec o = typed(DType::I32, {2, n, 1, 1});
  o.fill = Fill::Cells;
  o.index_limit = n_seq;
  o.positions = n_ctx;
  return o;
}

// A step over several sequences: K and V of n tokens (slices of one fused projection) stored at
// their own cells of a cache of n_seq sequences, the rest of which must survive.
void kv_store_rope_cells(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                         int64_t n, int64_t n_seq, int64_t n_ctx, bool factors = false) {
  CaseSpec c;
  c.op = "rope+kv_store cells";
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " kv=" + std::to_string(nkv) + " n=" + std::to_string(n) +
            " seqs=" + std::to_string(n_seq) + " ctx=" + std::to_string(n_ctx) + (factors ? " ff" : "");
  c.kind = CLPORT_OP_KV_STORE_ROPE_CELLS;
  const int64_t row = hd * (nh + 2 * nkv);
  c.src = {projection_slice(hd, nkv, n, row, hd * nh), projection_slice(hd, nkv, n, row, hd * (nh + nkv)),
           cells_of(n, n_seq, n_ctx)};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = typed(kv, {hd, nkv, n_ctx, 2 * n_seq});
  c.dst.prefilled = true;
  c.params.rope = clport_rope_params{mode, static_cast<int32_t>(hd), 10000.0f, 1.0f};
  c.threshold = kRope;
  out.push_back(c);
}

// n tokens, each at its own cell, attending over its own sequence of a cache of n_seq.
void rope_attention_cells(std::vector<CaseSpec>& out, DType kv, int mode, int64_t hd, int64_t nh, int64_t nkv,
                          int64_t n, int64_t n_seq, int64_t n_ctx, int32_t window = 0, bool factors = false) {
  CaseSpec c;
  c.op = "rope+attention cells";
  c.dtype = "kv " + tname(kv) + (mode == 2 ? " neox" : " normal");
  c.shape = "hd=" + std::to_string(hd) + " h=" + std::to_string(nh) + "/" + std::to_string(nkv) + " n=" +
            std::to_string(n) + " seqs=" + std::to_string(n_seq) + " ctx=" + std::to_string(n_ctx) +
            window_suffix(window) + (factors ? " ff" : "");
  c.kind = CLPORT_OP_ROPE_ATTENTION_CELLS;
  c.src = {projection_slice(hd, nh, n, hd * (nh + 2 * nkv), 0), typed(kv, {hd, nkv, n_ctx, 2 * n_seq}),
           cells_of(n, n_seq, n_ctx)};
  if (factors) c.src.push_back(rope_factors(hd));
  c.dst = f32({hd, nh, n, 1});
  set_rope_attention_params(c, mode, 0, hd);
  c.params.attention.window = window;
  c.threshold = kAttention;
  out.push_back(c);
}

}  // namespace

std::vector<CaseSpec> catalogue(bool small) {
  std::vector<CaseSpec> out;
  const bool big = !small;
  for (DType d : kWeightDTypes) {
    const bool plain = d == DType::F32 || d == DType::F16 || d == DType::BF16;
    const int64_t qk = traits(d).block_size;
    const int64_t base_k = qk == 256 ? 256 : 64;  // smallest whole-block row worth testing
    get_rows(out, d, small ? base_k : 4 * base_k, small ? 5 : 37, small ? 3 : 6);
    if (big) get_rows(out, d, 4096, 3, 1);
    if (plain) get_rows(out, d, small ? 33 : 333, 5, 4);
    // GEMV: one output row, N not a multiple of the rows per work-group, small M batch. The
    // one-row case has two tokens: a lone output value can be a near-total cancellation, where
    // NMSE (normalised by that one value) fails a correct kernel by float rounding alone.
    mul_mat(out, d, small ? base_k : 4 * base_k, 1, 2);
    mul_mat(out, d, small ? base_k : 8 * base_k, small ? 9 : 37, 1);
    mul_mat(out, d, small ? base_k : 4 * base_k, small ? 5 : 29, 3);
    if (plain) mul_mat(out, d, small ? 33 : 999, 7, 1);
    // A row shorter than one 128-element chunk of a 16-lane sub-group: only the tail loop runs
    // (PoCL 5.0 miscompiled the Intel sub-group F16 GEMV there).
    if (plain && big) mul_mat(out, d, 100, 9, 1);
    // GEMM: tile edges in N and M, one K tile and several.
    mul_mat(out, d, small ? base_k : 2 * base_k, small ? 9 : 70, small ? 7 : 37);
    if (plain) mul_mat(out, d, small ? 33 : 65, 33, 9);
    if (big) mul_mat(out, d, 1024, 128, 64);
  }
  if (big) {
    // The large GEMV the decode path lives on, and LLaMA-like shapes for two more formats.
    mul_mat(out, DType::Q4_0, 4096, 4096, 1);
    mul_mat(out, DType::Q4_K, 4096, 4096, 1);
    mul_mat(out, DType::F16, 4096, 4096, 1);
    mul_mat(out, DType::Q6_K, 2048, 1536, 1);
    mul_mat(out, DType::Q8_0, 576, 1536, 5);
    mul_mat(out, DType::Q3_K, 2048, 1536, 1);  // the bulk of a Q3_K_M file
  }

  rms_norm(out, {small ? 100 : 4096, 1, 1, 1}, true);
  rms_norm(out, {small ? 33 : 1000, small ? 3 : 7, 1, 1}, true);
  rms_norm(out, {small ? 17 : 333, 3, 1, 1}, false);

  for (int mode : {0, 2}) {
    rope(out, mode, {small ? 16 : 64, small ? 2 : 4, small ? 2 : 3, 1}, small ? 16 : 64, 0, 1.0f);
    rope(out, mode, {small ? 16 : 128, small ? 3 : 8, small ? 2 : 5, 1}, small ? 8 : 64,
         small ? 7 : 500, 1.0f);
    rope(out, mode, {6, 1, 1, 1}, 4, 3, 0.5f);
    rope(out, mode, {small ? 16 : 128, small ? 3 : 8, small ? 2 : 5, 1}, small ? 8 : 64, small ? 7 : 500, 1.0f, true);
  }

  for (DType kv : {DType::F16, DType::F32}) {
    if (small) {
      attention(out, kv, 16, 4, 2, 3, 2, 8);
      attention(out, kv, 10, 2, 1, 1, 0, 3);
      attention(out, kv, 16, 2, 1, 3, 4, 8, 3);  // sliding window shorter than the keys
      continue;
    }
    attention(out, kv, 64, 4, 1, 5, 90, 128, 32);  // sliding window, prefill past its edge
    attention(out, kv, 256, 4, 1, 1, 200, 256, 100);  // Gemma 3 270M's head size, decode
    attention(out, kv, 64, 8, 2, 1, 37, 64);      // decode step, GQA 4:1
    attention(out, kv, 64, 4, 4, 7, 0, 16);       // prefill from empty, causal mask
    attention(out, kv, 128, 4, 2, 3, 200, 256);   // more keys than one work-group
    attention(out, kv, 80, 2, 1, 2, 5, 9);        // head_dim not a multiple of 64, MQA
    // Decode over hundreds of keys (the serial kernel's blocks of four keys and its remainder),
    // and a sliding window whose first key is not 0.
    attention(out, kv, 64, 6, 2, 1, 301, 512);
    attention(out, kv, 96, 4, 1, 1, 400, 512, 200);
  }
  // Quantized KV caches (head_dim a multiple of their 32-element blocks), alone and with K and V
  // of different types (the mixed kernels).
  for (DType kv : {DType::Q8_0, DType::Q4_0}) {
    attention(out, kv, 32, 4, 2, 3, 2, 8);
    attention(out, kv, 32, 2, 1, 3, 4, 8, 3);
    if (small) continue;
    attention(out, kv, 256, 4, 1, 1, 200, 256, 100);
    attention(out, kv, 64, 8, 2, 1, 37, 64);
    attention(out, kv, 64, 4, 4, 7, 0, 16);
    attention(out, kv, 128, 4, 2, 3, 200, 256);
    attention(out, kv, 64, 6, 2, 1, 301, 512);
  }
  attention(out, DType::Q8_0, 32, 4, 2, 3, 2, 8, 0, DType::F16);
  attention(out, DType::F16, 32, 4, 2, 1, 5, 8, 0, DType::Q4_0);
  if (!small) {
    attention(out, DType::F32, 64, 8, 2, 1, 37, 64, 0, DType::Q8_0);
    attention(out, DType::Q4_0, 128, 4, 2, 3, 200, 256, 0, DType::Q8_0);
    attention(out, DType::Q8_0, 64, 6, 2, 1, 301, 512, 0, DType::F16);
  }

  unary(out, "softmax", CLPORT_OP_SOFTMAX, {small ? 33 : 1000, small ? 2 : 3, 1, 1}, 1.0f, kReduce);
  unary(out, "softmax", CLPORT_OP_SOFTMAX, {small ? 7 : 32000, 1, 1, 1}, 0.125f, kReduce);
  unary(out, "silu", CLPORT_OP_SILU, {small ? 37 : 4099, 1, 1, 1}, 0.0f, kReduce);
  unary(out, "silu", CLPORT_OP_SILU, {small ? 20 : 11008, 2, 1, 1}, 0.0f, kReduce);
  unary(out, "scale", CLPORT_OP_SCALE, {small ? 37 : 1001, 3, 1, 1}, 0.37f, kNearExact);
  binary(out, "swiglu", CLPORT_OP_SWIGLU, {small ? 37 : 11008, 2, 1, 1}, {small ? 37 : 11008, 2, 1, 1}, kReduce);
  binary(out, "swiglu", CLPORT_OP_SWIGLU, {small ? 5 : 4099, 1, 1, 1}, {small ? 5 : 4099, 1, 1, 1}, kReduce);
  binary(out, "geglu", CLPORT_OP_GEGLU, {small ? 37 : 2048, 3, 1, 1}, {small ? 37 : 2048, 3, 1, 1}, kReduce);
  binary(out, "geglu", CLPORT_OP_GEGLU, {small ? 5 : 4099, 1, 1, 1}, {small ? 5 : 4099, 1, 1, 1}, kReduce);
  for (auto [name, kind] : {std::pair{"add", CLPORT_OP_ADD}, std::pair{"mul", CLPORT_OP_MUL}}) {
    binary(out, name, kind, {small ? 37 : 4097, 3, 1, 1}, {small ? 37 : 4097, 3, 1, 1}, kNearExact);
    binary(out, name, kind, {small ? 37 : 4096, 5, 1, 1}, {small ? 37 : 4096, 1, 1, 1}, kNearExact);
    binary(out, name, kind, {small ? 8 : 64, 4, 3, 2}, {small ? 8 : 64, 1, 3, 1}, kNearExact);
    binary(out, name, kind, {small ? 9 : 63, 6, 1, 1}, {1, 3, 1, 1}, kNearExact);
  }

  for (DType s : {DType::F32, DType::F16})
    for (DType d : {DType::F32, DType::F16}) copy(out, s, d, {small ? 37 : 4097, 3, 1, 1});
  for (DType d : {DType::F16, DType::F32}) {
    copy_into_cache(out, d, small ? 8 : 64, 2, 3, 5, small ? 10 : 64);
    copy_gapped(out, d, small ? 9 : 300, 3);
  }
  for (DType d : {DType::Q8_0, DType::Q4_0}) copy_into_cache(out, d, small ? 32 : 64, 2, 3, 5, small ? 10 : 64);

  // Fused patterns, every weight dtype on the GEMV path (the small catalogue, which oclgrind
  // interprets, one dtype of each block family); N not a multiple of any row group.
  for (DType d : kWeightDTypes) {
    if (small && d != DType::Q4_1 && d != DType::Q8_0 && d != DType::Q4_K && d != DType::Q6_K && d != DType::F16)
      continue;
    const int64_t base_k = traits(d).block_size == 256 ? 256 : 64;
    for (clport_op_kind kind : {CLPORT_OP_RMS_NORM_MUL_MAT, CLPORT_OP_MUL_MAT_ADD, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU})
      fused_mul_mat(out, kind, d, small ? base_k : 4 * base_k, small ? 9 : 37, 1);
  }
  if (big) fused_mul_mat(out, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, DType::Q4_1, 576, 1536, 1);
  // The same patterns on a prompt's batch of rows, for a plugin with a fused GEMM (others report
  // them unsupported and a model runs the separate ops, so not in the small catalogue, which
  // generic must serve whole): tile edges in N and M, a K that ends part-way through a stage of
  // blocks; 150 rows take more than one work-group's rows however tall its tile (64 or 128).
  for (DType d : {DType::Q4_0, DType::Q4_1, DType::Q8_0}) {
    if (small) break;
    for (clport_op_kind kind : {CLPORT_OP_RMS_NORM_MUL_MAT, CLPORT_OP_MUL_MAT_ADD, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU}) {
      fused_mul_mat(out, kind, d, 160, 70, 37);
      fused_mul_mat(out, kind, d, 160, 70, 150);
      // Few rows, few weight rows, a long K: a product a GPU splits into K ranges (nv_gemm's
      // split kernels, 32 and 64 rows a group), one range ending part-way through a step of blocks.
      fused_mul_mat(out, kind, d, 2080, 70, 9);
      fused_mul_mat(out, kind, d, 2080, 70, 40);
    }
    mul_mat(out, d, 2080, 70, 9);
    mul_mat(out, d, 2080, 70, 40);
  }
  for (DType kv : {DType::F16, DType::F32}) {
    for (int mode : {0, 2}) {
      kv_store_rope(out, kv, mode, small ? 8 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16);
      rope_attention(out, kv, mode, small ? 16 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64);
    }
    kv_store_rope(out, kv, 0, small ? 8 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16, true);
    rope_attention(out, kv, 2, small ? 16 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64, 0, true);
    if (big) rope_attention(out, kv, 0, 64, 9, 3, 1, 100, 128);
    // A prompt's batch of queries (a plugin's tiled prompt kernel): more tokens than one block
    // of them, a window shorter than the batch, head sizes 64 and 128, plain attention too.
    rope_attention(out, kv, 2, small ? 16 : 64, 4, 2, small ? 9 : 70, small ? 1 : 5, small ? 16 : 128);
    if (big) {
      rope_attention(out, kv, 2, 64, 4, 1, 70, 20, 128, 24);
      rope_attention(out, kv, 0, 128, 4, 2, 40, 3, 64, 0, true);
      attention(out, kv, 64, 4, 2, 70, 3, 128);
    }
    for (int mode : {0, 2}) rope_kv_store_attention(out, kv, mode, small ? 16 : 64, small ? 4 : 8, 2, small ? 2 : 37, small ? 8 : 64);
    // Steps over several sequences of different lengths (the *_CELLS ops).
    for (int mode : {0, 2}) {
      kv_store_rope_cells(out, kv, mode, small ? 16 : 64, 4, 2, small ? 3 : 9, small ? 2 : 4, small ? 8 : 64);
      rope_attention_cells(out, kv, mode, small ? 16 : 64, small ? 4 : 8, 2, small ? 3 : 9, small ? 2 : 4,
                           small ? 8 : 64);
    }
    kv_store_rope_cells(out, kv, 0, small ? 16 : 64, 4, 2, small ? 2 : 5, 3, small ? 8 : 16, true);
    rope_attention_cells(out, kv, 2, small ? 16 : 64, 4, 1, small ? 3 : 6, 3, small ? 8 : 128, small ? 3 : 20, true);
    if (big) rope_attention_cells(out, kv, 0, 128, 8, 2, 64, 16, 640);  // a decode step of 64 sequences
    if (big) {
      // Gemma 3's head size over a sliding window, a group of 7 query heads (Qwen2), a head size
      // of 96 without grouping (Phi-3), and caches long enough for several chunks per key range.
      rope_attention_cells(out, kv, 2, 256, 8, 2, 8, 4, 1000, 300);
      rope_attention_cells(out, kv, 2, 64, 14, 2, 5, 5, 300);
      rope_attention_cells(out, kv, 2, 96, 6, 6, 4, 2, 200);
      rope_attention_cells(out, kv, 0, 128, 32, 8, 4, 4, 3000);
    }
    rope_attention(out, kv, 2, small ? 16 : 64, 4, 1, small ? 2 : 4, small ? 5 : 60, small ? 8 : 64, small ? 3 : 20);
    rope_kv_store_attention(out, kv, 2, small ? 16 : 64, 4, 1, small ? 5 : 90, small ? 8 : 128, small ? 3 : 40);
    if (big) rope_kv_store_attention(out, kv, 0, 64, 9, 3, 130, 256);  // more keys than a work-group
    if (big) rope_kv_store_attention(out, kv, 2, 64, 4, 1, 301, 512, 150);  // hundreds of keys, window
    // Long caches with few heads: the GPU decode attention splits the keys into ranges (4 on a
    // 2-unit device; one range ends mid-chunk, one head group shares its new key).
    if (big) rope_kv_store_attention(out, kv, 0, 64, 2, 1, 477, 512);
    if (big) rope_kv_store_attention(out, kv, 2, 128, 2, 2, 1000, 1024);
  }
  // The fused stores and attentions on a quantized cache (one type for K and V: the joint cache).
  for (DType kv : {DType::Q8_0, DType::Q4_0}) {
    for (int mode : {0, 2}) {
      kv_store_rope(out, kv, mode, small ? 32 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16);
      rope_kv_store_attention(out, kv, mode, small ? 32 : 64, small ? 4 : 8, 2, small ? 2 : 37, small ? 8 : 64);
    }
    kv_store_rope(out, kv, 0, small ? 32 : 64, 4, 2, small ? 1 : 3, small ? 2 : 5, small ? 4 : 16, true);
    rope_attention(out, kv, 2, small ? 32 : 64, 4, 2, small ? 2 : 3, small ? 2 : 37, small ? 8 : 64);
    if (big) rope_kv_store_attention(out, kv, 0, 256, 4, 1, 130, 256);  // Gemma 3 270M's head size
    if (big) rope_kv_store_attention(out, kv, 0, 64, 2, 1, 477, 512);   // split into key ranges
  }
  return out;
}

}  // namespace clport::conformance::detail
