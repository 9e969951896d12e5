// Program management and dispatch for the shared kernels; the per-op launches are in
// op_launch.cpp.
#include "clport_common/op_runner.hpp"

#include <algorithm>
#include <memory>
#include <sstream>

#include "clport_common/op_checks.hpp"

namespace clport::plugin_common {

OpRunner::OpRunner(const clport_host& host, const clport_device_desc& device, Tuning tuning)
    : host_(host), h_(host), tuning_(std::move(tuning)), compute_units_(device.compute_units > 0 ? device.compute_units : 1),
      cpu_device_((device.device_type & CL_DEVICE_TYPE_CPU) != 0) {
  apply_device_defaults(tuning_, device);
  if (host.precision == 1) tuning_.int_dot = 0;  // precision fp32: float activations everywhere
  if (std::string e = tuning_.validate(device.max_work_group_size); !e.empty())
    throw sdk::Failure("invalid kernel tuning for " + std::string(device.name ? device.name : "device") +
                       ": " + e);
  if (!tuning_.private_vector_arrays)
    h_.log(CLPORT_LOG_INFO, "shared kernels built with -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS=1 (private_vector_arrays: false)");
}

std::vector<const char*> OpRunner::program_files(ProgramId id) {
  switch (id) {
    case ProgramId::GetRows: return {"common.cl", "blocks.cl", "get_rows.cl", "get_rows_repacked.cl"};
    case ProgramId::Gemv:
    case ProgramId::GemvFused: return {"common.cl", "blocks.cl", "mul_mat_gemv.cl"};
    case ProgramId::GemvPacked: return {"common.cl", "blocks.cl", "mul_mat_gemv.cl", "mul_mat_gemv_packed.cl"};
    case ProgramId::GemvQ8a:
      return {"common.cl", "blocks.cl", "mul_mat_gemv_q8a.cl", "mul_mat_gemv_q8a_x16.cl",
              "mul_mat_gemv_q8a_x8_layout.cl", "mul_mat_gemv_q8a_x8.cl"};
    case ProgramId::Gemm: return {"common.cl", "blocks.cl", "mul_mat_gemm.cl"};
    case ProgramId::Norm: return {"common.cl", "reduce.cl", "norm.cl"};
    case ProgramId::Softmax: return {"common.cl", "reduce.cl", "softmax.cl"};
    case ProgramId::Attention:
      return {"common.cl", "blocks.cl", "reduce.cl", "rope_math.cl", "attention.cl", "attention_serial.cl", "attention_merge.cl"};
    case ProgramId::Rope: return {"common.cl", "rope_math.cl", "rope.cl"};
    case ProgramId::Elementwise: return {"common.cl", "elementwise.cl"};
    case ProgramId::Copy: return {"common.cl", "copy.cl"};
    case ProgramId::Count_: break;
  }
  return {};
}

std::string OpRunner::program_options(ProgramId id, const std::string& dtype) const {
  const Tuning& t = tuning_;
  std::ostringstream o;
  o << "-cl-std=CL1.2 -DCLPORT_F16_BITS=" << t.f16_bits;
  switch (id) {
    case ProgramId::Gemv:
      o << " -DGEMV_WG=" << t.gemv_wg << " -DGEMV_ROWS=" << t.gemv_rows << " -DGEMV_SPLIT=" << t.gemv_split;
      break;
    case ProgramId::GemvFused:
      o << " -DGEMV_FUSED=1 -DGEMV_WG=" << t.gemv_wg << " -DGEMV_ROWS=" << t.gemv_rows
        << " -DGEMV_SPLIT=" << t.gemv_split;
      break;
    case ProgramId::GemvPacked:
      o << " -DGEMV_WG=" << t.gemv_packed_wg << " -DGEMV_ROWS=" << t.gemv_packed_rows << " -DGEMV_SPLIT=" << t.gemv_split;
      break;
    case ProgramId::GemvQ8a: o << " -DQ8A_ROWS=" << t.q8a_rows; break;
    case ProgramId::Gemm:
      o << " -DGEMM_TN=" << t.gemm_tn << " -DGEMM_TM=" << t.gemm_tm << " -DGEMM_RN=" << t.gemm_rn
        << " -DGEMM_RM=" << t.gemm_rm << " -DGEMM_KMAJOR=" << t.gemm_kmajor;
      break;
    case ProgramId::Norm: o << " -DNORM_WG=" << t.norm_wg; break;
    case ProgramId::Softmax: o << " -DSOFTMAX_WG=" << t.softmax_wg; break;
    case ProgramId::Attention:
      o << " -DATT_WG=" << t.att_wg << " -DATT_DPT=" << t.att_dpt << " -DATT_SERIAL=" << t.att_serial;
      if (cpu_device_) o << " -DCLPORT_ROPE_POLY=1";  // rope_math.cl: RoPE angles the compiler vectorizes
      break;
    case ProgramId::Rope:
      if (cpu_device_) o << " -DCLPORT_ROPE_POLY=1";
      o << " -DELT_WG=" << t.elt_wg;
      break;
    default: o << " -DELT_WG=" << t.elt_wg; break;
  }
  if (!t.private_vector_arrays) o << " -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS=1";
  if (!dtype.empty()) o << " -DCLPORT_ONE_DTYPE=1 -DCLPORT_ONLY_" << dtype << "=1";
  if (!t.extra_options.empty()) o << " " << t.extra_options;
  return o.str();
}

const sdk::Kernel& OpRunner::kernel(ProgramId id, const std::string& name, const std::string& dtype) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  sdk::Program& program = programs_[{id, dtype}];
  if (program.get() == nullptr) {
    std::string source;
    for (const char* file : program_files(id)) source += h_.shared_source(file) + "\n";
    program = sdk::Program(&h_.cl(), h_.build_program(source, program_options(id, dtype)));
  }
  const sdk::Kernel& k = kernels_.emplace(name, sdk::Kernel(h_.cl(), program, name.c_str())).first->second;
  // What this device can launch for this kernel (registers and local memory included), so that
  // a tuning too large for a GPU is a clear error instead of a failing enqueue.
  cl_device_id device = nullptr;
  size_t limit = 0;
  // The host context holds exactly the one device this instance is bound to.
  if (h_.cl().clGetContextInfo(host_.context, CL_CONTEXT_DEVICES, sizeof(device), &device, nullptr) != CL_SUCCESS ||
      h_.cl().clGetKernelWorkGroupInfo(k.get(), device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                       nullptr) != CL_SUCCESS)
    limit = 0;
  wg_limits_[k.get()] = limit;
  return k;
}

