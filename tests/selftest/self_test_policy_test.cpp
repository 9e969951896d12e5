// The `self_test:` and `tuning:` policy globals: values, layering, and errors with line:column.
#include <gtest/gtest.h>

#include "policy/policy.h"

namespace clport {
namespace {

TEST(SelfTestPolicy, DefaultsAreAutoAndNormal) {
  auto p = Policy::defaults();
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->globals().self_test, SelfTestMode::Auto);
  EXPECT_EQ(p->globals().tuning, TuningLevel::Normal);
}

TEST(SelfTestPolicy, LaterLayerSetsBoth) {
  auto p = Policy::defaults();
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->add_layer("self_test: off\ntuning: none\n", "user.yaml").ok());
  EXPECT_EQ(p->globals().self_test, SelfTestMode::Off);
  EXPECT_EQ(p->globals().tuning, TuningLevel::None);
  ASSERT_TRUE(p->add_layer("self_test: force\ntuning: exhaustive\n", "more.yaml").ok());
  EXPECT_EQ(p->globals().self_test, SelfTestMode::Force);
  EXPECT_EQ(p->globals().tuning, TuningLevel::Exhaustive);
}

TEST(SelfTestPolicy, BadValuesNameFileLineAndColumn) {
  auto p = Policy::defaults();
  ASSERT_TRUE(p.ok());
  Status st = p->add_layer("precision: auto\nself_test: sometimes\n", "user.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("user.yaml:2:12"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("auto, off or force"), std::string::npos) << st.message();
  st = p->add_layer("tuning: [fast]\n", "t.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("t.yaml:1:"), std::string::npos) << st.message();
  st = p->add_layer("tuning: turbo\n", "t.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("none, fast, normal or exhaustive"), std::string::npos) << st.message();
  EXPECT_EQ(p->globals().self_test, SelfTestMode::Auto);  // failed layers changed nothing
}

}  // namespace
}  // namespace clport
