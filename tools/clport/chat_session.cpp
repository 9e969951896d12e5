#include "chat_session.h"

#include <algorithm>
#include <iostream>
#include <iterator>

#include "chat_transcript.h"

namespace clport::cli {

ChatSession::ChatSession(EngineCore& engine, ChatFormat format, ChatSessionOptions options)
    : engine_(engine), format_(std::move(format)), options_(std::move(options)), messages_(initial_messages()) {}

std::vector<ChatMessage> ChatSession::initial_messages() const {
  if (options_.system.empty()) return {};
  return {{"system", options_.system}};
}

int ChatSession::user_turns() const {
  return static_cast<int>(std::count_if(messages_.begin(), messages_.end(),
                                        [](const ChatMessage& m) { return m.role == "user"; }));
}

Result<std::vector<int32_t>> ChatSession::prompt_for(const std::vector<ChatMessage>& conversation,
                                                     bool* extended) const {
  *extended = false;
  auto whole = encode_conversation(engine_.tokenizer(), format_, conversation);
  if (!whole.ok() || tokens_.empty() || messages_.empty() || messages_.back().role != "assistant") return whole;
  // The text tokens_ spell: the last prompt, then the reply as generated.
  const std::vector<ChatMessage> before_reply(messages_.begin(), messages_.end() - 1);
  auto last_prompt = format_conversation(format_, before_reply);
  auto text = format_conversation(format_, conversation);
  if (!last_prompt.ok() || !text.ok()) return whole;
  const std::string spelled = last_prompt.value() + messages_.back().content;
  if (text->compare(0, spelled.size(), spelled) != 0) return whole;
  auto added = engine_.tokenizer().encode(std::string_view(*text).substr(spelled.size()), /*add_bos=*/false,
                                          /*parse_special=*/true);
  // The added text must tokenize as it does inside the whole conversation (no token may straddle
  // the boundary, no space prefix be added); else the whole conversation it is.
  if (!added.ok() || added->size() > whole->size() ||
      !std::equal(added->begin(), added->end(), whole->end() - static_cast<std::ptrdiff_t>(added->size()))) {
    return whole;
  }
  std::vector<int32_t> prompt = tokens_;
  prompt.insert(prompt.end(), added->begin(), added->end());
  *extended = true;
  return prompt;
}

TurnOutcome ChatSession::turn(const std::string& user_text,
                              const std::function<void(const std::string&)>& on_piece) {
  TurnOutcome out;
  std::vector<ChatMessage> conversation = messages_;
  conversation.push_back({"user", user_text});
  out.turn = user_turns() + 1;
  bool extended = false;
  auto prompt = prompt_for(conversation, &extended);
  if (!prompt.ok()) {
    out.status = prompt.status();
    return out;
  }
  // A sampler per turn, seeded by the turn's number: a conversation loaded from a file goes on
  // with the same random choices as one that never stopped.
  SamplerOptions sampling = options_.sampling;
  sampling.seed += static_cast<uint64_t>(out.turn - 1);
  Sampler sampler(sampling);
  TokenStreamDecoder decoder(engine_.tokenizer());
  std::vector<int32_t> reply;
  auto on_token = [&](int32_t token) {
    reply.push_back(token);
    if (sampling.record_gap) out.logit_gaps.push_back(sampler.last_gap());
    const std::string piece = decoder.push(token);
    out.content += piece;
    if (on_piece && !piece.empty()) on_piece(piece);
    return true;
  };
  out.status = options_.reuse_cache
                   ? engine_.generate_reusing_cache(prompt.value(), options_.n_predict, sampler, on_token,
                                                    &out.stats, format_.stop_tokens)
                   : engine_.generate(prompt.value(), options_.n_predict, sampler, on_token, &out.stats,
                                      format_.stop_tokens);
  const std::string rest = decoder.flush();
  out.content += rest;
  if (on_piece && !rest.empty()) on_piece(rest);
  out.completion_tokens = static_cast<int>(reply.size());
  out.reply_tokens = reply;
  if (!out.status.ok()) return out;

  if (extended || out.turn == 1) {
    turn_starts_.push_back(extended ? tokens_.size() : 0);
  } else {
    // Tokenized anew: the earlier turns' places in tokens_ are no longer known.
    std::fill(turn_starts_.begin(), turn_starts_.end(), kUnknown);
    turn_starts_.push_back(kUnknown);
  }
  tokens_ = std::move(prompt.value());
  tokens_.insert(tokens_.end(), reply.begin(), reply.end());
  messages_ = std::move(conversation);
  messages_.push_back({"assistant", out.content});
  return out;
}

bool ChatSession::undo() {
  // The last user message and everything after it (its reply).
  auto last_user = std::find_if(messages_.rbegin(), messages_.rend(),
                                [](const ChatMessage& m) { return m.role == "user"; });
  if (last_user == messages_.rend()) return false;
  messages_.erase(std::prev(last_user.base()), messages_.end());
  const size_t start = turn_starts_.empty() ? kUnknown : turn_starts_.back();
  if (!turn_starts_.empty()) turn_starts_.pop_back();
  if (start == kUnknown || start > tokens_.size()) {
    tokens_.clear();
  } else {
    tokens_.resize(start);
  }
  return true;
}

Status ChatSession::reset() {
  messages_ = initial_messages();
  tokens_.clear();
  turn_starts_.clear();
  return engine_.rewind(engine_.cached_tokens().size());
}

Status ChatSession::save(const std::string& path) {
  CLPORT_RETURN_IF_ERROR(engine_.save_state(path));
  Transcript t{std::string(chat_family_name(format_.family)), messages_, tokens_, {}};
  for (size_t start : turn_starts_) t.turn_starts.push_back(start == kUnknown ? -1 : static_cast<int64_t>(start));
  return write_transcript(transcript_path(path), t);
}

Status ChatSession::load(const std::string& path) {
  // The transcript first: a state without its messages would leave a cache nothing refers to.
  auto transcript = read_transcript(transcript_path(path));
  if (!transcript.ok()) return transcript.status();
  Transcript& t = transcript.value();
  const int32_t n_vocab = engine_.tokenizer().n_vocab();
  const bool tokens_fit = std::all_of(t.tokens.begin(), t.tokens.end(), [&](int32_t id) { return id < n_vocab; });
  const auto users = std::count_if(t.messages.begin(), t.messages.end(),
                                   [](const ChatMessage& m) { return m.role == "user"; });
  CLPORT_RETURN_IF_ERROR(engine_.load_state(path));
  const std::string family(chat_family_name(format_.family));
  if (!t.chat_template.empty() && t.chat_template != family) {
    // Still usable: the messages are written in this format from now on, the cache matches less.
    std::cerr << "clport chat: '" << path << "' was saved with the " << t.chat_template
              << " chat template; this conversation goes on in " << family << "\n";
  }
  messages_ = std::move(t.messages);
  tokens_.clear();
  turn_starts_.assign(static_cast<size_t>(users), kUnknown);
  // Tokens for another template or vocabulary, or not one place per turn: the conversation is
  // tokenized again instead (the cache still serves the prefix that matches).
  if (t.chat_template == family && tokens_fit && t.turn_starts.size() == static_cast<size_t>(users)) {
    tokens_ = std::move(t.tokens);
    for (size_t i = 0; i < turn_starts_.size(); ++i) {
      if (t.turn_starts[i] >= 0) turn_starts_[i] = static_cast<size_t>(t.turn_starts[i]);
    }
  }
  return Status();
}

}  // namespace clport::cli
