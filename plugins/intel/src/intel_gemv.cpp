#include "intel_gemv.hpp"

#include <sstream>
#include <vector>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace intel {
namespace {

// CL_DEVICE_SUB_GROUP_SIZES_INTEL (cl_intel_required_subgroup_size); spelled out so the plugin
// does not depend on a cl_ext.h recent enough to have it.
constexpr cl_device_info kSubGroupSizesIntel = 0x4108;

// The weight-type part of the kernel names; intel_gemv.cl prefixes it with the path
// (intel_gemv_sg_ or intel_gemv_local_).
std::string dtype_suffix(int32_t dtype) {
  switch (dtype) {
    case CLPORT_DTYPE_F16: return "f16";
    case CLPORT_DTYPE_Q4_0: return "q4_0";
    case CLPORT_DTYPE_Q4_1: return "q4_1";
    case CLPORT_DTYPE_Q8_0: return "q8_0";
    case CLPORT_DTYPE_Q4_K: return "q4_k";
    case CLPORT_DTYPE_Q6_K: return "q6_k";
    default: return "";
  }
}

constexpr const char* kSuffixes[] = {"f16", "q4_0", "q4_1", "q8_0", "q4_k", "q6_k"};

bool power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

std::string SubgroupConfig::validate(uint32_t max_work_group_size) const {
  if (!power_of_two(sg_size) || sg_size < 4 || sg_size > 64) return "sg_size must be 4..64, a power of two";
  if (sg_rows < 1 || sg_rows > 64) return "sg_rows must be 1..64";
  if (sg_size * sg_rows > max_work_group_size) return "sg_size * sg_rows exceeds the max work-group size";
  return "";
}

std::string SubgroupConfig::build_options() const {
  std::ostringstream o;
  o << "-cl-std=CL1.2 -DSG_SIZE=" << sg_size << " -DSG_ROWS=" << sg_rows;
  if (reqd_size) o << " -DCLPORT_INTEL_REQD_SG=1";
  if (!extra_options.empty()) o << " " << extra_options;
  return o.str();
}

uint32_t choose_sub_group_size(const clport_cl_api& cl, cl_device_id device) {
  size_t bytes = 0;
  if (cl.clGetDeviceInfo(device, kSubGroupSizesIntel, 0, nullptr, &bytes) != CL_SUCCESS || bytes == 0 ||
      bytes % sizeof(size_t) != 0)
    return 16;
  std::vector<size_t> sizes(bytes / sizeof(size_t));
  if (cl.clGetDeviceInfo(device, kSubGroupSizesIntel, bytes, sizes.data(), nullptr) != CL_SUCCESS) return 16;
  uint32_t best = 0;
  for (size_t s : sizes) {
    if (s == 16) return 16;
    if (s >= 8 && s <= 64 && power_of_two(static_cast<uint32_t>(s)) && (best == 0 || s < best))
      best = static_cast<uint32_t>(s);
  }
  return best != 0 ? best : 16;
}

IntelGemv::IntelGemv(const clport_host& host, SubgroupConfig config)
    : host_(host), h_(host), config_(std::move(config)) {}

bool IntelGemv::has_kernel(int32_t weight_dtype) { return !dtype_suffix(weight_dtype).empty(); }

bool IntelGemv::sub_groups() const { return config_.extra_options.find("CLPORT_NO_SUBGROUPS") == std::string::npos; }

std::string IntelGemv::kernel_prefix() const { return sub_groups() ? "intel_gemv_sg_" : "intel_gemv_local_"; }

// Builds the program and creates every kernel up front. A compiler may define the
// cl_intel_subgroups macro without the runtime implementing the built-ins (oclgrind behind a
// spoofed Intel identity does: the build passes, clCreateKernel fails), so when the sub-group
// build or its kernels fail, the local-memory fallback is built instead, with a warning.
void IntelGemv::build() {
  const std::string source = h_.shared_source("common.cl") + "\n" + h_.shared_source("blocks.cl") + "\n" +
                             clport::sdk::plugin_kernel_source(clport_plugin_kernels, "intel", "intel_gemv.cl");
  for (;;) {
    try {
      kernels_.clear();
      program_ = clport::sdk::Program(&h_.cl(), h_.build_program(source, config_.build_options()));
      for (const char* suffix : kSuffixes)
        kernels_.emplace(suffix, clport::sdk::Kernel(h_.cl(), program_, (kernel_prefix() + suffix).c_str()));
      if (sub_groups())
        h_.log(CLPORT_LOG_INFO, "intel: GEMV on sub-groups of " + std::to_string(config_.sg_size) + " lanes, " +
                                    std::to_string(config_.sg_rows) + " rows per work-group" +
                                    (config_.reqd_size ? ", required sub-group size" : ""));
      return;
    } catch (const clport::sdk::Failure& f) {
      kernels_.clear();
      program_ = clport::sdk::Program();
      if (!sub_groups()) throw;
      h_.log(CLPORT_LOG_WARN, std::string("intel: sub-group GEMV kernels failed (") + f.what() +
                                  "); using the local-memory reduction instead");
      config_.extra_options += " -DCLPORT_NO_SUBGROUPS=1";
    }
  }
}

const clport::sdk::Kernel& IntelGemv::kernel(const std::string& suffix) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (program_.get() == nullptr) build();
  auto it = kernels_.find(suffix);
  if (it == kernels_.end()) throw clport::sdk::Failure("intel: kernel " + kernel_prefix() + suffix + " missing");
  return it->second;
}

void IntelGemv::enqueue(const clport_op& op) {
  using clport::sdk::set_args;
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const std::string suffix = dtype_suffix(w.dtype);
  if (suffix.empty()) throw clport::sdk::unsupported("intel: no sub-group GEMV for this weight dtype");
  const clport::sdk::Kernel& k = kernel(suffix);
  const cl_int K = static_cast<cl_int>(w.ne[0]), N = static_cast<cl_int>(w.ne[1]);
  const cl_ulong w_off = w.offset, w_row = static_cast<cl_ulong>(w.nb[1]), x_off = x.offset, d_off = d.offset;
  if (w.dtype == CLPORT_DTYPE_F16) {
    // Block reads need 16-byte aligned starts for every W row and every x row.
    const cl_int aligned = (w_off % 16 == 0 && w_row % 16 == 0 && x_off % 16 == 0 && K % 4 == 0) ? 1 : 0;
    set_args(h_.cl(), k, w.buffer, w_off, w_row, x.buffer, x_off, d.buffer, d_off, K, N, aligned);
  } else {
    set_args(h_.cl(), k, w.buffer, w_off, w_row, x.buffer, x_off, d.buffer, d_off, K, N);
  }
  const size_t wg = static_cast<size_t>(config_.sg_size) * config_.sg_rows;
  const size_t groups = (static_cast<size_t>(N) + config_.sg_rows - 1) / config_.sg_rows;
  const size_t global[2] = {groups * wg, static_cast<size_t>(x.ne[1])};
  const size_t local[2] = {wg, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
}

}  // namespace intel
