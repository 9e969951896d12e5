// Normalised mean squared error, the one accuracy measure used by conformance, self-test and the
// per-layer precision check: sum((ref - got)^2) / sum(ref^2). Header-only so plugins and tools can
// use it without linking the core.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace clport {

// Returns +inf when `got` has a NaN or infinity where `ref` is finite (and when ref is non-finite
// at a position where got does not match it), so a broken kernel can never pass on a NaN. When
// ref is all zeros the result is 0 if got is too and +inf otherwise. n == 0 gives 0.
inline double nmse(const float* ref, const float* got, size_t n) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double err = 0.0;
  double energy = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double r = ref[i];
    const double g = got[i];
    if (!std::isfinite(r)) {
      // A non-finite reference must be matched exactly (same infinity, or NaN for NaN).
      const bool same = std::isnan(r) ? std::isnan(g) : (r == g);
      if (!same) return kInf;
      continue;
    }
    if (!std::isfinite(g)) return kInf;
    err += (r - g) * (r - g);
    energy += r * r;
  }
  if (energy == 0.0) return err == 0.0 ? 0.0 : kInf;
  return err / energy;
}

}  // namespace clport
