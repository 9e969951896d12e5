#include "chat_transcript.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"

namespace clport::cli {
namespace {

// Names the file format, so that another JSON file given to /load is refused rather than read.
constexpr const char* kFormat = "clport-chat-transcript-1";

Status malformed(const std::string& path, const std::string& what) {
  return Status(Stage::Io, "the conversation file '" + path + "' is not a clport chat transcript: " + what);
}

}  // namespace

Status write_transcript(const std::string& path, const Transcript& transcript) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& m : transcript.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  const nlohmann::json doc = {{"format", kFormat},
                              {"chat_template", transcript.chat_template},
                              {"messages", messages},
                              {"tokens", transcript.tokens},
                              {"turn_starts", transcript.turn_starts}};
  // Bytes that are not UTF-8 (a reply cut inside a character) are replaced rather than failing.
  return write_file_atomically(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<Transcript> read_transcript(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status(Stage::Io, "cannot open the conversation file '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  // (An empty file leaves `text` failed with nothing inserted: that is "not a JSON object" below.)
  if (in.bad()) return Status(Stage::Io, "cannot read the conversation file '" + path + "'");
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return malformed(path, "not a JSON object");
  if (!doc.contains("format") || doc["format"] != kFormat) {
    return malformed(path, std::string("no \"format\": \"") + kFormat + "\"");
  }
  Transcript out;
  if (doc.contains("chat_template") && doc["chat_template"].is_string()) {
    out.chat_template = doc["chat_template"].get<std::string>();
  }
  if (!doc.contains("messages") || !doc["messages"].is_array()) return malformed(path, "no \"messages\" array");
  for (const auto& m : doc["messages"]) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") ||
        !m["content"].is_string()) {
      return malformed(path, "a message without a \"role\" and a \"content\" text");
    }
    const std::string role = m["role"].get<std::string>();
    if (role != "system" && role != "user" && role != "assistant") {
      return malformed(path, "a message with the role '" + role + "' (system, user or assistant)");
    }
    out.messages.push_back({role, m["content"].get<std::string>()});
  }
  // Older or hand-written files without tokens: the conversation is tokenized again.
  if (!doc.contains("tokens")) return out;
  const auto integers = [&](const char* key, int64_t min, int64_t max, auto& into) -> Status {
    if (!doc.contains(key) || !doc[key].is_array()) return malformed(path, std::string("no \"") + key + "\" array");
    for (const auto& v : doc[key]) {
      if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max) {
        return malformed(path, std::string("\"") + key + "\" holds " + v.dump() + ", not a number from " +
                                   std::to_string(min) + " to " + std::to_string(max));
      }
      into.push_back(static_cast<typename std::decay_t<decltype(into)>::value_type>(v.get<int64_t>()));
    }
    return Status();
  };
  CLPORT_RETURN_IF_ERROR(integers("tokens", 0, INT32_MAX, out.tokens));
  CLPORT_RETURN_IF_ERROR(integers("turn_starts", -1, static_cast<int64_t>(out.tokens.size()), out.turn_starts));
  return out;
}

}  // namespace clport::cli
