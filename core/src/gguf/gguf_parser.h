// The GGUF parser: fills a GgufFile from untrusted bytes in three passes (header, metadata,
// tensor infos + data layout). Every failure is a Status of stage Model that names the problem
// and the byte offset where it was found.
#pragma once

#include <cstdint>
#include <string>

#include "byte_cursor.h"
#include "gguf/gguf.h"

namespace clport {

class GgufParser {
 public:
  GgufParser(GgufFile& file, std::string source_name)
      : file_(file), cur_(file.base_, file.size_), source_(std::move(source_name)) {}

  Status parse();

 private:
  Status parse_header(uint64_t& n_tensors, uint64_t& n_kv);
  Status parse_metadata(uint64_t n_kv);
  Status parse_value(GgufType type, GgufValue& out, const std::string& key);
  Status parse_array(GgufValue& out, const std::string& key);
  // A length-prefixed string; lengths above `max_len` are refused before the bytes are read.
  Status parse_string(std::string_view& out, const std::string& what,
                      uint64_t max_len = UINT64_MAX);
  Status apply_alignment();
  Status parse_tensor_infos(uint64_t n_tensors);
  Status parse_one_tensor_info(GgufTensorInfo& info, uint64_t index);
  Status place_tensor_data();

  // "GGUF <source>: <what> (at byte offset N)"
  Status fail(const std::string& what, uint64_t offset) const;
  Status fail_here(const std::string& what) const { return fail(what, cur_.pos()); }

  GgufFile& file_;
  gguf_detail::ByteCursor cur_;
  std::string source_;
};

}  // namespace clport
