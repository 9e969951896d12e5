// libFuzzer target: the on-disk program cache entry (layout in programs/program_cache.h). Any file
// content must either decode to the binary it carries, and then be exactly the entry that
// encoding that binary writes, or be refused with an Io status; the input's bytes are also
// encoded as a binary, which must decode back unchanged.
#include <cstdint>
#include <vector>

#include "fuzz_check.h"
#include "programs/cache_entry.h"
#include "programs/cache_key.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace clport::programs;
  // The key the seed entries in tests/fuzz/program_cache_entry/ were written for.
  static const Digest kKey = sha256("clport-fuzz", 11);
  const std::vector<unsigned char> file(data, data + size);

  auto decoded = decode_entry(file, kKey);
  if (decoded.ok()) {
    FUZZ_CHECK(!decoded->empty(), "an entry with an empty binary was accepted");
    FUZZ_CHECK(encode_entry(kKey, decoded.value()) == file, "the entry does not re-encode to itself");
  } else {
    FUZZ_CHECK(decoded.status().stage() == clport::Stage::Io, "%s", decoded.status().to_string().c_str());
  }

  if (!file.empty()) {
    const std::vector<unsigned char> entry = encode_entry(kKey, file);
    auto back = decode_entry(entry, kKey);
    FUZZ_CHECK(back.ok() && back.value() == file, "an encoded entry does not decode");
    Digest other = kKey;
    other[0] ^= 1;
    FUZZ_CHECK(!decode_entry(entry, other).ok(), "an entry for another key was accepted");
  }
  return 0;
}
