// GGUF metadata -> tokenizer: files written in memory with GgufWriter, one defect at a time.
// Every defect must be a clear Status naming the key, never a crash.
#include <gtest/gtest.h>

#include <functional>

#include "gguf/gguf.h"
#include "clport/tokenizer.h"
#include "tiny_vocabs.h"

namespace clport {
namespace {

// A valid small BPE vocabulary as GGUF keys (the tiny_bpe_vocab tokens and merges).
GgufWriter bpe_writer() {
  const Vocab v = testing::tiny_bpe_vocab();
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("tokenizer.ggml.model", "gpt2");
  w.set_string("tokenizer.ggml.pre", "smollm");
  w.set_string_array("tokenizer.ggml.tokens", v.tokens);
  std::vector<int32_t> types;
  for (TokenType t : v.types) types.push_back(static_cast<int32_t>(t));
  w.set_i32_array("tokenizer.ggml.token_type", types);
  w.set_string_array("tokenizer.ggml.merges", v.merges);
  w.set_u32("tokenizer.ggml.eos_token_id", 259);
  return w;
}

// Writes, re-opens and builds a tokenizer; the file must parse as GGUF (the defects are in the
// tokenizer metadata, not the container).
Result<std::unique_ptr<Tokenizer>> build(const GgufWriter& w, std::vector<uint8_t>& storage) {
  auto bytes = w.to_bytes();
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  if (!bytes.ok()) return bytes.status();
  storage = std::move(bytes.value());
  auto file = GgufFile::open_memory(storage.data(), storage.size());
  EXPECT_TRUE(file.ok()) << file.status().to_string();
  if (!file.ok()) return file.status();
  return Tokenizer::from_gguf(*file.value());
}

TEST(TokenizerMetadata, ValidBpeFileBuildsAndEncodes) {
  std::vector<uint8_t> storage;
  auto tok = build(bpe_writer(), storage);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ((*tok)->n_vocab(), 262);
  EXPECT_EQ((*tok)->eos(), 259);
  EXPECT_EQ((*tok)->bos(), -1);
  EXPECT_EQ((*tok)->vocab().pre, "smollm");
  auto ids = (*tok)->encode("abc 12", false, false);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids.value(), (std::vector<int32_t>{257, 32, '1', '2'}));
}

TEST(TokenizerMetadata, ValidSpmFileUsesSentencePieceDefaults) {
  const Vocab v = testing::tiny_spm_vocab();
  GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_string_array("tokenizer.ggml.tokens", v.tokens);
  w.set_f32_array("tokenizer.ggml.scores", v.scores);
  std::vector<int32_t> types;
  for (TokenType t : v.types) types.push_back(static_cast<int32_t>(t));
  w.set_i32_array("tokenizer.ggml.token_type", types);
  std::vector<uint8_t> storage;
  auto tok = build(w, storage);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  // No id keys: <unk>=0, <s>=1, </s>=2; BOS expected; space prefix on.
  EXPECT_EQ((*tok)->unk(), 0);
  EXPECT_EQ((*tok)->bos(), 1);
  EXPECT_EQ((*tok)->eos(), 2);
  EXPECT_TRUE((*tok)->add_bos_default());
  auto ids = (*tok)->encode("ab", true, false);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids.value(), (std::vector<int32_t>{1, 259, 263}));
}

struct Defect {
  const char* name;
  std::function<void(GgufWriter&)> apply;
  const char* must_mention;
};

TEST(TokenizerMetadata, EachDefectIsAClearError) {
  const Vocab v = testing::tiny_bpe_vocab();
  const std::vector<Defect> defects = {
      {"scores stored as integers",
       [&](GgufWriter& w) {
         w.set_i32_array("tokenizer.ggml.scores", std::vector<int32_t>(v.tokens.size(), 1));
       },
       "tokenizer.ggml.scores"},
      {"merges missing", [](GgufWriter& w) { w.remove("tokenizer.ggml.merges"); },
       "tokenizer.ggml.merges"},
      {"merges not strings",
       [](GgufWriter& w) { w.set_i32_array("tokenizer.ggml.merges", {1, 2}); },
       "tokenizer.ggml.merges"},
      {"malformed merge",
       [](GgufWriter& w) {
         w.set_string_array("tokenizer.ggml.merges", std::vector<std::string>{"a b", "ab"});
       },
       "merges[1]"},
      {"tokens missing", [](GgufWriter& w) { w.remove("tokenizer.ggml.tokens"); },
       "tokenizer.ggml.tokens"},
      {"model missing", [](GgufWriter& w) { w.remove("tokenizer.ggml.model"); },
       "tokenizer.ggml.model"},
      {"model unsupported", [](GgufWriter& w) { w.set_string("tokenizer.ggml.model", "bert"); },
       "bert"},
      {"pre unknown", [](GgufWriter& w) { w.set_string("tokenizer.ggml.pre", "klingon"); },
       "klingon"},
      {"eos out of range", [](GgufWriter& w) { w.set_u32("tokenizer.ggml.eos_token_id", 262); },
       "eos_token_id"},
      {"bos negative", [](GgufWriter& w) { w.set_i32("tokenizer.ggml.bos_token_id", -7); },
       "bos_token_id"},
      {"bos as string", [](GgufWriter& w) { w.set_string("tokenizer.ggml.bos_token_id", "1"); },
       "bos_token_id"},
      {"token_type too short",
       [](GgufWriter& w) { w.set_i32_array("tokenizer.ggml.token_type", {1, 1, 1}); },
       "tokenizer.ggml.token_type"},
      {"token_type unknown value",
       [&](GgufWriter& w) {
         std::vector<int32_t> t(v.tokens.size(), 1);
         t[7] = 9;
         w.set_i32_array("tokenizer.ggml.token_type", t);
       },
       "token_type[7]"},
      {"byte token <0xZZ>",
       [&](GgufWriter& w) {
         std::vector<std::string> tokens = v.tokens;
         tokens[0] = "<0xZZ>";
         w.set_string_array("tokenizer.ggml.tokens", tokens);
         std::vector<int32_t> t(v.tokens.size(), 1);
         t[0] = static_cast<int32_t>(TokenType::Byte);
         w.set_i32_array("tokenizer.ggml.token_type", t);
       },
       "<0xZZ>"},
      {"add_bos_token not bool",
       [](GgufWriter& w) { w.set_string("tokenizer.ggml.add_bos_token", "yes"); },
       "add_bos_token"},
  };
  for (const Defect& d : defects) {
    GgufWriter w = bpe_writer();
    d.apply(w);
    std::vector<uint8_t> storage;
    auto tok = build(w, storage);
    ASSERT_FALSE(tok.ok()) << d.name << ": accepted";
    EXPECT_TRUE(tok.status().stage() == Stage::Model || tok.status().stage() == Stage::Unsupported)
        << d.name << ": " << tok.status().to_string();
    EXPECT_NE(tok.status().message().find(d.must_mention), std::string::npos)
        << d.name << ": message does not name '" << d.must_mention
        << "': " << tok.status().message();
  }
}

}  // namespace
}  // namespace clport
