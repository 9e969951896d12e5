// Qualcomm Adreno plugin. Probe: the classifier's family/generation plus what the driver says
// (OpenCL C level, fp16). Serves MUL_MAT with F16/Q4_0/Q4_1/Q8_0/Q6_K weights through its own
// split weight layout (split_layout.hpp) and GEMV/GEMM kernels (kernels/adreno_mul_mat.cl);
// every other op binds to the generic plugin.
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "adreno_quirks.hpp"
#include "clport_common/setting_decls.hpp"
#include "clport_plugin/plugin_sdk.hpp"
#include "generation_shapes.hpp"
#include "split_layout.hpp"
#include "split_mat_mul.hpp"
#include "vendor_ops.hpp"

namespace {

using adreno::SplitWeight;

class AdrenoInstance final : public clport_plugin_instance {
 public:
  AdrenoInstance(const clport_host& host, const clport_device_desc& d, const adreno::KernelShapes& shapes,
                 const adreno::Workarounds& quirks)
      : packer_(host, d, !quirks.no_images), mat_mul_(host, shapes, quirks) {}

  ~AdrenoInstance() override {
    for (SplitWeight& w : scratch_) packer_.release(w);
    for (SplitWeight* w : live_) {  // layouts the host never released
      packer_.release(*w);
      delete w;
    }
  }

  bool images_enabled() const { return packer_.images_enabled(); }

  bool supports(const clport_op& op) override {
    if (!adreno::check_mul_mat(op).empty()) return false;
    const clport_tensor& w = *op.src[0];
    return w.layout == nullptr || find(w) != nullptr;
  }

  void* prepare_weight(const clport_tensor& weight) override {
    if (!adreno::check_weight(weight).empty() || weight.layout != nullptr) return nullptr;  // plain layout
    if (weight.buffer == nullptr) throw clport::sdk::Failure("adreno: prepare_weight without a buffer");
    auto w = std::make_unique<SplitWeight>();
    try {
      packer_.pack(weight, *w);
    } catch (...) {
      packer_.release(*w);
      throw;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(w.get());
    return w.release();
  }

  // The split arrays are all its GEMV and GEMM read (the repack read the plain bytes once, and
  // this plugin claims nothing else on a weight), so the host may free the plain copy.
  bool owns_weight(const void* /*layout*/) const override { return true; }

  void release_layout(void* layout) override {
    auto* w = static_cast<SplitWeight*>(layout);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (live_.erase(w) == 0) return;  // not ours: never touch it
    }
    packer_.release(*w);
    delete w;
  }

  void enqueue(const clport_op& op) override {
    if (std::string why = adreno::check_mul_mat(op); !why.empty()) throw clport::sdk::unsupported("adreno: " + why);
    const clport_tensor &w = *op.src[0], &x = *op.src[1], &d = *op.dst;
    // A split weight's plain copy may be gone (owns_weight): only its layout is read.
    if ((w.buffer == nullptr && w.layout == nullptr) || x.buffer == nullptr || d.buffer == nullptr)
      throw clport::sdk::Failure("adreno: mul_mat operand without a buffer");
    if (w.layout != nullptr) {
      const SplitWeight* split = find(w);
      if (split == nullptr) throw clport::sdk::unsupported("adreno: weight layout is not an Adreno split layout");
      return mat_mul_.enqueue(*split, x, d);
    }
    // A weight that was not prepared at load (plain GGUF bytes): split it into scratch arrays on
    // the device first. The in-order queue orders this repack after the previous op's reads.
    std::lock_guard<std::mutex> lock(scratch_mutex_);
    SplitWeight& scratch = scratch_for(w);
    const bool fresh = scratch.q == nullptr;
    try {
      packer_.pack(w, scratch);
    } catch (...) {
      if (fresh) packer_.release(scratch);  // a half-allocated set would be reused as whole
      throw;
    }
    mat_mul_.enqueue(scratch, x, d);
  }

