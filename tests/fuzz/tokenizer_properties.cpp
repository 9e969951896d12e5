#include "tokenizer_properties.h"

#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "gguf/gguf.h"
#include "fuzz_check.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/utf8.h"

namespace clport::fuzz {
namespace {

bool bpe_spells(const Tokenizer& tok, std::string_view bytes) {
  for (char c : bytes) {
    if (!tok.find_token(tok::bytes_to_gpt2_alphabet(std::string_view(&c, 1)))) return false;
  }
  return true;
}

// What decode(encode(text)) must give, worked out here independently of the encoder: the text
// with ill-formed UTF-8 replaced, and for byte-level BPE each character with a byte the
// vocabulary has no token for replaced too. nullopt where SentencePiece's own escaping makes
// the round trip inexact (a U+2581 in the text comes back as a space).
std::optional<std::string> expected_decode(const Tokenizer& tok, std::string_view text) {
  const std::string valid = tok::replace_invalid_utf8(text);
  if (tok.model() == VocabModel::Spm) {
    if (valid.find("\xE2\x96\x81") != std::string::npos) return std::nullopt;
    return valid;
  }
  const std::string_view replacement = "\xEF\xBF\xBD";
  if (!bpe_spells(tok, replacement)) return valid;
  std::string out;
  for (size_t pos = 0; pos < valid.size();) {
    const size_t len = tok::utf8_char_length_at(valid, pos);
    const std::string_view ch = std::string_view(valid).substr(pos, len);
    out.append(bpe_spells(tok, ch) ? ch : replacement);
    pos += len;
  }
  return out;
}

}  // namespace

std::unique_ptr<Tokenizer> load_shared_vocab(const std::string& name,
                                             const std::function<void(Vocab&)>& adjust) {
  const std::string path = std::string(CLPORT_FUZZ_VOCAB_DIR) + "/" + name + ".gguf";
  auto file = GgufFile::open(path);
  FUZZ_CHECK(file.ok(), "%s", file.status().to_string().c_str());
  auto vocab = vocab_from_gguf(*file.value());
  FUZZ_CHECK(vocab.ok(), "%s", vocab.status().to_string().c_str());
  if (adjust) adjust(vocab.value());
  auto tok = Tokenizer::from_vocab(std::move(vocab.value()));
  FUZZ_CHECK(tok.ok(), "%s", tok.status().to_string().c_str());
  return std::move(tok.value());
}

void check_tokenizer(const Tokenizer& tok, const uint8_t* data, size_t size) {
  if (size == 0) return;
  const bool add_bos = (data[0] & 1) != 0;
  const bool parse_special = (data[0] & 2) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  auto encoded = tok.encode(text, add_bos, parse_special);
  FUZZ_CHECK(encoded.ok(), "%s", encoded.status().to_string().c_str());
  const std::vector<int32_t>& ids = encoded.value();
  for (int32_t id : ids) FUZZ_CHECK(id >= 0 && id < tok.n_vocab(), "id %d", id);
  if (add_bos && tok.bos() >= 0) FUZZ_CHECK(!ids.empty() && ids[0] == tok.bos(), "no BOS first");

  const std::string decoded = tok.decode(ids);
  const auto expected = parse_special ? std::nullopt : expected_decode(tok, text);
  if (expected) {
    FUZZ_CHECK(decoded == *expected, "decode(encode(x)) differs: %zu bytes, expected %zu",
               decoded.size(), expected->size());
  }
  TokenStreamDecoder stream(tok, false, /*strip_space_prefix=*/true);
  std::string streamed;
  for (int32_t id : ids) streamed += stream.push(id);
  streamed += stream.flush();
  FUZZ_CHECK(streamed == decoded, "streamed decode differs from the whole decode");
  (void)tok.decode(ids, /*render_special=*/true);

  // Any ids at all (negative, past the vocabulary, control tokens) decode without harm.
  std::vector<int32_t> raw(text.size() / sizeof(int32_t));
  if (!raw.empty()) std::memcpy(raw.data(), text.data(), raw.size() * sizeof(int32_t));
  (void)tok.decode(raw, (data[0] & 4) != 0);
  for (int32_t id : raw) {
    (void)tok.token_to_piece(id, true);
    (void)tok.is_eog(id);
    (void)tok.is_control(id);
  }
  (void)tok.find_token(text);
}

}  // namespace clport::fuzz
