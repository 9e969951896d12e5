// The GPT-2 byte alphabet: byte-level BPE vocabularies store token text with every byte mapped
// to a printable code point (printable Latin-1 bytes map to themselves, the other 68 bytes to
// U+0100 onwards in byte order), so that merges never see raw spaces or control bytes.
#pragma once

#include <string>
#include <string_view>

namespace clport::tok {

// Bytes -> their GPT-2 alphabet spelling (UTF-8).
std::string bytes_to_gpt2_alphabet(std::string_view bytes);

// GPT-2 alphabet text -> bytes. Characters outside the alphabet are copied unchanged (a vocab
// may hold added tokens written in plain UTF-8).
std::string gpt2_alphabet_to_bytes(std::string_view text);

}  // namespace clport::tok
