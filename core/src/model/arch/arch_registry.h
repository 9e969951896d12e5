// Internal: the table of architecture families (one file each under model/arch/), looked up by
// general.architecture.
#pragma once

#include <string>
#include <vector>

#include "model/arch/arch_family.h"

namespace clport {

// The families in the table's order.
const std::vector<const ArchFamily*>& arch_families();
// The family named `arch`, or null.
const ArchFamily* find_arch(const std::string& arch);
// "llama (LLaMA 2/3.x, SmolLM2, TinyLlama), gemma3 (Gemma 3), ...": for messages.
std::string supported_architectures();

}  // namespace clport
