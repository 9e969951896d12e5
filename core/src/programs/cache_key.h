// SHA-256 (OpenSSL EVP) and the program cache key derivation.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace clport::programs {

using Digest = std::array<unsigned char, 32>;

Digest sha256(const void* data, size_t size);

// SHA-256 over data given in pieces. A failed digest is all zeros, which no reader accepts.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  Digest finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};
std::string to_hex(const Digest& digest);

// Digest over the fields in order, each prefixed by its length so that no two different field
// lists can hash the same byte stream.
Digest sha256_fields(const std::vector<std::string>& fields);

}  // namespace clport::programs
