#include "selftest/verdict_file.h"

#include "common/atomic_file.h"

#include <algorithm>
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
  json out = doc;
  if (!verdict.scope.everything())  // absent: the whole catalogue
    out["scope"] = {{"tensor_dtypes", verdict.scope.tensor_dtypes}, {"kv_types", verdict.scope.kv_types}};
  return write_file_atomically(path, out.dump(1) + "\n");
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
  if (const auto scope = doc.find("scope"); scope != doc.end()) {
    if (!scope->is_object()) return bad("'scope' is not an object");
    for (const auto& [field, list] : {std::pair{"tensor_dtypes", &v.scope.tensor_dtypes},
                                      std::pair{"kv_types", &v.scope.kv_types}}) {
      const auto values = scope->find(field);
      if (values == scope->end() || !values->is_array()) return bad(std::string("scope: no '") + field + "' list");
      for (const auto& d : *values) {
        if (!d.is_number_integer()) return bad(std::string("scope: '") + field + "' holds a value that is no dtype");
        list->push_back(d.get<int32_t>());
      }
      std::sort(list->begin(), list->end());
    }
  }
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
