// Re-quantization of a whole GGUF model to one weight type (`clport quantize IN OUT TYPE`).
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "gguf/gguf.h"
#include "quant/quant.h"

namespace clport {

namespace {

// llama.cpp's llama_ftype numbering for general.file_type ("mostly <type>"); the K types map to
// their _S variants because every eligible weight gets the same type here.
int32_t file_type_for(DType t) {
  switch (t) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q4_1: return 3;
    case DType::Q8_0: return 7;
    case DType::Q5_0: return 8;
    case DType::Q5_1: return 9;
    case DType::Q4_K: return 14;
    case DType::Q5_K: return 16;
    case DType::Q6_K: return 18;
    case DType::Q2_K: return 10;
    case DType::Q3_K: return 11;
    case DType::IQ4_NL: return 25;
    case DType::BF16: return 32;
    default: return -1;
  }
}

// Rows too short for a 256-element K block get the 32-element legacy type of similar quality
// (the substitution llama.cpp's quantizer makes), and F16 if even that does not fit.
DType fallback_for(DType target, int64_t row) {
  auto fits = [row](DType d) { return row_bytes(d, row).has_value(); };
  if (fits(target)) return target;
  DType alt = DType::F16;
  if (target == DType::Q4_K) alt = DType::Q5_0;
  if (target == DType::Q5_K) alt = DType::Q5_1;
  if (target == DType::Q6_K) alt = DType::Q8_0;
  if (target == DType::Q2_K || target == DType::Q3_K) alt = DType::IQ4_NL;
  return fits(alt) ? alt : DType::F16;
}

bool is_float_or_quant(DType d) {
  for (DType w : kWeightDTypes) {
    if (w == d) return true;
  }
  return false;
}

Result<std::vector<uint8_t>> convert(const GgufTensorInfo& t, DType to) {
  const int64_t row = t.ne[0];
  const int64_t rows = t.n_elements() / row;
  const auto in_row = row_bytes(t.dtype, row);
  const auto out_row = row_bytes(to, row);
  if (!in_row || !out_row) {
    return Status(Stage::Internal, "tensor '" + t.name + "': row size check failed after validation");
  }
  std::vector<uint8_t> out;
  std::vector<float> scratch;
  try {
    out.resize(static_cast<size_t>(*out_row) * static_cast<size_t>(rows));
    scratch.resize(static_cast<size_t>(row));
  } catch (const std::bad_alloc&) {
    return Status(Stage::OutOfMemory, "tensor '" + t.name + "': cannot allocate " +
                                          std::to_string(*out_row * rows) + " bytes");
  }
  for (int64_t r = 0; r < rows; ++r) {
    const Status d = dequantize_row(t.dtype, t.data + r * *in_row, scratch.data(), row);
    if (!d.ok()) return Status(d.stage(), "tensor '" + t.name + "': " + d.message());
    const Status q = quantize_row(to, scratch.data(), out.data() + r * *out_row, row);
    if (!q.ok()) return Status(q.stage(), "tensor '" + t.name + "': " + q.message());
  }
  return out;
}

}  // namespace

Result<RequantizeReport> requantize_gguf(const std::string& input, const std::string& output,
                                         DType target) {
  if (!is_float_or_quant(target)) {
    return Status(Stage::InvalidArgument, "cannot quantize to " + std::string(dtype_name(target)) +
                                              ": not a weight type");
  }
  // By identity, not by name: "/tmp/x.gguf" and "/tmp/./x.gguf", a hard link or a symbolic link
  // are one file, which the output's rename would replace.
  std::error_code ec;
  if (std::filesystem::exists(output, ec) && std::filesystem::equivalent(input, output, ec) && !ec) {
    return Status(Stage::InvalidArgument, "the output '" + output + "' is the input file '" + input +
                                              "': write the re-quantized model to another file");
  }
  auto opened = GgufFile::open(input);
  if (!opened.ok()) return opened.status();
  const GgufFile& in = *opened.value();

  GgufWriter writer(in.version());
  for (const auto& kv : in.metadata()) writer.set_value(std::string(kv.key), kv.value);
  if (in.has("general.file_type")) writer.set_u32("general.file_type", static_cast<uint32_t>(file_type_for(target)));
  if (traits(target).quantized) writer.set_u32("general.quantization_version", 2);

  RequantizeReport report;
  // (row length, type used) -> (tensor count, first tensor name): one note per group.
  std::map<std::pair<int64_t, DType>, std::pair<int, std::string>> fallbacks;
  for (const auto& t : in.tensors()) {
    report.input_bytes += t.bytes;
    const std::vector<int64_t> ne(t.ne.begin(), t.ne.begin() + t.n_dims);
    // Only matrices are re-encoded: 1-D norms/biases stay exact, integer tensors are not weights.
    const bool eligible = t.n_dims == 2 && is_float_or_quant(t.dtype);
    const DType to = eligible ? fallback_for(target, t.ne[0]) : t.dtype;
    if (!eligible || to == t.dtype) {
      CLPORT_RETURN_IF_ERROR(writer.add_tensor_view(t.name, t.dtype, ne, t.data, t.bytes));
      report.copied++;
      report.output_bytes += t.bytes;
      continue;
    }
    if (to != target) {
      auto& group = fallbacks[{t.ne[0], to}];
      if (group.first++ == 0) group.second = t.name;
    }
    auto data = convert(t, to);
    if (!data.ok()) return data.status();
    report.output_bytes += data.value().size();
    CLPORT_RETURN_IF_ERROR(writer.add_tensor(t.name, to, ne, std::move(data).value()));
    report.converted++;
  }
  for (const auto& [key, group] : fallbacks) {
    report.notes.push_back(std::to_string(group.first) + " tensor(s) (e.g. '" + group.second +
                           "') have rows of " + std::to_string(key.first) +
                           ", not a multiple of the " + std::string(dtype_name(target)) +
                           " block (" + std::to_string(traits(target).block_size) +
                           "): stored as " + std::string(dtype_name(key.second)));
  }
  CLPORT_RETURN_IF_ERROR(writer.write(output));
  return report;
}

}  // namespace clport