void OpRunner::free_buffers(const PackedWeight& w) noexcept {
  for (cl_mem m : {w.q, w.s})
    if (m != nullptr) host_.free_buffer(host_.host_ctx, m);
}

OpRunner::~OpRunner() {
  for (const PackedWeight* w : packed_) {
    free_buffers(*w);
    delete w;
  }
}

const PackedWeight* OpRunner::find_packed(const clport_tensor& w) const {
  if (w.layout == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(packed_mutex_);
  auto it = packed_.find(static_cast<const PackedWeight*>(w.layout));
  return it == packed_.end() ? nullptr : *it;
}

const PackedWeight* OpRunner::packed_layout(const clport_tensor& w) const {
  const PackedWeight* p = find_packed(w);
  if (p == nullptr || p->format != PackedFormat::Split16 || p->dtype != w.dtype || p->K != w.ne[0] ||
      p->N != w.ne[1])
    return nullptr;
  return p;
}

const PackedWeight* OpRunner::rows8_layout(const clport_tensor& w) const {
  const PackedWeight* p = find_packed(w);
  if (p == nullptr || p->format != PackedFormat::Rows8 || p->dtype != w.dtype || p->K != w.ne[0] || p->N != w.ne[1])
    return nullptr;
  return p;
}

std::string OpRunner::check(const clport_op& op) const {
  // With the packed layout on, its GEMV serves these weights: the fused kernels read only the
  // plain layout, so the plan keeps plain mat-muls for them (and the weights get packed).
  const bool fused_gemv = op.kind == CLPORT_OP_RMS_NORM_MUL_MAT || op.kind == CLPORT_OP_MUL_MAT_ADD ||
                          op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU;
  if (fused_gemv && tuning_.gemv_packed == 1 && op.n_src >= 1 && op.src[0] != nullptr &&
      is_packable_dtype(op.src[0]->dtype))
    return "the packed GEMV layout is on for this dtype";
  // Likewise a fused kind on a weight that would get the Rows8 layout but has none yet: refused,
  // so that the loader offers the weight for repacking (it offers only the weights of plain
  // mat-muls); with the layout on the weight the fused kind is claimed.
  if (fused_gemv && op.n_src >= 1 && op.src[0] != nullptr && op.src[0]->layout == nullptr &&
      takes_rows8_layout(*op.src[0]))
    return "the weight is to be repacked eight rows at a time first (q8a_x8)";
  if (op.kind == CLPORT_OP_ROPE_ATTENTION && tuning_.rope_attention != 1)
    return "ROPE_ATTENTION is off for this device (tuning rope_attention)";
  // The SwiGLU's kernels read both weights from the same kind of layout: with only one of them
  // repacked, the plain kernels would read the other's freed plain copy.
  if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU && op.n_src > 3 && op.src[0] != nullptr && op.src[3] != nullptr &&
      (rows8_layout(*op.src[0]) != nullptr) != (rows8_layout(*op.src[3]) != nullptr))
    return "only one of the gate and up weights has the eight-row layout";
  if (op.n_src < 1 || op.src[0] == nullptr || op.src[0]->layout == nullptr) return check_op(op, tuning_);
  // A weight with one of our layouts: the same checks on its plain description (the paths that
  // do not read the layout read the plain buffer), plus that the handle is ours and describes
  // this very weight. The Rows8 layout serves every MUL_MAT-family op (the SwiGLU's up weight
  // may carry one too); the packed one only MUL_MAT (and get_rows, which reads the plain buffer).
  const PackedWeight* p = find_packed(*op.src[0]);
  if (p == nullptr) return "weight carries a layout this plugin did not make";
  if (p->dtype != op.src[0]->dtype || p->K != op.src[0]->ne[0] || p->N != op.src[0]->ne[1])
    return "weight does not match its packed layout";
  const bool rows8 = p->format == PackedFormat::Rows8;
  if (op.kind != CLPORT_OP_MUL_MAT && op.kind != CLPORT_OP_GET_ROWS && !(rows8 && fused_gemv))
    return "only mul_mat and get_rows take a packed weight";
  clport_tensor plain = *op.src[0], plain_up{};
  plain.layout = nullptr;
  clport_op copy = op;
  copy.src[0] = &plain;
  if (op.kind == CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU && op.n_src > 3 && op.src[3] != nullptr &&
      op.src[3]->layout != nullptr) {
    if (rows8_layout(*op.src[3]) == nullptr) return "up weight carries a layout this plugin did not make for it";
    plain_up = *op.src[3];
    plain_up.layout = nullptr;
    copy.src[3] = &plain_up;
  }
  return check_op(copy, tuning_);
}

