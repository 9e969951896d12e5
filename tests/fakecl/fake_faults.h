// Fault injection and the bookkeeping it needs (live buffers, failed builds, kernel arguments).
// All state is process-wide and guarded by one mutex: drivers are called from many threads.
//
//   FAKECL_FAIL=clCreateBuffer:3:-4[,clBuildProgram:1:-11]  Nth call (1-based) of that function
//       returns that code; N = 0: every call; "N+" (clFinish:5+:-5): the Nth and every later
//       call. Counters restart when the variable's value changes.
//   FAKECL_COUNT_FILE=path                                  at unload, "function count" per line
//       for every entry point called (to aim FAKECL_FAIL at a point of a run)
//   FAKECL_ALLOC_MAX_BYTES=N                                clCreateBuffer of more than N bytes
//       fails with CL_MEM_OBJECT_ALLOCATION_FAILURE
//   FAKECL_ZERO_PLATFORMS=1, FAKECL_ZERO_DEVICES=1          enumeration finds nothing
//   FAKECL_ALLOC_FAIL_AFTER_BYTES=N                         clCreateBuffer fails with
//       CL_MEM_OBJECT_ALLOCATION_FAILURE when live bytes would exceed N
//   FAKECL_BUILD_FAIL=1                                     clBuildProgram fails, with a fake log
//   FAKECL_DEVICE_UNAVAILABLE=1                             CL_DEVICE_AVAILABLE reports false
//   FAKECL_CORRUPT_KERNEL=name                              after each clEnqueueNDRangeKernel of
//       that kernel, its first buffer argument's first 16 bytes are overwritten with 0x7f
//       (a "driver returns wrong results" stand-in for precision checks).
#pragma once

#include <cstddef>
#include <string>

#include "real_opencl.h"

namespace fakecl {

// True (and *code set) when this call of `function` must fail.
bool inject(const char* function, cl_int* code);
// FAKECL_COUNT_FILE (nullptr when unset), and writing every function's call count there.
const char* count_file();
void write_call_counts();
// FAKECL_ALLOC_MAX_BYTES: a single buffer larger than this is refused.
bool allocation_too_large(size_t bytes);
// True when the environment variable is set to something other than "" or "0".
bool env_flag(const char* name);

// Buffers: whether an allocation of `bytes` more is allowed, and the live set.
bool allocation_allowed(size_t bytes);
void track_buffer(cl_mem buffer, size_t bytes, bool counts_toward_limit);
// The caller's references to a tracked buffer; the last release forgets it.
void retain_buffer(cl_mem buffer);
void release_buffer_reference(cl_mem buffer);
bool tracked_buffer_size(cl_mem buffer, size_t* bytes);
// Bytes of the clCreateBuffer buffers not yet released (exported as fakecl_live_buffer_bytes).
size_t live_buffer_bytes();

// Programs whose build was failed on purpose.
void mark_build_failed(cl_program program);
bool build_failed(cl_program program);
void forget_program(cl_program program);
const char* fake_build_log();

// Kernel buffer arguments (for FAKECL_CORRUPT_KERNEL).
void record_kernel_buffer_arg(cl_kernel kernel, cl_uint index, cl_mem buffer);
void forget_kernel_arg(cl_kernel kernel, cl_uint index);
cl_mem first_kernel_buffer_arg(cl_kernel kernel);
void forget_kernel(cl_kernel kernel);

}  // namespace fakecl
