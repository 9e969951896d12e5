#include "generation_shapes.hpp"

#include <sstream>
#include <string>

namespace adreno {
namespace {

// Starting points chosen from the public architecture facts below, not yet timed on hardware
// (clport's tuner is meant to refine them per device). Adreno runs waves of 64 ("half") or 128
// ("full") fibers; a GEMV group of gemv_wn rows is one or two waves reading consecutive words of
// the split layout, and gemv_ks slices of K give the memory system more requests in flight for
// the short rows (K = 576 .. 2048) of small LLMs.
constexpr KernelShapes kTable[] = {
    // Adreno 6xx (Snapdragon 845..888): fewer ALUs per SP and a smaller register file; a
    // 128-item group keeps occupancy up without spilling the 32-float decode buffer.
    {"a6xx", 64, 2, 32, 4, 4, 4, "a6xx: 64-row GEMV groups, 128-item GEMM tiles"},
    // Adreno 7xx (8 Gen 1..3): larger register file, 1024-item groups; four K slices.
    {"a7xx", 64, 4, 64, 4, 4, 4, "a7xx: 64 rows x 4 K slices, 256-item GEMM tiles"},
    // Adreno 8xx (8 Elite): wider SPs; two full waves of rows per GEMV group.
    {"a8xx", 128, 2, 64, 4, 4, 4, "a8xx: 128 rows x 2 K slices, 256-item GEMM tiles"},
    // Adreno X1/X2 (Snapdragon X laptops): 8xx-class shader cores with more bandwidth.
    {"x1", 128, 2, 64, 4, 4, 4, "x1: 128 rows x 2 K slices, 256-item GEMM tiles"},
    {"x2", 128, 2, 64, 4, 4, 4, "x2: 128 rows x 2 K slices, 256-item GEMM tiles"},
    // Unknown generation: the conservative 6xx shapes.
    {"", 64, 2, 32, 4, 4, 4, "unknown generation: conservative 6xx shapes"},
};

uint32_t halve_to_fit(uint32_t& a, uint32_t& b, uint32_t limit) {
  // Shrinks b first (the cheaper loss), then a, keeping both >= 1.
  while (a * b > limit && b > 1) b /= 2;
  while (a * b > limit && a > 1) a /= 2;
  return a * b;
}

}  // namespace

KernelShapes shapes_for(const clport_device_desc& device) {
  const std::string gen = device.generation != nullptr ? device.generation : "";
  KernelShapes s = kTable[sizeof(kTable) / sizeof(kTable[0]) - 1];
  for (const KernelShapes& row : kTable) {
    if (gen == row.generation) {
      s = row;
      break;
    }
  }
  const uint32_t limit = device.max_work_group_size > 0 ? device.max_work_group_size : 1;
  halve_to_fit(s.gemv_wn, s.gemv_ks, limit);
  halve_to_fit(s.gemm_tn, s.gemm_tmi, limit);
  return s;
}

std::string shape_options(const KernelShapes& s) {
  std::ostringstream o;
  o << "-DGEMV_WN=" << s.gemv_wn << " -DGEMV_KS=" << s.gemv_ks << " -DGEMM_TN=" << s.gemm_tn
    << " -DGEMM_TMI=" << s.gemm_tmi << " -DGEMM_RM=" << s.gemm_rm;
  return o.str();
}

}  // namespace adreno
