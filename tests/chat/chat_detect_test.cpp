// Recognition of chat families from template texts written the way the models' own templates
// are (the markers and idioms they use), and the errors that name --chat-template's values.
#include <gtest/gtest.h>

#include "clport/chat_template.h"
#include "gguf/gguf.h"

namespace clport {
namespace {

struct Case {
  const char* what;
  const char* jinja;
  ChatFamily family;
};

const Case kCases[] = {
    {"Qwen2.5 / SmolLM2 (ChatML)",
     "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
     "{{ '<|im_start|>system\\nYou are a helpful AI assistant<|im_end|>\\n' }}{% endif %}"
     "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
     "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
     ChatFamily::ChatMl},
    {"Phi-4",
     "{% for message in messages %}{{'<|im_start|>' + message['role'] + '<|im_sep|>' + "
     "message['content'] + '<|im_end|>'}}{% endfor %}{% if add_generation_prompt %}"
     "{{ '<|im_start|>assistant<|im_sep|>' }}{% endif %}",
     ChatFamily::Phi4},
    {"Llama 2 chat",
     "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}"
     "{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
     "{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
     "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + "
     "system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}"
     "{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}"
     "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == "
     "'assistant' %}{{ ' ' + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}",
     ChatFamily::Llama2SysStrip},
    {"Llama 2 with <<SYS>>, no strip",
     "{% for message in messages %}{% if message['role'] == 'system' %}"
     "{{ '[INST] <<SYS>>\\n' + message['content'] + '\\n<</SYS>>\\n\\n' }}{% elif message['role'] "
     "== 'user' %}{{ message['content'] + ' [/INST]' }}{% else %}{{ message['content'] + "
     "eos_token }}{% endif %}{% endfor %}",
     ChatFamily::Llama2Sys},
    {"Llama 2 with BOS before every [INST]",
     "{% for message in messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + "
     "message['content'] + ' [/INST]' }}{% elif message['role'] == 'system' %}"
     "{{ '<<SYS>>\\n' + message['content'] + '\\n<</SYS>>\\n\\n' }}{% else %}"
     "{{ message['content'] + eos_token }}{% endif %}{% endfor %}",
     ChatFamily::Llama2SysBos},
    {"Mistral 7B Instruct v0.1 (no system role)",
     "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}"
     "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
     "{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant "
     "roles are supported!') }}{% endif %}{% endfor %}",
     ChatFamily::Llama2},
    {"Mistral v1 with a system prompt",
     "{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] %}"
     "{%- set loop_messages = messages[1:] %}{%- endif %}{{- bos_token }}{%- for message in "
     "loop_messages %}{%- if message['role'] == 'user' %}{%- if loop.first and system_message is "
     "defined %}{{- ' [INST] ' + system_message + '\\n\\n' + message['content'] + ' [/INST]' }}"
     "{%- else %}{{- ' [INST] ' + message['content'] + ' [/INST]' }}{%- endif %}{%- elif "
     "message['role'] == 'assistant' %}{{- ' ' + message['content'] + eos_token}}{%- endif %}"
     "{%- endfor %}",
     ChatFamily::MistralV1},
    {"Mistral v3 (Mistral Large 2407)",
     "{{- bos_token }}{%- for message in loop_messages %}{%- if message[\"role\"] == \"user\" %}"
     "{%- if tools is not none and (message == user_messages[-1]) %}{{- \"[AVAILABLE_TOOLS] [\" }}"
     "{%- endif %}{%- if loop.last and system_message is defined %}{{- \"[INST] \" + "
     "system_message + \"\\n\\n\" + message[\"content\"] + \"[/INST]\" }}{%- else %}"
     "{{- \"[INST] \" + message[\"content\"] + \"[/INST]\" }}{%- endif %}{%- elif "
     "message[\"role\"] == \"assistant\" %}{{- \" \" + message[\"content\"]|trim + eos_token}}"
     "{%- endif %}{%- endfor %}",
     ChatFamily::MistralV3},
    {"Mistral v3 tekken (Mistral Nemo)",
     "{{- bos_token }}{%- for message in loop_messages %}{%- if message[\"role\"] == \"user\" %}"
     "{%- if tools is not none and (message == user_messages[-1]) %}{{- \"[AVAILABLE_TOOLS][\" }}"
     "{%- endif %}{%- if loop.last and system_message is defined %}{{- \"[INST]\" + "
     "system_message + \"\\n\\n\" + message[\"content\"] + \"[/INST]\" }}{%- else %}"
     "{{- \"[INST]\" + message[\"content\"] + \"[/INST]\" }}{%- endif %}{%- elif "
     "message[\"role\"] == \"assistant\" %}{{- message[\"content\"] + eos_token}}{%- endif %}"
     "{%- endfor %}",
     ChatFamily::MistralV3Tekken},
    {"Mistral Small 3 (v7, tekken: no spaces)",
     "{{- bos_token }}{%- if system_message is defined %}{{- '[SYSTEM_PROMPT]' + system_message + "
     "'[/SYSTEM_PROMPT]' }}{%- endif %}{%- for message in loop_messages %}{%- if message['role'] "
     "== 'user' %}{{- '[INST]' + message['content'] + '[/INST]' }}{%- elif message['role'] == "
     "'assistant' %}{{- message['content'] + eos_token }}{%- endif %}{%- endfor %}",
     ChatFamily::MistralV7Tekken},
    {"Mistral v7 with spaces",
     "{{- bos_token }}{%- for message in messages %}{%- if message['role'] == 'system' %}"
     "{{- '[SYSTEM_PROMPT] ' + message['content'] + '[/SYSTEM_PROMPT]' }}{%- elif "
     "message['role'] == 'user' %}{{- '[INST] ' + message['content'] + '[/INST]' }}{%- else %}"
     "{{- ' ' + message['content'] + eos_token }}{%- endif %}{%- endfor %}",
     ChatFamily::MistralV7},
    {"Llama 3.x",
     "{{- bos_token }}{%- if messages[0]['role'] == 'system' %}{%- set system_message = "
     "messages[0]['content']|trim %}{%- endif %}{{- \"<|start_header_id|>system<|end_header_id|>"
     "\\n\\n\" }}{{- \"Cutting Knowledge Date: December 2023\\n\" }}{{- system_message }}"
     "{{- \"<|eot_id|>\" }}{%- for message in messages %}{{- '<|start_header_id|>' + "
     "message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}"
     "{%- endfor %}{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant"
     "<|end_header_id|>\\n\\n' }}{%- endif %}",
     ChatFamily::Llama3},
    {"Gemma 3",
     "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = "
     "messages[0]['content'][0]['text'] + '\\n\\n' -%}{%- set loop_messages = messages[1:] -%}"
     "{%- endif -%}{%- for message in loop_messages -%}{%- if (message['role'] == 'assistant') -%}"
     "{%- set role = \"model\" -%}{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
     "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else \"\") }}"
     "{{ message['content'] | trim }}{{ '<end_of_turn>\\n' }}{%- endfor -%}"
     "{%- if add_generation_prompt -%}{{'<start_of_turn>model\\n'}}{%- endif -%}",
     ChatFamily::Gemma},
    {"Phi-3 mini",
     "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\\n' + "
     "message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\\n' + "
     "message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}"
     "{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}"
     "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}",
     ChatFamily::Phi3},
    {"Zephyr",
     "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\\n' + "
     "message['content'] + eos_token }}\n{% elif message['role'] == 'system' %}\n"
     "{{ '<|system|>\\n' + message['content'] + eos_token }}\n{% elif message['role'] == "
     "'assistant' %}\n{{ '<|assistant|>\\n'  + message['content'] + eos_token }}\n{% endif %}\n"
     "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n"
     "{% endfor %}",
     ChatFamily::Zephyr},
    {"Vicuna 1.1",
     "{%- for message in messages %}{%- if message['role'] == 'system' -%}{{- message['content'] "
     "+ '\\n\\n' -}}{%- elif message['role'] == 'user' -%}{{- 'USER: ' + message['content'] + "
     "'\\n' -}}{%- else -%}{{- 'ASSISTANT: ' + message['content'] + '</s>\\n' -}}{%- endif -%}"
     "{%- endfor -%}{%- if add_generation_prompt -%}{{- 'ASSISTANT:' -}}{%- endif -%}",
     ChatFamily::Vicuna},
    {"Orca Vicuna",
     "{%- for message in messages %}{%- if message['role'] == 'system' -%}{{- 'SYSTEM: ' + "
     "message['content'] + '\\n' -}}{%- elif message['role'] == 'user' -%}{{- 'USER: ' + "
     "message['content'] + '\\n' -}}{%- else -%}{{- 'ASSISTANT: ' + message['content'] + "
     "'</s>\\n' -}}{%- endif -%}{%- endfor -%}{%- if add_generation_prompt -%}"
     "{{- 'ASSISTANT:' -}}{%- endif -%}",
     ChatFamily::VicunaOrca},
    {"DeepSeek Coder instruct",
     "{{bos_token}}{%- for message in messages %}{%- if message['role'] == 'system' %}"
     "{{ message['content'] }}{%- elif message['role'] == 'user' %}{{'### Instruction:\\n' + "
     "message['content'] + '\\n'}}{%- else %}{{'### Response:\\n' + message['content'] + "
     "'\\n<|EOT|>\\n'}}{%- endif %}{%- endfor %}{% if add_generation_prompt %}"
     "{{'### Response:'}}{% endif %}",
     ChatFamily::DeepSeek},
    {"DeepSeek V2",
     "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}"
     "{{ 'User: ' + message['content'] + '\\n\\n' }}{% elif message['role'] == 'assistant' %}"
     "{{ 'Assistant: ' + message['content'] + eos_token }}{% elif message['role'] == 'system' %}"
     "{{ message['content'] + '\\n\\n' }}{% endif %}{% endfor %}{% if add_generation_prompt %}"
     "{{ 'Assistant:' }}{% endif %}",
     ChatFamily::DeepSeek2},
    {"DeepSeek R1 distill",
     "{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == "
     "'user' %}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == "
     "'assistant' %}{{'<｜Assistant｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- endif %}"
     "{%- endfor -%}{% if add_generation_prompt %}{{'<｜Assistant｜><think>\\n'}}{% endif %}",
     ChatFamily::DeepSeek3},
    {"Command-R",
     "{{ bos_token }}{% if system_message != false %}{{ '<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>' "
     "+ system_message + '<|END_OF_TURN_TOKEN|>' }}{% endif %}{% for message in loop_messages %}"
     "{% if message['role'] == 'user' %}{{ '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>' + "
     "content.strip() + '<|END_OF_TURN_TOKEN|>' }}{% elif message['role'] == 'assistant' %}"
     "{{ '<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>' + content.strip() + '<|END_OF_TURN_TOKEN|>' }}"
     "{% endif %}{% endfor %}{% if add_generation_prompt %}"
     "{{ '<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>' }}{% endif %}",
     ChatFamily::CommandR},
};

TEST(ChatDetect, RecognisesEachFamilyFromItsTemplate) {
  for (const auto& c : kCases) {
    auto family = detect_chat_family(c.jinja);
    ASSERT_TRUE(family.has_value()) << c.what << " not recognised";
    EXPECT_EQ(chat_family_name(*family), chat_family_name(c.family)) << c.what;
  }
}

TEST(ChatDetect, UnknownTemplateIsNotRecognised) {
  EXPECT_FALSE(detect_chat_family("{% for m in messages %}{{ m['content'] }}{% endfor %}"));
  EXPECT_FALSE(detect_chat_family(""));
}

TEST(ChatNames, EveryFamilyRoundTripsThroughItsName) {
  for (ChatFamily family : all_chat_families()) {
    auto back = chat_family_from_name(chat_family_name(family));
    ASSERT_TRUE(back.ok()) << chat_family_name(family);
    EXPECT_EQ(back.value(), family);
  }
}

TEST(ChatNames, UnknownNameListsTheKnownNames) {
  auto family = chat_family_from_name("llama9");
  ASSERT_FALSE(family.ok());
  EXPECT_EQ(family.status().stage(), Stage::InvalidArgument);
  const std::string& msg = family.status().message();
  EXPECT_NE(msg.find("'llama9'"), std::string::npos) << msg;
  for (const char* name : {"chatml", "llama2", "llama3", "gemma", "phi3", "mistral-v7", "deepseek3"}) {
    EXPECT_NE(msg.find(name), std::string::npos) << name << " missing from: " << msg;
  }
}

// A GGUF file in memory with the given tokenizer.chat_template (none when null).
struct MemoryFile {
  std::vector<uint8_t> bytes;  // GgufFile reads from here: declared first, destroyed last
  std::shared_ptr<GgufFile> file;
  explicit operator bool() const { return file != nullptr; }
  const GgufFile& operator*() const { return *file; }
};

MemoryFile file_with_template(const char* jinja) {
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  if (jinja) w.set_string("tokenizer.chat_template", jinja);
  MemoryFile out;
  auto bytes = w.to_bytes();
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  if (!bytes.ok()) return out;
  out.bytes = std::move(bytes.value());
  auto file = GgufFile::open_memory(out.bytes.data(), out.bytes.size());
  EXPECT_TRUE(file.ok()) << file.status().to_string();
  if (file.ok()) out.file = file.value();
  return out;
}

const char* gemma3_template() {
  for (const auto& c : kCases) {
    if (c.family == ChatFamily::Gemma) return c.jinja;
  }
  return nullptr;
}

TEST(ChatChoice, TheFileTemplateDecides) {
  auto file = file_with_template(gemma3_template());
  ASSERT_TRUE(file);
  auto choice = choose_chat_template(*file, "");
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  EXPECT_EQ(choice->family, ChatFamily::Gemma);
  EXPECT_EQ(choice->source, "tokenizer.chat_template");
}

TEST(ChatChoice, TheNameOverridesTheFile) {
  auto file = file_with_template(gemma3_template());
  ASSERT_TRUE(file);
  auto choice = choose_chat_template(*file, "llama3");
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->family, ChatFamily::Llama3);
  EXPECT_EQ(choice->source, "--chat-template");
  auto unknown = choose_chat_template(*file, "gemma9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("known: chatml"), std::string::npos);
}

TEST(ChatChoice, UnrecognisedTemplateIsAnErrorNamingTheFix) {
  auto file = file_with_template("{% for m in messages %}<<{{ m['role'] }}>>{% endfor %}");
  ASSERT_TRUE(file);
  auto choice = choose_chat_template(*file, "");
  ASSERT_FALSE(choice.ok());
  EXPECT_EQ(choice.status().stage(), Stage::Model);
  const std::string& msg = choice.status().message();
  EXPECT_NE(msg.find("not one clport knows"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--chat-template"), std::string::npos) << msg;
  EXPECT_NE(msg.find("chatml"), std::string::npos) << msg;
}

TEST(ChatChoice, MissingTemplateIsAnErrorNamingTheFix) {
  auto file = file_with_template(nullptr);
  ASSERT_TRUE(file);
  auto choice = choose_chat_template(*file, "");
  ASSERT_FALSE(choice.ok());
  const std::string& msg = choice.status().message();
  EXPECT_NE(msg.find("no chat template"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--chat-template NAME"), std::string::npos) << msg;
  EXPECT_TRUE(choose_chat_template(*file, "chatml").ok());
}

}  // namespace
}  // namespace clport
