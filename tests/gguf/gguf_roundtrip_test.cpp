// Files written by GgufWriter read back identically: every metadata type, tensors, alignment,
// version 2 and 3, and atomic writes to disk.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "gguf/gguf.h"
#include "gguf_test_cases.h"

namespace clport {
namespace {

std::shared_ptr<GgufFile> open_bytes(const std::vector<uint8_t>& bytes) {
  auto f = GgufFile::open_memory(bytes.data(), bytes.size());
  EXPECT_TRUE(f.ok()) << f.status().to_string();
  return f.ok() ? f.value() : nullptr;
}

TEST(GgufRoundTrip, EveryMetadataType) {
  GgufWriter w;
  w.set_u8("u8", 250);
  w.set_i8("i8", -100);
  w.set_u16("u16", 65000);
  w.set_i16("i16", -30000);
  w.set_u32("u32", 4000000000u);
  w.set_i32("i32", -2000000000);
  w.set_u64("u64", 1ull << 50);
  w.set_i64("i64", -(int64_t{1} << 50));
  w.set_f32("f32", 1.5f);
  w.set_f64("f64", -2.25);
  w.set_bool("yes", true);
  w.set_bool("no", false);
  w.set_string("s", "hello\nworld");
  w.set_string("empty", "");
  const std::vector<uint16_t> u16s{1, 2, 65535};
  w.set_array("arr.u16", GgufType::UInt16, u16s.data(), u16s.size());
  const std::vector<double> f64s{0.25, -8.0};
  w.set_array("arr.f64", GgufType::Float64, f64s.data(), f64s.size());
  w.set_f32_array("arr.f32", {1.0f, -0.5f});
  w.set_i32_array("arr.i32", {-1, 7});
  w.set_string_array("arr.str", std::vector<std::string>{"x", "", "zz"});
  w.set_string_array("arr.empty", std::vector<std::string>{});
  auto bytes = w.to_bytes();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto f = open_bytes(bytes.value());
  ASSERT_TRUE(f);

  EXPECT_EQ(f->version(), 3u);
  ASSERT_EQ(f->metadata().size(), 20u);
  EXPECT_EQ(f->metadata()[0].key, "u8");  // file order kept
  EXPECT_EQ(f->get_u32("u8").value(), 250u);
  EXPECT_EQ(f->get_i32("i8").value(), -100);
  EXPECT_EQ(f->get_u32("u16").value(), 65000u);
  EXPECT_EQ(f->get_i32("i16").value(), -30000);
  EXPECT_EQ(f->get_u32("u32").value(), 4000000000u);
  EXPECT_EQ(f->get_i32("i32").value(), -2000000000);
  EXPECT_EQ(f->get_u64("u64").value(), 1ull << 50);
  EXPECT_EQ(f->get_i64("i64").value(), -(int64_t{1} << 50));
  EXPECT_FLOAT_EQ(f->get_f32("f32").value(), 1.5f);
  EXPECT_FLOAT_EQ(f->get_f32("f64").value(), -2.25f);
  EXPECT_TRUE(f->get_bool("yes").value());
  EXPECT_FALSE(f->get_bool("no").value());
  EXPECT_EQ(f->get_string("s").value(), "hello\nworld");
  EXPECT_EQ(f->get_string("empty").value(), "");

  const GgufValue* a16 = f->find("arr.u16");
  ASSERT_NE(a16, nullptr);
  EXPECT_EQ(a16->type, GgufType::Array);
  EXPECT_EQ(a16->array_type, GgufType::UInt16);
  EXPECT_EQ(a16->count, 3u);
  EXPECT_EQ(a16->array_number(2).value(), 65535.0);
  EXPECT_FALSE(a16->array_number(3).has_value());
  EXPECT_EQ(f->get_i32_array("arr.u16").value(), (std::vector<int32_t>{1, 2, 65535}));
  EXPECT_EQ(f->get_f32_array("arr.f64").value(), (std::vector<float>{0.25f, -8.0f}));
  EXPECT_EQ(f->get_f32_array("arr.f32").value(), (std::vector<float>{1.0f, -0.5f}));
  EXPECT_EQ(f->get_i32_array("arr.i32").value(), (std::vector<int32_t>{-1, 7}));
  auto strs = f->get_string_array("arr.str", 3);
  ASSERT_TRUE(strs.ok()) << strs.status().to_string();
  EXPECT_EQ(strs.value(), (std::vector<std::string_view>{"x", "", "zz"}));
  EXPECT_TRUE(f->get_string_array("arr.empty").value().empty());
  EXPECT_TRUE(f->tensors().empty());
}

TEST(GgufRoundTrip, TensorsAndAlignment) {
  for (uint32_t alignment : {1u, 32u, 64u, 4096u}) {
    GgufWriter w(2);
    w.set_u32("general.alignment", alignment);
    std::vector<float> a(96);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.5f;
    ASSERT_TRUE(w.add_tensor_view("a", DType::F32, {32, 3}, a.data(), a.size() * 4).ok());
    std::vector<uint8_t> q(2 * 3 * 144);  // Q4_K: [512, 3] = 2 blocks per row
    for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<uint8_t>(i * 13);
    ASSERT_TRUE(w.add_tensor("q", DType::Q4_K, {512, 3}, q).ok());
    ASSERT_TRUE(w.add_tensor("v", DType::F16, {2, 1, 1, 5}, std::vector<uint8_t>(20, 0x3c)).ok());
    auto bytes = w.to_bytes();
    ASSERT_TRUE(bytes.ok());
    auto f = open_bytes(bytes.value());
    ASSERT_TRUE(f);
    EXPECT_EQ(f->version(), 2u);
    EXPECT_EQ(f->alignment(), alignment);
    EXPECT_EQ(f->data_offset() % alignment, 0u);
    ASSERT_EQ(f->tensors().size(), 3u);
    const GgufTensorInfo* ta = f->find_tensor("a");
    ASSERT_NE(ta, nullptr);
    EXPECT_EQ(ta->dtype, DType::F32);
    EXPECT_EQ(ta->n_dims, 2);
    EXPECT_EQ(ta->ne[0], 32);
    EXPECT_EQ(ta->ne[1], 3);
    EXPECT_EQ(ta->bytes, 384u);
    EXPECT_EQ(std::memcmp(ta->data, a.data(), 384), 0);
    const GgufTensorInfo* tq = f->find_tensor("q");
    ASSERT_NE(tq, nullptr);
    EXPECT_EQ(tq->dtype, DType::Q4_K);
    EXPECT_EQ(tq->bytes, q.size());
    EXPECT_EQ(tq->offset % alignment, 0u);
    EXPECT_EQ(std::memcmp(tq->data, q.data(), q.size()), 0);
    const GgufTensorInfo* tv = f->find_tensor("v");
    ASSERT_NE(tv, nullptr);
    EXPECT_EQ(tv->n_dims, 4);
    EXPECT_EQ(tv->n_elements(), 10);
    EXPECT_EQ(f->find_tensor("missing"), nullptr);
  }
}

TEST(GgufRoundTrip, WriterRejectsBadTensors) {
  GgufWriter w;
  std::vector<uint8_t> d(34);
  EXPECT_FALSE(w.add_tensor("x", DType::Q8_0, {33}, d).ok());        // not a block multiple
  EXPECT_FALSE(w.add_tensor("x", DType::Q8_0, {32}, std::vector<uint8_t>(33)).ok());  // wrong size
  EXPECT_FALSE(w.add_tensor("", DType::Q8_0, {32}, d).ok());
  EXPECT_FALSE(w.add_tensor("x", DType::Q8_0, {32, 0}, d).ok());
  EXPECT_FALSE(w.add_tensor("x", DType::Q8_0, {32, 1, 1, 1, 1}, d).ok());
  EXPECT_TRUE(w.add_tensor("x", DType::Q8_0, {32}, d).ok());
  EXPECT_FALSE(w.add_tensor("x", DType::Q8_0, {32}, d).ok());  // duplicate
}

TEST(GgufRoundTrip, SettingAKeyTwiceReplacesIt) {
  GgufWriter w;
  w.set_u32("k", 1);
  w.set_string("other", "x");
  w.set_string("k", "now a string");
  EXPECT_TRUE(w.remove("other"));
  EXPECT_FALSE(w.remove("other"));
  const auto bytes = w.to_bytes().value();  // must outlive the file that views it
  auto f = open_bytes(bytes);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->metadata().size(), 1u);
  EXPECT_EQ(f->get_string("k").value(), "now a string");
}

TEST(GgufRoundTrip, SetValueCopiesEveryType) {
  const auto original = gguf_test::make_valid_file();
  auto src = open_bytes(original);
  ASSERT_TRUE(src);
  GgufWriter w;
  for (const auto& kv : src->metadata()) w.set_value(std::string(kv.key), kv.value);
  for (const auto& t : src->tensors()) {
    ASSERT_TRUE(w.add_tensor_view(t.name, t.dtype, {t.ne.begin(), t.ne.begin() + t.n_dims}, t.data, t.bytes).ok());
  }
  EXPECT_EQ(w.to_bytes().value(), original);  // byte-identical copy
}

TEST(GgufRoundTrip, WriteToDiskIsAtomicAndReadable) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("clport_gguf_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "model.gguf").string();
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  ASSERT_TRUE(w.add_tensor("t", DType::F32, {4}, std::vector<uint8_t>(16, 1)).ok());
  ASSERT_TRUE(w.write(path).ok());
  ASSERT_TRUE(w.write(path).ok());  // replacing an existing file works too
  auto f = GgufFile::open(path);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_EQ(f.value()->path(), path);
  EXPECT_EQ(f.value()->file_size(), std::filesystem::file_size(path));
  EXPECT_EQ(f.value()->get_string("general.architecture").value(), "llama");
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // no temporary left behind

  const Status bad = w.write((dir / "no_such_dir" / "x.gguf").string());
  EXPECT_EQ(bad.stage(), Stage::Io);
  std::filesystem::remove_all(dir);
}

TEST(GgufRoundTrip, OpenReportsMissingFileAsIo) {
  auto f = GgufFile::open("/nonexistent/clport/model.gguf");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().stage(), Stage::Io);
  EXPECT_NE(f.status().message().find("/nonexistent/clport/model.gguf"), std::string::npos);
}

}  // namespace
}  // namespace clport
