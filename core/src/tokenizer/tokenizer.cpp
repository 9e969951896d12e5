// Tokenizer construction and encoding (decoding lives in detokenize.cpp).
#include "clport/tokenizer.h"

#include <utility>

#include "tokenizer/bpe_encoder.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/spm_encoder.h"
#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/text_repair.h"

namespace clport {
namespace {


std::string escape_spm_spaces(std::string_view text, bool add_prefix) {
  std::string out;
  out.reserve(text.size() + 8);
  if (add_prefix) out += kSpmSpace;
  for (char c : text) {
    if (c == ' ') {
      out += kSpmSpace;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::from_vocab(Vocab vocab) {
  auto impl = std::make_unique<Impl>();
  impl->vocab = std::move(vocab);
  auto index = tok::build_vocab_index(impl->vocab);
  if (!index) return index.status();
  impl->index = std::move(index.value());
  if (impl->vocab.model == VocabModel::Bpe) {
    auto rules = tok::pre_tokenizer_rules(impl->vocab.pre);
    if (!rules) return rules.status();
    auto pre = tok::PreTokenizer::create(rules.value());
    if (!pre) return pre.status();
    impl->pre = std::move(pre.value());
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

Result<std::vector<int32_t>> Tokenizer::encode(std::string_view text, bool add_bos,
                                               bool parse_special) const {
  const Vocab& v = impl_->vocab;
  std::vector<int32_t> out;
  if (add_bos && v.bos_id >= 0) out.push_back(v.bos_id);
  if (text.empty()) return out;
  std::string repaired;
  text = tok::repair_text(v, impl_->index, text, repaired);

  const auto fragments = tok::partition_special_tokens(v, impl_->index, text, parse_special);
  // SentencePiece: raw text at the start or right after a special token gets the space prefix.
  bool after_special = true;
  std::vector<std::string_view> words;
  for (const tok::Fragment& f : fragments) {
    if (f.token >= 0) {
      out.push_back(f.token);
      after_special = true;
      continue;
    }
    if (v.model == VocabModel::Spm) {
      const std::string escaped = escape_spm_spaces(f.text, v.add_space_prefix && after_special);
      CLPORT_RETURN_IF_ERROR(tok::spm_encode(v, impl_->index, escaped, out));
    } else {
      words.clear();
      CLPORT_RETURN_IF_ERROR(impl_->pre->split(f.text, words));
      for (std::string_view word : words) {
        CLPORT_RETURN_IF_ERROR(
            tok::bpe_encode_word(v, impl_->index, word, impl_->pre->ignore_merges(), out));
      }
    }
    after_special = false;
  }
  return out;
}

int32_t Tokenizer::bos() const { return impl_->vocab.bos_id; }
int32_t Tokenizer::eos() const { return impl_->vocab.eos_id; }
int32_t Tokenizer::unk() const { return impl_->vocab.unk_id; }
int32_t Tokenizer::pad() const { return impl_->vocab.pad_id; }
int32_t Tokenizer::n_vocab() const { return static_cast<int32_t>(impl_->vocab.tokens.size()); }
bool Tokenizer::add_bos_default() const { return impl_->vocab.add_bos; }
bool Tokenizer::add_eos_default() const { return impl_->vocab.add_eos; }
VocabModel Tokenizer::model() const { return impl_->vocab.model; }
const Vocab& Tokenizer::vocab() const { return impl_->vocab; }

bool Tokenizer::is_eog(int32_t id) const {
  return id >= 0 && id < n_vocab() && impl_->index.eog[static_cast<size_t>(id)];
}

bool Tokenizer::is_control(int32_t id) const {
  return id >= 0 && id < n_vocab() && impl_->index.type(impl_->vocab, id) == TokenType::Control;
}

std::optional<int32_t> Tokenizer::find_token(std::string_view text) const {
  const int32_t id = impl_->index.find(text);
  if (id < 0) return std::nullopt;
  return id;
}

}  // namespace clport
