// The environment of an e2e test on the fault-injecting OpenCL library (tests/fakecl) in front of
// the real driver: that library, the test's own cache directory, no policy file from outside, no
// driver self-test (nothing runs on the device but the test's model), and no fault set yet.
#pragma once

#include <filesystem>

#include "scoped_env.h"

namespace clport::test {

inline void use_fault_injecting_library(testing_env::ScopedEnv& env, const std::filesystem::path& cache) {
  env.set("CLPORT_OPENCL_LIBRARY", CLPORT_FAKECL_FORWARD);
  env.set("CLPORT_CACHE_DIR", cache.c_str());
  env.set("CLPORT_SELF_TEST", "off");
  env.set("CLPORT_CONFIG", nullptr);
  for (const char* v : {"FAKECL_FAIL", "FAKECL_ALLOC_FAIL_AFTER_BYTES", "FAKECL_ALLOC_MAX_BYTES",
                        "FAKECL_DRIVER_VERSION", "FAKECL_PRESET"}) {
    env.set(v, nullptr);
  }
}

}  // namespace clport::test
