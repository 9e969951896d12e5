#include "tokenizer/bpe_encoder.h"

#include <cstdio>
#include <queue>
#include <string>

#include "tokenizer/byte_unicode.h"
#include "tokenizer/merge_symbols.h"

namespace clport::tok {
namespace {

struct BpePair {
  int32_t rank;
  int left;
  int right;
  size_t length;  // combined length when queued: a later mismatch means the pair is stale
};

struct WorseBpePair {  // priority_queue puts the "largest" first: lowest rank, then leftmost
  bool operator()(const BpePair& a, const BpePair& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

using BpeQueue = std::priority_queue<BpePair, std::vector<BpePair>, WorseBpePair>;

void queue_pair(const VocabIndex& index, std::string_view text,
                const std::vector<MergeSymbol>& symbols, int left, int right, BpeQueue& queue) {
  if (left < 0 || right < 0) return;
  const MergeSymbol& l = symbols[static_cast<size_t>(left)];
  const MergeSymbol& r = symbols[static_cast<size_t>(right)];
  const int32_t rank = index.merge_rank(symbol_text(text, l), symbol_text(text, r));
  if (rank < 0) return;
  queue.push(BpePair{rank, left, right, l.length + r.length});
}

}  // namespace

Status bpe_encode_word(const Vocab& vocab, const VocabIndex& index, std::string_view word,
                       bool ignore_merges, std::vector<int32_t>& out) {
  const std::string text = bytes_to_gpt2_alphabet(word);
  if (ignore_merges) {
    const int32_t whole = index.find(text);
    if (whole >= 0) {
      out.push_back(whole);
      return Status();
    }
  }
  std::vector<MergeSymbol> symbols = split_into_symbols(text);
  BpeQueue queue;
  for (size_t i = 1; i < symbols.size(); ++i) {
    queue_pair(index, text, symbols, static_cast<int>(i) - 1, static_cast<int>(i), queue);
  }
  while (!queue.empty()) {
    const BpePair pair = queue.top();
    queue.pop();
    const MergeSymbol& l = symbols[static_cast<size_t>(pair.left)];
    const MergeSymbol& r = symbols[static_cast<size_t>(pair.right)];
    if (l.length == 0 || r.length == 0 || l.next != pair.right ||
        l.length + r.length != pair.length) {
      continue;  // one side changed since this pair was queued
    }
    merge_into_left(symbols, pair.left, pair.right);
    queue_pair(index, text, symbols, symbols[static_cast<size_t>(pair.left)].prev, pair.left,
               queue);
    queue_pair(index, text, symbols, pair.left, symbols[static_cast<size_t>(pair.left)].next,
               queue);
  }
  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[static_cast<size_t>(i)].next) {
    const std::string_view piece = symbol_text(text, symbols[static_cast<size_t>(i)]);
    const int32_t id = index.find(piece);
    if (id >= 0) {
      out.push_back(id);
    } else {
      CLPORT_RETURN_IF_ERROR(append_byte_tokens(vocab, index, gpt2_alphabet_to_bytes(piece), out));
    }
  }
  return Status();
}

}  // namespace clport::tok
