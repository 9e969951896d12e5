// ROPE on the fast CPU backend. The rotation is the reference's, bit for bit; what changes is
// that the cos / sin table (a pow, a cos and a sin per pair, in double) is kept between calls:
// every layer's Q and K of one batch share the same positions, so it is computed once per
// forward pass instead of twice per layer.
#include <cmath>

#include "cpu_backend/fast_ops.h"
#include "ops/cpu_common.h"

namespace clport::fastcpu {
namespace {

using cpu::HostTensor;
using cpu::detail::check_same_shape;
using cpu::detail::check_src_count;
using cpu::detail::check_tensor;
using cpu::detail::flat_row_f32;
using cpu::detail::invalid;
using cpu::detail::rows;
using cpu::detail::unsupported;

constexpr int kModeNormal = 0;
constexpr int kModeNeox = 2;

const RopeTable& table_for(RopeTable& t, int64_t pos0, int64_t n_tokens, int64_t n_rot, double base,
                           double freq_scale) {
  if (t.pos0 == pos0 && t.n_tokens == n_tokens && t.n_rot == n_rot && t.base == base &&
      t.freq_scale == freq_scale) {
    return t;
  }
  const int64_t half = n_rot / 2;
  t.cos.resize(static_cast<size_t>(n_tokens * half));
  t.sin.resize(t.cos.size());
  // Exactly the reference's arithmetic (cpu_rope.cpp), so results match it bit for bit.
  for (int64_t tok = 0; tok < n_tokens; ++tok) {
    const double pos = static_cast<double>(pos0 + tok) * freq_scale;
    for (int64_t i = 0; i < half; ++i) {
      const double theta =
          pos * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(n_rot));
      t.cos[static_cast<size_t>(tok * half + i)] = static_cast<float>(std::cos(theta));
      t.sin[static_cast<size_t>(tok * half + i)] = static_cast<float>(std::sin(theta));
    }
  }
  t.pos0 = pos0;
  t.n_tokens = n_tokens;
  t.n_rot = n_rot;
  t.base = base;
  t.freq_scale = freq_scale;
  return t;
}

}  // namespace

Status rope(ThreadPool& pool, Scratch& scratch, const Srcs& src, const HostTensor& dst,
            const cpu::OpParams& p) {
  constexpr const char* kOp = "rope";
  CLPORT_RETURN_IF_ERROR(check_src_count(kOp, src, 1, 1));
  const HostTensor& x = src[0];
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "src0", x, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_tensor(kOp, "dst", dst, {DType::F32}));
  CLPORT_RETURN_IF_ERROR(check_same_shape(kOp, "src0", x, "dst", dst));
  const int mode = p.i[0];
  const int64_t pos0 = p.i[1];
  const int64_t n_rot = p.i[2];
  const double base = p.f[0];
  const double freq_scale = p.f[1];
  if (mode != kModeNormal && mode != kModeNeox) {
    return unsupported(
        kOp, "mode (iparams[0]) " + std::to_string(mode) + " is not 0 (normal) or 2 (NeoX)");
  }
  if (n_rot <= 0 || n_rot % 2 != 0 || n_rot > x.ne[0]) {
    return invalid(kOp, "n_rot (iparams[2]) = " + std::to_string(n_rot) +
                            " must be even and in (0, head_dim = " + std::to_string(x.ne[0]) + "]");
  }
  if (!(base > 0.0) || !std::isfinite(base))
    return invalid(kOp, "freq_base (fparams[0]) must be > 0");
  if (!(freq_scale > 0.0) || !std::isfinite(freq_scale)) {
    return invalid(kOp, "freq_scale (fparams[1]) must be > 0 (1 = no scaling)");
  }
  const int64_t half = n_rot / 2;
  const int64_t head_dim = x.ne[0];
  const int64_t n_tokens = x.ne[2];
  const RopeTable& table = table_for(scratch.rope, pos0, n_tokens, n_rot, base, freq_scale);
  const int64_t stride = mode == kModeNeox ? half : 1;  // distance between the two pair members
  auto body = [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t t = (r / x.ne[1]) % n_tokens;
      const float* in = flat_row_f32(x, r);
      float* out = flat_row_f32(dst, r);
      const float* c = table.cos.data() + t * half;
      const float* s = table.sin.data() + t * half;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = mode == kModeNeox ? i : 2 * i;
        const float x0 = in[a];
        const float x1 = in[a + stride];
        out[a] = x0 * c[i] - x1 * s[i];
        out[a + stride] = x0 * s[i] + x1 * c[i];
      }
      if (out != in) {
        for (int64_t i = n_rot; i < head_dim; ++i) out[i] = in[i];
      }
    }
  };
  if (rows(x) * head_dim < kMinValuesForPool) {
    body(0, 0, rows(x));
  } else {
    pool.parallel_for(rows(x), 4, body);
  }
  return Status::ok_status();
}

}  // namespace clport::fastcpu
