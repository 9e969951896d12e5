#include "tokenizer/byte_unicode.h"

#include <array>
#include <cstdint>

#include "tokenizer/utf8.h"

namespace clport::tok {
namespace {

struct ByteAlphabet {
  std::array<uint32_t, 256> byte_to_cp{};
  std::array<std::string, 256> byte_to_utf8;
  // The alphabet lives in U+0021..U+0143, so a flat table inverts it.
  static constexpr uint32_t kMaxCp = 0x200;
  std::array<int16_t, kMaxCp> cp_to_byte{};

  ByteAlphabet() {
    cp_to_byte.fill(-1);
    uint32_t next_extra = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      const uint32_t cp = printable ? b : next_extra++;
      byte_to_cp[b] = cp;
      append_utf8(byte_to_utf8[b], cp);
      cp_to_byte[cp] = static_cast<int16_t>(b);
    }
  }
};

const ByteAlphabet& alphabet() {
  static const ByteAlphabet table;
  return table;
}

}  // namespace

std::string bytes_to_gpt2_alphabet(std::string_view bytes) {
  const ByteAlphabet& a = alphabet();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) out += a.byte_to_utf8[static_cast<uint8_t>(c)];
  return out;
}

std::string gpt2_alphabet_to_bytes(std::string_view text) {
  const ByteAlphabet& a = alphabet();
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    uint32_t cp = 0;
    const size_t len = decode_utf8(text, pos, &cp);
    if (len == 0) {  // invalid UTF-8 in the vocabulary: keep the byte as it is
      out.push_back(text[pos++]);
      continue;
    }
    if (cp < ByteAlphabet::kMaxCp && a.cp_to_byte[cp] >= 0) {
      out.push_back(static_cast<char>(a.cp_to_byte[cp]));
    } else {
      out.append(text.substr(pos, len));
    }
    pos += len;
  }
  return out;
}

}  // namespace clport::tok
