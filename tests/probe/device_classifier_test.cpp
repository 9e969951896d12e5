// The shipped device-family table against strings real drivers report (clinfo dumps, bug
// reports, vendor documentation). Each row: what the driver says, what clport must conclude.
#include <gtest/gtest.h>

#include "probe/device_classifier.h"

namespace clport::probe {
namespace {

struct Case {
  const char* name;
  const char* vendor;
  const char* device_version;
  const char* driver_version;
  cl_device_type type;
  const char* family;
  const char* generation;
  int number;
};

constexpr cl_device_type GPU = CL_DEVICE_TYPE_GPU;
constexpr cl_device_type CPU = CL_DEVICE_TYPE_CPU;

const Case kCases[] = {
    // Qualcomm Adreno
    {"QUALCOMM Adreno(TM)", "QUALCOMM", "OpenCL 2.0 Adreno(TM) 506", "OpenCL 2.0 QUALCOMM build: commit #7b6da0c Compiler E031.35.01.00", GPU, "adreno", "a5xx", 506},
    {"QUALCOMM Adreno(TM)", "QUALCOMM", "OpenCL 2.0 Adreno(TM) 540", "OpenCL 2.0 QUALCOMM build: commit #1b0a2e6 Compiler E031.34.11.10", GPU, "adreno", "a5xx", 540},
    {"QUALCOMM Adreno(TM)", "QUALCOMM", "OpenCL 2.0 Adreno(TM) 618", "OpenCL 2.0 QUALCOMM build: commit #4eab7f3 Compiler E031.37.12.01", GPU, "adreno", "a6xx", 618},
    {"QUALCOMM Adreno(TM)", "QUALCOMM", "OpenCL 2.0 Adreno(TM) 640", "OpenCL 2.0 QUALCOMM build: commit #b8ee9ee Compiler E031.37.12.01", GPU, "adreno", "a6xx", 640},
    {"QUALCOMM Adreno(TM) 660", "QUALCOMM", "OpenCL 2.0 Adreno(TM) 660", "OpenCL 2.0 QUALCOMM build: commit #0e4d3d0 Compiler E031.40.00.05", GPU, "adreno", "a6xx", 660},
    {"QUALCOMM Adreno(TM) 730", "QUALCOMM", "OpenCL 3.0 Adreno(TM) 730", "OpenCL 3.0 QUALCOMM build: commit #b2a4f1e Compiler E031.41.03.44", GPU, "adreno", "a7xx", 730},
    // The device named just "QUALCOMM ": the number is only in the version string.
    {"QUALCOMM ", "QUALCOMM", "OpenCL 3.0 Adreno(TM) 740", "OpenCL 3.0 QUALCOMM build: commit #5c9d8ba Compiler E031.42.23.01", GPU, "adreno", "a7xx", 740},
    {"QUALCOMM Adreno(TM) 750", "QUALCOMM", "OpenCL 3.0 Adreno(TM) 750", "OpenCL 3.0 QUALCOMM build: commit #e4e5d51 Compiler E031.45.02.16", GPU, "adreno", "a7xx", 750},
    {"QUALCOMM Adreno(TM) 830", "QUALCOMM", "OpenCL 3.0 Adreno(TM) 830", "OpenCL 3.0 QUALCOMM build: commit #3c6f1a0 Compiler E031.47.18.05", GPU, "adreno", "a8xx", 830},
    {"Qualcomm(R) Adreno(TM) X1-85 GPU", "QUALCOMM", "OpenCL 3.0 Adreno(TM) X1-85 GPU", "31.0.112.0", GPU, "adreno", "x1", 85},
    // Arm Mali / Immortalis
    {"Mali-T880", "ARM", "OpenCL 1.2 v1.r12p0-04rel0.2ab4bd4dcb4ae0d3d3ce5b1c4c6e8d22", "1.2", GPU, "mali", "midgard", 880},
    {"Mali-T760", "ARM", "OpenCL 1.2 v1.r7p0-02rel0.c05f4b3de8f2e0e1f2f0bc6d7e1c7b1a", "1.2", GPU, "mali", "midgard", 760},
    {"Mali-G71", "ARM", "OpenCL 2.0 v1.r9p0-01rel0.37c12a13c46b4c2d9d736e0d5ace2e5e", "2.0", GPU, "mali", "bifrost", 71},
    {"Mali-G52", "ARM", "OpenCL 2.0 v1.r19p0-01rel0.a7d1e2c84f8c1f1ab9e0d6c6fb4f3a7f", "2.0", GPU, "mali", "bifrost", 52},
    {"Mali-G76", "ARM", "OpenCL 2.0 v1.r20p0-01rel0.8f5ba2a5f9e1f9d9a1f0b4d8cbbbe1ca", "2.0", GPU, "mali", "bifrost", 76},
    {"Mali-G57", "ARM", "OpenCL 3.0 v1.r26p0-01eac0.a1f22b0fbb0bb7b40d3ad1b4ab9d2fdd", "3.0", GPU, "mali", "valhall", 57},
    {"Mali-G78 r0p0", "ARM", "OpenCL 3.0 v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd", "v1.r32p1-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd", GPU, "mali", "valhall", 78},
    {"Mali-G610 r0p0", "ARM", "OpenCL 3.0 v1.g6p0-01eac0.2819f9d4dbe0b5a2f89c835d8484f9cd", "3.0", GPU, "mali", "valhall", 610},
    {"Mali-G715", "ARM", "OpenCL 3.0 v1.r38p1-01eac0.c1a71ccca2acf211eb87c5db5322f569", "3.0", GPU, "mali", "valhall", 715},
    {"Mali-G720-Immortalis MC12 r0p0", "ARM", "OpenCL 3.0 v1.r44p1-01eac0.0b4ac9a4ce30c6aa1fbd4f2d06e4f0fb", "3.0", GPU, "mali", "5th-gen", 720},
    {"Immortalis-G925", "ARM", "OpenCL 3.0 v1.r49p0-00eac0.9b9a0f1c4b4b2fd4b1bfbc5c24d7c51e", "3.0", GPU, "mali", "5th-gen", 925},
    // Intel
    {"Intel(R) HD Graphics 530", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "22.43.24595", GPU, "intel", "gen9", 530},
    {"Intel(R) UHD Graphics 620", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "23.17.26241.33", GPU, "intel", "gen9", 620},
    {"Intel(R) Iris(R) Plus Graphics [0x8a52]", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "22.43.24595", GPU, "intel", "gen11", 0},
    {"Intel(R) UHD Graphics 770", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "23.43.27642.40", GPU, "intel", "xe", 770},
    {"Intel(R) Iris(R) Xe Graphics", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "23.30.26918.50", GPU, "intel", "xe", 0},
    {"Intel(R) Arc(TM) A770 Graphics", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "24.13.29138.7", GPU, "intel", "xe-hpg", 770},
    {"Intel(R) Arc(TM) B580 Graphics", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "24.52.32224.5", GPU, "intel", "xe2", 580},
    {"Intel(R) Arc(TM) 140V GPU (16GB)", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "24.39.31294.12", GPU, "intel", "xe2", 140},
    {"Intel(R) Arc(TM) Graphics", "Intel(R) Corporation", "OpenCL 3.0 NEO ", "24.22.29735.27", GPU, "intel", "xe-lpg", 0},
    // Others
    {"NVIDIA GeForce RTX 4090", "NVIDIA Corporation", "OpenCL 3.0 CUDA", "550.54.14", GPU, "nvidia", "ada", 4090},
    {"NVIDIA H100 80GB HBM3", "NVIDIA Corporation", "OpenCL 3.0 CUDA", "550.90.07", GPU, "nvidia", "", 0},
    {"gfx1030", "Advanced Micro Devices, Inc.", "OpenCL 2.0 ", "3590.0 (HSA1.1,LC)", GPU, "amd", "rdna2", 1030},
    {"gfx1100", "Advanced Micro Devices, Inc.", "OpenCL 2.0 ", "3614.0 (HSA1.1,LC)", GPU, "amd", "rdna3", 1100},
    {"AMD Radeon RX 6800 (radeonsi, navi21, LLVM 15.0.7, DRM 3.49, 6.1.0-18-amd64)", "AMD", "OpenCL 3.0 ", "23.1.2 - kisak-mesa PPA", GPU, "amd", "", 0},
    {"Apple M2 Max", "Apple", "OpenCL 1.2 ", "1.2 1.0", GPU, "apple", "m2", 2},
    {"PowerVR Rogue GE8320", "Imagination Technologies", "OpenCL 1.2 ", "1.9@5843414", GPU, "powervr", "rogue", 0},
    // CPUs: the vendor name of the CPU must not make it a GPU family.
    {"cpu-haswell-Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz", "GenuineIntel", "OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-haswell", "6.0+debian", CPU, "cpu", "pocl", 0},
    {"Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "Intel(R) Corporation", "OpenCL 3.0 (Build 0)", "2023.16.7.0.21_160000", CPU, "cpu", "", 0},
    // Unknown GPUs fall back to the default.
    {"Vivante GC7000UL", "Vivante Corporation", "OpenCL 1.2 ", "6.4.3.p1", GPU, "unknown", "", 0},
    // One substring alone must not decide: "Adreno" in the name without Qualcomm as vendor.
    {"Adreno-like Emulator", "Example Inc.", "OpenCL 1.2 ", "1.0", GPU, "unknown", "", 0},
    {"Mali-G78 (translated by Foo)", "Foo Corp", "OpenCL 1.2 ", "1.0", GPU, "unknown", "", 0},
};

// Readable test names in ctest / gtest output instead of byte dumps.
void PrintTo(const Case& c, std::ostream* os) { *os << '"' << c.name << "\" -> " << c.family; }

class ShippedTable : public ::testing::TestWithParam<Case> {};

TEST_P(ShippedTable, ClassifiesRealDeviceStrings) {
  const auto& table = default_family_table();
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  const Case& c = GetParam();
  DeviceIdentity id;
  id.name = c.name;
  id.vendor = c.vendor;
  id.device_version = c.device_version;
  id.driver_version = c.driver_version;
  id.type = c.type;
  const DeviceClass k = classify(id, table.value());
  EXPECT_EQ(k.family, c.family) << c.name << " via rule " << k.rule;
  EXPECT_EQ(k.generation, c.generation) << c.name << " via rule " << k.rule;
  EXPECT_EQ(k.generation_number, c.number) << c.name << " via rule " << k.rule;
  EXPECT_FALSE(k.rule.empty());
  if (std::string(c.family) == "unknown") {
    EXPECT_EQ(k.rule, "default");
  }
}

INSTANTIATE_TEST_SUITE_P(RealWorld, ShippedTable, ::testing::ValuesIn(kCases));

TEST(ShippedTableSize, HasAtLeastThirtyRealWorldCases) {
  EXPECT_GE(sizeof(kCases) / sizeof(kCases[0]), 30u);
}

}  // namespace
}  // namespace clport::probe
