#include "plugins/elf_check.h"

#include <cstring>
#include <fstream>

#if defined(__linux__) || defined(__ANDROID__)
#include <elf.h>
#endif

namespace clport::plugin_detail {

std::string elf_truncation_problem(const std::string& path) {
#if defined(__linux__) || defined(__ANDROID__)
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  Elf64_Ehdr eh{};
  if (size < EI_NIDENT || !in.read(reinterpret_cast<char*>(&eh), std::min<uint64_t>(size, sizeof eh))) {
    return size < EI_NIDENT ? "" : "cannot read the ELF header";
  }
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "";  // not ELF: let dlopen say why
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return "";            // 32-bit: dlopen refuses it
  if (size < sizeof eh) return "file is truncated inside the ELF header";
  auto past_end = [&](uint64_t offset, uint64_t bytes) { return offset > size || bytes > size - offset; };
  if (eh.e_phnum != 0 && past_end(eh.e_phoff, uint64_t{eh.e_phnum} * eh.e_phentsize)) {
    return "file is truncated: its program headers end past the file's " + std::to_string(size) + " bytes";
  }
  for (uint16_t i = 0; i < eh.e_phnum && eh.e_phentsize == sizeof(Elf64_Phdr); ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + uint64_t{i} * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "cannot read the program headers";
    if (ph.p_type == PT_LOAD && past_end(ph.p_offset, ph.p_filesz)) {
      return "file is truncated: a loadable segment ends at byte " + std::to_string(ph.p_offset + ph.p_filesz) +
             ", the file has " + std::to_string(size);
    }
  }
  if (eh.e_shnum != 0 && past_end(eh.e_shoff, uint64_t{eh.e_shnum} * eh.e_shentsize)) {
    return "file is truncated: its section table ends at byte " +
           std::to_string(eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize) + ", the file has " +
           std::to_string(size);
  }
#else
  (void)path;
#endif
  return "";
}

}  // namespace clport::plugin_detail
