// The nvidia decode layer's attention range (nv_attend_range in plugins/nvidia/kernels/
// nv_layer_attention.cl) against a double-precision softmax, on the first OpenCL device (PoCL here).
// The layer kernel itself builds only with inline PTX and runs only on the GPU; this runs its
// attention function alone, in its plain OpenCL C form (work-group sums through local memory
// instead of shuffles), over the ranges a step cuts a cache into: one key, several trips, ranges
// that end before this step's key or hold it, an empty one, and several query heads of one KV head.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../memory/cl_test_device.h"

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream f(std::string(CLPORT_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

// One work-group runs one item as nv_layer.cl stages it: when the range holds this step's key,
// its key and value go into the cache first (read back from there by the range), and the scaled
// queries go to local memory (times log2 e: the range works in base 2); then the range function
// writes the gq partials.
constexpr const char* kWrapper = R"(
kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void attend_one(global uchar* cache, ulong pos_stride,
    ulong v_offset, int k0, int k1, int pos, int gq, const global float* q, const global float* k_now,
    const global float* v_now, global float* part_base, ulong part_off, ulong head_stride) {
  global float* part = part_base + part_off;
  local float att[(NV_ATT_GQA + NV_WARPS) * NV_HD + NV_WG];
  local float *qs = att, *comb = qs + NV_ATT_GQA * NV_HD;
  local float* red = comb + NV_WARPS * NV_HD;
  const int lid = get_local_id(0);
  if (k0 <= pos && pos < k1 && lid < NV_HD) {
    nv_cache_put(cache + pos * pos_stride, lid, k_now[lid]);
    nv_cache_put(cache + v_offset + pos * pos_stride, lid, v_now[lid]);
  }
  for (int e = lid; e < gq * NV_HD; e += NV_WG) qs[e] = q[e] * M_LOG2E_F;
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  nv_attend_range(cache, cache + v_offset, pos_stride, k0, k1, NV_HD, gq, qs, comb, red, part, head_stride);
}

kernel __attribute__((reqd_work_group_size(NV_WG, 1, 1))) void merge_heads(const global float* part, int gq, int splits,
                                                                           global float* out) {
  local float ml[2 * NV_ATT_GQA * 16];
  nv_merge_heads(part, gq, NV_HD, splits, out, ml);
}
)";

constexpr int kHeadDim = 64, kHeads = 2, kWorkGroup = 128, kCtx = 1200;
constexpr double kLog2E = 1.4426950408889634;  // the partial's maximum is in base 2

// One head's softmax over keys [k0, k1) in double: the largest score, the sum of the weights
// exp(score - top) and the weighted sum of the value rows (not divided by the weights).
struct SoftmaxSums {
  double top = -std::numeric_limits<double>::infinity(), weights = 0.0;
  std::vector<double> out = std::vector<double>(kHeadDim, 0.0);
};

template <typename KeyRow, typename ValueRow>
SoftmaxSums softmax_sums(const float* q, int k0, int k1, KeyRow key_row, ValueRow value_row) {
  SoftmaxSums r;
  std::vector<double> scores;
  for (int key = k0; key < k1; ++key) {
    double s = 0.0;
    for (int d = 0; d < kHeadDim; ++d) s += static_cast<double>(q[d]) * key_row(key)[d];
    scores.push_back(s);
    r.top = std::max(r.top, s);
  }
  for (int key = k0; key < k1; ++key) {
    const double w = std::exp(scores[static_cast<size_t>(key - k0)] - r.top);
    r.weights += w;
    for (int d = 0; d < kHeadDim; ++d) r.out[static_cast<size_t>(d)] += w * value_row(key)[d];
  }
  return r;
}

struct Range {
  int k0, k1, pos, gq;
};

class NvLayerAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = clport::testing::first_test_device();
    if (device_.library == nullptr) GTEST_SKIP() << "no OpenCL device: " << device_.why_not;
    cl_ = &device_.library->api();
    cl_int err = CL_SUCCESS;
    context_ = cl_->clCreateContext(nullptr, 1, &device_.info.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = cl_->clCreateCommandQueue(context_, device_.info.device, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const std::string source = read_source("kernels/reduce.cl") + read_source("kernels/rope_math.cl") +
                               read_source("plugins/nvidia/kernels/nv_ptx.cl") +
                               read_source("plugins/nvidia/kernels/nv_gemv.cl") +
                               read_source("plugins/nvidia/kernels/nv_layer_attention.cl") + kWrapper;
    const char* text = source.c_str();
    program_ = cl_->clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    // F32 cache: the values the reference reads are the values the kernel reads.
    const std::string options = "-cl-std=CL1.2 -DNV_PTX=0 -DNV_CACHE_F16=0 -DNV_WG=" + std::to_string(kWorkGroup) +
                                " -DNV_HD=" + std::to_string(kHeadDim) + " -DNV_ATT_GQA=" + std::to_string(kHeads);
    if (cl_->clBuildProgram(program_, 1, &device_.info.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      size_t size = 0;
      cl_->clGetProgramBuildInfo(program_, device_.info.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      cl_->clGetProgramBuildInfo(program_, device_.info.device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      FAIL() << "build failed:\n" << log;
    }
    kernel_ = cl_->clCreateKernel(program_, "attend_one", &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (cl_ == nullptr) return;
    for (cl_mem m : buffers_) cl_->clReleaseMemObject(m);
    if (kernel_ != nullptr) cl_->clReleaseKernel(kernel_);
    if (program_ != nullptr) cl_->clReleaseProgram(program_);
    if (queue_ != nullptr) cl_->clReleaseCommandQueue(queue_);
    if (context_ != nullptr) cl_->clReleaseContext(context_);
  }
  cl_mem buffer(std::vector<float>& data) {
    cl_int err = CL_SUCCESS;
    cl_mem m = cl_->clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, data.size() * sizeof(float),
                                   data.data(), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    buffers_.push_back(m);
    return m;
  }

  clport::testing::TestDevice device_;
  const clport_cl_api* cl_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::vector<cl_mem> buffers_;
};

TEST_F(NvLayerAttention, RangesMatchADoublePrecisionSoftmax) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // The cache's K half (kCtx rows of kHeadDim), then its V half; this step's key and value apart.
  std::vector<float> cache(2 * static_cast<size_t>(kCtx) * kHeadDim), q(kHeads * kHeadDim), k_now(kHeadDim),
      v_now(kHeadDim);
  for (float& x : cache) x = normal(rng);
  for (float& x : q) x = 0.3f * normal(rng);  // scores of a few units: weights far from uniform
  for (float& x : k_now) x = normal(rng);
  for (float& x : v_now) x = normal(rng);
  const size_t head_stride = kHeadDim + 2;
  std::vector<float> part(kHeads * head_stride);
  cl_mem cache_buf = buffer(cache), q_buf = buffer(q), k_buf = buffer(k_now), v_buf = buffer(v_now),
         part_buf = buffer(part);

  // A key lane takes two keys a trip, 16 lanes here: 32 keys a trip.
  const Range ranges[] = {{0, 1, 0, 2},          {100, 700, 699, 2}, {0, 300, 1000, 1}, {5, 5, 9, 2},
                          {3, 1100, 1099, 2},    {0, 257, 256, 1},   {1150, 1181, 1180, 2}};
  for (const Range& r : ranges) {
    SCOPED_TRACE("keys [" + std::to_string(r.k0) + ", " + std::to_string(r.k1) + "), pos " + std::to_string(r.pos) +
                 ", " + std::to_string(r.gq) + " heads");
    std::fill(part.begin(), part.end(), 12345.0f);
    // The cache as the reference reads it: an earlier range's step key is not left behind.
    ASSERT_EQ(cl_->clEnqueueWriteBuffer(queue_, cache_buf, CL_TRUE, 0, cache.size() * sizeof(float), cache.data(), 0,
                                        nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(cl_->clEnqueueWriteBuffer(queue_, part_buf, CL_TRUE, 0, part.size() * sizeof(float), part.data(), 0,
                                        nullptr, nullptr),
              CL_SUCCESS);
    const cl_ulong pos_stride = kHeadDim * sizeof(float), v_offset = static_cast<cl_ulong>(kCtx) * pos_stride,
                   stride = head_stride;
    cl_uint a = 0;
    const auto arg = [&](size_t size, const void* value) {
      ASSERT_EQ(cl_->clSetKernelArg(kernel_, a++, size, value), CL_SUCCESS);
    };
    arg(sizeof(cl_mem), &cache_buf);
    arg(sizeof(pos_stride), &pos_stride);
    arg(sizeof(v_offset), &v_offset);
    arg(sizeof(int), &r.k0);
    arg(sizeof(int), &r.k1);
    arg(sizeof(int), &r.pos);
    arg(sizeof(int), &r.gq);
    arg(sizeof(cl_mem), &q_buf);
    arg(sizeof(cl_mem), &k_buf);
    arg(sizeof(cl_mem), &v_buf);
    arg(sizeof(cl_mem), &part_buf);
    const cl_ulong part_off = 0;
    arg(sizeof(part_off), &part_off);
    arg(sizeof(stride), &stride);
    const size_t global = kWorkGroup, local = kWorkGroup;
    ASSERT_EQ(cl_->clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(cl_->clEnqueueReadBuffer(queue_, part_buf, CL_TRUE, 0, part.size() * sizeof(float), part.data(), 0,
                                       nullptr, nullptr),
              CL_SUCCESS);

    for (int j = 0; j < r.gq; ++j) {
      // The partial result: outputs relative to the range's largest score M, M, and the sum of weights.
      const auto key_row = [&](int key) {
        return key == r.pos ? k_now.data() : &cache[static_cast<size_t>(key) * kHeadDim];
      };
      const auto value_row = [&](int key) {
        return key == r.pos ? v_now.data() : &cache[(static_cast<size_t>(kCtx) + key) * kHeadDim];
      };
      const SoftmaxSums want = softmax_sums(&q[j * kHeadDim], r.k0, r.k1, key_row, value_row);
      const double top = want.top, weights = want.weights;
      const std::vector<double>& out = want.out;
      const float* got = &part[j * head_stride];
      if (r.k0 >= r.k1) {  // an empty range: no weight, maximum -inf, zero outputs
        EXPECT_TRUE(std::isinf(got[kHeadDim]) && got[kHeadDim] < 0) << got[kHeadDim];
        EXPECT_EQ(got[kHeadDim + 1], 0.0f);
        for (int d = 0; d < kHeadDim; ++d) EXPECT_EQ(got[d], 0.0f) << "dim " << d;
        continue;
      }
      EXPECT_NEAR(got[kHeadDim], top * kLog2E, 1e-4) << "head " << j;
      EXPECT_NEAR(got[kHeadDim + 1], weights, 1e-5 * weights) << "head " << j;
      double err = 0.0, ref = 0.0;
      for (int d = 0; d < kHeadDim; ++d) {
        err += (got[d] - out[static_cast<size_t>(d)]) * (got[d] - out[static_cast<size_t>(d)]);
        ref += out[static_cast<size_t>(d)] * out[static_cast<size_t>(d)];
      }
      EXPECT_LE(err, 1e-10 * ref) << "head " << j << ": NMSE " << err / ref;
    }
  }
}

// The layer's step: a head group's keys [0, pos] cut into ranges as nv_layer.cl cuts them, each
// range's partials by nv_attend_range, merged by nv_merge_heads, against one double-precision
// softmax over all the keys: 901 keys in 6 ranges of 151 (several trips each), and 21 keys in 8
// ranges of 3, the last one empty.
class NvLayerMerge : public NvLayerAttention, public ::testing::WithParamInterface<std::pair<int, int>> {};

TEST_P(NvLayerMerge, MergedRangesMatchOneSoftmax) {
  std::mt19937 rng(23);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int kPos = GetParam().first, kSplits = GetParam().second, kGq = 2;
  const int kSpan = (kPos + 1 + kSplits - 1) / kSplits;
  std::vector<float> cache(2 * static_cast<size_t>(kCtx) * kHeadDim), q(kGq * kHeadDim), k_now(kHeadDim),
      v_now(kHeadDim);
  for (float& x : cache) x = normal(rng);
  for (float& x : q) x = 0.3f * normal(rng);
  for (float& x : k_now) x = normal(rng);
  for (float& x : v_now) x = normal(rng);
  const size_t row = kHeadDim + 2;
  std::vector<float> part(static_cast<size_t>(kGq) * kSplits * row, 12345.0f), out(kGq * kHeadDim, 12345.0f);
  cl_mem cache_buf = buffer(cache), q_buf = buffer(q), k_buf = buffer(k_now), v_buf = buffer(v_now),
         part_buf = buffer(part), out_buf = buffer(out);
  const cl_ulong pos_stride = kHeadDim * sizeof(float), v_offset = static_cast<cl_ulong>(kCtx) * pos_stride,
                 head_stride = kSplits * row;
  for (int s = 0; s < kSplits; ++s) {
    const int k0 = s * kSpan, k1 = std::min(k0 + kSpan, kPos + 1), pos = kPos, gq = kGq;
    const cl_ulong part_off = s * row;
    cl_uint a = 0;
    const auto arg = [&](size_t size, const void* value) {
      ASSERT_EQ(cl_->clSetKernelArg(kernel_, a++, size, value), CL_SUCCESS);
    };
    for (const auto& [size, value] : std::vector<std::pair<size_t, const void*>>{
             {sizeof(cl_mem), &cache_buf}, {sizeof(pos_stride), &pos_stride}, {sizeof(v_offset), &v_offset},
             {sizeof(int), &k0}, {sizeof(int), &k1}, {sizeof(int), &pos}, {sizeof(int), &gq}, {sizeof(cl_mem), &q_buf},
             {sizeof(cl_mem), &k_buf}, {sizeof(cl_mem), &v_buf}, {sizeof(cl_mem), &part_buf},
             {sizeof(part_off), &part_off}, {sizeof(head_stride), &head_stride}})
      arg(size, value);
    const size_t global = kWorkGroup, local = kWorkGroup;
    ASSERT_EQ(cl_->clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr),
              CL_SUCCESS);
  }
  cl_int err = CL_SUCCESS;
  cl_kernel merge = cl_->clCreateKernel(program_, "merge_heads", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int gq = kGq, splits = kSplits;
  EXPECT_EQ(cl_->clSetKernelArg(merge, 0, sizeof(cl_mem), &part_buf), CL_SUCCESS);
  EXPECT_EQ(cl_->clSetKernelArg(merge, 1, sizeof(int), &gq), CL_SUCCESS);
  EXPECT_EQ(cl_->clSetKernelArg(merge, 2, sizeof(int), &splits), CL_SUCCESS);
  EXPECT_EQ(cl_->clSetKernelArg(merge, 3, sizeof(cl_mem), &out_buf), CL_SUCCESS);
  const size_t global = kWorkGroup, local = kWorkGroup;
  EXPECT_EQ(cl_->clEnqueueNDRangeKernel(queue_, merge, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(cl_->clEnqueueReadBuffer(queue_, out_buf, CL_TRUE, 0, out.size() * sizeof(float), out.data(), 0, nullptr,
                                     nullptr),
            CL_SUCCESS);
  cl_->clReleaseKernel(merge);

  for (int j = 0; j < kGq; ++j) {
    const auto key_row = [&](int key) { return key == kPos ? k_now.data() : &cache[static_cast<size_t>(key) * kHeadDim]; };
    const auto value_row = [&](int key) {
      return key == kPos ? v_now.data() : &cache[(static_cast<size_t>(kCtx) + key) * kHeadDim];
    };
    const SoftmaxSums sums = softmax_sums(&q[j * kHeadDim], 0, kPos + 1, key_row, value_row);
    const double weights = sums.weights;
    const std::vector<double>& ref = sums.out;
    double err2 = 0.0, norm2 = 0.0;
    for (int d = 0; d < kHeadDim; ++d) {
      const double want = ref[static_cast<size_t>(d)] / weights, got = out[static_cast<size_t>(j * kHeadDim + d)];
      err2 += (got - want) * (got - want);
      norm2 += want * want;
    }
    EXPECT_LE(err2, 1e-10 * norm2) << "head " << j << ": NMSE " << err2 / norm2;
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, NvLayerMerge, ::testing::Values(std::make_pair(900, 6), std::make_pair(20, 8)));

}  // namespace