bool OpRunner::takes_rows8_layout(const clport_tensor& weight) const {
  return tuning_.q8a_x8 == 1 && tuning_.int_dot == 1 && is_rows8_dtype(weight.dtype) &&
         weight.ne[0] % rows8_unit_values(weight.dtype) == 0;
}

cl_mem OpRunner::layout_buffer(const clport_tensor& weight, uint64_t bytes) {
  int32_t status = CLPORT_PLUGIN_OK;
  cl_mem m = host_.alloc_buffer(host_.host_ctx, static_cast<size_t>(bytes), &status);
  if (m != nullptr) return m;
  if (status != CLPORT_PLUGIN_OUT_OF_MEMORY)
    throw sdk::Failure("cannot allocate the " + std::to_string(bytes) + " bytes of a repacked weight");
  // A repacked copy is only a speed-up: when the device has no room for it, the weight keeps its
  // plain layout (and the model still loads) instead of failing the load.
  h_.log(CLPORT_LOG_WARN, "no device memory for a repacked copy of a " + std::to_string(weight.ne[0]) + " x " +
                              std::to_string(weight.ne[1]) + " weight (" + std::to_string(bytes) +
                              " bytes): it stays in the plain layout");
  return nullptr;
}

namespace {
// Source bytes a sliced repack reads between two reports to the host (weight_bytes_read).
constexpr uint64_t kRepackSliceBytes = uint64_t{8} << 20;
}  // namespace

