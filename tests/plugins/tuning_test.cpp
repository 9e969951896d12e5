// The shared kernels' tuning (plugins/common): which shapes a CPU and a GPU get by default, what
// validate() accepts, that policy values stand over the device-type defaults, what the settings
// declarations promise, and that private_vector_arrays changes the kernels' build.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "clport_common/op_runner.hpp"
#include "clport_common/tuning.hpp"

namespace clport::plugin_common {
namespace {

clport_device_desc device(cl_device_type type, size_t max_wg) {
  clport_device_desc d{};
  d.device_type = type;
  d.max_work_group_size = max_wg;
  return d;
}

const clport_setting_decl* declared(const char* name) {
  for (const clport_setting_decl& d : tuning_settings())
    if (std::strcmp(d.name, name) == 0) return &d;
  return nullptr;
}

// A host table carrying typed settings as the core hands them over (of their declared type; BOOL
// for private_vector_arrays; an ENUM's value as its index and name); nothing else of it is used by
// Tuning or OpRunner's constructor.
class Settings {
 public:
  explicit Settings(const std::vector<std::pair<const char*, int64_t>>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      clport_setting_value v{};
      const clport_setting_decl* decl = declared(values[i].first);
      v.name = values[i].first;
      v.type = decl != nullptr ? decl->type : CLPORT_SETTING_BOOL;
      v.int_value = values[i].second;
      v.text_value = v.type == CLPORT_SETTING_ENUM ? decl->value_names[v.int_value] : "";
      values_.push_back(v);
    }
    host_.struct_size = sizeof(host_);
    host_.settings = values_.data();
    host_.n_settings = values_.size();
  }
  const clport_host& host() const { return host_; }
  sdk::Host sdk_host() const { return sdk::Host(host_); }

 private:
  std::vector<clport_setting_value> values_;
  clport_host host_{};
};

Tuning with(const std::vector<std::pair<const char*, int64_t>>& values, uint32_t max_wg = 1024) {
  Tuning t = default_tuning(max_wg);
  t.apply_settings(Settings(values).sdk_host());
  return t;
}

TEST(Tuning, CpuKeepsTheReductionFreeGemvAndRowMajorGemmTiles) {
  Tuning t = default_tuning(4096);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_CPU, 4096));
  EXPECT_EQ(t.gemv_split, 1u);
  EXPECT_EQ(t.gemv_wg, 1u);
  EXPECT_EQ(t.gemv_rows, 8u);
  EXPECT_EQ(t.att_wg, 64u);
  EXPECT_EQ(t.int_dot, 1u);  // 8-bit activations for the quantized mat-muls
  EXPECT_EQ(t.rope_attention, 1u);
  EXPECT_EQ(t.gemm_kmajor, 0u);
  EXPECT_EQ(t.gemm_rn, 8u);
  EXPECT_EQ(t.gemm_rm, 16u);
  EXPECT_GE(t.gemv_max_m_q4q8, 4096);  // Q4_0/Q4_1/Q8_0 take the GEMV kernel at every M
  EXPECT_EQ(t.validate(4096), "");
}

TEST(Tuning, GpuGetsQuarterSplitWideGemvAndKMajorTiles) {
  Tuning t = default_tuning(1024);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_split, 4u);
  EXPECT_EQ(t.gemv_wg, 128u);
  EXPECT_EQ(t.gemv_rows, 4u);
  EXPECT_EQ(t.int_dot, 0u);  // float activations: the integer GEMV is CPU-shaped
  EXPECT_EQ(t.gemm_kmajor, 1u);
  EXPECT_EQ(t.gemm_tn, 64u);
  EXPECT_EQ(t.gemm_tm, 32u);
  EXPECT_EQ(t.gemv_max_m_q4q8, 0);  // same limit as every other dtype
  EXPECT_EQ(t.att_wg, 128u);  // a GPU at the stock attention shape
  EXPECT_EQ(t.rope_attention, 1u);
  EXPECT_EQ(t.validate(1024), "");
}

TEST(Tuning, SmallWorkGroupGpuNeverRunsOneItemGemv) {
  // One work-item per row group is a CPU shape; a GPU with a 64-item limit gets 64.
  Tuning t = default_tuning(64);
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 64));
  EXPECT_EQ(t.gemv_wg, 64u);
  EXPECT_EQ(t.gemv_rows, 4u);
  EXPECT_EQ(t.validate(64), "");
}

