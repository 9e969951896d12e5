// Shared helpers for the plugin tests: a hand-made device identity and a do-nothing host table
// (the fake plugins never call OpenCL).
#pragma once

#include <string>

#include "binding/binding.h"
#include "probe/device_info.h"
#include "common/dtype.h"
#include "binding/op_desc.h"

namespace clport::test {

inline DeviceInfo fake_device(const std::string& family, const std::string& name, int gen_number = 740) {
  DeviceInfo d;
  d.name = name;
  d.vendor = family == "adreno" ? "QUALCOMM" : "Test Vendor";
  d.device_version = "OpenCL 3.0 test";
  d.driver_version = "OpenCL 3.0 QUALCOMM build: commit #1 Compiler E031.42.23.01";
  d.opencl_c_version = "OpenCL C 3.0 test";
  d.type = CL_DEVICE_TYPE_GPU;
  d.has_fp16 = true;
  d.extensions = {"cl_khr_fp16"};
  d.extensions_string = "cl_khr_fp16";
  d.max_work_group_size = 1024;
  d.klass.family = family;
  d.klass.generation = "a7xx";
  d.klass.generation_number = gen_number;
  return d;
}

inline HostFactory null_hosts() {
  static const clport_host host{};
  return [](const LoadedPlugin&, const WrittenSettings&, int32_t) -> Result<const clport_host*> { return &host; };
}

inline clport_tensor tensor(clport_dtype dtype, int64_t ne0, int64_t ne1) {
  return contiguous_tensor(dtype, {ne0, ne1, 1, 1}, 2);
}

// A MUL_MAT op description (no buffers) with weight dtype `w`.
struct MulMat {
  clport_tensor w, x, y;
  clport_op op;
  explicit MulMat(clport_dtype wt)
      : w(tensor(wt, 64, 64)), x(tensor(CLPORT_DTYPE_F32, 64, 1)), y(tensor(CLPORT_DTYPE_F32, 64, 1)),
        op(two_source_op(CLPORT_OP_MUL_MAT, w, x, y)) {}
};

}  // namespace clport::test
