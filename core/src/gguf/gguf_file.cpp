// GgufFile: opening (memory-mapped or from a caller's buffer) and lookups.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gguf/gguf.h"
#include "gguf_parser.h"

namespace clport {

GgufFile::~GgufFile() {
  if (mapping_ != nullptr) munmap(mapping_, static_cast<size_t>(size_));
}

Result<std::shared_ptr<GgufFile>> GgufFile::open_memory(const void* data, size_t size) {
  if (data == nullptr && size != 0) return Status(Stage::InvalidArgument, "GGUF buffer is null");
  std::shared_ptr<GgufFile> file(new GgufFile());
  file->base_ = static_cast<const uint8_t*>(data);
  file->size_ = size;
  GgufParser parser(*file, "buffer");
  CLPORT_RETURN_IF_ERROR(parser.parse());
  return file;
}

Result<std::shared_ptr<GgufFile>> GgufFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status(Stage::Io, "cannot open GGUF file '" + path + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status(Stage::Io, "cannot stat '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(Stage::Io, "'" + path + "' is not a regular file");
  }
  std::shared_ptr<GgufFile> file(new GgufFile());
  file->path_ = path;
  file->size_ = static_cast<uint64_t>(st.st_size);
  if (file->size_ > 0) {
    void* map = mmap(nullptr, static_cast<size_t>(file->size_), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return Status(Stage::Io, "cannot memory-map '" + path + "': " + std::strerror(err));
    }
    file->mapping_ = map;
    file->base_ = static_cast<const uint8_t*>(map);
  }
  ::close(fd);  // the mapping keeps the file alive
  GgufParser parser(*file, "'" + path + "'");
  CLPORT_RETURN_IF_ERROR(parser.parse());
  return file;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].value;
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace clport
