// `clport quantize` core: every weight dtype as target; matrices re-encoded exactly as
// quantize_row would, vectors and integer tensors copied, metadata kept, file_type updated.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "gguf/gguf.h"
#include "quant/quant.h"

namespace clport {
namespace {

// llama_ftype values ("mostly X"; K types as their _S variants).
uint32_t expected_file_type(DType t) {
  switch (t) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q4_1: return 3;
    case DType::Q8_0: return 7;
    case DType::Q5_0: return 8;
    case DType::Q5_1: return 9;
    case DType::Q4_K: return 14;
    case DType::Q5_K: return 16;
    case DType::Q6_K: return 18;
    case DType::Q2_K: return 10;
    case DType::Q3_K: return 11;
    case DType::IQ4_NL: return 25;
    case DType::BF16: return 32;
    default: return 999;
  }
}

class GgufRequantize : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("clport_requant_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::mt19937 rng(1234);
    std::normal_distribution<float> dist(0.0f, 0.05f);
    wide_.resize(256 * 4);
    narrow_.resize(96 * 2);
    for (float& x : wide_) x = dist(rng);
    for (float& x : narrow_) x = dist(rng);
    GgufWriter w;
    w.set_string("general.architecture", "llama");
    w.set_u32("general.file_type", 0);
    w.set_string_array("tokenizer.ggml.tokens", std::vector<std::string>{"a", "b"});
    ASSERT_TRUE(w.add_tensor_view("blk.0.attn_q.weight", DType::F32, {256, 4}, wide_.data(), wide_.size() * 4).ok());
    ASSERT_TRUE(w.add_tensor_view("blk.0.ffn_down.weight", DType::F32, {96, 2}, narrow_.data(), narrow_.size() * 4).ok());
    ASSERT_TRUE(w.add_tensor("blk.0.attn_norm.weight", DType::F32, {8}, std::vector<uint8_t>(32, 7)).ok());
    ASSERT_TRUE(w.add_tensor("ids", DType::I32, {4, 2}, std::vector<uint8_t>(32, 1)).ok());
    input_ = (dir_ / "in.gguf").string();
    ASSERT_TRUE(w.write(input_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::vector<uint8_t> quantized(DType t, const std::vector<float>& x, int64_t row) {
    std::vector<uint8_t> out(static_cast<size_t>(*row_bytes(t, row) * (static_cast<int64_t>(x.size()) / row)));
    const int64_t rb = *row_bytes(t, row);
    for (size_t r = 0; r * row < x.size(); ++r) {
      EXPECT_TRUE(quantize_row(t, x.data() + r * row, out.data() + r * rb, row).ok());
    }
    return out;
  }

  std::filesystem::path dir_;
  std::string input_;
  std::vector<float> wide_, narrow_;
};

TEST_F(GgufRequantize, EveryWeightType) {
  for (DType target : kWeightDTypes) {
    SCOPED_TRACE(std::string(dtype_name(target)));
    const std::string out = (dir_ / ("out_" + std::string(dtype_name(target)) + ".gguf")).string();
    auto report = requantize_gguf(input_, out, target);
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    auto opened = GgufFile::open(out);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    const GgufFile& f = *opened.value();
    EXPECT_EQ(f.get_string("general.architecture").value(), "llama");
    EXPECT_EQ(f.get_string_array("tokenizer.ggml.tokens").value().size(), 2u);
    EXPECT_EQ(f.get_u32("general.file_type").value(), expected_file_type(target));

    const GgufTensorInfo* wide = f.find_tensor("blk.0.attn_q.weight");
    ASSERT_NE(wide, nullptr);
    EXPECT_EQ(wide->dtype, target);
    const auto expected_wide = quantized(target, wide_, 256);
    ASSERT_EQ(wide->bytes, expected_wide.size());
    EXPECT_EQ(std::memcmp(wide->data, expected_wide.data(), wide->bytes), 0);

    // 96 is not a multiple of 256: K types fall back to a 32-block type, with a note.
    const bool k_type = traits(target).block_size == 256;
    const GgufTensorInfo* narrow = f.find_tensor("blk.0.ffn_down.weight");
    ASSERT_NE(narrow, nullptr);
    EXPECT_EQ(narrow->dtype == target, !k_type);
    EXPECT_EQ(report.value().notes.size(), k_type ? 1u : 0u);
    std::vector<float> back(narrow_.size());
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(dequantize_row(narrow->dtype, narrow->data + r * narrow->bytes / 2, back.data() + r * 96, 96).ok());
    }
    double err = 0, ref = 0;
    for (size_t i = 0; i < back.size(); ++i) {
      err += (back[i] - narrow_[i]) * (back[i] - narrow_[i]);
      ref += narrow_[i] * narrow_[i];
    }
    EXPECT_LT(err / ref, 0.02) << "round trip through " << dtype_name(narrow->dtype);

    const GgufTensorInfo* norm = f.find_tensor("blk.0.attn_norm.weight");
    ASSERT_NE(norm, nullptr);
    EXPECT_EQ(norm->dtype, DType::F32);
    EXPECT_EQ(norm->data[0], 7);
    EXPECT_EQ(f.find_tensor("ids")->dtype, DType::I32);
    EXPECT_EQ(report.value().copied + report.value().converted, 4);
  }
}

TEST_F(GgufRequantize, QuantizedInputCanBeRequantized) {
  const std::string q8 = (dir_ / "q8.gguf").string();
  const std::string q4 = (dir_ / "q4.gguf").string();
  ASSERT_TRUE(requantize_gguf(input_, q8, DType::Q8_0).ok());
  auto report = requantize_gguf(q8, q4, DType::Q4_0);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(report.value().converted, 2);
  auto f = GgufFile::open(q4);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value()->find_tensor("blk.0.attn_q.weight")->dtype, DType::Q4_0);
  EXPECT_EQ(f.value()->get_u32("general.file_type").value(), 2u);
}

TEST_F(GgufRequantize, ErrorsAreReported) {
  auto missing = requantize_gguf((dir_ / "none.gguf").string(), (dir_ / "x.gguf").string(), DType::Q4_0);
  EXPECT_EQ(missing.status().stage(), Stage::Io);
  auto bad_target = requantize_gguf(input_, (dir_ / "x.gguf").string(), DType::I32);
  EXPECT_EQ(bad_target.status().stage(), Stage::InvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.gguf"));
}

// The same file under another name (a "." in the path, a hard link, a symbolic link) is the
// input: refused before anything is written, the input byte for byte as it was.
TEST_F(GgufRequantize, AnOutputThatIsTheInputFileIsRefused) {
  namespace fs = std::filesystem;
  const auto size_before = fs::file_size(input_);
  const auto links_before = fs::hard_link_count(input_);
  fs::create_hard_link(input_, dir_ / "hard.gguf");
  fs::create_symlink(input_, dir_ / "soft.gguf");
  for (const std::string& same : {(dir_ / "." / "in.gguf").string(), (dir_ / "hard.gguf").string(),
                                  (dir_ / "soft.gguf").string(), input_}) {
    auto report = requantize_gguf(input_, same, DType::Q8_0);
    ASSERT_FALSE(report.ok()) << same;
    EXPECT_EQ(report.status().stage(), Stage::InvalidArgument);
    EXPECT_NE(report.status().message().find("is the input file"), std::string::npos) << report.status().message();
  }
  EXPECT_EQ(fs::file_size(input_), size_before);
  EXPECT_EQ(fs::hard_link_count(input_), links_before + 1);  // not replaced: the hard link still shares it
  auto f = GgufFile::open(input_);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value()->find_tensor("blk.0.attn_q.weight")->dtype, DType::F32);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace clport
