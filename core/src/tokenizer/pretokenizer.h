// Pre-tokenizer: cuts text into words before byte-level BPE, with the split rules a vocabulary
// names in tokenizer.ggml.pre. A rule set is a list of regular expressions applied in order;
// each one cuts every current piece into its matches and the text between them (nothing is
// dropped), and later expressions only see one piece at a time (lookaheads stop at its end).
// Matching uses PCRE2 in UTF + UCP mode, so \p{L}, \p{N} and \s follow Unicode properties;
// invalid UTF-8 never matches and survives as its own piece.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clport/status.h"

namespace clport::tok {

struct PreTokenizerRules {
  std::string name;                  // canonical name, e.g. "gpt-2"
  std::vector<std::string> regexes;  // applied in order
  bool ignore_merges = false;        // a word that is itself a token skips BPE (llama3)
};

// Rules for a tokenizer.ggml.pre value; Unsupported (with the known names) for unknown ones.
Result<PreTokenizerRules> pre_tokenizer_rules(std::string_view pre);

class PreTokenizer {
 public:
  // Compiles the expressions; a bad expression is an Internal error naming it.
  static Result<std::unique_ptr<PreTokenizer>> create(const PreTokenizerRules& rules);
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // Appends the pieces of `text` (views into it) to `pieces`, in order; they concatenate back
  // to `text`.
  Status split(std::string_view text, std::vector<std::string_view>& pieces) const;
  bool ignore_merges() const { return ignore_merges_; }

 private:
  struct Compiled;
  PreTokenizer() = default;
  std::vector<std::unique_ptr<Compiled>> regexes_;
  bool ignore_merges_ = false;
};

}  // namespace clport::tok
