#include "mali_gemv.hpp"

#include <sstream>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace mali {
namespace {

constexpr const char* kKernels[] = {"mali_gemv_q4_0", "mali_gemv_q8_0", "mali_gemv_f16"};

std::string kernel_name(int32_t dtype) {
  switch (dtype) {
    case CLPORT_DTYPE_Q4_0: return "mali_gemv_q4_0";
    case CLPORT_DTYPE_Q8_0: return "mali_gemv_q8_0";
    case CLPORT_DTYPE_F16: return "mali_gemv_f16";
    default: return "";
  }
}

bool power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

std::string GemvConfig::validate(uint32_t max_work_group_size) const {
  if (!power_of_two(wg) || wg > max_work_group_size) return "gemv work-group must be a power of two within the device limit";
  if (rows < 1 || rows > 4) return "gemv rows must be 1..4";
  return "";
}

MaliGemv::MaliGemv(const clport_host& host, cl_device_id device, GemvConfig config)
    : host_(host), h_(host), device_(device), config_(std::move(config)) {}

bool MaliGemv::has_kernel(int32_t weight_dtype) { return !kernel_name(weight_dtype).empty(); }

std::string MaliGemv::options() const {
  std::ostringstream o;
  o << "-cl-std=CL1.2 -DMALI_WG=" << config_.wg << " -DMALI_ROWS=" << config_.rows;
  if (config_.int8_dot) o << " -DCLPORT_MALI_INT8_DOT=1";
  return o.str();
}

// Builds the program and its kernels; while a kernel allows fewer work-items than MALI_WG
// (registers), halves MALI_WG and rebuilds.
void MaliGemv::build() {
  const std::string source = h_.shared_source("common.cl") + "\n" +
                             clport::sdk::plugin_kernel_source(clport_plugin_kernels, "mali", "mali_gemv.cl");
  for (;;) {
    kernels_.clear();
    program_ = clport::sdk::Program(&h_.cl(), h_.build_program(source, options()));
    size_t limit = config_.wg;
    for (const char* name : kKernels) {
      clport::sdk::Kernel k(h_.cl(), program_, name);
      size_t allowed = 0;
      clport::sdk::check_cl(h_.cl().clGetKernelWorkGroupInfo(k.get(), device_, CL_KERNEL_WORK_GROUP_SIZE,
                                                             sizeof(allowed), &allowed, nullptr),
                            "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
      if (allowed < limit) limit = allowed;
      kernels_.emplace(name, std::move(k));
    }
    if (limit >= config_.wg) return;
    if (limit == 0) throw clport::sdk::Failure("mali: the driver allows no work-items for the GEMV kernels");
    uint32_t wg = config_.wg;
    while (wg > 1 && wg > limit) wg /= 2;
    h_.log(CLPORT_LOG_WARN, "mali: GEMV work-group " + std::to_string(config_.wg) + " exceeds the kernel limit " +
                                std::to_string(limit) + "; rebuilding with " + std::to_string(wg));
    config_.wg = wg;
  }
}

const clport::sdk::Kernel& MaliGemv::kernel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (program_.get() == nullptr) build();
  auto it = kernels_.find(name);
  if (it == kernels_.end()) throw clport::sdk::Failure("mali: kernel " + name + " missing from mali_gemv.cl");
  return it->second;
}

void MaliGemv::enqueue(const clport_op& op) {
  const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
  const std::string name = kernel_name(w.dtype);
  if (name.empty()) throw clport::sdk::unsupported("mali: no GEMV kernel for this weight dtype");
  const clport::sdk::Kernel& k = kernel(name);
  const cl_int K = static_cast<cl_int>(w.ne[0]), N = static_cast<cl_int>(w.ne[1]);
  clport::sdk::set_args(h_.cl(), k, w.buffer, cl_ulong(w.offset), cl_ulong(w.nb[1]), x.buffer, cl_ulong(x.offset),
                        d.buffer, cl_ulong(d.offset), K, N);
  const size_t groups = (static_cast<size_t>(N) + config_.rows - 1) / config_.rows;
  const size_t global[2] = {groups * config_.wg, static_cast<size_t>(x.ne[1])};
  const size_t local[2] = {config_.wg, 1};
  clport::sdk::enqueue(host_, k, 2, global, local);
}

}  // namespace mali
