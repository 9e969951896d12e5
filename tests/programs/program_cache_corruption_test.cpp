// Every way an entry can be bad: it is deleted, the program is built from source, a good entry
// takes its place, and the program works.
#include <functional>

#include "program_cache_fixture.h"
#include "programs/cache_entry.h"

namespace clport {
namespace {

namespace fs = std::filesystem;
using testing::ProgramCacheTest;

class ProgramCacheCorruption : public ProgramCacheTest {
 protected:
  // Populates the cache, damages the entry with `damage`, then checks a fresh cache rejects it,
  // rebuilds, and leaves a valid entry behind.
  void check_recovers(const std::function<void(std::vector<unsigned char>&)>& damage) {
    auto writer = fresh_cache();
    build_and_check(*writer);
    const std::string key_hex = writer->key(testing::kAddOneSource, "");
    path_ = writer->entry_path(key_hex);
    auto bytes = read_bytes(path_);
    ASSERT_GT(bytes.size(), programs::kEntryHeaderBytes);
    damage(bytes);
    write_bytes(path_, bytes);

    auto reader = fresh_cache();
    build_and_check(*reader);
    const ProgramCacheCounters c = reader->counters();
    EXPECT_EQ(c.rejected, 1u);
    EXPECT_EQ(c.hits, 0u);
    EXPECT_EQ(c.misses, 1u);
    EXPECT_EQ(c.saves, 1u);
    // The replacement is whole and valid: the next process hits.
    auto next = fresh_cache();
    build_and_check(*next);
    EXPECT_EQ(next->counters().hits, 1u);
    EXPECT_EQ(next->counters().rejected, 0u);
  }
  std::string path_;
};

TEST_F(ProgramCacheCorruption, TruncatedInsideTheBinary) {
  check_recovers([](auto& bytes) { bytes.resize(bytes.size() / 2 + programs::kEntryHeaderBytes / 2); });
}

TEST_F(ProgramCacheCorruption, TruncatedInsideTheHeader) {
  check_recovers([](auto& bytes) { bytes.resize(20); });
}

TEST_F(ProgramCacheCorruption, EmptyFile) {
  check_recovers([](auto& bytes) { bytes.clear(); });
}

TEST_F(ProgramCacheCorruption, BitFlipInTheBinary) {
  check_recovers([](auto& bytes) { bytes[programs::kEntryHeaderBytes + 7] ^= 0x10; });
}

TEST_F(ProgramCacheCorruption, BitFlipInTheLastByte) {
  check_recovers([](auto& bytes) { bytes.back() ^= 0x01; });
}

TEST_F(ProgramCacheCorruption, BitFlipInTheMagic) {
  check_recovers([](auto& bytes) { bytes[2] ^= 0x04; });
}

TEST_F(ProgramCacheCorruption, BitFlipInTheStoredHash) {
  check_recovers([](auto& bytes) { bytes[60] ^= 0x80; });
}

TEST_F(ProgramCacheCorruption, OtherFormatVersion) {
  check_recovers([](auto& bytes) { bytes[8] = static_cast<unsigned char>(kProgramCacheFormatVersion + 1); });
}

TEST_F(ProgramCacheCorruption, ReservedHeaderFieldNotZero) {
  check_recovers([](auto& bytes) { bytes[13] = 1; });
}

TEST_F(ProgramCacheCorruption, TrailingGarbage) {
  check_recovers([](auto& bytes) { bytes.push_back(0); });
}

TEST_F(ProgramCacheCorruption, ForeignEntryUnderThisName) {
  // A whole, self-consistent entry, but for another program (e.g. copied from another device).
  check_recovers([this](auto& bytes) {
    auto other = fresh_cache(dir_.string() + "-other");
    auto program = other->build(testing::kAddOneSource, "-DFOREIGN=1");
    ASSERT_TRUE(program.ok());
    device_.library->api().clReleaseProgram(program.value());
    bytes = read_bytes(other->entry_path(other->key(testing::kAddOneSource, "-DFOREIGN=1")));
    ASSERT_FALSE(bytes.empty());
    fs::remove_all(dir_.string() + "-other");
  });
}

TEST_F(ProgramCacheCorruption, BinaryTheDriverRejects) {
  // Header and payload hash are right; the payload is not a binary this driver can load.
  check_recovers([](auto& bytes) {
    programs::Digest key;
    std::copy(bytes.begin() + 16, bytes.begin() + 48, key.begin());
    std::vector<unsigned char> garbage(4096);
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<unsigned char>(i * 131 + 7);
    bytes = programs::encode_entry(key, garbage);
  });
}

TEST_F(ProgramCacheCorruption, DirectoryInPlaceOfTheEntry) {
  auto writer = fresh_cache();
  const std::string path = writer->entry_path(writer->key(testing::kAddOneSource, ""));
  fs::create_directories(fs::path(path) / "child");  // cannot be read, cannot be replaced
  build_and_check(*writer);  // still builds from source
  EXPECT_EQ(writer->counters().misses, 1u);
  EXPECT_EQ(writer->counters().hits, 0u);
}

// The driver refuses to *build* a loaded binary (the other half of "a binary the driver
// rejects"): injected through a patched API table.
TEST_F(ProgramCacheCorruption, BuildOfTheLoadedBinaryFails) {
  auto writer = fresh_cache();
  build_and_check(*writer);
  const std::string path = writer->entry_path(writer->key(testing::kAddOneSource, ""));
  ASSERT_TRUE(fs::exists(path));

  // A table whose clCreateProgramWithBinary works but whose clBuildProgram fails for programs
  // created that way (counted: the first build call after the binary load fails).
  static cl_api_clBuildProgram real_build;
  static cl_api_clCreateProgramWithBinary real_create;
  static int fail_next_build;
  clport_cl_api patched = device_.library->api();
  real_build = patched.clBuildProgram;
  real_create = patched.clCreateProgramWithBinary;
  fail_next_build = 0;
  patched.clCreateProgramWithBinary = [](cl_context c, cl_uint n, const cl_device_id* d,
                                         const size_t* l, const unsigned char** b, cl_int* s,
                                         cl_int* e) {
    fail_next_build = 1;
    return real_create(c, n, d, l, b, s, e);
  };
  patched.clBuildProgram = [](cl_program p, cl_uint n, const cl_device_id* d, const char* o,
                              void(CL_CALLBACK * f)(cl_program, void*), void* u) -> cl_int {
    if (fail_next_build) {
      fail_next_build = 0;
      return CL_BUILD_PROGRAM_FAILURE;
    }
    return real_build(p, n, d, o, f, u);
  };
  ProgramCacheOptions options;
  options.directory = dir_.string();
  options.memoize = false;
  ProgramCache reader(patched, context_, device_.info.device, identity(), options);
  build_and_check(reader);
  EXPECT_EQ(reader.counters().rejected, 1u);
  EXPECT_EQ(reader.counters().misses, 1u);
  EXPECT_EQ(reader.counters().saves, 1u);
  EXPECT_TRUE(fs::exists(path));
}

}  // namespace
}  // namespace clport
