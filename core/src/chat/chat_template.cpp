// Chat-template families by name, and their recognition from a template's Jinja text.
#include "clport/chat_template.h"

#include <algorithm>
#include <initializer_list>

#include "gguf/gguf.h"

namespace clport {
namespace {

constexpr std::string_view kTemplateKey = "tokenizer.chat_template";

struct NamedFamily {
  ChatFamily family;
  std::string_view name;
};

// llama.cpp's names, so that a user's --chat-template from there works here too.
constexpr NamedFamily kNames[] = {
    {ChatFamily::ChatMl, "chatml"},
    {ChatFamily::Phi4, "phi4"},
    {ChatFamily::Llama2, "llama2"},
    {ChatFamily::Llama2Sys, "llama2-sys"},
    {ChatFamily::Llama2SysBos, "llama2-sys-bos"},
    {ChatFamily::Llama2SysStrip, "llama2-sys-strip"},
    {ChatFamily::MistralV1, "mistral-v1"},
    {ChatFamily::MistralV3, "mistral-v3"},
    {ChatFamily::MistralV3Tekken, "mistral-v3-tekken"},
    {ChatFamily::MistralV7, "mistral-v7"},
    {ChatFamily::MistralV7Tekken, "mistral-v7-tekken"},
    {ChatFamily::Llama3, "llama3"},
    {ChatFamily::Gemma, "gemma"},
    {ChatFamily::Phi3, "phi3"},
    {ChatFamily::Zephyr, "zephyr"},
    {ChatFamily::Vicuna, "vicuna"},
    {ChatFamily::VicunaOrca, "vicuna-orca"},
    {ChatFamily::DeepSeek, "deepseek"},
    {ChatFamily::DeepSeek2, "deepseek2"},
    {ChatFamily::DeepSeek3, "deepseek3"},
    {ChatFamily::CommandR, "command-r"},
};

bool has(std::string_view text, std::string_view marker) {
  return text.find(marker) != std::string_view::npos;
}

bool has_all(std::string_view text, std::initializer_list<std::string_view> markers) {
  return std::all_of(markers.begin(), markers.end(), [&](std::string_view m) { return has(text, m); });
}

bool has_any(std::string_view text, std::initializer_list<std::string_view> markers) {
  return std::any_of(markers.begin(), markers.end(), [&](std::string_view m) { return has(text, m); });
}

// Templates with [INST]: Llama 2 and the Mistral generations, told apart by how they write the
// system prompt and the spaces around [INST].
ChatFamily detect_inst_family(std::string_view t) {
  if (has(t, "[SYSTEM_PROMPT]")) {
    // v7 writes a space after its markers, the tekken tokenizer's templates do not.
    return has_any(t, {"[SYSTEM_PROMPT] ", "[INST] "}) ? ChatFamily::MistralV7
                                                       : ChatFamily::MistralV7Tekken;
  }
  // Mistral's own templates (tool-era, or the system message glued to the first [INST]) as
  // opposed to the community Llama 2 ones.
  const bool mistral = has_any(t, {"[AVAILABLE_TOOLS]", "[INST] ' + system_message",
                                   "[INST] \" + system_message", "[INST]\" + system_message"});
  if (mistral) {
    if (has(t, "' [INST] '")) return ChatFamily::MistralV1;
    if (has_any(t, {"\"[INST]\"", "'[INST]'"})) return ChatFamily::MistralV3Tekken;
    return ChatFamily::MistralV3;
  }
  if (!has(t, "<<SYS>>")) return ChatFamily::Llama2;
  if (has_any(t, {"content.strip()", "content | trim", "content|trim"})) {
    return ChatFamily::Llama2SysStrip;
  }
  if (has_any(t, {"bos_token + '[INST]", "bos_token + \"[INST]"})) return ChatFamily::Llama2SysBos;
  return ChatFamily::Llama2Sys;
}

}  // namespace

std::string_view chat_family_name(ChatFamily family) {
  for (const auto& n : kNames) {
    if (n.family == family) return n.name;
  }
  return "unknown";
}

const std::vector<ChatFamily>& all_chat_families() {
  static const std::vector<ChatFamily> families = [] {
    std::vector<ChatFamily> out;
    for (const auto& n : kNames) out.push_back(n.family);
    return out;
  }();
  return families;
}

std::string chat_family_names() {
  std::string out;
  for (const auto& n : kNames) {
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

Result<ChatFamily> chat_family_from_name(std::string_view name) {
  for (const auto& n : kNames) {
    if (n.name == name) return n.family;
  }
  return Status(Stage::InvalidArgument, "unknown chat template '" + std::string(name) +
                                            "'; known: " + chat_family_names());
}

// The order matters where families share markers: Phi-4 and ChatML both open turns with
// <|im_start|>; Phi-3 and Zephyr both write <|user|> and <|assistant|>.
std::optional<ChatFamily> detect_chat_family(std::string_view t) {
  if (has(t, "<|im_start|>")) return has(t, "<|im_sep|>") ? ChatFamily::Phi4 : ChatFamily::ChatMl;
  if (has(t, "[INST]")) return detect_inst_family(t);
  if (has_all(t, {"<|start_header_id|>", "<|end_header_id|>"})) return ChatFamily::Llama3;
  if (has(t, "<start_of_turn>")) return ChatFamily::Gemma;
  if (has_all(t, {"<|assistant|>", "<|end|>"})) return ChatFamily::Phi3;
  if (has_all(t, {"<|user|>", "<|assistant|>"}) && has_any(t, {"eos_token", "<|endoftext|>", "</s>"})) {
    return ChatFamily::Zephyr;
  }
  if (has_all(t, {"<|START_OF_TURN_TOKEN|>", "<|USER_TOKEN|>"})) return ChatFamily::CommandR;
  if (has_all(t, {"### Instruction:", "<|EOT|>"})) return ChatFamily::DeepSeek;
  // DeepSeek's markers are spelled with full-width bars (U+FF5C).
  if (has_all(t, {"<｜User｜>", "<｜Assistant｜>"})) return ChatFamily::DeepSeek3;
  if (has_all(t, {"'User: '", "'Assistant: '"})) return ChatFamily::DeepSeek2;
  if (has_all(t, {"USER: ", "ASSISTANT: "})) {
    return has(t, "SYSTEM: ") ? ChatFamily::VicunaOrca : ChatFamily::Vicuna;
  }
  return std::nullopt;
}

Result<ChatTemplateChoice> choose_chat_template(const GgufFile& file, std::string_view name_override) {
  if (!name_override.empty()) {
    auto family = chat_family_from_name(name_override);
    if (!family.ok()) return family.status();
    return ChatTemplateChoice{family.value(), "--chat-template"};
  }
  const std::string how = "; name the format with --chat-template NAME (one of: " +
                          chat_family_names() + ")";
  if (!file.has(kTemplateKey)) {
    return Status(Stage::Model, "the model file has no chat template (" + std::string(kTemplateKey) +
                                    ")" + how);
  }
  auto text = file.get_string(kTemplateKey);
  if (!text.ok()) return text.status();
  auto family = detect_chat_family(text.value());
  if (!family) {
    std::string start = text->substr(0, 80);
    std::replace(start.begin(), start.end(), '\n', ' ');
    return Status(Stage::Model, "the model's chat template is not one clport knows (it starts '" +
                                    start + (text->size() > 80 ? "...'" : "'") + ")" + how);
  }
  return ChatTemplateChoice{*family, std::string(kTemplateKey)};
}

}  // namespace clport
