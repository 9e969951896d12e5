// The real vocabulary files shipped with the test data (written by llama.cpp's tools) parse and
// expose the tokenizer metadata with the right types and consistent counts.
#include <gtest/gtest.h>

#include <filesystem>

#include "gguf/gguf.h"

namespace clport {
namespace {

struct VocabFile {
  const char* file;
  const char* model;  // tokenizer.ggml.model
  uint64_t n_tokens;
};

class GgufVocabFile : public ::testing::TestWithParam<VocabFile> {};

TEST_P(GgufVocabFile, ParsesWithConsistentTokenizerMetadata) {
  const VocabFile& v = GetParam();
  const std::string path = std::string(CLPORT_SHARED_DIR) + "/testdata/vocab/" + v.file;
  ASSERT_TRUE(std::filesystem::exists(path))
      << "test data missing: " << path << " (the shared test data directory must be present)";
  auto opened = GgufFile::open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  const GgufFile& f = *opened.value();
  EXPECT_TRUE(f.version() == 2 || f.version() == 3);
  EXPECT_TRUE(f.tensors().empty());
  EXPECT_TRUE(f.get_string("general.architecture").ok());
  EXPECT_EQ(f.get_string("tokenizer.ggml.model").value(), v.model);
  auto tokens = f.get_string_array("tokenizer.ggml.tokens");
  ASSERT_TRUE(tokens.ok()) << tokens.status().to_string();
  EXPECT_EQ(tokens.value().size(), v.n_tokens);
  if (f.has("tokenizer.ggml.token_type")) {
    auto types = f.get_i32_array("tokenizer.ggml.token_type", v.n_tokens);
    EXPECT_TRUE(types.ok()) << types.status().to_string();
  }
  if (f.has("tokenizer.ggml.scores")) {
    auto scores = f.get_f32_array("tokenizer.ggml.scores", v.n_tokens);
    EXPECT_TRUE(scores.ok()) << scores.status().to_string();
  }
  if (std::string(v.model) == "gpt2") {
    auto merges = f.get_string_array("tokenizer.ggml.merges");
    ASSERT_TRUE(merges.ok()) << merges.status().to_string();
    EXPECT_GT(merges.value().size(), 1000u);
  }
  // Special token ids, where present, name real tokens.
  for (const char* key : {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"}) {
    if (!f.has(key)) continue;
    auto id = f.get_u32(key);
    ASSERT_TRUE(id.ok()) << id.status().to_string();
    EXPECT_LT(id.value(), v.n_tokens) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(SharedTestData, GgufVocabFile,
                         ::testing::Values(VocabFile{"ggml-vocab-gpt-2.gguf", "gpt2", 50257},
                                           VocabFile{"ggml-vocab-starcoder.gguf", "gpt2", 49152},
                                           VocabFile{"ggml-vocab-llama-spm.gguf", "llama", 32000}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace clport
