// Runs `clport bench ops --quick --json FILE` with the generic plugin on the default device and
// checks the document: every expected (path, dtype, shape) case present and run, the derived
// figures consistent with the measured ones, CLBlast either compared or explained, the program
// cache measured. Timing values are only required to be positive, never compared to targets.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct BenchRun {
  int exit_code = -1;
  json doc;
  std::string output;
};

const BenchRun& bench_run() {
  static const BenchRun run = [] {
    BenchRun r;
    const fs::path dir = fs::path(CLPORT_BINARY_DIR) / "tests" / "bench" / "bench_ops_json";
    fs::create_directories(dir);
    const fs::path json_file = dir / "ops.json", log = dir / "ops.log";
    fs::remove(json_file);
    const std::string cmd = "CLPORT_CACHE_DIR='" + (dir / "cache").string() + "' '" +
                            CLPORT_CLI_PATH + "' bench ops --quick --plugin '" +
                            CLPORT_GENERIC_PLUGIN + "' --json '" + json_file.string() + "' > '" +
                            log.string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream log_in(log);
    r.output.assign(std::istreambuf_iterator<char>(log_in), {});
    std::ifstream in(json_file);
    if (in) r.doc = json::parse(in, nullptr, false);
    return r;
  }();
  return run;
}

bool positive_number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() && j[key].get<double>() > 0;
}

TEST(BenchOpsJson, CommandSucceedsAndWritesJson) {
  const BenchRun& r = bench_run();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(r.doc.is_object()) << "no valid JSON written; output:\n" << r.output;
  for (const char* key : {"device", "settings", "copy", "clblast", "matmul", "program_cache"})
    EXPECT_TRUE(r.doc.contains(key)) << key;
  EXPECT_TRUE(r.doc["device"]["name"].is_string());
  EXPECT_TRUE(r.doc["settings"]["quick"].get<bool>());
  // The table is on stdout as well.
  EXPECT_NE(r.output.find("copy bandwidth:"), std::string::npos);
  EXPECT_NE(r.output.find("program cache:"), std::string::npos);
}

TEST(BenchOpsJson, CopyBandwidthMeasured) {
  const json& c = bench_run().doc["copy"];
  ASSERT_TRUE(c.is_object());
  EXPECT_TRUE(positive_number(c, "buffer_bytes"));
  EXPECT_TRUE(positive_number(c, "median_ms"));
  ASSERT_TRUE(positive_number(c, "gb_per_s"));
  EXPECT_NEAR(c["gb_per_s"].get<double>(),
              2.0 * c["buffer_bytes"].get<double>() / (c["median_ms"].get<double>() * 1e6),
              1e-6 * c["gb_per_s"].get<double>());
}

TEST(BenchOpsJson, EveryQuickCasePresentAndConsistent) {
  const json& doc = bench_run().doc;
  ASSERT_TRUE(doc["matmul"].is_array());
  const double copy_gbps = doc["copy"]["gb_per_s"].get<double>();
  // Quick set: K=576 has no K-quants (576 % 256 != 0), K=2048 has every weight dtype.
  std::set<std::tuple<std::string, std::string, int64_t, int64_t>> want, got;
  for (const char* d : {"f32", "f16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q4_K", "q5_K", "q6_K",
                        "q2_K", "q3_K", "iq4_nl", "bf16"}) {
    for (const char* path : {"gemv", "gemm"}) {
      if (std::string(d).find("_K") == std::string::npos) want.emplace(path, d, 576, 1536);
      want.emplace(path, d, 2048, 8192);
    }
  }
  for (const json& m : doc["matmul"]) {
    const std::string path = m["path"], dtype = m["dtype"];
    got.emplace(path, dtype, m["K"].get<int64_t>(), m["N"].get<int64_t>());
    SCOPED_TRACE(path + " " + dtype + " K=" + std::to_string(m["K"].get<int64_t>()));
    ASSERT_TRUE(m["ok"].get<bool>()) << m["error"];
    EXPECT_EQ(m["plugin"], "generic");
    EXPECT_EQ(m["M"].get<int64_t>(), path == "gemv" ? 1 : 64);
    ASSERT_TRUE(positive_number(m, "median_ms"));
    ASSERT_TRUE(positive_number(m, "bytes"));
    const double ms = m["median_ms"], bytes = m["bytes"];
    EXPECT_NEAR(m["gb_per_s"].get<double>(), bytes / (ms * 1e6), 1e-6 * bytes / (ms * 1e6));
    const double flops = 2.0 * m["M"].get<double>() * m["N"].get<double>() * m["K"].get<double>();
    EXPECT_NEAR(m["gflops"].get<double>(), flops / (ms * 1e6), 1e-6 * flops / (ms * 1e6));
    if (path == "gemv") {
      ASSERT_TRUE(m.contains("copy_fraction"));
      EXPECT_NEAR(m["copy_fraction"].get<double>(), m["gb_per_s"].get<double>() / copy_gbps, 1e-9);
      // The same-size copy reference: measured, and its fraction is copy time / GEMV time.
      ASSERT_TRUE(m.contains("same_size_copy"));
      const json& c = m["same_size_copy"];
      EXPECT_TRUE(positive_number(c, "median_ms"));
      EXPECT_NEAR(c["fraction"].get<double>(), c["median_ms"].get<double>() / ms, 1e-9);
    }
    const bool clblast_expected = doc["clblast"]["usable"].get<bool>() && path == "gemm" && dtype == "f32";
    ASSERT_EQ(m.contains("clblast"), clblast_expected);
    if (clblast_expected) {
      const json& c = m["clblast"];
      EXPECT_TRUE(positive_number(c, "gflops"));
      EXPECT_NEAR(c["ratio"].get<double>(), m["gflops"].get<double>() / c["gflops"].get<double>(), 1e-9);
      // Both computed the same product of the same inputs.
      EXPECT_LT(c["max_rel_diff"].get<double>(), 1e-3);
    }
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(doc["matmul"].size(), want.size()) << "duplicate cases";
}

TEST(BenchOpsJson, ClblastComparedOrExplained) {
  const json& c = bench_run().doc["clblast"];
  ASSERT_TRUE(c["usable"].is_boolean());
  if (!c["usable"].get<bool>()) {
    EXPECT_FALSE(c["reason"].get<std::string>().empty());
  }
}

TEST(BenchOpsJson, ProgramCacheColdAndWarm) {
  const json& p = bench_run().doc["program_cache"];
  ASSERT_TRUE(p["measured"].get<bool>()) << p["error"];
  ASSERT_TRUE(positive_number(p, "programs"));
  EXPECT_EQ(p["cold_misses"], p["programs"]);  // every program built from source when cold
  EXPECT_EQ(p["warm_hits"], p["programs"]);    // and loaded from its binary when warm
  EXPECT_TRUE(positive_number(p, "cold_ms"));
  EXPECT_TRUE(positive_number(p, "warm_ms"));
}

}  // namespace
