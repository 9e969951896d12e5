// Each chat family's format, written out: what the family's Jinja template produces for plain
// system / user / assistant messages (no tools, no images).
#include <string>

#include "clport/chat_template.h"

namespace clport {
namespace {

constexpr std::string_view kDeepSeekEos = "<｜end▁of▁sentence｜>";

std::string trim(const std::string& s) {
  const char* ws = " \t\n\r";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool is_system(const ChatMessage& m) { return m.role == "system"; }
bool is_user(const ChatMessage& m) { return m.role == "user"; }

// Formats whose every turn is "<open role> content <close>", the role's name spelled in.
struct RoleTurns {
  std::string_view before_role, after_role, end_of_turn;
  bool trim_content = false;
  std::string_view assistant_role = "assistant";
};

std::string role_turns(const RoleTurns& f, const std::vector<ChatMessage>& messages, bool add_gen) {
  std::string out;
  auto open = [&](std::string_view role) {
    out.append(f.before_role).append(role).append(f.after_role);
  };
  for (const auto& m : messages) {
    open(m.role == "assistant" ? f.assistant_role : std::string_view(m.role));
    out += f.trim_content ? trim(m.content) : m.content;
    out += f.end_of_turn;
  }
  if (add_gen) open(f.assistant_role);
  return out;
}

// Gemma has no system role: the system text opens the first user turn.
std::string gemma(const std::vector<ChatMessage>& messages, bool add_gen) {
  std::string out, system;
  for (const auto& m : messages) {
    if (is_system(m)) {
      system += trim(m.content);
      continue;
    }
    const bool user = is_user(m);
    out += user ? "<start_of_turn>user\n" : "<start_of_turn>model\n";
    if (user && !system.empty()) {
      out += system + "\n\n";
      system.clear();
    }
    out += trim(m.content) + "<end_of_turn>\n";
  }
  if (add_gen) out += "<start_of_turn>model\n";
  return out;
}

// Llama 2: every user turn inside [INST] ... [/INST], answers closed with EOS. The answer header
// is the [/INST] itself, so there is no generation prompt to add.
std::string llama2(ChatFamily family, const std::vector<ChatMessage>& messages,
                   std::string_view eos) {
  const bool sys_block = family != ChatFamily::Llama2;
  const bool bos_inside = family == ChatFamily::Llama2SysBos;
  const bool strip = family == ChatFamily::Llama2SysStrip;
  std::string out = "[INST] ";
  bool in_turn = true;
  for (const auto& m : messages) {
    const std::string content = strip ? trim(m.content) : m.content;
    if (!in_turn) {
      out += bos_inside ? "<s>[INST] " : "[INST] ";
      in_turn = true;
    }
    if (is_system(m)) {
      out += sys_block ? "<<SYS>>\n" + content + "\n<</SYS>>\n\n" : content + "\n";
    } else if (is_user(m)) {
      out += content + " [/INST]";
    } else {
      out += content;
      out += eos;
      in_turn = false;
    }
  }
  return out;
}

// Mistral v1 / v3 / v3-tekken differ only in the spaces around [INST] and whether the answer is
// trimmed; the system text opens the first user turn.
std::string mistral_v1_v3(ChatFamily family, const std::vector<ChatMessage>& messages,
                          std::string_view eos) {
  const std::string lead = family == ChatFamily::MistralV1 ? " " : "";
  const std::string trail = family == ChatFamily::MistralV3Tekken ? "" : " ";
  const bool trim_answer = family == ChatFamily::MistralV3;
  std::string out;
  bool in_turn = false;
  for (const auto& m : messages) {
    if (!in_turn) {
      out += lead + "[INST]" + trail;
      in_turn = true;
    }
    if (is_system(m)) {
      out += m.content + "\n\n";
    } else if (is_user(m)) {
      out += m.content + lead + "[/INST]";
    } else {
      out += trail + (trim_answer ? trim(m.content) : m.content);
      out += eos;
      in_turn = false;
    }
  }
  return out;
}

std::string mistral_v7(ChatFamily family, const std::vector<ChatMessage>& messages,
                       std::string_view eos) {
  const std::string space = family == ChatFamily::MistralV7 ? " " : "";
  std::string out;
  for (const auto& m : messages) {
    if (is_system(m)) {
      out += "[SYSTEM_PROMPT]" + space + m.content + "[/SYSTEM_PROMPT]";
    } else if (is_user(m)) {
      out += "[INST]" + space + m.content + "[/INST]";
    } else {
      out += space + m.content;
      out += eos;
    }
  }
  return out;
}

std::string vicuna(bool orca, const std::vector<ChatMessage>& messages, bool add_gen,
                   std::string_view eos) {
  std::string out;
  for (const auto& m : messages) {
    if (is_system(m)) {
      out += orca ? "SYSTEM: " + m.content + "\n" : m.content + "\n\n";
    } else if (is_user(m)) {
      out += "USER: " + m.content + "\n";
    } else {
      out += "ASSISTANT: " + m.content;
      out.append(eos).append("\n");
    }
  }
  if (add_gen) out += "ASSISTANT:";
  return out;
}

// DeepSeek Coder: the system text as is, then Alpaca-style sections.
std::string deepseek(const std::vector<ChatMessage>& messages, bool add_gen) {
  std::string out;
  for (const auto& m : messages) {
    if (is_system(m)) {
      out += m.content;
    } else if (is_user(m)) {
      out += "### Instruction:\n" + m.content + "\n";
    } else {
      out += "### Response:\n" + m.content + "\n<|EOT|>\n";
    }
  }
  if (add_gen) out += "### Response:\n";
  return out;
}

std::string deepseek2(const std::vector<ChatMessage>& messages, bool add_gen, std::string_view eos) {
  std::string out;
  for (const auto& m : messages) {
    if (is_system(m)) {
      out += m.content + "\n\n";
    } else if (is_user(m)) {
      out += "User: " + m.content + "\n\n";
    } else {
      out += "Assistant: " + m.content;
      out += eos;
    }
  }
  if (add_gen) out += "Assistant:";
  return out;
}

std::string deepseek3(const std::vector<ChatMessage>& messages, bool add_gen, std::string_view eos) {
  std::string out;
  for (const auto& m : messages) {
    if (is_system(m)) {
      out += m.content + "\n\n";
    } else if (is_user(m)) {
      out += "<｜User｜>" + m.content;
    } else {
      out += "<｜Assistant｜>" + m.content;
      out += eos;
    }
  }
  if (add_gen) out += "<｜Assistant｜>";
  return out;
}

std::string command_r(const std::vector<ChatMessage>& messages, bool add_gen) {
  std::string out;
  for (const auto& m : messages) {
    const char* role = is_system(m) ? "<|SYSTEM_TOKEN|>" : is_user(m) ? "<|USER_TOKEN|>" : "<|CHATBOT_TOKEN|>";
    out += std::string("<|START_OF_TURN_TOKEN|>") + role + trim(m.content) + "<|END_OF_TURN_TOKEN|>";
  }
  if (add_gen) out += "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
  return out;
}

std::string_view usual_eos(ChatFamily family) {
  return family == ChatFamily::DeepSeek2 || family == ChatFamily::DeepSeek3 ? kDeepSeekEos
                                                                            : std::string_view("</s>");
}

}  // namespace

Result<std::string> format_chat(ChatFamily family, const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt, std::string_view eos_text) {
  for (const auto& m : messages) {
    if (m.role != "system" && m.role != "user" && m.role != "assistant") {
      return Status(Stage::InvalidArgument, "chat message role '" + m.role +
                                                "' is not system, user or assistant");
    }
  }
  const std::string_view eos = eos_text.empty() ? usual_eos(family) : eos_text;
  const bool gen = add_generation_prompt;
  switch (family) {
    case ChatFamily::ChatMl:
      return role_turns({"<|im_start|>", "\n", "<|im_end|>\n"}, messages, gen);
    case ChatFamily::Phi4:
      return role_turns({"<|im_start|>", "<|im_sep|>", "<|im_end|>"}, messages, gen);
    case ChatFamily::Llama3:
      return role_turns({"<|start_header_id|>", "<|end_header_id|>\n\n", "<|eot_id|>", true},
                        messages, gen);
    case ChatFamily::Phi3:
      return role_turns({"<|", "|>\n", "<|end|>\n"}, messages, gen);
    case ChatFamily::Zephyr: {
      const std::string end = std::string(eos) + "\n";
      return role_turns({"<|", "|>\n", end}, messages, gen);
    }
    case ChatFamily::Gemma:
      return gemma(messages, gen);
    case ChatFamily::Llama2:
    case ChatFamily::Llama2Sys:
    case ChatFamily::Llama2SysBos:
    case ChatFamily::Llama2SysStrip:
      return llama2(family, messages, eos);
    case ChatFamily::MistralV1:
    case ChatFamily::MistralV3:
    case ChatFamily::MistralV3Tekken:
      return mistral_v1_v3(family, messages, eos);
    case ChatFamily::MistralV7:
    case ChatFamily::MistralV7Tekken:
      return mistral_v7(family, messages, eos);
    case ChatFamily::Vicuna:
    case ChatFamily::VicunaOrca:
      return vicuna(family == ChatFamily::VicunaOrca, messages, gen, eos);
    case ChatFamily::DeepSeek:
      return deepseek(messages, gen);
    case ChatFamily::DeepSeek2:
      return deepseek2(messages, gen, eos);
    case ChatFamily::DeepSeek3:
      return deepseek3(messages, gen, eos);
    case ChatFamily::CommandR:
      return command_r(messages, gen);
  }
  return Status(Stage::Internal, "chat family " + std::to_string(static_cast<int>(family)) +
                                     " has no format");
}

}  // namespace clport
