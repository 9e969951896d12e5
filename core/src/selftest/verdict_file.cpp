#include "selftest/verdict_file.h"

#include "common/atomic_file.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace clport::selftest::detail {
namespace {

constexpr int kVerdictFormat = 1;
using nlohmann::json;

}  // namespace

Status save_verdict(const std::string& path, const VerdictIdentity& id, const Verdict& verdict) {
  json cases = json::array();
  for (const auto& c : verdict.cases) {
    cases.push_back({{"plugin", c.plugin}, {"op_kind", c.op_kind}, {"dtype", c.dtype}, {"name", c.name},
                     {"passed", c.passed}, {"message", c.message}});
  }
  const json doc = {{"format", kVerdictFormat}, {"key", verdict.key},   {"device", id.device},
                    {"driver", id.driver},      {"platform", id.platform}, {"clport_version", id.clport_version},
                    {"plugins", id.plugins},    {"kernels", id.kernels},    {"seed", verdict.seed}, {"cases", cases}};
  return write_file_atomically(path, doc.dump(1) + "\n");
}

Result<Verdict> load_unguarded(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Stage::Config, "missing");
  std::ostringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) { return Status(Stage::Config, path + ": " + why); };
  if (!doc.is_object()) return bad("not a JSON object");
  if (doc.value("format", 0) != kVerdictFormat) return bad("unknown format");
  if (doc.value("key", std::string()) != key) return bad("written for another key");
  const auto cases = doc.find("cases");
  if (cases == doc.end() || !cases->is_array()) return bad("no 'cases' list");
  Verdict v;
  v.key = key;
  v.file = path;
  v.source = Verdict::Source::Cache;
  const auto seed = doc.find("seed");
  if (seed != doc.end() && seed->is_number_unsigned()) v.seed = seed->get<uint64_t>();
  for (const auto& c : *cases) {
    if (!c.is_object() || !c.contains("plugin") || !c["plugin"].is_string() || !c.contains("op_kind") ||
        !c["op_kind"].is_number_integer() || !c.contains("passed") || !c["passed"].is_boolean())
      return bad("malformed case entry");
    CaseVerdict cv;
    cv.plugin = c["plugin"].get<std::string>();
    cv.op_kind = c["op_kind"].get<int32_t>();
    cv.dtype = c.value("dtype", -1);
    cv.name = c.value("name", std::string());
    cv.passed = c["passed"].get<bool>();
    cv.message = c.value("message", std::string());
    v.cases.push_back(std::move(cv));
  }
  return v;
}

Result<Verdict> load_verdict(const std::string& path, const std::string& key) {
  try {
    return load_unguarded(path, key);  // json accessors throw on a wrongly typed field
  } catch (const std::exception& e) {
    return Status(Stage::Config, path + ": " + e.what());
  }
}

}  // namespace clport::selftest::detail
