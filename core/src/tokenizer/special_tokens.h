// Special-token partitioning: before any BPE, the text is cut at every occurrence of a special
// token's exact text, so "<|im_start|>" becomes one id instead of being spelled out.
// USER_DEFINED tokens are always matched; CONTROL and UNKNOWN tokens only when parse_special
// is set (otherwise a user typing "<|endoftext|>" gets ordinary text tokens). Longer tokens are
// matched first.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "clport/tokenizer.h"
#include "tokenizer/vocab_index.h"

namespace clport::tok {

struct Fragment {
  int32_t token = -1;     // a matched special token, or -1 for raw text
  std::string_view text;  // the raw text when token == -1
};

std::vector<Fragment> partition_special_tokens(const Vocab& vocab, const VocabIndex& index,
                                               std::string_view text, bool parse_special);

}  // namespace clport::tok
