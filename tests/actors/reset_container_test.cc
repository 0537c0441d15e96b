// ResetContainer drops a container's resources in its process: a variable
// read afterwards is a fresh, uninitialised one, other containers keep
// theirs, and the tasks' default container cannot be named.
#include <gtest/gtest.h>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

TEST(ResetContainerTest, DropsTheNamedContainerOnlyAndCountsWhatItDropped) {
  Scope s = Scope::NewRootScope();
  auto mine = Variable(s.WithOpName("mine"), {2}, DT_FLOAT, "run_a");
  auto theirs = Variable(s.WithOpName("theirs"), {2}, DT_FLOAT, "run_b");
  Assign(s.WithOpName("init_mine"), mine, Tensor::FromVector<float>({1, 2}));
  Assign(s.WithOpName("init_theirs"), theirs, Tensor::FromVector<float>({3, 4}));
  IsVariableInitialized(s.WithOpName("mine_ready"), mine);
  IsVariableInitialized(s.WithOpName("theirs_ready"), theirs);
  ResetContainer(s.WithOpName("reset_a"), "run_a");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"init_mine", "init_theirs"}).ok());

  auto dropped = (*session)->Run({}, {"reset_a"}, {});
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ((*dropped)[0].scalar<int64_t>(), 1);
  auto ready = (*session)->Run({}, {"mine_ready", "theirs_ready"}, {});
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_FALSE((*ready)[0].scalar<bool>()) << "run_a's variable outlived its container";
  EXPECT_TRUE((*ready)[1].scalar<bool>()) << "run_b's variable went with run_a's container";
  // Nothing left to drop but the fresh variable the read above made.
  auto again = (*session)->Run({}, {"reset_a"}, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)[0].scalar<int64_t>(), 1);
}

TEST(ResetContainerTest, TheDefaultContainerCannotBeNamedAndTheSessionGoesOn) {
  Scope s = Scope::NewRootScope();
  ResetContainer(s.WithOpName("reset_default"), "");
  Const(s.WithOpName("one"), Tensor::Scalar<float>(1));
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  auto bad = (*session)->Run({}, {"reset_default"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("reset_default"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("needs a container's name"), std::string::npos)
      << bad.status().ToString();
  auto good = (*session)->Run({}, {"one"}, {});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
}

}  // namespace
}  // namespace tact
