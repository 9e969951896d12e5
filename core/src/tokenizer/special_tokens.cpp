#include "tokenizer/special_tokens.h"

namespace clport::tok {

std::vector<Fragment> partition_special_tokens(const Vocab& vocab, const VocabIndex& index,
                                               std::string_view text, bool parse_special) {
  std::vector<Fragment> fragments{Fragment{-1, text}};
  std::vector<Fragment> next;
  for (int32_t id : index.special_ids) {
    const TokenType type = index.type(vocab, id);
    if (!parse_special && type != TokenType::UserDefined) continue;
    const std::string_view special = vocab.tokens[static_cast<size_t>(id)];
    next.clear();
    bool changed = false;
    for (const Fragment& f : fragments) {
      if (f.token >= 0 || f.text.size() < special.size()) {
        next.push_back(f);
        continue;
      }
      size_t pos = 0;
      for (size_t hit = f.text.find(special); hit != std::string_view::npos;
           hit = f.text.find(special, pos)) {
        if (hit > pos) next.push_back(Fragment{-1, f.text.substr(pos, hit - pos)});
        next.push_back(Fragment{id, {}});
        pos = hit + special.size();
        changed = true;
      }
      if (pos < f.text.size()) next.push_back(Fragment{-1, f.text.substr(pos)});
    }
    if (changed) fragments.swap(next);
  }
  return fragments;
}

}  // namespace clport::tok
