// Every malformed-file class is rejected with a Model-stage message that names the problem and
// the byte offset; the unmutated base file is accepted (so each failure is due to its mutation).
#include <gtest/gtest.h>

#include "gguf/gguf.h"
#include "gguf_test_cases.h"

namespace clport {
namespace {

TEST(GgufMalformed, BaseFileIsValid) {
  const auto bytes = gguf_test::make_valid_file();
  auto f = GgufFile::open_memory(bytes.data(), bytes.size());
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_EQ(f.value()->tensors().size(), 3u);
  EXPECT_EQ(f.value()->find_tensor("tensor_c")->offset, 416u);
}

class GgufMalformedCase : public ::testing::TestWithParam<gguf_test::MalformedCase> {};

TEST_P(GgufMalformedCase, RejectedWithClearMessage) {
  const auto& c = GetParam();
  auto f = GgufFile::open_memory(c.bytes.data(), c.bytes.size());
  ASSERT_FALSE(f.ok()) << c.name << " was accepted";
  EXPECT_EQ(f.status().stage(), Stage::Model);
  const std::string& msg = f.status().message();
  EXPECT_NE(msg.find(c.expected_error), std::string::npos)
      << "expected '" << c.expected_error << "' in: " << msg;
  EXPECT_NE(msg.find("at byte offset"), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(AllClasses, GgufMalformedCase,
                         ::testing::ValuesIn(gguf_test::make_malformed_cases()),
                         [](const auto& info) { return info.param.name; });

// Cutting a valid file anywhere must give an error, never a crash (ASan/UBSan builds check
// the "never reads past the end" part).
TEST(GgufMalformed, EveryTruncationIsAnError) {
  const auto bytes = gguf_test::make_valid_file();
  auto full = GgufFile::open_memory(bytes.data(), bytes.size());
  ASSERT_TRUE(full.ok());
  // Only the alignment padding after the last tensor (tensor_c: 16 bytes at 416) may be cut.
  const size_t needed = full.value()->data_offset() + 416 + 16;
  ASSERT_LT(needed, bytes.size());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    auto f = GgufFile::open_memory(cut.data(), cut.size());
    EXPECT_EQ(f.ok(), n >= needed) << "file cut to " << n << " bytes: "
                                   << (f.ok() ? "accepted" : f.status().message());
  }
}

}  // namespace
}  // namespace clport
