// The messages of a `clport chat` conversation, kept in a JSON file beside its saved KV state
// (FILE.json for FILE): the state holds tokens, the transcript the text the next turn re-renders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport/chat_template.h"
#include "clport/status.h"

namespace clport::cli {

struct Transcript {
  std::string chat_template;  // the family the messages were written in, for the user
  std::vector<ChatMessage> messages;
  // The conversation's tokens as the model saw them (ChatSession says why), and for each user
  // turn how many of them came before it (-1: not known).
  std::vector<int32_t> tokens;
  std::vector<int64_t> turn_starts;
};

inline std::string transcript_path(const std::string& state_path) { return state_path + ".json"; }

// Written whole to a temporary and renamed: a failed save leaves the old file as it was.
Status write_transcript(const std::string& path, const Transcript& transcript);
// A missing, unreadable or malformed file (not JSON, a message without a known role or a text,
// tokens that are not numbers) is an Io status naming the file and what is wrong.
Result<Transcript> read_transcript(const std::string& path);

}  // namespace clport::cli
