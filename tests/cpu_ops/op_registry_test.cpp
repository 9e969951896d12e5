// The op registry: every op kind of the plugin ABI registered once, each entry complete (name,
// checks, reference, fast CPU path, conformance cases), and the lookups that replaced the per-op
// switches answering from it.
#include <set>
#include <string>

#include "binding/binding.h"
#include "conformance/conformance_cases.h"
#include "ops/op_registry.h"
#include "ops_test_util.h"

namespace clport {
namespace {

TEST(OpRegistry, EveryKindRegisteredOnceInKindOrder) {
  ASSERT_EQ(ops::all().size(), static_cast<size_t>(CLPORT_OP_COUNT_ - 1));
  for (int32_t kind = CLPORT_OP_GET_ROWS; kind < CLPORT_OP_COUNT_; ++kind) {
    const ops::OpEntry* op = ops::find(kind);
    ASSERT_NE(op, nullptr) << "kind " << kind;
    EXPECT_EQ(op->kind, kind);
    EXPECT_EQ(ops::all()[static_cast<size_t>(kind - CLPORT_OP_GET_ROWS)], op);
  }
  EXPECT_EQ(ops::find(0), nullptr);
  EXPECT_EQ(ops::find(CLPORT_OP_COUNT_), nullptr);
  EXPECT_EQ(ops::find(-1), nullptr);
}

TEST(OpRegistry, EntriesAreComplete) {
  std::set<std::string> names, short_names;
  for (const ops::OpEntry* op : ops::all()) {
    SCOPED_TRACE(op->name);
    EXPECT_STRNE(op->name, "?");
    EXPECT_STRNE(op->short_name, "?");
    EXPECT_TRUE(names.insert(op->name).second);
    EXPECT_TRUE(short_names.insert(op->short_name).second);
    EXPECT_NE(op->check, nullptr);
    EXPECT_NE(op->reference, nullptr);
    EXPECT_NE(op->cases, nullptr);
    EXPECT_EQ(op->fast == ops::FastCpu::Kernel, op->fast_kernel != nullptr);
    EXPECT_TRUE(op->key_source == ops::kKeyDst || (op->key_source >= 0 && op->key_source < 4));
    EXPECT_LT(op->weight_sources, 1u << 4);
    EXPECT_STREQ(op_kind_name(op->kind), op->name);
  }
  EXPECT_STREQ(op_kind_name(99), "?");
}

// Each op's cases come from its own entry, in the full and in the small catalogue alike.
TEST(OpRegistry, EveryOpHasConformanceCases) {
  for (bool small : {false, true}) {
    std::set<int32_t> kinds;
    for (const auto& c : conformance::detail::catalogue(small)) {
      const ops::OpEntry* op = ops::find(c.kind);
      ASSERT_NE(op, nullptr) << c.name();
      EXPECT_EQ(c.op, op->short_name) << c.name();
      kinds.insert(c.kind);
    }
    EXPECT_EQ(kinds.size(), ops::all().size()) << (small ? "small" : "full");
  }
}

// The exclusion key (op_exclusion_dtype) follows the entry's key operand.
TEST(OpRegistry, ExclusionDtypeFromKeyOperand) {
  clport_tensor q{}, cache{}, dst{};
  q.dtype = CLPORT_DTYPE_F32;
  cache.dtype = CLPORT_DTYPE_Q8_0;
  dst.dtype = CLPORT_DTYPE_F16;
  clport_op op{};
  op.n_src = 3;
  op.src[0] = &q;
  op.src[1] = &cache;
  op.src[2] = &cache;
  op.dst = &dst;
  op.kind = CLPORT_OP_ATTENTION;
  EXPECT_EQ(op_exclusion_dtype(op), CLPORT_DTYPE_Q8_0);
  op.kind = CLPORT_OP_COPY;
  op.n_src = 1;
  EXPECT_EQ(op_exclusion_dtype(op), CLPORT_DTYPE_F16);
  op.kind = CLPORT_OP_SILU;
  EXPECT_EQ(op_exclusion_dtype(op), CLPORT_DTYPE_F32);
  op.kind = CLPORT_OP_ROPE_KV_STORE_ATTENTION;  // its cache is src3, which this op lacks
  EXPECT_EQ(op_exclusion_dtype(op), -1);
}

}  // namespace
}  // namespace clport