TEST(Tuning, PolicyValuesStandOverDeviceDefaults) {
  Tuning t = with({{"gemv_wg", 64}, {"gemv_rows", 8}, {"gemm_tn", 32}, {"gemm_tm", 32}, {"gemm_rn", 4},
                   {"gemm_rm", 4}, {"gemm_kmajor", 0}, {"att_wg", 32}});
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_wg, 64u);
  EXPECT_EQ(t.gemv_rows, 8u);
  EXPECT_EQ(t.gemm_tn, 32u);
  EXPECT_EQ(t.gemm_kmajor, 0u);
  EXPECT_EQ(t.att_wg, 32u);
}

TEST(Tuning, ValidateNamesWhatIsWrong) {
  Tuning t;
  t.gemv_wg = 1;
  t.gemv_rows = 100;
  EXPECT_NE(t.validate(1024).find("gemv_rows"), std::string::npos);
  t.gemv_rows = 8;
  t.gemm_kmajor = 3;
  EXPECT_NE(t.validate(1024).find("gemm_kmajor"), std::string::npos);
  t.gemm_kmajor = 1;
  t.gemv_wg = 2;  // neither 1 nor >= 4
  EXPECT_NE(t.validate(1024).find("gemv_rows"), std::string::npos);
  t.gemv_wg = 64;
  t.gemm_rn = 16;  // 16 x 16 accumulators per work-item
  t.gemm_rm = 16;
  EXPECT_NE(t.validate(1024).find("gemm_rn * gemm_rm"), std::string::npos);
}

TEST(Tuning, PackedGemvLayoutIsOptInOnEveryDevice) {
  // It doubles the memory of the weights it covers, so no device type turns it on by itself.
  for (cl_device_type type : {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU}) {
    Tuning t = default_tuning(1024);
    apply_device_defaults(t, device(type, 1024));
    EXPECT_EQ(t.gemv_packed, 0u);
  }
  Tuning t = with({{"gemv_packed", 1}, {"gemv_packed_wg", 32}, {"gemv_packed_rows", 16}});
  apply_device_defaults(t, device(CL_DEVICE_TYPE_GPU, 1024));
  EXPECT_EQ(t.gemv_packed, 1u);
  EXPECT_EQ(t.gemv_packed_wg, 32u);
  EXPECT_EQ(t.gemv_packed_rows, 16u);
  EXPECT_EQ(t.validate(1024), "");
}

TEST(Tuning, ValidateChecksThePackedGemvShape) {
  Tuning t;
  t.gemv_packed = 2;
  EXPECT_NE(t.validate(1024).find("gemv_packed must be"), std::string::npos);
  t.gemv_packed = 1;
  t.gemv_packed_wg = 48;  // not a power of two
  EXPECT_NE(t.validate(1024).find("gemv_packed_wg"), std::string::npos);
  t.gemv_packed_wg = 8;
  t.gemv_packed_rows = 16;  // more rows than work-items
  EXPECT_NE(t.validate(1024).find("gemv_packed_rows"), std::string::npos);
  // A small device scales the packed work-group down with the others.
  Tuning small = default_tuning(16);
  EXPECT_EQ(small.gemv_packed_wg, 16u);
  EXPECT_LE(small.gemv_packed_rows, 16u);
  EXPECT_EQ(small.validate(16), "");
}

TEST(TuningSettings, DeclareEveryTunableOnceWithTheTunersGroups) {
  std::set<std::string> names, tuned, switches;
  for (const clport_setting_decl& d : tuning_settings()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    if (d.type == CLPORT_SETTING_ENUM) {
      // The switches that can be left to the device type: index = the Tuning field's value.
      switches.insert(d.name);
      ASSERT_EQ(d.n_values, 3u) << d.name;
      EXPECT_STREQ(d.value_names[0], "off");
      EXPECT_STREQ(d.value_names[1], "on");
      EXPECT_STREQ(d.value_names[2], "auto");
      EXPECT_EQ(d.max_value, 2) << d.name;
    } else {
      EXPECT_EQ(d.type, CLPORT_SETTING_INT) << d.name;
    }
    EXPECT_LE(d.min_value, d.max_value) << d.name;
    ASSERT_NE(d.description, nullptr);
    EXPECT_NE(std::string(d.description).find("default"), std::string::npos) << d.name << ": say the default";
    if (d.tuning_group == nullptr) {
      EXPECT_EQ(d.n_candidates, 0u) << d.name;
      continue;
    }
    tuned.insert(std::string(d.tuning_group) + "/" + d.name);
    ASSERT_GT(d.n_candidates, 0u) << d.name;
    for (size_t i = 0; i < d.n_candidates; ++i) {
      EXPECT_GE(d.candidates[i], d.min_value) << d.name;
      EXPECT_LE(d.candidates[i], d.max_value) << d.name;
    }
  }
  EXPECT_EQ(tuned, (std::set<std::string>{"gemv/gemv_wg", "gemv/gemv_rows", "gemm/gemm_tn", "gemm/gemm_tm",
                                          "gemm/gemm_rn", "gemm/gemm_rm", "norm/norm_wg"}));
  EXPECT_EQ(switches,
            (std::set<std::string>{"gemm_kmajor", "f16_bits", "att_serial", "att_split", "int_dot", "q8a_x8"}));
  // Each stock value of a switch is auto (resolved by device type).
  const Tuning stock;
  for (uint32_t v : {stock.gemm_kmajor, stock.f16_bits, stock.att_serial, stock.att_split, stock.int_dot, stock.q8a_x8})
    EXPECT_EQ(v, 2u);
  // The stock values of every device type are inside the declared ranges (validate checks them).
  for (cl_device_type type : {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU}) {
    Tuning t = default_tuning(1024);
    apply_device_defaults(t, device(type, 1024));
    EXPECT_EQ(t.validate(1024), "");
  }
  EXPECT_EQ(declared("private_vector_arrays"), nullptr);  // only plugins that honour it declare it
  EXPECT_EQ(private_vector_arrays_setting().type, CLPORT_SETTING_BOOL);
}

