// The split rules behind each tokenizer.ggml.pre name. The expressions are the ones the
// original tokenizers use (HF tokenizers' pre_tokenizer regexes), written for PCRE2.
#include <array>
#include <utility>

#include "tokenizer/pretokenizer.h"

namespace clport::tok {
namespace {

// GPT-2's split: contractions, letters, numbers, other symbols, each optionally led by one
// space, then whitespace runs (leaving the last space of a run to the following word).
constexpr const char* kGpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// LLaMA 3 / Qwen 2: case-insensitive contractions, a letter run may take one leading
// non-letter, numbers in groups of up to three (Qwen 2: one digit at a time), newlines
// kept together.
constexpr const char* kLlama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kQwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct Family {
  const char* canonical;
  std::array<const char*, 8> aliases;  // nullptr-terminated
};

constexpr Family kGpt2Family{"gpt-2", {"gpt-2", "gpt2", "mpt", "olmo", "jais", nullptr}};
// StarCoder and SmolLM: every digit is its own piece, then the GPT-2 split.
constexpr Family kStarcoderFamily{
    "starcoder",
    {"starcoder", "smollm", "refact", "command-r", "codeshell", "exaone", "minerva", nullptr}};
constexpr Family kLlama3Family{
    "llama3", {"llama3", "llama-bpe", "falcon3", "dbrx", "smaug-bpe", "pixtral", nullptr}};
constexpr Family kQwen2Family{
    "qwen2", {"qwen2", "deepseek-r1-qwen", "stablelm2", "hunyuan", nullptr}};

bool in_family(const Family& f, std::string_view pre) {
  for (const char* alias : f.aliases) {
    if (alias == nullptr) break;
    if (pre == alias) return true;
  }
  return false;
}

}  // namespace

Result<PreTokenizerRules> pre_tokenizer_rules(std::string_view pre) {
  if (pre.empty() || pre == "default") {
    // llama.cpp's fallback for BPE vocabularies that name no pre-tokenizer.
    return PreTokenizerRules{"default",
                             {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"},
                             false};
  }
  if (in_family(kGpt2Family, pre)) return PreTokenizerRules{kGpt2Family.canonical, {kGpt2}, false};
  if (in_family(kStarcoderFamily, pre)) {
    return PreTokenizerRules{kStarcoderFamily.canonical, {"\\p{N}", kGpt2}, false};
  }
  if (in_family(kLlama3Family, pre)) {
    return PreTokenizerRules{kLlama3Family.canonical, {kLlama3}, true};
  }
  if (in_family(kQwen2Family, pre)) {
    return PreTokenizerRules{kQwen2Family.canonical, {kQwen2}, false};
  }
  return Status(Stage::Unsupported,
                "unknown pre-tokenizer tokenizer.ggml.pre = '" + std::string(pre) +
                    "'; supported: default, gpt-2 (mpt, olmo, jais), starcoder (smollm, refact, "
                    "command-r, codeshell, exaone, minerva), llama3 (llama-bpe, falcon3, dbrx, "
                    "smaug-bpe, pixtral), qwen2 (deepseek-r1-qwen, stablelm2, hunyuan)");
}

}  // namespace clport::tok
