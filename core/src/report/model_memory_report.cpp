// model_memory_text / model_memory_json (report/report.h).
#include <nlohmann/json.hpp>

#include "model/llama_model.h"
#include "report/report.h"
#include "model/memory_estimate.h"

namespace clport {
namespace {

nlohmann::json named_json(const std::vector<NamedBytes>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const NamedBytes& n : list) out.push_back({{"name", n.name}, {"bytes", n.bytes}});
  return out;
}

std::string named_text(const std::vector<NamedBytes>& list) {
  std::string out;
  for (const NamedBytes& n : list) out += (out.empty() ? "" : ", ") + n.name + " " + mib_text(n.bytes);
  return out;
}

}  // namespace

std::string model_memory_text(const ModelMemory& m) {
  uint64_t scratch = 0;
  for (const NamedBytes& n : m.plugin_scratch) scratch += n.bytes;
  std::string text = "memory: weights " + mib_text(m.weight_bytes()) + " (" + named_text(m.weights) + ")";
  if (m.plain_freed_bytes != 0) text += ", plain copies freed " + mib_text(m.plain_freed_bytes);
  text += "\nmemory: KV cache " + mib_text(m.kv_cache_bytes) + ", activations " + mib_text(m.activation_bytes);
  if (!m.plugin_scratch.empty()) text += ", plugin scratch " + mib_text(scratch) + " (" + named_text(m.plugin_scratch) + ")";
  if (!m.plugin_scratch_declared.empty())
    text += "\nmemory: plugin scratch declared at load (at most) " + named_text(m.plugin_scratch_declared);
  text += "\nmemory: allocated " + mib_text(m.allocated_bytes) + " (all of it but the weights read in place)\n";
  return text;
}

std::string model_memory_json(const ModelMemory& m) {
  const nlohmann::json doc{{"weights", named_json(m.weights)},
                           {"weights_bytes", m.weight_bytes()},
                           {"kv_cache_bytes", m.kv_cache_bytes},
                           {"activation_bytes", m.activation_bytes},
                           {"plugin_scratch", named_json(m.plugin_scratch)},
                           {"plugin_scratch_declared", named_json(m.plugin_scratch_declared)},
                           {"allocated_bytes", m.allocated_bytes},
                           {"plain_freed_bytes", m.plain_freed_bytes}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace clport
