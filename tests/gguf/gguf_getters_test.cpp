// Typed getters reject metadata of the wrong type, count or range with a message naming the key.
#include <gtest/gtest.h>

#include "gguf/gguf.h"

namespace clport {
namespace {

class GgufGetters : public ::testing::Test {
 protected:
  void SetUp() override {
    GgufWriter w;
    w.set_string("name", "x");
    w.set_u64("llama.block_count", 1ull << 40);  // too large for uint32
    w.set_i32("negative", -5);
    w.set_u32("count", 7);
    w.set_i32_array("tokenizer.ggml.scores", {1, 2, 3});  // scores stored as integers
    w.set_f32_array("floats", {1.0f, 2.0f});
    const std::vector<int64_t> big{1, int64_t{1} << 40};
    w.set_array("big_ints", GgufType::Int64, big.data(), big.size());
    w.set_f32("f", 0.5f);
    bytes_ = w.to_bytes().value();
    auto f = GgufFile::open_memory(bytes_.data(), bytes_.size());
    ASSERT_TRUE(f.ok()) << f.status().to_string();
    file_ = f.value();
  }

  static void expect_error(const Status& st, const std::string& needle) {
    EXPECT_EQ(st.stage(), Stage::Model);
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  }

  std::vector<uint8_t> bytes_;
  std::shared_ptr<GgufFile> file_;
};

TEST_F(GgufGetters, MissingKey) {
  expect_error(file_->get_u32("nope").status(), "'nope': missing");
  EXPECT_EQ(file_->get_u32_or("nope", 42).value(), 42u);
  EXPECT_FLOAT_EQ(file_->get_f32_or("nope", 1e-5f).value(), 1e-5f);
  EXPECT_TRUE(file_->get_bool_or("nope", true).value());
  EXPECT_EQ(file_->get_string_or("nope", "dflt").value(), "dflt");
}

TEST_F(GgufGetters, PresentButWrongTypeIsAnErrorEvenWithDefault) {
  expect_error(file_->get_u32_or("name", 1).status(), "expected uint32, found string");
  expect_error(file_->get_string("count").status(), "'count': expected string, found uint32");
  expect_error(file_->get_bool("count").status(), "expected bool, found uint32");
  expect_error(file_->get_f32("count").status(), "expected float32, found uint32");
  expect_error(file_->get_u32("f").status(), "expected uint32, found float32");
}

TEST_F(GgufGetters, ValueMustFit) {
  expect_error(file_->get_u32("llama.block_count").status(),
               "'llama.block_count': value 1099511627776 does not fit uint32");
  EXPECT_EQ(file_->get_u64("llama.block_count").value(), 1ull << 40);
  expect_error(file_->get_u32("negative").status(), "value -5 does not fit uint32");
  EXPECT_EQ(file_->get_i64("negative").value(), -5);
  EXPECT_EQ(file_->get_i32("count").value(), 7);
}

TEST_F(GgufGetters, Arrays) {
  expect_error(file_->get_f32_array("tokenizer.ggml.scores").status(),
               "expected array of float32, found array of int32");
  expect_error(file_->get_string_array("floats").status(), "expected array of string, found array of float32");
  expect_error(file_->get_f32_array("floats", 3).status(), "has 2 elements, expected 3");
  expect_error(file_->get_i32_array("big_ints").status(), "element 1 (1099511627776) does not fit int32");
  expect_error(file_->get_i32_array("count").status(), "expected array of int32, found uint32");
  expect_error(file_->get_i32_array("floats").status(), "expected array of int32, found array of float32");
  EXPECT_EQ(file_->get_f32_array("floats", 2).value().size(), 2u);
}

TEST_F(GgufGetters, DisplayStrings) {
  EXPECT_EQ(file_->find("name")->to_display_string(), "\"x\"");
  EXPECT_EQ(file_->find("negative")->to_display_string(), "-5");
  EXPECT_EQ(file_->find("tokenizer.ggml.scores")->to_display_string(2), "[int32 x 3: 1, 2, ...]");
}

}  // namespace
}  // namespace clport
