// The sampling flags of the commands that generate text (run, chat): one definition, so the same
// flag takes the same values everywhere.
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

#include "clport/sampler.h"
#include "option_ranges.h"

namespace clport::cli {

inline void add_sampling_flags(CLI::App& app, SamplerOptions& sampling) {
  app.add_option("--temp", sampling.temperature, "temperature (0 = greedy)")->transform(number_range(0, 100));
  app.add_option("--top-k", sampling.top_k, "top-k (0 = off)")->transform(integer_range(0, kMaxTokens));
  app.add_option("--top-p", sampling.top_p, "top-p (1 = off)")->transform(number_range(0, 1));
  app.add_option("--repeat-penalty", sampling.repeat_penalty, "repetition penalty (1 = off)")
      ->transform(number_range(0, 10, /*min_exclusive=*/true));
  app.add_option("--repeat-last-n", sampling.repeat_last_n, "penalty window (0 = off)")
      ->transform(integer_range(0, kMaxTokens));
  app.add_option("--seed", sampling.seed, "random seed")->transform(unsigned_range(0, UINT64_MAX));
}

}  // namespace clport::cli
