#include "tokenizer/spm_encoder.h"

#include <cstdio>
#include <queue>
#include <string>

#include "tokenizer/merge_symbols.h"

namespace clport::tok {
namespace {

struct SpmPair {
  float score;
  int left;
  int right;
  size_t length;  // combined length when queued: a later mismatch means the pair is stale
};

struct WorseSpmPair {  // highest score first, then leftmost
  bool operator()(const SpmPair& a, const SpmPair& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

using SpmQueue = std::priority_queue<SpmPair, std::vector<SpmPair>, WorseSpmPair>;

void queue_pair(const Vocab& vocab, const VocabIndex& index, std::string_view text,
                const std::vector<MergeSymbol>& symbols, int left, int right, SpmQueue& queue) {
  if (left < 0 || right < 0) return;
  const MergeSymbol& l = symbols[static_cast<size_t>(left)];
  const MergeSymbol& r = symbols[static_cast<size_t>(right)];
  // Adjacent symbols are contiguous in the text, so their concatenation is one substring.
  const int32_t id = index.find(text.substr(l.offset, l.length + r.length));
  if (id < 0) return;
  const float score = vocab.scores.empty() ? 0.0f : vocab.scores[static_cast<size_t>(id)];
  queue.push(SpmPair{score, left, right, l.length + r.length});
}

}  // namespace

Status spm_encode(const Vocab& vocab, const VocabIndex& index, std::string_view text,
                  std::vector<int32_t>& out) {
  std::vector<MergeSymbol> symbols = split_into_symbols(text);
  SpmQueue queue;
  for (size_t i = 1; i < symbols.size(); ++i) {
    queue_pair(vocab, index, text, symbols, static_cast<int>(i) - 1, static_cast<int>(i), queue);
  }
  while (!queue.empty()) {
    const SpmPair pair = queue.top();
    queue.pop();
    const MergeSymbol& l = symbols[static_cast<size_t>(pair.left)];
    const MergeSymbol& r = symbols[static_cast<size_t>(pair.right)];
    if (l.length == 0 || r.length == 0 || l.next != pair.right ||
        l.length + r.length != pair.length) {
      continue;
    }
    merge_into_left(symbols, pair.left, pair.right);
    const MergeSymbol& merged = symbols[static_cast<size_t>(pair.left)];
    queue_pair(vocab, index, text, symbols, merged.prev, pair.left, queue);
    queue_pair(vocab, index, text, symbols, pair.left, merged.next, queue);
  }
  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[static_cast<size_t>(i)].next) {
    const std::string_view piece = symbol_text(text, symbols[static_cast<size_t>(i)]);
    const int32_t id = index.find(piece);
    if (id >= 0) {
      out.push_back(id);
    } else {
      CLPORT_RETURN_IF_ERROR(append_byte_tokens(vocab, index, piece, out));
    }
  }
  return Status();
}

}  // namespace clport::tok
