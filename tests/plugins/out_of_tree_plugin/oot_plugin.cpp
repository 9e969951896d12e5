// Out-of-tree test plugin: serves SCALE on any device with its own kernel, built through the
// host's program cache, and declares one enum setting through the plain ABI struct. Only the
// installed SDK headers are used.
#include <memory>
#include <string>
#include <vector>

#include "clport_plugin/plugin_sdk.hpp"

namespace {

const char* const kSource = R"CLC(
__kernel void oot_scale(__global const float* src, ulong src_off, __global float* dst,
                        ulong dst_off, float s) {
  const size_t i = get_global_id(0);
  dst[dst_off / 4 + i] = src[src_off / 4 + i] * s;
}
)CLC";

bool dense_f32(const clport_tensor* t) {
  return t != nullptr && t->dtype == CLPORT_DTYPE_F32 && t->nb[0] == 4 && t->nb[1] == 4 * t->ne[0] &&
         t->nb[2] == t->nb[1] * t->ne[1] && t->nb[3] == t->nb[2] * t->ne[2];
}

// local_size: auto leaves the work-group size to the driver, one runs work-groups of one item.
const char* const kLocalSizes[] = {"auto", "one"};

class OotInstance final : public clport_plugin_instance {
 public:
  explicit OotInstance(const clport_host& host)
      : host_(host), program_(host.cl, clport::sdk::Host(host).build_program(kSource, "")),
        kernel_(*host.cl, program_, "oot_scale"),
        one_item_groups_(clport::sdk::Host(host).setting_int("local_size", 0) == 1) {}

  bool supports(const clport_op& op) override {
    return op.kind == CLPORT_OP_SCALE && op.n_src == 1 && dense_f32(op.src[0]) && dense_f32(op.dst) &&
           op.src[0]->ne[0] * op.src[0]->ne[1] * op.src[0]->ne[2] * op.src[0]->ne[3] ==
               op.dst->ne[0] * op.dst->ne[1] * op.dst->ne[2] * op.dst->ne[3];
  }
  void enqueue(const clport_op& op) override {
    if (!supports(op)) throw clport::sdk::unsupported("oot: only dense F32 SCALE");
    const cl_ulong src_off = op.src[0]->offset, dst_off = op.dst->offset;
    clport::sdk::set_args(*host_.cl, kernel_, op.src[0]->buffer, src_off, op.dst->buffer, dst_off, op.params.scale);
    const size_t n = static_cast<size_t>(op.dst->ne[0] * op.dst->ne[1] * op.dst->ne[2] * op.dst->ne[3]);
    const size_t one = 1;
    clport::sdk::enqueue(host_, kernel_, 1, &n, one_item_groups_ ? &one : nullptr);
  }

 private:
  const clport_host& host_;
  clport::sdk::Program program_;
  clport::sdk::Kernel kernel_;
  bool one_item_groups_;
};

struct OotPlugin {
  static constexpr const char* kName = "oot";
  static constexpr const char* kVersion = "1.0-test";
  static constexpr bool kHasPrepareWeight = false;
  static const std::vector<clport_setting_decl>& settings() {
    static const std::vector<clport_setting_decl> decls = {
        {"local_size", CLPORT_SETTING_ENUM,
         "auto leaves the work-group size to the driver, one runs work-groups of one work-item (default auto)", 0, 1,
         nullptr, nullptr, 0, kLocalSizes, 2},
    };
    return decls;
  }
  static int32_t probe(const clport_device_desc&, const char** reason) {
    *reason = "out-of-tree test plugin: SCALE on any device";
    return 500;
  }
  static std::unique_ptr<clport_plugin_instance> create(const clport_host& host, const clport_device_desc&) {
    return std::make_unique<OotInstance>(host);
  }
};

}  // namespace

CLPORT_DEFINE_PLUGIN(OotPlugin)
