// libFuzzer target: the C API's text calls (clport_tokenize, clport_detokenize,
// clport_chat_apply, clport_chat_stop_tokens) on a loaded model: a one-layer random model with
// a Gemma chat template, written and loaded on the CPU path once per process. Every call must
// return OK or the documented error, with its out-parameters set as clport.h says.
//
// Layout: data[0] bits 0-1 tokenize flags, bit 2 an unknown tokenize flag, bit 3 detokenize's
// RENDER_SPECIAL, bits 4-6 the template name (0: NULL, the file's; 7: the text to tokenize;
// else a family name), bit 7 add_generation_prompt. The rest is split at 0x1E: the text to
// tokenize, then the messages (first byte: 0 system, 1 user, 2 assistant, 3 a NULL role, 4 a
// NULL content, else the text up to a 0x1F is the role).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "clport/clport.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "random_model.h"
#include "tokenizer/utf8.h"

namespace {

clport_model* load_model() {
  clport_set_log_level(CLPORT_SEVERITY_OFF);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("clport_capi_fuzz_" + std::to_string(getpid()) + ".gguf")).string();
  clport::test::RandomModelSpec spec;
  spec.n_layer = 1;
  spec.chat_template = "gemma";
  const clport::Status written = clport::test::write_random_llama(path, spec);
  FUZZ_CHECK(written.ok(), "%s", written.to_string().c_str());
  clport_runtime_options ro;
  clport_runtime_options_init(&ro);
  ro.device = "cpu";
  ro.cache_dir = "off";
  ro.n_threads = 1;
  clport_runtime* runtime = nullptr;
  FUZZ_CHECK(clport_runtime_create(&ro, &runtime) == CLPORT_OK, "%s", clport_last_error());
  clport_model_options mo;
  clport_model_options_init(&mo);
  mo.path = path.c_str();
  mo.n_ctx = 64;
  clport_model* model = nullptr;
  const clport_status loaded = clport_model_load(runtime, &mo, &model);
  std::filesystem::remove(path);  // the loaded model keeps what it needs
  FUZZ_CHECK(loaded == CLPORT_OK, "%s", clport_last_error());
  clport_runtime_free(runtime);
  return model;
}

void check_tokens(clport_model* model, int32_t n_vocab, uint8_t flags, std::string_view text) {
  const bool unknown_flag = (flags & 4) != 0;
  const uint32_t tokenize_flags = (flags & 3u) | (unknown_flag ? 8u : 0u);
  int32_t* tokens = nullptr;
  size_t count = 0;
  const clport_status st = clport_tokenize(model, text.data(), text.size(), tokenize_flags, &tokens, &count);
  if (unknown_flag) {
    FUZZ_CHECK(st == CLPORT_ERR_INVALID_ARGUMENT && tokens == nullptr && count == 0, "status %d", st);
    return;
  }
  FUZZ_CHECK(st == CLPORT_OK, "%s", clport_last_error());
  FUZZ_CHECK((count == 0) == (tokens == nullptr), "count %zu", count);
  for (size_t i = 0; i < count; ++i) FUZZ_CHECK(tokens[i] >= 0 && tokens[i] < n_vocab, "token %d", tokens[i]);

  const uint32_t detokenize_flags = (flags & 8) ? CLPORT_DETOKENIZE_RENDER_SPECIAL : 0;
  char* back = nullptr;
  size_t length = 0;
  FUZZ_CHECK(clport_detokenize(model, tokens, count, detokenize_flags, &back, &length) == CLPORT_OK, "%s",
             clport_last_error());
  FUZZ_CHECK(back != nullptr && back[length] == '\0', "no NUL after the text");
  // The random vocabulary spells a space as the bytes of U+2581 (no token holds it), so the
  // round trip is exact for texts without either.
  const bool plain = (flags & 3) == 0 && detokenize_flags == 0;
  if (plain && text.find(' ') == std::string_view::npos && text.find("\xE2\x96\x81") == std::string_view::npos) {
    const std::string expected = clport::tok::replace_invalid_utf8(text);
    FUZZ_CHECK(std::string_view(back, length) == expected, "detokenize(tokenize(x)): %zu bytes, expected %zu",
               length, expected.size());
  }
  clport_free(back);
  clport_free(tokens);

  // The text's bytes read as token ids: OK exactly when every one is in the vocabulary.
  std::vector<int32_t> ids(text.size() / sizeof(int32_t));
  if (!ids.empty()) std::memcpy(ids.data(), text.data(), ids.size() * sizeof(int32_t));
  bool in_range = true;
  for (int32_t id : ids) in_range = in_range && id >= 0 && id < n_vocab;
  const clport_status raw = clport_detokenize(model, ids.data(), ids.size(), detokenize_flags, &back, nullptr);
  FUZZ_CHECK(raw == (in_range ? CLPORT_OK : CLPORT_ERR_INVALID_ARGUMENT), "status %d", raw);
  FUZZ_CHECK((back != nullptr) == in_range, "out_text on failure");
  clport_free(back);
}

