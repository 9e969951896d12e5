// One OpenCL program of the plugin, built on first use, and its kernels by name, each created once:
// what the GEMV, the GEMM and the f16 GEMM each keep. Thread-safe (plans may be prepared from
// several threads).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "clport_plugin/plugin_sdk.hpp"

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace nvidia {

// A kernel file of this plugin behind the shared helpers (nv_ptx.cl; nv_q4_k.cl, the in-place
// Q4_K blocks), and the options that build such a program with the helpers' PTX forms or their
// plain OpenCL C ones.
inline std::string behind_ptx_helpers(const char* file) {
  return clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_ptx.cl") + "\n" +
         clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", "nv_q4_k.cl") + "\n" +
         clport::sdk::plugin_kernel_source(clport_plugin_kernels, "nvidia", file);
}
inline std::string ptx_options(bool ptx) { return std::string("-cl-std=CL1.2 -DNV_PTX=") + (ptx ? "1" : "0"); }

class NvProgram {
 public:
  // The program's source and build options, asked for once, when the first kernel is wanted.
  using Build = std::function<std::pair<std::string, std::string>()>;

  NvProgram(const clport::sdk::Host& h, Build build) : h_(h), build_(std::move(build)) {}
  NvProgram(const NvProgram&) = delete;
  NvProgram& operator=(const NvProgram&) = delete;

  const clport::sdk::Kernel& kernel(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (program_.get() == nullptr) {
      const auto [source, options] = build_();
      program_ = clport::sdk::Program(&h_.cl(), h_.build_program(source, options));
    }
    auto it = kernels_.find(name);
    if (it == kernels_.end()) it = kernels_.emplace(name, clport::sdk::Kernel(h_.cl(), program_, name.c_str())).first;
    return it->second;
  }

 private:
  const clport::sdk::Host& h_;
  Build build_;
  std::mutex mutex_;
  clport::sdk::Program program_;
  std::map<std::string, clport::sdk::Kernel> kernels_;
};

}  // namespace nvidia
