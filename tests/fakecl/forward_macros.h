// Wrapper generators for libclport_fakecl_forward: each exported cl* function first asks the
// fault injector, then calls the real implementation (or reports the entry point missing).
#pragma once

#include "fake_faults.h"
#include "real_opencl.h"

#define FAKECL_EXPORT __attribute__((visibility("default")))

// cl_int-returning entry point.
#define FAKECL_FORWARD_INT(name, params, args)                                  \
  extern "C" FAKECL_EXPORT cl_int CL_API_CALL name params {                    \
    cl_int fakecl_injected = CL_SUCCESS;                                        \
    if (fakecl::inject(#name, &fakecl_injected)) return fakecl_injected;        \
    const auto fakecl_fn = fakecl::real().api.name;                             \
    if (fakecl_fn == nullptr) return CL_INVALID_OPERATION;                      \
    return fakecl_fn args;                                                      \
  }

// Object-returning entry point with an `errcode_ret` parameter.
#define FAKECL_FORWARD_OBJ(type, name, params, args)                            \
  extern "C" FAKECL_EXPORT type CL_API_CALL name params {                      \
    cl_int fakecl_injected = CL_SUCCESS;                                        \
    if (fakecl::inject(#name, &fakecl_injected)) {                              \
      if (errcode_ret != nullptr) *errcode_ret = fakecl_injected;               \
      return nullptr;                                                           \
    }                                                                           \
    const auto fakecl_fn = fakecl::real().api.name;                             \
    if (fakecl_fn == nullptr) {                                                 \
      if (errcode_ret != nullptr) *errcode_ret = CL_INVALID_OPERATION;          \
      return nullptr;                                                           \
    }                                                                           \
    return fakecl_fn args;                                                      \
  }
