// GGUF metadata -> Vocab. Key names and defaults follow the GGUF convention (tokenizer.ggml.*);
// every missing required key, wrong type or out-of-range id is a Model error naming the key.
#include <string>

#include "gguf/gguf.h"
#include "common/logger.h"
#include "clport/tokenizer.h"

namespace clport {
namespace {

Status with_context(const Status& s) {
  return Status(s.stage(), "tokenizer metadata: " + s.message());
}

// A special token id: absent -> fallback; -1 (stored signed) -> none; otherwise must be a
// valid id.
Result<int32_t> read_token_id(const GgufFile& file, const std::string& key, int32_t fallback,
                              size_t n_vocab) {
  if (!file.has(key)) {
    // Built-in defaults only count when the vocabulary actually has that id.
    return (fallback >= 0 && static_cast<size_t>(fallback) < n_vocab) ? fallback : -1;
  }
  auto value = file.get_i64(key);
  if (!value) return with_context(value.status());
  const int64_t id = value.value();
  if (id == -1) return -1;
  if (id < 0 || static_cast<uint64_t>(id) >= n_vocab) {
    return Status(Stage::Model, "tokenizer metadata: " + key + " = " + std::to_string(id) +
                                    " is out of range for a vocabulary of " +
                                    std::to_string(n_vocab) + " tokens");
  }
  return static_cast<int32_t>(id);
}

Status read_strings(const GgufFile& file, Vocab& v) {
  auto tokens = file.get_string_array("tokenizer.ggml.tokens");
  if (!tokens) return with_context(tokens.status());
  v.tokens.assign(tokens->begin(), tokens->end());
  const uint64_t n = v.tokens.size();

  if (file.has("tokenizer.ggml.scores")) {
    auto scores = file.get_f32_array("tokenizer.ggml.scores", n);
    if (!scores) return with_context(scores.status());
    v.scores = std::move(scores.value());
  }
  if (file.has("tokenizer.ggml.token_type")) {
    auto types = file.get_i32_array("tokenizer.ggml.token_type", n);
    if (!types) return with_context(types.status());
    v.types.reserve(types->size());
    for (size_t i = 0; i < types->size(); ++i) {
      const int32_t t = (*types)[i];
      if (t < 0 || t > static_cast<int32_t>(TokenType::Byte)) {
        return Status(Stage::Model, "tokenizer metadata: tokenizer.ggml.token_type[" +
                                        std::to_string(i) + "] = " + std::to_string(t) +
                                        " is not a known token type (0..6)");
      }
      v.types.push_back(static_cast<TokenType>(t));
    }
  }
  if (v.model == VocabModel::Bpe) {
    if (!file.has("tokenizer.ggml.merges")) {
      return Status(Stage::Model,
                    "tokenizer metadata: tokenizer.ggml.model is 'gpt2' (byte-level BPE) but "
                    "tokenizer.ggml.merges is missing; the file cannot be tokenized");
    }
    auto merges = file.get_string_array("tokenizer.ggml.merges");
    if (!merges) return with_context(merges.status());
    v.merges.assign(merges->begin(), merges->end());
  }
  return Status();
}

}  // namespace

Result<Vocab> vocab_from_gguf(const GgufFile& file) {
  Vocab v;
  auto model = file.get_string("tokenizer.ggml.model");
  if (!model) return with_context(model.status());
  if (model.value() == "llama") {
    v.model = VocabModel::Spm;
  } else if (model.value() == "gpt2") {
    v.model = VocabModel::Bpe;
  } else {
    return Status(Stage::Unsupported, "tokenizer.ggml.model = '" + model.value() +
                                          "' is not supported (supported: 'llama' "
                                          "SentencePiece-style, 'gpt2' byte-level BPE)");
  }
  const bool spm = v.model == VocabModel::Spm;

  auto pre = file.get_string_or("tokenizer.ggml.pre", "default");
  if (!pre) return with_context(pre.status());
  v.pre = pre.value();
  if (!spm && !file.has("tokenizer.ggml.pre")) {
    logger("tokenizer")->warn("tokenizer.ggml.pre is missing; using the default BPE split rules");
  }

  CLPORT_RETURN_IF_ERROR(read_strings(file, v));
  const size_t n = v.tokens.size();

  // Defaults: SentencePiece LLaMA vocabularies put <unk>, <s>, </s> at 0, 1, 2.
  struct IdKey {
    const char* key;
    int32_t* field;
    int32_t fallback;
  };
  const IdKey ids[] = {
      {"tokenizer.ggml.bos_token_id", &v.bos_id, spm ? 1 : -1},
      {"tokenizer.ggml.eos_token_id", &v.eos_id, spm ? 2 : -1},
      {"tokenizer.ggml.unknown_token_id", &v.unk_id, spm ? 0 : -1},
      {"tokenizer.ggml.padding_token_id", &v.pad_id, -1},
      {"tokenizer.ggml.eot_token_id", &v.eot_id, -1},
      {"tokenizer.ggml.eom_token_id", &v.eom_id, -1},
  };
  for (const IdKey& k : ids) {
    auto id = read_token_id(file, k.key, k.fallback, n);
    if (!id) return id.status();
    *k.field = id.value();
  }

  struct FlagKey {
    const char* key;
    bool* field;
    bool fallback;
  };
  const FlagKey flags[] = {
      {"tokenizer.ggml.add_bos_token", &v.add_bos, spm},
      {"tokenizer.ggml.add_eos_token", &v.add_eos, false},
      {"tokenizer.ggml.add_space_prefix", &v.add_space_prefix, spm},
  };
  for (const FlagKey& k : flags) {
    auto flag = file.get_bool_or(k.key, k.fallback);
    if (!flag) return with_context(flag.status());
    *k.field = flag.value();
  }
  return v;
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::from_gguf(const GgufFile& file) {
  auto vocab = vocab_from_gguf(file);
  if (!vocab) return vocab.status();
  return from_vocab(std::move(vocab.value()));
}

}  // namespace clport
