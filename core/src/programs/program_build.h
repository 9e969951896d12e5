// Thin OpenCL helpers for the program cache: build from source or binary, read a binary back.
#pragma once

#include <string>
#include <vector>

#include "clport_plugin/cl_api.h"
#include "clport/status.h"

namespace clport::programs {

// Source -> built program (caller owns it). Stage::ProgramBuild with the build log on failure.
Result<cl_program> build_from_source(const clport_cl_api& cl, cl_context context,
                                     cl_device_id device, const std::string& source,
                                     const std::string& options);

// Binary -> built program. Any failure (driver refuses the binary, build fails) is a Status;
// the caller treats it as a bad cache entry.
Result<cl_program> build_from_binary(const clport_cl_api& cl, cl_context context,
                                     cl_device_id device, const std::vector<unsigned char>& binary,
                                     const std::string& options);

// The device binary of a built single-device program (empty on failure or when the driver
// has none to give).
std::vector<unsigned char> program_binary(const clport_cl_api& cl, cl_program program);

// The build log for `device` (empty when unavailable).
std::string build_log(const clport_cl_api& cl, cl_program program, cl_device_id device);

}  // namespace clport::programs
