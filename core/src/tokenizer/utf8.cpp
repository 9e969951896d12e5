#include "tokenizer/utf8.h"

namespace clport::tok {

size_t utf8_sequence_length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;  // continuation byte or 0xF8..0xFF: not a lead byte
}

size_t utf8_char_length_at(std::string_view s, size_t pos) {
  const size_t len = utf8_sequence_length(static_cast<uint8_t>(s[pos]));
  const size_t left = s.size() - pos;
  return len < left ? len : left;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t decode_utf8(std::string_view s, size_t pos, uint32_t* codepoint) {
  if (pos >= s.size()) return 0;
  const auto lead = static_cast<uint8_t>(s[pos]);
  const size_t len = utf8_sequence_length(lead);
  if (len == 1) {
    if (lead >= 0x80) return 0;
    *codepoint = lead;
    return 1;
  }
  if (s.size() - pos < len) return 0;
  uint32_t cp = lead & (0x7F >> len);
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong forms, surrogates and values past U+10FFFF.
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *codepoint = cp;
  return len;
}

size_t utf8_complete_prefix_length(std::string_view s) {
  // Only the last three bytes can belong to an unfinished character.
  const size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<uint8_t>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // continuation: keep looking for the lead byte
    const size_t len = utf8_sequence_length(b);
    // A lead byte whose sequence needs more bytes than are present is held back.
    return (len > 1 && len > back) ? n - back : n;
  }
  return n;
}

size_t utf8_well_formed_length(std::string_view s, size_t pos, size_t* maximal_subpart) {
  const auto lead = static_cast<uint8_t>(s[pos]);
  if (lead < 0x80) return 1;
  // The second byte's range depends on the lead (it excludes overlong forms, surrogates and
  // values past U+10FFFF); every later byte is a plain continuation byte.
  size_t need = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
  } else if (lead == 0xE0) {
    need = 3;
    lo = 0xA0;
  } else if (lead == 0xED) {
    need = 3;
    hi = 0x9F;
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    need = 3;
  } else if (lead == 0xF0) {
    need = 4;
    lo = 0x90;
  } else if (lead == 0xF4) {
    need = 4;
    hi = 0x8F;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    need = 4;
  } else {  // 0x80..0xC1, 0xF5..0xFF: never the start of a sequence
    *maximal_subpart = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < need && pos + i < s.size(); ++i) {
    const auto b = static_cast<uint8_t>(s[pos + i]);
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) break;
  }
  if (i == need) return need;
  *maximal_subpart = i;
  return 0;
}

bool is_valid_utf8(std::string_view s) {
  size_t pos = 0;
  size_t subpart = 0;
  while (pos < s.size()) {
    const size_t len = utf8_well_formed_length(s, pos, &subpart);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

std::string replace_invalid_utf8(std::string_view s) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(s.size() + 8);
  size_t pos = 0;
  while (pos < s.size()) {
    size_t subpart = 0;
    const size_t len = utf8_well_formed_length(s, pos, &subpart);
    if (len > 0) {
      out.append(s.substr(pos, len));
      pos += len;
    } else {
      out.append(kReplacement);
      pos += subpart;
    }
  }
  return out;
}

}  // namespace clport::tok