void* OpRunner::prepare_weight(const clport_tensor& weight) {
  if (weight.layout != nullptr) return nullptr;
  const bool rows8 = takes_rows8_layout(weight);
  if (!rows8 && (tuning_.gemv_packed != 1 || !is_packable_dtype(weight.dtype))) return nullptr;
  // Only a weight the kernels take as it is: any other stays plain (and unsupported).
  if (!check_weight(weight).empty()) return nullptr;
  if (weight.buffer == nullptr) throw sdk::Failure("prepare_weight: weight without a buffer");

  auto w = std::make_unique<PackedWeight>();
  w->format = rows8 ? PackedFormat::Rows8 : PackedFormat::Split16;
  w->dtype = weight.dtype;
  w->K = weight.ne[0];
  w->N = weight.ne[1];
  const cl_int rows = static_cast<cl_int>(w->N);
  const auto src_off = static_cast<cl_ulong>(weight.offset), row_bytes = static_cast<cl_ulong>(weight.nb[1]);
  if (rows8) {
    const sdk::Kernel& k = kernel(ProgramId::GemvQ8a, std::string("x8_pack_") + kernel_type_suffix(weight.dtype),
                                  kernel_type_suffix(weight.dtype));
    w->q = layout_buffer(weight, rows8_bytes(w->dtype, w->K, w->N));
    if (w->q == nullptr) return nullptr;
    try {
      const auto units = static_cast<cl_int>(w->K / rows8_unit_values(w->dtype));
      const cl_int groups = (rows + 7) / 8;
      // In slices of about kRepackSliceBytes of the source, each reported read once done, when
      // the host can drop what was read (the source may be a mapped file's pages on a device
      // that shares host memory): then only a slice of it is resident next to the layout.
      const bool report = CLPORT_HOST_HAS_WEIGHT_BYTES_READ(&host_);
      const auto group_bytes = static_cast<uint64_t>(8 * row_bytes);
      const cl_int slice = report ? static_cast<cl_int>(std::max<uint64_t>(1, kRepackSliceBytes / group_bytes)) : groups;
      for (cl_int first = 0; first < groups; first += slice) {
        const cl_int count = std::min(slice, groups - first);
        sdk::set_args(h_.cl(), k, weight.buffer, src_off, row_bytes, units, rows, w->q, first);
        const size_t global[2] = {sdk::round_up(static_cast<size_t>(units), 64), static_cast<size_t>(count)};
        sdk::enqueue(host_, k, 2, global, nullptr);  // a one-off copy: the driver's group size
        if (report) {
          sdk::check_cl(h_.cl().clFinish(host_.queue), "clFinish(x8_pack)");
          const uint64_t begin = static_cast<uint64_t>(first) * group_bytes;
          const uint64_t end = std::min<uint64_t>(static_cast<uint64_t>(first + count) * group_bytes,
                                                  static_cast<uint64_t>(rows) * row_bytes);
          host_.weight_bytes_read(host_.host_ctx, weight.buffer, src_off + begin, end - begin);
        }
      }
    } catch (...) {
      free_buffers(*w);
      throw;
    }
  } else {
    const sdk::Kernel& k = kernel(ProgramId::GemvPacked, std::string("pack_") + dtype_info(weight.dtype)->name,
                                  kernel_type_suffix(weight.dtype));
    const cl_int blocks = static_cast<cl_int>(w->K / 32);
    const PackedSizes sizes = packed_sizes(w->dtype, w->K, w->N);
    w->q = layout_buffer(weight, sizes.q_bytes);
    if (w->q != nullptr) w->s = layout_buffer(weight, sizes.s_bytes);
    if (w->q == nullptr || w->s == nullptr) {
      free_buffers(*w);
      return nullptr;
    }
    try {
      sdk::set_args(h_.cl(), k, weight.buffer, src_off, row_bytes, blocks, rows, w->q, w->s);
      const size_t global[2] = {sdk::round_up(static_cast<size_t>(blocks), 64), static_cast<size_t>(rows)};
      sdk::enqueue(host_, k, 2, global, nullptr);
    } catch (...) {
      free_buffers(*w);
      throw;
    }
  }
  std::lock_guard<std::mutex> lock(packed_mutex_);
  packed_.insert(w.get());
  return w.release();
}

bool OpRunner::reads_layout_only(const clport_op& op, const clport_tensor& weight) const {
  const PackedWeight* p = find_packed(weight);
  if (p == nullptr) return false;
  if (op.kind == CLPORT_OP_GET_ROWS) return true;
  // Rows8: every MUL_MAT-family op (takes_q8a_gemv, with the scratch required); Split16: only
  // its GEMV (a GEMM reads the plain buffer).
  if (p->format == PackedFormat::Rows8) return takes_q8a_gemv(op);
  return op.kind == CLPORT_OP_MUL_MAT && op.n_src >= 2 && op.src[1] != nullptr &&
         op.src[1]->ne[1] <= tuning_.gemv_max_m_for(weight.dtype);
}

