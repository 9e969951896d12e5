// The conformance catalogue: every registered op's cases (ops/registry/), in kind order, each
// case named and kinded by the entry it came from.
#include "conformance_cases.h"

#include "ops/op_registry.h"

namespace clport::conformance::detail {

std::vector<CaseSpec> catalogue(bool small) {
  std::vector<CaseSpec> out;
  for (const ops::OpEntry* op : ops::all()) {
    if (op->cases == nullptr) continue;
    const size_t first = out.size();
    op->cases(out, small);
    for (size_t i = first; i < out.size(); ++i) {
      out[i].op = op->short_name;
      out[i].kind = op->kind;
    }
  }
  return out;
}

}  // namespace clport::conformance::detail
