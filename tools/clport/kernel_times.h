// Kernel timings (OpenCL profiling events) summed by kernel name, largest total first: the tables
// of `clport profile` and `bench e2e --parallel --kernel-table`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace clport::cli {

struct KernelTime {
  std::string name;
  int count = 0;
  uint64_t total_ns = 0;
};

// The rows by total time; *all_ns (optional) gets the sum of every duration.
std::vector<KernelTime> kernel_times(const std::vector<OpTiming>& timings, uint64_t* all_ns = nullptr);

}  // namespace clport::cli