bool OpRunner::find_split16(const void* layout) const {
  const auto* w = static_cast<const PackedWeight*>(layout);
  std::lock_guard<std::mutex> lock(packed_mutex_);
  return packed_.count(w) != 0 && w->format == PackedFormat::Split16;
}

bool OpRunner::owns_weight(const void* layout) const {
  const auto* w = static_cast<const PackedWeight*>(layout);
  std::lock_guard<std::mutex> lock(packed_mutex_);
  // Every MUL_MAT-family op on a Rows8 weight takes the x8 kernels, whose activation scratch is
  // required (no float fallback); get_rows is the host's business (it keeps the plain copy of a
  // weight GET_ROWS reads). The Split16 GEMV's GEMM and fused kinds read the plain buffer.
  return packed_.count(w) != 0 && w->format == PackedFormat::Rows8;
}

void OpRunner::release_layout(void* layout) noexcept {
  auto* w = static_cast<const PackedWeight*>(layout);
  {
    std::lock_guard<std::mutex> lock(packed_mutex_);
    if (packed_.erase(w) == 0) return;  // not ours: never touch it
  }
  free_buffers(*w);
  delete w;
}

bool OpRunner::supports(const clport_op& op) const { return check(op).empty(); }

void OpRunner::enqueue(const clport_op& op) {
  if (std::string why = check(op); !why.empty()) throw sdk::unsupported(why);
  // Buffers are only looked at here: every operand needs one, at an offset the kernels can use;
  // a repacked weight the op reads only through its layout may have none (its plain copy freed).
  for (int i = 0; i <= op.n_src; ++i) {
    const clport_tensor* t = i < op.n_src ? op.src[i] : op.dst;
    if (t->buffer == nullptr && !(i < op.n_src && reads_layout_only(op, *t)))
      throw sdk::Failure("operand without a buffer");
    if (t->offset % offset_alignment(t->dtype) != 0)
      throw sdk::Failure("operand offset " + std::to_string(t->offset) + " is misaligned");
  }
  switch (op.kind) {
    case CLPORT_OP_GET_ROWS: return get_rows(op);
    case CLPORT_OP_RMS_NORM: return rms_norm(op);
    case CLPORT_OP_MUL_MAT: return mul_mat(op);
    case CLPORT_OP_ROPE: return rope(op);
    case CLPORT_OP_ATTENTION:
    case CLPORT_OP_ROPE_ATTENTION:
    case CLPORT_OP_ROPE_KV_STORE_ATTENTION: return attention(op);
    case CLPORT_OP_KV_STORE_ROPE: return kv_store_rope(op);
    case CLPORT_OP_KV_STORE_ROPE_CELLS: return kv_store_rope_cells(op);
    case CLPORT_OP_ROPE_ATTENTION_CELLS: return attention_cells(op);
    case CLPORT_OP_RMS_NORM_MUL_MAT:
    case CLPORT_OP_MUL_MAT_ADD:
    case CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU: return fused_gemv(op);
    case CLPORT_OP_SOFTMAX: return softmax(op);
    case CLPORT_OP_SILU:
    case CLPORT_OP_SCALE: return unary(op);
    case CLPORT_OP_SWIGLU:
    case CLPORT_OP_GEGLU:
    case CLPORT_OP_ADD:
    case CLPORT_OP_MUL: return binary(op);
    case CLPORT_OP_COPY: return copy(op);
    default: throw sdk::unsupported("unknown op kind");
  }
}

size_t OpRunner::wg_limit(const sdk::Kernel& k) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = wg_limits_.find(k.get());
  return it != wg_limits_.end() ? it->second : 0;
}

void OpRunner::run(const sdk::Kernel& k, cl_uint dims, const size_t* global, const size_t* local) {
  if (local != nullptr) {
    size_t wg = 1;
    for (cl_uint i = 0; i < dims; ++i) wg *= local[i];
    const size_t limit = wg_limit(k);
    if (limit != 0 && wg > limit)
      throw sdk::Failure(k.name() + ": work-group of " + std::to_string(wg) +
                         " exceeds what this device runs for the kernel (" + std::to_string(limit) +
                         "); lower the plugin's tuning in the policy (e.g. gemm_tn / gemm_tm)");
  }
  sdk::enqueue(host_, k, dims, global, local);
}

}  // namespace clport::plugin_common
