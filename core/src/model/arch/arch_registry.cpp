// The architecture table: every family clport runs, one row each. A new family is its file under
// model/arch/ and a row here.
#include "model/arch/arch_registry.h"

namespace clport {

// Each defined in its family's file.
const ArchFamily& llama_family();
const ArchFamily& gemma3_family();
const ArchFamily& qwen2_family();
const ArchFamily& qwen3_family();
const ArchFamily& phi3_family();
const ArchFamily& smollm3_family();

const std::vector<const ArchFamily*>& arch_families() {
  static const std::vector<const ArchFamily*> families{
      &llama_family(),
      &gemma3_family(),
      &qwen2_family(),
      &qwen3_family(),
      &phi3_family(),
      &smollm3_family(),
  };
  return families;
}

const ArchFamily* find_arch(const std::string& arch) {
  for (const ArchFamily* f : arch_families())
    if (arch == f->name) return f;
  return nullptr;
}

std::string supported_architectures() {
  std::string out;
  for (const ArchFamily* f : arch_families()) {
    out += (out.empty() ? "" : ", ") + std::string(f->name) + " (" + f->models + ")";
  }
  return out;
}

}  // namespace clport
