// op_bindings (report.h): the ops a model's forward pass issues, as the graph builders issue
// them (shapes of one decode step and of one 8-token batch), and which plugin serves each on a
// backend. `clport info` prints them; the C API's model report returns them as JSON.
#include <array>
#include <map>

#include "gguf/gguf.h"
#include "model/arch/arch_family.h"
#include "model/llama_model.h"
#include "report/report.h"

namespace clport {
namespace {

clport_tensor abi_tensor(DType dtype, std::array<int64_t, 4> ne) {
  clport_tensor t{};
  t.dtype = static_cast<int32_t>(dtype);
  t.n_dims = 4;
  const auto nb = contiguous_strides(dtype, ne);
  for (int i = 0; i < 4; ++i) {
    t.ne[i] = ne[i];
    t.nb[i] = nb[i];
  }
  return t;
}

}  // namespace

Result<std::vector<OpBindingLine>> op_bindings(const GgufFile& model, const Backend& be) {
  auto hp = read_llama_hparams(model);
  if (!hp.ok()) return hp.status();
  std::vector<OpBindingLine> out;
  const int64_t E = hp->n_embd, HD = hp->head_dim;
  // Every weight dtype in the file, on the GEMV (decode) and GEMM (prompt) paths.
  std::map<DType, int64_t> weight_types;
  for (const auto& t : model.tensors()) {
    if (t.n_dims == 2) weight_types[t.dtype] = t.ne[0];
  }
  auto show = [&](const std::string& label, clport_op_kind kind, std::vector<clport_tensor> src,
                  clport_tensor dst, int32_t rope_mode = 0) {
    clport_op op{};
    op.struct_size = sizeof(op);
    op.kind = kind;
    op.n_src = static_cast<int32_t>(src.size());
    for (size_t i = 0; i < src.size(); ++i) op.src[i] = &src[i];
    op.dst = &dst;
    op.params.rope = clport_rope_params{rope_mode, static_cast<int32_t>(hp->n_rot), 10000.0f, 1.0f};
    op.params.attention.scale = 1.0f;
    out.push_back({label, be.plugin_for(op), false});
  };
  auto show_fused = [&](const std::string& label, clport_op_kind kind, std::vector<clport_tensor> src,
                        clport_tensor dst, float eps) {
    clport_op op{};
    op.struct_size = sizeof(op);
    op.kind = kind;
    op.n_src = static_cast<int32_t>(src.size());
    for (size_t i = 0; i < src.size(); ++i) op.src[i] = &src[i];
    op.dst = &dst;
    op.params.eps = eps;
    out.push_back({label, be.plugin_for(op), true});
  };
  for (const auto& [dtype, k] : weight_types) {
    const std::string name(dtype_name(dtype));
    for (int64_t m : {int64_t{1}, int64_t{8}}) {
      show("MUL_MAT " + name + (m == 1 ? " gemv" : " gemm"), CLPORT_OP_MUL_MAT,
           {abi_tensor(dtype, {k, 64, 1, 1}), abi_tensor(DType::F32, {k, m, 1, 1})},
           abi_tensor(DType::F32, {64, m, 1, 1}));
    }
  }
  if (const auto* embd = model.find_tensor("token_embd.weight")) {
    show("GET_ROWS " + std::string(dtype_name(embd->dtype)), CLPORT_OP_GET_ROWS,
         {abi_tensor(embd->dtype, {E, 16, 1, 1}), abi_tensor(DType::I32, {8, 1, 1, 1})},
         abi_tensor(DType::F32, {E, 8, 1, 1}));
  }
  show("RMS_NORM", CLPORT_OP_RMS_NORM,
       {abi_tensor(DType::F32, {E, 8, 1, 1}), abi_tensor(DType::F32, {E, 1, 1, 1})},
       abi_tensor(DType::F32, {E, 8, 1, 1}));
  show(hp->rope_mode == 2 ? "ROPE neox" : "ROPE normal", CLPORT_OP_ROPE,
       {abi_tensor(DType::F32, {HD, hp->n_head, 8, 1})}, abi_tensor(DType::F32, {HD, hp->n_head, 8, 1}),
       hp->rope_mode);
  show("COPY f32->f16 (KV store)", CLPORT_OP_COPY, {abi_tensor(DType::F32, {HD, hp->n_head_kv, 8, 1})},
       abi_tensor(DType::F16, {HD, hp->n_head_kv, 8, 1}));
  show("ATTENTION f16 KV", CLPORT_OP_ATTENTION,
       {abi_tensor(DType::F32, {HD, hp->n_head, 8, 1}), abi_tensor(DType::F16, {HD, hp->n_head_kv, 64, 1}),
        abi_tensor(DType::F16, {HD, hp->n_head_kv, 64, 1})},
       abi_tensor(DType::F32, {HD, hp->n_head, 8, 1}));
  const bool geglu = hp->family->ffn_act == FfnActivation::GeluTanh;
  show(geglu ? "GEGLU" : "SWIGLU", geglu ? CLPORT_OP_GEGLU : CLPORT_OP_SWIGLU,
       {abi_tensor(DType::F32, {hp->n_ff, 8, 1, 1}), abi_tensor(DType::F32, {hp->n_ff, 8, 1, 1})},
       abi_tensor(DType::F32, {hp->n_ff, 8, 1, 1}));
  show("ADD", CLPORT_OP_ADD, {abi_tensor(DType::F32, {E, 8, 1, 1}), abi_tensor(DType::F32, {E, 8, 1, 1})},
       abi_tensor(DType::F32, {E, 8, 1, 1}));
  // The fused patterns of a decode step ("cpu": not claimed, the plan runs the plain ops).
  for (const auto& [dtype, k] : weight_types) {
    const std::string name(dtype_name(dtype));
    const clport_tensor w = abi_tensor(dtype, {k, 64, 1, 1}), x = abi_tensor(DType::F32, {k, 1, 1, 1});
    const clport_tensor y = abi_tensor(DType::F32, {64, 1, 1, 1}), g = abi_tensor(DType::F32, {k, 1, 1, 1});
    show_fused("RMS_NORM+MUL_MAT " + name, CLPORT_OP_RMS_NORM_MUL_MAT, {w, x, g}, y, hp->rms_eps);
    show_fused("MUL_MAT+ADD " + name, CLPORT_OP_MUL_MAT_ADD, {w, x, y}, y, 0.0f);
    show_fused("RMS_NORM+MUL_MAT+SWIGLU " + name, CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU, {w, x, g, w}, y, hp->rms_eps);
  }
  // Unlike the three above, these two go through show(): they take the RoPE mode.
  const size_t rope_fused = out.size();
  show("ROPE+KV_STORE f16 KV", CLPORT_OP_KV_STORE_ROPE,
       {abi_tensor(DType::F32, {HD, hp->n_head_kv, 8, 1}), abi_tensor(DType::F32, {HD, hp->n_head_kv, 8, 1})},
       abi_tensor(DType::F16, {HD, hp->n_head_kv, 64, 2}), hp->rope_mode);
  show("ROPE+ATTENTION f16 KV", CLPORT_OP_ROPE_ATTENTION,
       {abi_tensor(DType::F32, {HD, hp->n_head, 8, 1}), abi_tensor(DType::F16, {HD, hp->n_head_kv, 64, 1}),
        abi_tensor(DType::F16, {HD, hp->n_head_kv, 64, 1})},
       abi_tensor(DType::F32, {HD, hp->n_head, 8, 1}), hp->rope_mode);
  for (size_t i = rope_fused; i < out.size(); ++i) out[i].fused = true;
  return out;
}

}  // namespace clport
