#include "common/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace clport {

Status write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << contents;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return Status(Stage::Internal, "cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(Stage::Internal, "cannot rename " + tmp + " to " + path);
  }
  return Status();
}

}  // namespace clport
