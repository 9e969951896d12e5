// format_table: the human-readable conformance table.
#include <cstdio>
#include <sstream>

#include "clport_devtools/conformance_report.h"

namespace clport::conformance {

std::string format_table(const Report& report, bool show_unsupported) {
  std::ostringstream out;
  out << "plugin " << report.plugin << " " << report.plugin_version << " (" << report.plugin_path
      << ")\ndevice " << report.device << "\nseed   " << report.seed << "\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-20s %-40s %-11s %10s %10s %9s\n", "op", "dtype", "shape",
                "result", "nmse", "threshold", "ms");
  out << line;
  for (const CaseResult& c : report.cases) {
    if (!c.supported && !show_unsupported) continue;
    const char* verdict = !c.supported ? (c.op == "layer group" ? "not taken" : "unsupported") : c.passed ? "pass" : "FAIL";
    const std::string dtype = c.dtype + (c.prepared ? " (prep.)" : "");
    std::snprintf(line, sizeof line, "%-10s %-20s %-40s %-11s %10.2e %10.0e %9.2f", c.op.c_str(),
                  dtype.c_str(), c.shape.c_str(), verdict, c.nmse, c.threshold, c.millis);
    out << line;
    if (c.nmse_quantized >= 0.0) {
      std::snprintf(line, sizeof line, "  q8 act. %.2e", c.nmse_quantized);
      out << line;
    }
    for (size_t i = 0; i < c.kernels.size(); ++i) out << (i == 0 ? "  " : ",") << c.kernels[i];
    out << "\n";
    if (c.supported && !c.passed) out << "           -> " << c.message << "\n";
  }
  out << "\n" << report.passed << " passed, " << report.failed << " failed, " << report.unsupported
      << " not supported by the plugin";
  if (report.groups_not_taken > 0) out << "; " << report.groups_not_taken << " layer groups not taken (op by op)";
  out << "\n";
  return out.str();
}

}  // namespace clport::conformance
