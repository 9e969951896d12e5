// `clport bench e2e`: its flags, and the pieces its single-sequence and parallel runs share.
#pragma once

#include <string>
#include <vector>

#include "engine/engine_core.h"
#include "engine_flags.h"

namespace clport::cli {

struct E2eFlags {
  EngineFlags engine;
  int prompt_tokens = 128;
  int gen_tokens = 64;
  bool no_reference = false;
  int warmup = 1;  // unmeasured runs before the measured one
  std::string json_file;
  int parallel = 0;        // sequences at once (bench_parallel.cpp); 0 = one, through generate()
  bool ctx_given = false;  // -c was on the command line
  bool kernel_table = false;  // --parallel: profile the decode steps' kernels (OpenCL events)
};

// A fixed, deterministic prompt of exactly n_tokens tokens (repeated text, truncated).
Result<std::vector<int32_t>> bench_prompt(EngineCore& e, int n_tokens);

// `bench e2e --parallel N`.
int run_parallel(const E2eFlags& f);

}  // namespace clport::cli
