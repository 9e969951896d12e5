// `clport info MODEL`: what a GGUF file holds — architecture and sizes, tensor types, every
// metadata key, where the file came from — and which plugin would serve each op. --json prints
// the same as one document (docs/json-output.md).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "engine/engine_core.h"
#include "gguf/gguf.h"
#include "model/llama_model.h"
#include "report/report.h"
#include "command_registry.h"
#include "info_hparams.h"
#include "json_output.h"
#include "model/arch/arch_family.h"
#include "option_ranges.h"

namespace clport::cli {
namespace {

struct InfoFlags {
  std::string model;
  bool list_tensors = false;
  bool all_metadata = false;
  // Device selection for the op-binding section (same meaning as for `clport run`).
  std::string device = "auto";
  std::string plugin;
  std::string config_path;
  bool json = false;
};

// The backend `run` would bind with these flags (whose ops the binding sections name).
Result<std::unique_ptr<Backend>> info_backend(const InfoFlags& flags) {
  EngineOptions options;
  options.device = flags.device;
  options.plugin = flags.plugin;
  options.config_path = flags.config_path;
  return create_backend(options);
}

std::string mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  return text;
}

// What `run` with the default context and f16 KV cache would take on this backend.
void print_memory_estimate(const GgufFile& model, const Backend& backend, std::ostream& out) {
  auto e = estimate_load(model, ModelOptions{}, backend);
  if (!e.ok()) return;
  const LoadEstimate& m = e.value();
  out << "memory:       about " << mib(m.total()) << " to run with -c " << m.n_ctx << ": weights " << mib(m.weights)
      << ", KV cache " << mib(m.kv_cache) << " (f16 K and V; q8_0 about half), activations " << mib(m.activations)
      << " (prompt batch " << m.n_batch << ")\n";
}

nlohmann::json memory_estimate_json(const GgufFile& model, const Backend& backend) {
  auto e = estimate_load(model, ModelOptions{}, backend);
  if (!e.ok()) return nullptr;
  const LoadEstimate& m = e.value();
  return {{"n_ctx", m.n_ctx}, {"n_batch", m.n_batch}, {"weights_bytes", m.weights}, {"kv_cache_bytes", m.kv_cache},
          {"activation_bytes", m.activations}, {"total_bytes", m.total()}};
}

// Which plugin serves each op this model issues on the chosen device (or the CPU backend): the
// core's op_bindings(), as the C API's model report has it too.
int print_op_bindings(const GgufFile& model, const InfoFlags& flags, std::ostream& out) {
  auto hp = read_llama_hparams(model);
  if (!hp.ok()) {
    out << "op bindings:  not available (" << hp.status().message() << ")\n";
    return 0;
  }
  auto backend = info_backend(flags);
  if (!backend.ok()) {
    out << "op bindings:  " << backend.status().to_string() << "\n";
    return 10 + static_cast<int>(backend.status().stage());
  }
  const Backend& be = *backend.value();
  print_memory_estimate(model, be, out);
  out << "op bindings:  on " << be.description() << "\n";
  auto lines = op_bindings(model, be);
  if (!lines.ok()) {
    out << "  " << lines.status().to_string() << "\n";
    return 10 + static_cast<int>(lines.status().stage());
  }
  bool fused_header = false;
  for (const OpBindingLine& line : lines.value()) {
    if (line.fused && !fused_header) {
      out << "fused patterns (decode step; the plan takes one where the mat-mul's plugin claims it):\n";
      fused_header = true;
    }
    const size_t width = line.fused && line.op.rfind("ROPE", 0) != 0 ? 34 : 28;
    out << "  " << line.op << std::string(line.op.size() < width ? width - line.op.size() : 1, ' ')
        << line.plugin << "\n";
  }
  return 0;
}

std::string human_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  } else if (bytes >= (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1ull << 20));
  } else if (bytes >= (1ull << 10)) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / (1ull << 10));
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

