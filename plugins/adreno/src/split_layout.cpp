#include "split_layout.hpp"

#include <cstring>

extern const clport::EmbeddedKernel clport_plugin_kernels[];

namespace adreno {

using clport::sdk::Failure;

bool is_split_dtype(int32_t dtype) {
  return dtype == CLPORT_DTYPE_F16 || dtype == CLPORT_DTYPE_Q4_0 || dtype == CLPORT_DTYPE_Q4_1 ||
         dtype == CLPORT_DTYPE_Q8_0 || dtype == CLPORT_DTYPE_Q6_K;
}

int64_t block_elems(int32_t dtype) {
  const clport::sdk::DTypeLayout* d = clport::sdk::dtype_layout(dtype);
  return d != nullptr ? d->block_size : 1;
}

int64_t block_bytes(int32_t dtype) {
  const clport::sdk::DTypeLayout* d = clport::sdk::dtype_layout(dtype);
  return d != nullptr ? d->block_bytes : 0;
}

std::string dtype_suffix(int32_t dtype) { return clport::sdk::kernel_suffix(dtype); }

SplitSizes split_sizes(int32_t dtype, int64_t K, int64_t N) {
  const uint64_t k = static_cast<uint64_t>(K), n = static_cast<uint64_t>(N);
  SplitSizes s;
  switch (dtype) {
    case CLPORT_DTYPE_F16: s.q_texels = (k * n + 1) / 2; s.q_bytes = 4 * s.q_texels; break;
    case CLPORT_DTYPE_Q4_0: s.q_texels = k / 32 * 4 * n; s.s_bytes = 2 * (k / 32) * n; break;
    case CLPORT_DTYPE_Q4_1: s.q_texels = k / 32 * 4 * n; s.s_bytes = 4 * (k / 32) * n; break;
    case CLPORT_DTYPE_Q8_0: s.q_texels = k / 32 * 8 * n; s.s_bytes = 2 * (k / 32) * n; break;
    case CLPORT_DTYPE_Q6_K:
      s.q_texels = k / 256 * 48 * n;
      s.s_bytes = 2 * (k / 256) * n;
      s.sc_bytes = k / 256 * 16 * n;
      break;
    default: break;
  }
  s.q_bytes = 4 * s.q_texels;
  return s;
}

SplitPacker::SplitPacker(const clport_host& host, const clport_device_desc& device, bool use_images)
    : host_(host), h_(host), use_images_(use_images && device.has_images != 0 && host.cl->clCreateImage != nullptr) {
  if (!use_images_) return;
  size_t texels = 0;
  if (host.cl->clGetDeviceInfo(device.device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof(texels), &texels, nullptr) !=
          CL_SUCCESS ||
      texels == 0) {
    use_images_ = false;
    h_.log(CLPORT_LOG_INFO, "adreno: CL_DEVICE_IMAGE_MAX_BUFFER_SIZE unreadable: plain buffers for weights");
    return;
  }
  image_max_texels_ = texels;
}

cl_mem SplitPacker::alloc(uint64_t bytes) {
  int32_t status = CLPORT_PLUGIN_OK;
  cl_mem m = host_.alloc_buffer(host_.host_ctx, static_cast<size_t>(bytes), &status);
  if (m == nullptr) {
    throw Failure("adreno: cannot allocate " + std::to_string(bytes) + " bytes for a repacked weight",
                  status == CLPORT_PLUGIN_OK ? CLPORT_PLUGIN_OUT_OF_MEMORY : status);
  }
  return m;
}

// An image1d_buffer view of the quant words: reads then go through the texture cache (the path
// Qualcomm recommends for weights). Weights larger than the device's image limit, or a driver
// that refuses the view, keep the plain-buffer path; the kernels are built for both.
void SplitPacker::make_image(SplitWeight& w) {
  if (w.sizes.q_texels > image_max_texels_) return;
  cl_image_format format;
  format.image_channel_order = CL_R;
  format.image_channel_data_type = CL_UNSIGNED_INT32;
  cl_image_desc desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
  desc.image_width = static_cast<size_t>(w.sizes.q_texels);
  desc.buffer = w.q;
  cl_int err = CL_SUCCESS;
  w.q_image = host_.cl->clCreateImage(host_.context, CL_MEM_READ_ONLY, &format, &desc, nullptr, &err);
  if (err == CL_SUCCESS && w.q_image != nullptr) {
    if (!logged_image_ok_.exchange(true))
      h_.log(CLPORT_LOG_INFO, "adreno: weights read through image1d_buffer views (first one: " +
                                  std::to_string(w.sizes.q_texels) + " texels)");
    return;
  }
  // Per weight, not for good: some drivers (PoCL, for one) refuse views of sub-buffers, which
  // the pool hands out for small allocations, yet accept them on whole buffers.
  w.q_image = nullptr;
  if (!logged_image_refused_.exchange(true))
    h_.log(CLPORT_LOG_INFO, "adreno: clCreateImage(image1d_buffer) refused with OpenCL error " +
                                std::to_string(err) + ": such weights stay in plain buffers");
}

void SplitPacker::pack(const clport_tensor& weight, SplitWeight& w) {
  static const char* const kNames[5] = {"adreno_repack_f16", "adreno_repack_q4_0", "adreno_repack_q4_1",
                                        "adreno_repack_q8_0", "adreno_repack_q6_k"};
  int index = 0;
  switch (weight.dtype) {
    case CLPORT_DTYPE_F16: index = 0; break;
    case CLPORT_DTYPE_Q4_0: index = 1; break;
    case CLPORT_DTYPE_Q4_1: index = 2; break;
    case CLPORT_DTYPE_Q8_0: index = 3; break;
    case CLPORT_DTYPE_Q6_K: index = 4; break;
    default: throw clport::sdk::unsupported("adreno: no split layout for this dtype");
  }
  const clport::sdk::Kernel* k = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (program_.get() == nullptr) {
      const std::string src = clport::sdk::plugin_kernel_source(clport_plugin_kernels, "adreno", "adreno_repack.cl");
      program_ = clport::sdk::Program(&h_.cl(), h_.build_program(src, "-cl-std=CL1.2"));
    }
    if (!kernels_[index]) kernels_[index] = clport::sdk::Kernel(h_.cl(), program_, kNames[index]);
    k = &kernels_[index];
  }
  w.dtype = weight.dtype;
  w.K = weight.ne[0];
  w.N = weight.ne[1];
  w.sizes = split_sizes(w.dtype, w.K, w.N);
  if (w.q == nullptr) {
    w.q = alloc(w.sizes.q_bytes);
    if (w.sizes.s_bytes > 0) w.s = alloc(w.sizes.s_bytes);
    if (w.sizes.sc_bytes > 0) w.sc = alloc(w.sizes.sc_bytes);
    if (use_images_) make_image(w);
  }
  const cl_int N = static_cast<cl_int>(w.N);
  const cl_int units = static_cast<cl_int>(weight.dtype == CLPORT_DTYPE_F16 ? w.K : w.K / block_elems(w.dtype));
  const cl_ulong off = weight.offset, stride = static_cast<cl_ulong>(weight.nb[1]);
  const clport_cl_api& cl = h_.cl();
  if (weight.dtype == CLPORT_DTYPE_F16) {
    clport::sdk::set_args(cl, *k, weight.buffer, off, stride, N, units, w.q);
  } else if (weight.dtype == CLPORT_DTYPE_Q6_K) {
    clport::sdk::set_args(cl, *k, weight.buffer, off, stride, N, units, w.q, w.s, w.sc);
  } else {
    clport::sdk::set_args(cl, *k, weight.buffer, off, stride, N, units, w.q, w.s);
  }
  const size_t global[2] = {clport::sdk::round_up(static_cast<size_t>(w.N), 64), static_cast<size_t>(units)};
  clport::sdk::enqueue(host_, *k, 2, global, nullptr);  // a one-off copy: driver's group size
}

void SplitPacker::release(SplitWeight& w) noexcept {
  if (w.q_image != nullptr) host_.cl->clReleaseMemObject(w.q_image);
  for (cl_mem m : {w.q, w.s, w.sc}) {
    if (m != nullptr) host_.free_buffer(host_.host_ctx, m);
  }
  w.q_image = w.q = w.s = w.sc = nullptr;
}

}  // namespace adreno
