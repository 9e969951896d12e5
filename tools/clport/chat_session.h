// A `clport chat` conversation: its messages, the tokens the model saw for them, and the turn that
// hands the whole conversation to the engine, which evaluates only what its KV cache does not hold
// yet.
//
// Why the tokens are kept: the model's reply, written into the chat format and tokenized again,
// does not always give back the tokens the model generated (a BPE vocabulary has several spellings
// of one text, and a sampled reply need not use the canonical one). A conversation tokenized anew
// every turn would then differ from the cache inside the last reply, and that reply and everything
// after it would be evaluated again. So a turn's prompt is the tokens so far followed by the
// tokens of the text the template adds after them (the end of the reply's turn, the user's message,
// the assistant's header), as llama.cpp's interactive chat does; where the template writes the
// earlier turns differently once a later one follows, the whole conversation is tokenized again.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chat_prompt.h"
#include "engine/engine_core.h"
#include "clport/sampler.h"

namespace clport::cli {

struct ChatSessionOptions {
  std::string system;  // the first message when not empty; /reset keeps it
  int n_predict = 256;
  SamplerOptions sampling;
  bool reuse_cache = true;  // false: every turn from position 0 (to measure what reuse saves)
};

struct TurnOutcome {
  Status status;  // a failed turn is not added to the conversation
  int turn = 0;   // the user's turns in the conversation, this one included
  GenerationStats stats;
  std::string content;  // the reply, as streamed
  int completion_tokens = 0;
  std::vector<int32_t> reply_tokens;
  // Per reply token, how far its logit led the next best (with sampling.record_gap; else empty).
  std::vector<float> logit_gaps;
};

class ChatSession {
 public:
  ChatSession(EngineCore& engine, ChatFormat format, ChatSessionOptions options);

  // The user's message, and the assistant's reply generated for it; on_piece gets the reply's text
  // as it comes (whole UTF-8 characters).
  TurnOutcome turn(const std::string& user_text, const std::function<void(const std::string&)>& on_piece);
  // Drops the last user turn and its reply; false when there is none.
  bool undo();
  // Back to the first message (the system's, if any), and an empty cache.
  Status reset();
  // The KV cache to `path` and the messages and tokens to transcript_path(path); loading reads both
  // back. A load that fails leaves the conversation as it was.
  Status save(const std::string& path);
  Status load(const std::string& path);

  int user_turns() const;

 private:
  static constexpr size_t kUnknown = SIZE_MAX;
  std::vector<ChatMessage> initial_messages() const;
  // The prompt for `conversation` (messages_ and a new user message); `*extended` says whether it
  // is tokens_ followed by the new text's tokens.
  Result<std::vector<int32_t>> prompt_for(const std::vector<ChatMessage>& conversation, bool* extended) const;

  EngineCore& engine_;
  ChatFormat format_;
  ChatSessionOptions options_;
  std::vector<ChatMessage> messages_;
  // After a turn: its prompt and the reply's tokens. Empty until the first turn.
  std::vector<int32_t> tokens_;
  // For each user turn in messages_, how many of tokens_ came before it (what /undo goes back
  // to); kUnknown once the conversation has been tokenized anew.
  std::vector<size_t> turn_starts_;
};

}  // namespace clport::cli