std::string human_count(uint64_t n) {
  char buf[32];
  if (n >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.2fB", static_cast<double>(n) / 1e9);
  else if (n >= 1000000ull) std::snprintf(buf, sizeof buf, "%.2fM", static_cast<double>(n) / 1e6);
  else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  return buf;
}

// A size from `<arch>.<suffix>`: the value, "?" when absent, or the getter's complaint.
std::string arch_value(const GgufFile& f, const std::string& arch, const std::string& suffix) {
  const std::string key = arch + "." + suffix;
  const GgufValue* v = f.find(key);
  if (v == nullptr) return "?";
  return v->to_display_string(4);
}

std::string vocab_size(const GgufFile& f, const std::string& arch) {
  if (const GgufValue* t = f.find("tokenizer.ggml.tokens"); t && t->type == GgufType::Array) {
    return std::to_string(t->count);
  }
  return arch_value(f, arch, "vocab_size");
}

// GGUF has no standard "written by" field, so report the provenance keys that converters and
// quantizers do write, and say plainly what they imply.
const char* const kProvenanceKeys[] = {"general.name", "general.organization", "general.basename",
                                       "general.finetune", "general.size_label", "general.version",
                                       "general.author", "general.quantized_by", "general.url",
                                       "general.repo_url", "general.source.url",
                                       "general.source.huggingface.repository", "general.license"};

void print_provenance(const GgufFile& f, std::ostream& out) {
  for (const char* key : kProvenanceKeys) {
    if (const GgufValue* v = f.find(key)) {
      out << "  " << key << " = " << v->to_display_string() << "\n";
    }
  }
  std::string tool;
  if (f.has("tokenizer.ggml.pre") || f.has("general.size_label") || f.has("general.base_model.count")) {
    tool = "converted by llama.cpp's convert_hf_to_gguf.py or a compatible converter "
           "(it writes tokenizer.ggml.pre / general.size_label)";
  } else if (f.has("general.architecture")) {
    tool = "a GGUF writer (no converter-specific keys found)";
  }
  if (const GgufValue* q = f.find("general.quantization_version")) {
    tool += (tool.empty() ? "" : "; ") + std::string("quantized with ggml quantization version ") +
            q->to_display_string();
  }
  if (!tool.empty()) out << "  written by:  " << tool << "\n";
}

// general.file_type uses llama.cpp's llama_ftype numbering.
const char* file_type_name(uint64_t t) {
  switch (t) {
    case 0: return "all f32";
    case 1: return "mostly f16";
    case 2: return "mostly q4_0";
    case 3: return "mostly q4_1";
    case 7: return "mostly q8_0";
    case 8: return "mostly q5_0";
    case 9: return "mostly q5_1";
    case 10: return "mostly q2_K";
    case 11: return "mostly q3_K (small)";
    case 12: return "mostly q3_K (medium)";
    case 13: return "mostly q3_K (large)";
    case 14: return "mostly q4_K (small)";
    case 15: return "mostly q4_K (medium)";
    case 16: return "mostly q5_K (small)";
    case 17: return "mostly q5_K (medium)";
    case 18: return "mostly q6_K";
    case 25: return "mostly iq4_nl";
    case 32: return "mostly bf16";
    default: return "other";
  }
}

void print_sizes(const GgufFile& f, const std::string& arch, std::ostream& out) {
  out << "sizes:\n"
      << "  n_layer     " << arch_value(f, arch, "block_count") << "\n"
      << "  n_embd      " << arch_value(f, arch, "embedding_length") << "\n"
      << "  n_ff        " << arch_value(f, arch, "feed_forward_length") << "\n"
      << "  n_head      " << arch_value(f, arch, "attention.head_count") << "\n"
      << "  n_head_kv   " << arch_value(f, arch, "attention.head_count_kv") << "\n"
      << "  vocab       " << vocab_size(f, arch) << "\n"
      << "  context     " << arch_value(f, arch, "context_length") << "\n"
      << "  rope base   " << arch_value(f, arch, "rope.freq_base") << "\n";
}

void print_tensors(const GgufFile& f, bool list_each, std::ostream& out) {
  std::map<std::string, std::pair<int, uint64_t>> by_type;  // name -> (count, bytes)
  uint64_t params = 0;
  uint64_t bytes = 0;
  for (const auto& t : f.tensors()) {
    auto& slot = by_type[std::string(dtype_name(t.dtype))];
    slot.first++;
    slot.second += t.bytes;
    params += static_cast<uint64_t>(t.n_elements());
    bytes += t.bytes;
  }
  out << "tensors:      " << f.tensors().size() << " tensors, " << human_count(params)
      << " parameters, " << human_bytes(bytes) << "\n";
  for (const auto& [name, cb] : by_type) {
    out << "  " << name << std::string(name.size() < 6 ? 6 - name.size() : 0, ' ') << " x "
        << cb.first << "  (" << human_bytes(cb.second) << ")\n";
  }
  if (!list_each) return;
  for (const auto& t : f.tensors()) {
    out << "  " << t.name << "  " << dtype_name(t.dtype) << " [";
    for (int d = 0; d < t.n_dims; ++d) out << (d ? ", " : "") << t.ne[d];
    out << "]  " << human_bytes(t.bytes) << "\n";
  }
}

void print_metadata(const GgufFile& f, bool all, std::ostream& out) {
  out << "metadata:     " << f.metadata().size() << " keys\n";
  for (const auto& kv : f.metadata()) {
    const size_t items = all ? 64 : 8;
    out << "  " << kv.key << " = " << kv.value.to_display_string(items) << "\n";
  }
}

// The op-binding section of --json: the backend and each op's plugin, or why there is none.
// Also sets *memory to the memory estimate on that backend (null when there is none).
nlohmann::json op_bindings_json(const GgufFile& model, const InfoFlags& flags, int* exit_code, nlohmann::json* memory) {
  auto backend = info_backend(flags);
  *memory = nullptr;
  if (!backend.ok()) {
    *exit_code = 10 + static_cast<int>(backend.status().stage());
    return {{"backend", nullptr}, {"error", backend.status().to_string()}, {"ops", nlohmann::json::array()}};
  }
  *memory = memory_estimate_json(model, *backend.value());
  auto lines = op_bindings(model, *backend.value());
  nlohmann::json ops = nlohmann::json::array();
  if (lines.ok()) {
    for (const auto& line : lines.value()) ops.push_back({{"op", line.op}, {"plugin", line.plugin}, {"fused", line.fused}});
  }
  return {{"backend", backend.value()->description()},
          {"error", lines.ok() ? nlohmann::json(nullptr) : nlohmann::json(lines.status().message())},
          {"ops", ops}};
}

nlohmann::json hparams_json(const GgufFile& f) {
  auto hp = read_llama_hparams(f);
  if (!hp.ok()) return {{"error", hp.status().message()}};
  // The vocabulary size is token_embd's row count (the loader reads it there too).
  const GgufTensorInfo* embd = f.find_tensor("token_embd.weight");
  const int64_t n_vocab = embd != nullptr ? embd->ne[1] : hp->n_vocab;
  const ArchFamily& family = *hp->family;
  uint32_t sliding_window = 0;
  for (const LayerAttention& layer : hp->layer_attn) sliding_window = std::max(sliding_window, layer.window);
  return {{"error", nullptr},          {"arch", hp->arch},
          {"n_vocab", n_vocab},        {"n_ctx_train", hp->n_ctx_train},
          {"n_embd", hp->n_embd},      {"n_layer", hp->n_layer},
          {"n_ff", hp->n_ff},          {"n_head", hp->n_head},
          {"n_head_kv", hp->n_head_kv}, {"head_dim", hp->head_dim},
          {"n_rot", hp->n_rot},        {"rope_mode", hp->rope_mode == 2 ? "neox" : "normal"},
          {"rope_freq_base", hp->rope_freq_base}, {"rope_freq_scale", hp->rope_freq_scale},
          {"rms_eps", hp->rms_eps},    {"attn_scale", hp->attn_scale},
          {"qk_norm", family.has(Slot::AttnQNorm)}, {"post_norms", family.has(Slot::PostAttnNorm)},
          {"qkv_bias", family.has(Slot::Bq)}, {"gate_up_joined", family.has(Slot::GateUp)},
          {"tied_output", hp->tied_output},
          {"ffn", family.ffn_act == FfnActivation::GeluTanh ? "geglu" : "swiglu"},
          {"sliding_window", sliding_window}};
}

int info_json(const InfoFlags& flags) {
  auto opened = GgufFile::open(flags.model);
  if (!opened.ok()) {
    print_json({{"ok", false}, {"exit_code", 1}, {"error", opened.status().to_string()}});
    std::cerr << "clport info: " << opened.status().to_string() << "\n";
    return 1;
  }
  const GgufFile& f = *opened.value();
  auto arch = f.get_string("general.architecture");
  nlohmann::json provenance = nlohmann::json::object();
  for (const char* key : kProvenanceKeys) {
    if (const GgufValue* v = f.find(key)) provenance[key] = v->to_display_string();
  }
  nlohmann::json file_type = nullptr;
  if (auto ft = f.get_u32("general.file_type"); ft.ok()) file_type = {{"id", ft.value()}, {"name", file_type_name(ft.value())}};
  std::map<std::string, std::pair<int, uint64_t>> counted;  // dtype -> (tensors, bytes)
  nlohmann::json list = nlohmann::json::array();
  uint64_t params = 0, bytes = 0;
  for (const auto& t : f.tensors()) {
    auto& slot = counted[std::string(dtype_name(t.dtype))];
    slot.first++;
    slot.second += t.bytes;
    params += static_cast<uint64_t>(t.n_elements());
    bytes += t.bytes;
    if (flags.list_tensors) {
      list.push_back({{"name", t.name}, {"dtype", dtype_name(t.dtype)},
                      {"shape", std::vector<int64_t>(t.ne.begin(), t.ne.begin() + t.n_dims)}, {"bytes", t.bytes}});
    }
  }
  nlohmann::json by_type = nlohmann::json::object();
  for (const auto& [name, cb] : counted) by_type[name] = {{"count", cb.first}, {"bytes", cb.second}};
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& kv : f.metadata()) metadata[kv.key] = kv.value.to_display_string(flags.all_metadata ? 64 : 8);
  int exit_code = 0;
  nlohmann::json memory;
  nlohmann::json bindings = op_bindings_json(f, flags, &exit_code, &memory);
  nlohmann::json tensors = {{"count", f.tensors().size()}, {"parameters", params}, {"bytes", bytes}, {"by_type", by_type}};
  if (flags.list_tensors) tensors["list"] = list;
  print_json({{"ok", exit_code == 0},
              {"exit_code", exit_code},
              {"file", {{"path", flags.model}, {"bytes", f.file_size()}, {"gguf_version", f.version()},
                        {"alignment", f.alignment()}}},
              {"architecture", arch.ok() ? nlohmann::json(arch.value()) : nlohmann::json(nullptr)},
              {"provenance", provenance},
              {"file_type", file_type},
              {"hyper_parameters", hparams_json(f)},
              {"tensors", tensors},
              {"metadata", metadata},
              {"memory_estimate", memory},
              {"op_bindings", bindings}});
  return exit_code;
}

