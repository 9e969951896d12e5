// libFuzzer target: chat templates. The input is a template text (recognised directly, as a
// family name, and through a GGUF file's tokenizer.chat_template as a model load does) and a
// conversation written in a family's format. Formatting must succeed exactly when every role is
// system, user or assistant, and refuse anything else with InvalidArgument; nothing may crash.
//
// Layout: data[0] bits 0-4 pick the family (past the last: the one recognised in the template),
// bit 5 adds the generation prompt, bit 6 gives an EOS text of its own. The rest is split at
// 0x1E: the template text, then one message per part, whose first byte picks the role (0
// system, 1 user, 2 assistant, else the text up to a 0x1F is the role).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clport/chat_template.h"
#include "gguf/gguf.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "tokenizer_properties.h"

namespace {

clport::ChatMessage message_from(std::string_view part, bool* valid_role) {
  static constexpr std::string_view kRoles[] = {"system", "user", "assistant"};
  if (part.empty()) return {"user", ""};
  const auto pick = static_cast<uint8_t>(part[0]);
  part.remove_prefix(1);
  if (pick < 3) return {std::string(kRoles[pick]), std::string(part)};
  const size_t end = part.find('\x1F');
  clport::ChatMessage m{std::string(part.substr(0, end)),
                        end == std::string_view::npos ? "" : std::string(part.substr(end + 1))};
  if (m.role != "system" && m.role != "user" && m.role != "assistant") *valid_role = false;
  return m;
}

// The family a model load would use for a file with this template text.
std::optional<clport::ChatFamily> family_of_file(std::string_view template_text) {
  clport::GgufWriter writer;
  writer.set_string("tokenizer.chat_template", template_text);
  auto bytes = writer.to_bytes();
  FUZZ_CHECK(bytes.ok(), "%s", bytes.status().to_string().c_str());
  auto file = clport::GgufFile::open_memory(bytes->data(), bytes->size());
  FUZZ_CHECK(file.ok(), "%s", file.status().to_string().c_str());
  auto choice = clport::choose_chat_template(*file.value(), "");
  const auto detected = clport::detect_chat_family(template_text);
  FUZZ_CHECK(choice.ok() == detected.has_value(), "the file and the text disagree");
  if (!choice.ok()) {
    FUZZ_CHECK(choice.status().stage() == clport::Stage::Model, "%s", choice.status().to_string().c_str());
    return std::nullopt;
  }
  FUZZ_CHECK(choice->family == *detected, "the file and the text give different families");
  return choice->family;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto* tokenizer = clport::fuzz::load_shared_vocab("ggml-vocab-llama-spm").release();
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  const auto parts = split_fuzz_input(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), '\x1E');
  const std::string_view template_text = parts[0];

  if (auto named = clport::chat_family_from_name(template_text); named.ok()) {
    FUZZ_CHECK(clport::chat_family_name(named.value()) == template_text, "name does not round-trip");
  }
  const auto& families = clport::all_chat_families();
  const size_t pick = flags & 31;
  std::optional<clport::ChatFamily> family;
  if (pick < families.size()) {
    family = families[pick];
    auto by_name = clport::chat_family_from_name(clport::chat_family_name(*family));
    FUZZ_CHECK(by_name.ok() && by_name.value() == *family, "family name does not round-trip");
  } else {
    family = family_of_file(template_text);
    if (!family) return 0;
  }

  bool valid_roles = true;
  std::vector<clport::ChatMessage> messages;
  for (size_t i = 1; i < parts.size(); ++i) messages.push_back(message_from(parts[i], &valid_roles));
  const std::string eos = (flags & 64) ? "<|fuzz_eos|>" : "";
  auto text = clport::format_chat(*family, messages, (flags & 32) != 0, eos);
  FUZZ_CHECK(text.ok() == valid_roles, "format_chat: %s",
             text.ok() ? "accepted an unknown role" : text.status().to_string().c_str());
  if (!text.ok()) {
    FUZZ_CHECK(text.status().stage() == clport::Stage::InvalidArgument, "%s",
               text.status().to_string().c_str());
  }
  for (std::string_view end : clport::chat_end_of_turn_texts(*family)) {
    FUZZ_CHECK(!end.empty(), "an empty end-of-turn text");
  }
  for (int32_t id : clport::chat_stop_tokens(*family, *tokenizer)) {
    FUZZ_CHECK(id >= 0 && id < tokenizer->n_vocab(), "stop token %d", id);
  }
  return 0;
}