TEST(TuningSettings, ValidateRefusesWhatTheTunerMustDrop) {
  // The combinations the core's tuner used to filter itself: rows beyond the work-group, tiles
  // that are not multiples of their micro-tiles, too many accumulators, too large a work-group.
  EXPECT_NE(with({{"gemv_wg", 8}, {"gemv_rows", 16}}).validate(1024), "");
  EXPECT_EQ(with({{"gemv_wg", 1}, {"gemv_rows", 16}}).validate(1024), "");
  EXPECT_NE(with({{"gemm_tn", 8}, {"gemm_rn", 16}}).validate(1024), "");
  EXPECT_NE(with({{"gemm_tn", 128}, {"gemm_tm", 128}, {"gemm_rn", 16}, {"gemm_rm", 16}}).validate(1024), "");
  EXPECT_NE(with({{"gemm_tn", 128}, {"gemm_tm", 128}, {"gemm_rn", 1}, {"gemm_rm", 1}}).validate(1024), "");
  EXPECT_NE(with({{"norm_wg", 1024}}, 256).validate(256), "");
  EXPECT_EQ(with({{"gemm_tn", 32}, {"gemm_tm", 32}, {"gemm_rn", 4}, {"gemm_rm", 4}}).validate(1024), "");
}

// The policy rule `private_vector_arrays: false` (configs/quirks.yaml, old Adreno) reaches the
// build options of every shared program, and steers clear of the kernel forms that keep
// private vector arrays.
TEST(TuningSettings, PrivateVectorArraysOffChangesTheKernelBuild) {
  const clport_device_desc gpu = device(CL_DEVICE_TYPE_GPU, 1024);
  const Settings on({}), off({{"private_vector_arrays", 0}});
  OpRunner plain(on.host(), gpu, with({}));
  OpRunner quirk(off.host(), gpu, with({{"private_vector_arrays", 0}}));
  const std::string define = "-DCLPORT_NO_PRIVATE_VECTOR_ARRAYS=1";
  for (ProgramId id : {ProgramId::Gemm, ProgramId::Gemv, ProgramId::Norm, ProgramId::Attention}) {
    EXPECT_EQ(plain.program_options(id).find(define), std::string::npos);
    EXPECT_NE(quirk.program_options(id).find(define), std::string::npos) << quirk.program_options(id);
  }
  // A CPU without them gets the quarter-run GEMV, the float activations and the work-group attention.
  Tuning cpu = with({{"private_vector_arrays", 0}});
  apply_device_defaults(cpu, device(CL_DEVICE_TYPE_CPU, 1024));
  EXPECT_EQ(cpu.gemv_split, 4u);
  EXPECT_EQ(cpu.int_dot, 0u);
  EXPECT_EQ(cpu.att_serial, 0u);
  EXPECT_EQ(cpu.validate(1024), "");
  // Asking for a form with private vector arrays as well is refused at create.
  for (const char* key : {"gemv_split", "int_dot", "att_serial", "gemv_packed"}) {
    Tuning t = with({{"private_vector_arrays", 0}, {key, 1}});
    apply_device_defaults(t, gpu);
    EXPECT_NE(t.validate(1024).find(key), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace clport::plugin_common