int info(const InfoFlags& flags) {
  if (flags.json) return info_json(flags);
  auto opened = GgufFile::open(flags.model);
  if (!opened.ok()) {
    std::cerr << "clport info: " << opened.status().to_string() << "\n";
    return 1;
  }
  const GgufFile& f = *opened.value();
  std::ostream& out = std::cout;
  out << "file:         " << flags.model << " (" << human_bytes(f.file_size()) << ", GGUF v"
      << f.version() << ", alignment " << f.alignment() << ")\n";
  auto arch = f.get_string("general.architecture");
  out << "architecture: " << (arch.ok() ? arch.value() : "unknown (" + arch.status().message() + ")")
      << "\n";
  out << "provenance:\n";
  print_provenance(f, out);
  if (auto ft = f.get_u32("general.file_type"); ft.ok()) {
    out << "file type:    " << ft.value() << " (" << file_type_name(ft.value()) << ")\n";
  }
  if (arch.ok()) print_sizes(f, arch.value(), out);
  if (arch.ok()) print_hparams(f, out);
  print_tensors(f, flags.list_tensors, out);
  print_metadata(f, flags.all_metadata, out);
  return print_op_bindings(f, flags, out);
}

const RegisterCommand kRegisterInfo{
    {"info", "Describe a GGUF model: architecture, sizes, tensor types, metadata", [](CLI::App& app) {
       auto flags = std::make_shared<InfoFlags>();
       app.add_option("model", flags->model, "GGUF model file")->required();
       app.add_flag("--tensors", flags->list_tensors, "list every tensor");
       app.add_flag("--all", flags->all_metadata, "show more array elements");
       app.add_option("--device", flags->device, "device for the op-binding report")
           ->transform(device_choice());
       app.add_option("--plugin", flags->plugin, "force this plugin in the op-binding report");
       app.add_option("--config", flags->config_path, "policy YAML for the op-binding report");
       app.add_flag("--json", flags->json, "print one JSON document (docs/json-output.md)");
       return [flags]() { return info(*flags); };
     }}};

}  // namespace
}  // namespace clport::cli
