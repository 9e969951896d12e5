// Tokenizers built from GGUF metadata: GPT-2 style byte-level BPE (tokenizer.ggml.model "gpt2")
// and SentencePiece-style scored merges with byte fallback ("llama"), with special tokens,
// BOS/EOS handling and detokenization that round-trips. The encoders reproduce llama.cpp's token
// ids for the same vocabulary (see tests/tokenizer/).
//
// Malformed metadata (scores stored as integers, merges missing, byte tokens like <0xZZ>,
// special ids out of range, arrays of mismatched length) is a Status of stage Model; nothing
// here throws or aborts on bad input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clport/export.h"
#include "clport/status.h"

namespace clport {

class GgufFile;

// tokenizer.ggml.token_type values, numbered as in GGUF files.
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,      // BOS/EOS/chat markers: matched whole only when parse_special is set
  UserDefined = 4,  // added tokens: always matched whole, before BPE
  Unused = 5,
  Byte = 6,         // "<0xHH>": one raw byte (SentencePiece byte fallback)
};

enum class VocabModel {
  Bpe,  // "gpt2": byte-level BPE, merges by rank
  Spm,  // "llama": SentencePiece-style, merges by score, byte fallback
};

// Everything a tokenizer needs, independent of the file format. Built from GGUF by
// vocab_from_gguf(); tests and tools may also fill one in directly.
struct Vocab {
  VocabModel model = VocabModel::Bpe;
  // tokenizer.ggml.pre: the pre-tokenizer split rules (BPE only). Known: "default", "gpt-2"
  // (also mpt, olmo, jais), "starcoder" (also smollm, refact, command-r, codeshell, exaone,
  // minerva), "llama3" (also llama-bpe, falcon3, dbrx, smaug-bpe, pixtral), "qwen2"
  // (also deepseek-r1-qwen, stablelm2, hunyuan). Anything else is refused with a clear message.
  std::string pre = "default";
  std::vector<std::string> tokens;  // id -> text (BPE: in the GPT-2 byte alphabet; SPM: U+2581)
  std::vector<float> scores;        // empty (all 0) or one per token; SPM merge priority
  std::vector<TokenType> types;     // empty (all Normal) or one per token
  std::vector<std::string> merges;  // BPE: "left right", rank = position
  int32_t bos_id = -1;              // -1: none
  int32_t eos_id = -1;
  int32_t unk_id = -1;
  int32_t pad_id = -1;
  int32_t eot_id = -1;              // end of turn (chat models)
  int32_t eom_id = -1;              // end of message
  bool add_bos = false;             // the model expects BOS before a prompt
  bool add_eos = false;
  bool add_space_prefix = true;     // SPM: prepend a space to raw text (SentencePiece default)
};

// Reads tokenizer.ggml.* keys. Errors (stage Model) name the key and what is wrong with it.
CLPORT_API Result<Vocab> vocab_from_gguf(const GgufFile& file);

class CLPORT_API Tokenizer {
 public:
  static Result<std::unique_ptr<Tokenizer>> from_gguf(const GgufFile& file);
  // Validates the vocabulary (lengths, ids, merges, byte tokens, pre-tokenizer) and builds the
  // lookup tables.
  static Result<std::unique_ptr<Tokenizer>> from_vocab(Vocab vocab);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Text -> token ids. add_bos: put BOS first (if the vocabulary has one; add_bos_default()
  // says whether the model expects it). parse_special: CONTROL tokens written in the text
  // (e.g. "<|im_start|>") become their ids; USER_DEFINED tokens are always matched whole.
  // Ill-formed UTF-8 is never rejected: each maximal subpart of an ill-formed sequence is
  // encoded as U+FFFD (the Unicode standard's recommended substitution, as llama.cpp does), and
  // so is a character a byte-level BPE vocabulary cannot spell (a byte without a token, as
  // F1 and F5..FF in StarCoder-family vocabularies), rather than as the unknown token. So
  // decode(encode(x)) is x with those replacements.
  Result<std::vector<int32_t>> encode(std::string_view text, bool add_bos,
                                      bool parse_special) const;
  // Token ids -> text. For SentencePiece vocabularies with add_space_prefix, the one space the
  // encoder prepended is removed again, so decode(encode(x)) == x for well-formed x.
  // CONTROL/UNKNOWN tokens are rendered only when render_special is set. Out-of-range ids render
  // as nothing.
  std::string decode(const std::vector<int32_t>& ids, bool render_special = false) const;
  // The bytes of one token (no space-prefix removal). May be an incomplete UTF-8 sequence
  // (byte tokens); use TokenStreamDecoder to print token by token.
  std::string token_to_piece(int32_t id, bool render_special = false) const;

  int32_t bos() const;
  int32_t eos() const;
  int32_t unk() const;
  int32_t pad() const;
  bool is_eog(int32_t id) const;  // end of generation: EOS, EOT, EOM and known end markers
  bool is_control(int32_t id) const;
  int32_t n_vocab() const;
  bool add_bos_default() const;
  bool add_eos_default() const;
  VocabModel model() const;
  const Vocab& vocab() const;
  // Exact token text -> id (for chat templates and tools).
  std::optional<int32_t> find_token(std::string_view text) const;

  struct Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Holds back an incomplete UTF-8 sequence at the end of a byte stream, so that streamed output
// never prints half a character. Invalid bytes are passed through (never held forever).
class CLPORT_API Utf8StreamBuffer {
 public:
  // Appends bytes; returns the longest prefix of the pending bytes that does not end inside a
  // multi-byte character.
  std::string push(std::string_view bytes);
  // Returns whatever is still held (possibly an incomplete sequence) and clears the buffer.
  std::string flush();
  size_t pending() const { return held_.size(); }

 private:
  std::string held_;
};

// Token-by-token detokenization for streaming output: token_to_piece + UTF-8 buffering, and
// (optionally) the removal of the SentencePiece space prefix before the first text.
class CLPORT_API TokenStreamDecoder {
 public:
  // strip_space_prefix: set when the stream starts a text (decoding a whole prompt); leave it
  // off for a continuation, whose leading space is real.
  explicit TokenStreamDecoder(const Tokenizer& tokenizer, bool render_special = false,
                              bool strip_space_prefix = false);
  std::string push(int32_t id);
  std::string flush();

 private:
  const Tokenizer& tokenizer_;
  bool render_special_;
  bool strip_pending_;
  Utf8StreamBuffer utf8_;
};

}  // namespace clport