void check_chat(clport_model* model, uint8_t flags, const std::vector<std::string_view>& parts) {
  static const char* const kNames[] = {nullptr, "chatml", "llama2", "gemma", "mistral-v7", "deepseek3", "command-r"};
  const std::string text_name(parts[0]);
  const size_t pick = (flags >> 4) & 7;
  const char* name = pick == 7 ? text_name.c_str() : kNames[pick];

  std::vector<std::string> roles, contents;
  std::vector<clport_chat_message> messages;
  bool valid = true;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    const auto kind = part.empty() ? uint8_t{1} : static_cast<uint8_t>(part[0]);
    if (!part.empty()) part.remove_prefix(1);
    static const char* const kRoles[] = {"system", "user", "assistant"};
    std::string role = kind < 3 ? kRoles[kind] : "user";
    std::string content(part);
    if (kind > 4) {
      const size_t end = part.find('\x1F');
      role = std::string(part.substr(0, end));
      content = end == std::string_view::npos ? "" : std::string(part.substr(end + 1));
      valid = valid && (role == "system" || role == "user" || role == "assistant");
    }
    roles.push_back(role);
    contents.push_back(content);
    valid = valid && kind != 3 && kind != 4;
  }
  for (size_t i = 0; i < roles.size(); ++i) {
    const auto kind = parts[i + 1].empty() ? uint8_t{1} : static_cast<uint8_t>(parts[i + 1][0]);
    messages.push_back({kind == 3 ? nullptr : roles[i].c_str(), kind == 4 ? nullptr : contents[i].c_str()});
  }

  char* out = nullptr;
  size_t length = 0;
  const clport_status st = clport_chat_apply(model, name, messages.data(), messages.size(),
                                             (flags & 128) ? 1 : 0, &out, &length);
  FUZZ_CHECK(st == CLPORT_OK || st == CLPORT_ERR_INVALID_ARGUMENT, "status %d: %s", st, clport_last_error());
  if (st == CLPORT_OK) {
    FUZZ_CHECK(out != nullptr && out[length] == '\0', "no NUL after the text");
    int32_t* tokens = nullptr;
    size_t count = 0;
    FUZZ_CHECK(clport_tokenize(model, out, length, CLPORT_TOKENIZE_ADD_BOS | CLPORT_TOKENIZE_PARSE_SPECIAL,
                               &tokens, &count) == CLPORT_OK, "%s", clport_last_error());
    clport_free(tokens);
  } else {
    FUZZ_CHECK(out == nullptr && length == 0, "out_text on failure");
    const bool known_name = name == nullptr || pick != 7;
    FUZZ_CHECK(!(valid && known_name), "refused a valid conversation: %s", clport_last_error());
  }
  clport_free(out);

  int32_t* stops = nullptr;
  size_t n_stops = 0;
  const clport_status stop_st = clport_chat_stop_tokens(model, name, &stops, &n_stops);
  FUZZ_CHECK(stop_st == CLPORT_OK || stop_st == CLPORT_ERR_INVALID_ARGUMENT, "status %d", stop_st);
  clport_free(stops);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clport_model* model = load_model();
  static const int32_t n_vocab = [] {
    clport_model_info info;
    info.struct_size = sizeof info;
    FUZZ_CHECK(clport_model_get_info(model, &info) == CLPORT_OK, "%s", clport_last_error());
    return info.n_vocab;
  }();
  if (size == 0) return 0;
  const auto parts = split_fuzz_input(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), '\x1E');
  check_tokens(model, n_vocab, data[0], parts[0]);
  check_chat(model, data[0], parts);
  return 0;
}
