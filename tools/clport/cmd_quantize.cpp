// `clport quantize IN OUT TYPE`: re-quantizes a GGUF model's weight matrices to one type.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "common/dtype.h"
#include "gguf/gguf.h"
#include "command_registry.h"
#include "engine_flags.h"

namespace clport::cli {
namespace {

struct QuantizeFlags {
  std::string input;
  std::string output;
  std::string type;
};

std::string weight_type_list() {
  std::string out;
  for (DType d : kWeightDTypes) {
    if (!out.empty()) out += ", ";
    out += std::string(dtype_name(d));
  }
  return out;
}

int quantize(const QuantizeFlags& f) {
  const auto target = dtype_from_name(f.type);
  bool is_weight_type = false;
  for (DType d : kWeightDTypes) is_weight_type = is_weight_type || (target && d == *target);
  if (!is_weight_type) {
    std::cerr << "clport quantize: unknown type '" << f.type << "' (choose one of "
              << weight_type_list() << ")\n";
    return 2;
  }
  // The core refuses an output that is the input file (compared by identity, not by name): exit
  // 24; an input that does not read or an output that does not write: 22.
  auto report = requantize_gguf(f.input, f.output, *target);
  if (!report.ok()) return report_failure("quantize", report.status());
  const RequantizeReport& r = report.value();
  for (const auto& note : r.notes) std::cerr << "note: " << note << "\n";
  std::printf("%s -> %s (%s): %d tensors converted, %d copied, %.2f MiB -> %.2f MiB\n",
              f.input.c_str(), f.output.c_str(), std::string(dtype_name(*target)).c_str(),
              r.converted, r.copied, static_cast<double>(r.input_bytes) / (1 << 20),
              static_cast<double>(r.output_bytes) / (1 << 20));
  return 0;
}

const RegisterCommand kRegisterQuantize{
    {"quantize", "Re-quantize a GGUF model's weights to one type", [](CLI::App& app) {
       auto flags = std::make_shared<QuantizeFlags>();
       app.add_option("input", flags->input, "input GGUF model")->required();
       app.add_option("output", flags->output, "output GGUF file (written to a temporary beside it, then renamed; never the input file)")->required();
       app.add_option("type", flags->type, "target type: " + weight_type_list())->required();
       return [flags]() { return quantize(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
