#include "tokenizer/vocab_index.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "tokenizer/byte_unicode.h"

namespace clport::tok {
namespace {

Status model_error(std::string message) { return Status(Stage::Model, std::move(message)); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "<0xHH>" -> HH, or -1.
int parse_byte_token(std::string_view text) {
  if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>') return -1;
  const int hi = hex_digit(text[3]);
  const int lo = hex_digit(text[4]);
  return (hi < 0 || lo < 0) ? -1 : hi * 16 + lo;
}

Status check_special_id(const char* key, int32_t id, size_t n_vocab) {
  if (id == -1 || (id >= 0 && static_cast<size_t>(id) < n_vocab)) return Status();
  return model_error(std::string("tokenizer.ggml.") + key + " = " + std::to_string(id) +
                     " is out of range for a vocabulary of " + std::to_string(n_vocab) +
                     " tokens");
}

Status check_shape(const Vocab& v) {
  const size_t n = v.tokens.size();
  if (n == 0) return model_error("tokenizer.ggml.tokens is empty");
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return model_error("tokenizer.ggml.tokens has too many entries (" + std::to_string(n) + ")");
  }
  if (!v.scores.empty() && v.scores.size() != n) {
    return model_error("tokenizer.ggml.scores has " + std::to_string(v.scores.size()) +
                       " entries but there are " + std::to_string(n) + " tokens");
  }
  if (!v.types.empty() && v.types.size() != n) {
    return model_error("tokenizer.ggml.token_type has " + std::to_string(v.types.size()) +
                       " entries but there are " + std::to_string(n) + " tokens");
  }
  for (size_t i = 0; i < v.types.size(); ++i) {
    const auto t = static_cast<int32_t>(v.types[i]);
    if (t < 0 || t > static_cast<int32_t>(TokenType::Byte)) {
      return model_error("tokenizer.ggml.token_type[" + std::to_string(i) + "] = " +
                         std::to_string(t) + " is not a known token type (0..6)");
    }
  }
  CLPORT_RETURN_IF_ERROR(check_special_id("bos_token_id", v.bos_id, n));
  CLPORT_RETURN_IF_ERROR(check_special_id("eos_token_id", v.eos_id, n));
  CLPORT_RETURN_IF_ERROR(check_special_id("unknown_token_id", v.unk_id, n));
  CLPORT_RETURN_IF_ERROR(check_special_id("padding_token_id", v.pad_id, n));
  CLPORT_RETURN_IF_ERROR(check_special_id("eot_token_id", v.eot_id, n));
  CLPORT_RETURN_IF_ERROR(check_special_id("eom_token_id", v.eom_id, n));
  if (v.model == VocabModel::Bpe && v.merges.empty()) {
    return model_error("BPE vocabulary (tokenizer.ggml.model = gpt2) without "
                       "tokenizer.ggml.merges");
  }
  return Status();
}

Status index_merges(const Vocab& v, VocabIndex& index) {
  index.merge_ranks = IdHashTable(v.merges.size());
  for (size_t rank = 0; rank < v.merges.size(); ++rank) {
    const std::string_view merge = v.merges[rank];
    const size_t space = merge_separator(merge);
    if (space == std::string_view::npos) {
      return model_error("tokenizer.ggml.merges[" + std::to_string(rank) + "] = '" +
                         std::string(merge.substr(0, 64)) +
                         "' is not two symbols separated by a space");
    }
    const std::string_view left = merge.substr(0, space), right = merge.substr(space + 1);
    // The first occurrence of a pair keeps its (better) rank.
    int32_t* slot = index.merge_ranks.slot(merge_hash(left, right),
                                           [&](int32_t r) { return index.is_merge(r, left, right); });
    if (*slot < 0) *slot = static_cast<int32_t>(rank);
  }
  return Status();
}

bool is_end_marker(std::string_view text) {
  static constexpr std::string_view kMarkers[] = {
      "<|eot_id|>", "<|im_end|>", "<|end|>",  "<end_of_turn>", "<|endoftext|>",
      "<|eom_id|>", "<EOT>",      "_<EOT>",   "<|end_of_text|>"};
  return std::find(std::begin(kMarkers), std::end(kMarkers), text) != std::end(kMarkers);
}

}  // namespace

Result<VocabIndex> build_vocab_index(const Vocab& v) {
  CLPORT_RETURN_IF_ERROR(check_shape(v));
  VocabIndex index;
  const size_t n = v.tokens.size();
  index.byte_token.fill(-1);
  index.byte_value.assign(n, -1);
  index.eog.assign(n, false);
  index.vocab = &v;
  index.token_ids = IdHashTable(n);
  for (size_t i = 0; i < n; ++i) {
    const auto id = static_cast<int32_t>(i);
    const std::string_view text = v.tokens[i];
    // A duplicated text maps to its last id, as llama.cpp does.
    *index.token_ids.slot(std::hash<std::string_view>()(text),
                          [&](int32_t other) { return index.is_token(other, text); }) = id;
    const TokenType type = index.type(v, id);
    if (type == TokenType::Byte) {
      const int byte = parse_byte_token(text);
      if (byte < 0) {
        return model_error("token " + std::to_string(i) + " has type BYTE but its text '" +
                           std::string(text.substr(0, 32)) + "' is not of the form <0xHH>");
      }
      index.byte_value[i] = static_cast<int16_t>(byte);
    }
    if ((type == TokenType::Control || type == TokenType::UserDefined ||
         type == TokenType::Unknown) &&
        !text.empty()) {
      index.special_ids.push_back(id);
    }
    if ((type == TokenType::Control || type == TokenType::UserDefined) && is_end_marker(text)) {
      index.eog[i] = true;
    }
  }
  for (int32_t id : {v.eos_id, v.eot_id, v.eom_id}) {
    if (id >= 0) index.eog[static_cast<size_t>(id)] = true;
  }
  std::stable_sort(index.special_ids.begin(), index.special_ids.end(), [&](int32_t a, int32_t b) {
    return v.tokens[static_cast<size_t>(a)].size() > v.tokens[static_cast<size_t>(b)].size();
  });

  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    if (v.model == VocabModel::Spm) {
      const char spelled[] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
      index.byte_token[b] = index.find(std::string_view(spelled, sizeof(spelled)));
    } else {
      const char raw = static_cast<char>(b);
      index.byte_token[b] = index.find(bytes_to_gpt2_alphabet(std::string_view(&raw, 1)));
    }
  }
  if (v.model == VocabModel::Bpe) CLPORT_RETURN_IF_ERROR(index_merges(v, index));
  return index;
}

Status append_byte_tokens(const Vocab& vocab, const VocabIndex& index, std::string_view bytes,
                          std::vector<int32_t>& out) {
  for (char c : bytes) {
    int32_t id = index.byte_token[static_cast<uint8_t>(c)];
    if (id < 0) id = vocab.unk_id;
    if (id < 0) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "<0x%02X>", static_cast<unsigned>(static_cast<uint8_t>(c)));
      return Status(Stage::Model, std::string("the vocabulary has no token for byte ") + hex +
                                      " and no unknown token to fall back to");
    }
    out.push_back(id);
  }
  return Status();
}

}  // namespace clport::tok
