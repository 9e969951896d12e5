// Small UTF-8 helpers shared by the encoders and the streaming decoder. They never reject
// input: invalid bytes are treated as one-byte characters so that every byte is still encoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clport::tok {

// Length of the sequence a lead byte announces: 1 for ASCII, continuation and invalid bytes.
size_t utf8_sequence_length(uint8_t lead);

// Length of the character starting at s[pos], as the lead byte announces it, clamped to the end
// of the string (the SentencePiece splitting rule; no validation of continuation bytes).
size_t utf8_char_length_at(std::string_view s, size_t pos);

void append_utf8(std::string& out, uint32_t codepoint);

// Decodes the valid character at s[pos]; returns its length or 0 if the bytes there are not a
// complete, valid sequence.
size_t decode_utf8(std::string_view s, size_t pos, uint32_t* codepoint);

// Length of the longest prefix of s that does not end inside an incomplete (but so far valid)
// multi-byte sequence. Invalid bytes count as complete.
size_t utf8_complete_prefix_length(std::string_view s);

// Length of the well-formed sequence (Unicode Table 3-7) at s[pos], or 0 when there is none; then
// *maximal_subpart is the length of the maximal subpart there (at least 1): the longest start
// of a well-formed sequence, which one U+FFFD replaces.
size_t utf8_well_formed_length(std::string_view s, size_t pos, size_t* maximal_subpart);

// True when every byte of s belongs to a well-formed sequence.
bool is_valid_utf8(std::string_view s);

// s with each maximal subpart of an ill-formed sequence replaced by U+FFFD, the substitution the
// Unicode standard recommends (and the WHATWG decoder uses): "\xF0\x9F\x98" becomes one U+FFFD,
// "\xFF\xFE" two.
std::string replace_invalid_utf8(std::string_view s);

}  // namespace clport::tok
