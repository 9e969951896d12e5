#include "programs/cache_key.h"

#include <cstdint>
#include <memory>

#include <openssl/evp.h>

namespace clport::programs {
// Not in an anonymous namespace: Sha256::State holds one.

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

class Hasher {
 public:
  Hasher() : ctx_(EVP_MD_CTX_new()) {
    ok_ = ctx_ != nullptr && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
  }
  void update(const void* data, size_t size) {
    ok_ = ok_ && EVP_DigestUpdate(ctx_.get(), data, size) == 1;
  }
  Digest finish() {
    Digest digest{};
    unsigned int length = 0;
    ok_ = ok_ && EVP_DigestFinal_ex(ctx_.get(), digest.data(), &length) == 1 &&
          length == digest.size();
    // A failing digest must never match a stored one: all-zero is never the SHA-256 of
    // anything we hash, and entries whose hash is zero are rejected by the reader.
    if (!ok_) digest.fill(0);
    return digest;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx_;
  bool ok_ = false;
};

struct Sha256::State {
  Hasher hasher;
};
Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;
void Sha256::update(const void* data, size_t size) { state_->hasher.update(data, size); }
Digest Sha256::finish() { return state_->hasher.finish(); }

Digest sha256(const void* data, size_t size) {
  Hasher hasher;
  hasher.update(data, size);
  return hasher.finish();
}

std::string to_hex(const Digest& digest) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    out.push_back(digits[byte >> 4]);
    out.push_back(digits[byte & 15]);
  }
  return out;
}

Digest sha256_fields(const std::vector<std::string>& fields) {
  Hasher hasher;
  for (const auto& field : fields) {
    const uint64_t length = field.size();
    unsigned char prefix[8];
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(length >> (8 * i));
    hasher.update(prefix, sizeof(prefix));
    hasher.update(field.data(), field.size());
  }
  return hasher.finish();
}

}  // namespace clport::programs
