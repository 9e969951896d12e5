// Cold vs warm start of the program cache, for `clport bench`: builds a set of programs with an
// empty cache directory (every program compiled from source and saved), then again with a fresh
// cache object on the populated directory (every program loaded from its binary).
//
// Note: some drivers keep their own compiler cache (PoCL: ~/.cache/pocl, switch it off with
// POCL_KERNEL_CACHE=0), which makes "cold" look warmer than a first start really is.
#pragma once

#include <string>
#include <vector>

#include "runtime/device_context.h"
#include "programs/program_cache.h"
#include "clport/status.h"

namespace clport {

struct BenchProgram {
  std::string name;     // for reports
  std::string source;
  std::string options;
};

struct ProgramCacheBenchResult {
  size_t programs = 0;
  double cold_ms = 0;  // empty cache: compile + save
  double warm_ms = 0;  // populated cache: load binaries
  ProgramCacheCounters cold, warm;
};

// Every shared kernel file (kernels/*.cl) that builds on its own as one program.
std::vector<BenchProgram> shared_kernel_bench_programs();

// Runs the measurement in a scratch directory (created empty, removed afterwards; default:
// a unique directory under the system temp dir). A program that does not build is an error
// (Stage::ProgramBuild naming it).
Result<ProgramCacheBenchResult> bench_program_cache(
    DeviceContext& context, const std::vector<BenchProgram>& programs,
    const std::string& scratch_dir = {});

}  // namespace clport
