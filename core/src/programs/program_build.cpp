#include "programs/program_build.h"

#include <sstream>

#include "loader/opencl_loader.h"

namespace clport::programs {
namespace {

std::string cl_failure(const char* call, cl_int err) {
  std::ostringstream out;
  out << call << " failed: " << cl_error_name(err) << " (" << err << ")";
  return out.str();
}

}  // namespace

std::string build_log(const clport_cl_api& cl, cl_program program, cl_device_id device) {
  size_t size = 0;
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0) {
    return {};
  }
  std::string log(size, '\0');
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(),
                               nullptr) != CL_SUCCESS) {
    return {};
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

Result<cl_program> build_from_source(const clport_cl_api& cl, cl_context context,
                                     cl_device_id device, const std::string& source,
                                     const std::string& options) {
  cl_int err = CL_SUCCESS;
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_program program = cl.clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (program == nullptr || err != CL_SUCCESS) {
    return Status(Stage::ProgramBuild, cl_failure("clCreateProgramWithSource", err));
  }
  err = cl.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(cl, program, device);
    cl.clReleaseProgram(program);
    return Status(Stage::ProgramBuild, cl_failure("clBuildProgram", err) + " with options '" +
                                           options + "'; build log:\n" +
                                           (log.empty() ? "(empty)" : log));
  }
  return program;
}

Result<cl_program> build_from_binary(const clport_cl_api& cl, cl_context context,
                                     cl_device_id device, const std::vector<unsigned char>& binary,
                                     const std::string& options) {
  cl_int err = CL_SUCCESS;
  cl_int binary_status = CL_SUCCESS;
  const unsigned char* data = binary.data();
  const size_t size = binary.size();
  cl_program program =
      cl.clCreateProgramWithBinary(context, 1, &device, &size, &data, &binary_status, &err);
  if (program == nullptr || err != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program != nullptr) cl.clReleaseProgram(program);
    return Status(Stage::ProgramBuild,
                  cl_failure("clCreateProgramWithBinary", err != CL_SUCCESS ? err : binary_status));
  }
  err = cl.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    cl.clReleaseProgram(program);
    return Status(Stage::ProgramBuild, cl_failure("clBuildProgram (from binary)", err));
  }
  return program;
}

std::vector<unsigned char> program_binary(const clport_cl_api& cl, cl_program program) {
  cl_uint devices = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof(devices), &devices, nullptr) !=
          CL_SUCCESS ||
      devices != 1) {
    return {};
  }
  size_t size = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return {};
  }
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr) !=
      CL_SUCCESS) {
    return {};
  }
  return binary;
}

}  // namespace clport::programs
