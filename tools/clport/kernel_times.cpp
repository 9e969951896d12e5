#include "kernel_times.h"

#include <algorithm>
#include <map>

namespace clport::cli {

std::vector<KernelTime> kernel_times(const std::vector<OpTiming>& timings, uint64_t* all_ns) {
  std::map<std::string, KernelTime> by_name;
  uint64_t all = 0;
  for (const OpTiming& t : timings) {
    KernelTime& row = by_name[t.name];
    row.name = t.name;
    ++row.count;
    row.total_ns += t.duration_ns;
    all += t.duration_ns;
  }
  std::vector<KernelTime> rows;
  for (auto& entry : by_name) rows.push_back(std::move(entry.second));
  std::sort(rows.begin(), rows.end(), [](const KernelTime& a, const KernelTime& b) { return a.total_ns > b.total_ns; });
  if (all_ns != nullptr) *all_ns = all;
  return rows;
}

}  // namespace clport::cli