 private:
  // The scratch arrays for an unprepared weight of w's dtype and shape (scratch_mutex_ held). One
  // set per shape, none freed before the instance: a prepared launch replays its repack and
  // mat-mul on the arrays it was recorded with, so arrays of another shape cannot replace them.
  SplitWeight& scratch_for(const clport_tensor& w) {
    const adreno::SplitSizes need = adreno::split_sizes(w.dtype, w.ne[0], w.ne[1]);
    for (SplitWeight& s : scratch_) {
      if (s.dtype == w.dtype && s.sizes.q_bytes == need.q_bytes && s.sizes.s_bytes == need.s_bytes &&
          s.sizes.sc_bytes == need.sc_bytes && s.sizes.q_texels == need.q_texels)
        return s;
    }
    return scratch_.emplace_back();  // its arrays are allocated by the first pack()
  }

  // The live split weight behind w.layout when it matches w's dtype and shape, else NULL.
  const SplitWeight* find(const clport_tensor& w) {
    auto* split = static_cast<SplitWeight*>(w.layout);
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_.count(split) == 0) return nullptr;
    if (split->dtype != w.dtype || split->K != w.ne[0] || split->N != w.ne[1]) return nullptr;
    return split;
  }

  adreno::SplitPacker packer_;
  adreno::SplitMatMul mat_mul_;
  std::mutex mutex_;  // live_
  std::set<SplitWeight*> live_;
  std::mutex scratch_mutex_;
  std::vector<SplitWeight> scratch_;  // see scratch_for()
};

struct AdrenoPlugin {
  static constexpr const char* kName = "adreno";
  static constexpr const char* kVersion = "0.2.0";
  static constexpr bool kHasPrepareWeight = true;

  static const std::vector<clport_setting_decl>& settings() { return adreno::settings(); }

  static int32_t probe(const clport_device_desc& d, const char** reason) {
    const std::string family = d.family != nullptr ? d.family : "";
    if (family != "adreno") {
      *reason = "not an Adreno GPU";
      return 0;
    }
    if (d.generation_number != 0 && d.generation_number < 600) {
      *reason = "Adreno 5xx and older are not served (generic kernels instead)";
      return 0;
    }
    // Same admission rule as llama.cpp's Adreno backend: OpenCL C 2.0 marks a driver whose
    // compiler handles these kernels (older A6x phone compilers do not).
    if (clport_opencl_version(d.opencl_c_version) < 200) {
      *reason = "driver offers OpenCL C below 2.0: old Adreno compiler";
      return 0;
    }
    if (d.generation_number >= 700 || d.generation_number == 0) {
      *reason = d.generation_number == 0 ? "Adreno (generation unknown), OpenCL C 2.0+: split-layout mat-mul"
                                         : "Adreno 7xx/8xx, OpenCL C 2.0+: split-layout mat-mul";
      return 100;
    }
    *reason = "Adreno 6xx, OpenCL C 2.0+: split-layout mat-mul, one kernel per program";
    return 80;
  }

  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc& d) {
    clport::sdk::Host h(host);
    const adreno::KernelShapes shapes = adreno::shapes_for(d);
    adreno::Workarounds quirks = adreno::quirks_for(d);
    for (const std::string& q : quirks.applied) h.log(CLPORT_LOG_INFO, "adreno: quirk " + q);
    if (const std::string settings = clport::plugin_common::describe_settings(host); !settings.empty())
      h.log(CLPORT_LOG_INFO, "adreno: policy settings " + settings);
    adreno::apply_settings(quirks, h);
    auto inst = std::make_unique<AdrenoInstance>(host, d, shapes, quirks);
    h.log(CLPORT_LOG_INFO, std::string("adreno: ") + shapes.why + "; weights " +
                               (inst->images_enabled() ? "through image1d_buffer views" : "in plain buffers") +
                               (quirks.no_subgroups ? "; no sub-group features" : "") +
                               (quirks.one_kernel_per_program ? "; one kernel per program" : ""));
    return inst;
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(AdrenoPlugin)
