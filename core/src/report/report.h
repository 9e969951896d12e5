// Reports for people and for programs, built once in the core so that the CLI (`clport devices`,
// `clport info`) and the C API (clport_runtime_report_json, clport_model_report_json) print
// the same: what the OpenCL search, the probe, the plugins and the policy decided per device,
// and which plugin serves each op a model issues.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

class GgufFile;
class Policy;

struct DevicesReportOptions {
  bool all_libraries = false;  // open every library the search finds, not only the first usable
  // The policy the plugin sections are judged with; null: Policy::load() (CLPORT_CONFIG).
  const Policy* policy = nullptr;
  std::string opencl_library;  // "" = the loader's search (CLPORT_OPENCL_LIBRARY first)
  std::string cache_dir;       // where the self-test verdicts are read ("" = the default)
};

struct DevicesReport {
  std::string text;   // the `clport devices` listing
  std::string json;   // the `clport devices --json` document (2-space indent)
  int device_count = 0;
  Status failure;     // why there is no device (when device_count == 0; ok when unknown)
};

// A loaded model's memory (LlamaModel::memory), as llama.cpp prints its buffers: for people, a
// few lines ("memory: weights ...", "memory: KV cache ...", ...); for programs, a JSON object
// {"weights": [{"name", "bytes"}], "weights_bytes", "kv_cache_bytes", "activation_bytes",
// "plugin_scratch": [{"name", "bytes"}], "allocated_bytes", "plain_freed_bytes"}.
struct ModelMemory;
CLPORT_API std::string model_memory_text(const ModelMemory& memory);
CLPORT_API std::string model_memory_json(const ModelMemory& memory);

// Never throws: a failure is described in the report.
CLPORT_API DevicesReport devices_report(const DevicesReportOptions& options);

// One op of a model's forward pass and who serves it on a backend ("cpu" when the plan runs
// the plain ops on the host, or a fused pattern nobody claims).
struct OpBindingLine {
  std::string op;      // "MUL_MAT q4_1 gemv", "RMS_NORM+MUL_MAT q8_0", ...
  std::string plugin;
  bool fused = false;  // a fused pattern of a decode step
};

// The ops the model in `file` issues (each weight dtype on the GEMV and GEMM paths, the
// elementwise ops, the fused patterns), with backend.plugin_for() of each. A file whose
// hyper-parameters cannot be read is the Status of that.
CLPORT_API Result<std::vector<OpBindingLine>> op_bindings(const GgufFile& file, const Backend& backend);

}  // namespace clport
