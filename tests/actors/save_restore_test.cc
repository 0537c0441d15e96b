// Save and Restore nodes in a Session (paper 3.3), writing real HDF5
// checkpoints: variables on two devices saved as two shards and committed,
// changed, then restored to the saved values; a bad restore is an error
// naming the checkpoint, and the session stays usable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "actors/session.h"
#include "checkpoint/checkpoint.h"
#include "graph/ops/all_ops.h"
#include "graph/ops/checkpoint_ops.h"

namespace tact {
namespace {

class SaveRestoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/tact_save_restore_XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(SaveRestoreTest, SavedShardsRestoreTheVariables) {
  Scope s = Scope::NewRootScope();
  Scope d0 = s.WithDevice("/device:CPU:0"), d1 = s.WithDevice("/device:CPU:1");
  auto step = Placeholder(s.WithOpName("step"), DT_INT64, PartialTensorShape({}));
  auto w = Variable(d0.WithOpName("layer/w"), PartialTensorShape({3}), DT_FLOAT);
  auto n = Variable(d1.WithOpName("count"), PartialTensorShape({2}), DT_INT64);
  Assign(d0.WithOpName("init_w"), w, Const(d0, Tensor::FromVector<float>({1.5f, -2, 3})));
  Assign(d1.WithOpName("init_n"), n, Const(d1, Tensor::FromVector<int64_t>({7, 8})));
  Assign(d0.WithOpName("change_w"), w, Const(d0, Tensor::FromVector<float>({0, 0, 0})));
  Assign(d1.WithOpName("change_n"), n, Const(d1, Tensor::FromVector<int64_t>({0, 0})));
  Node* save0 = SaveShard(d0.WithOpName("save0"), step, {"layer/w"}, {Identity(d0, w)}, dir_, 0, 2);
  Node* save1 = SaveShard(d1.WithOpName("save1"), step, {"count"}, {Identity(d1, n)}, dir_, 1, 2);
  CommitCheckpoint(s.WithOpName("commit").WithControlDependencies({Output(save0), Output(save1)}),
                   step, dir_, 2, 3);
  auto r0 = RestoreShard(d0, step, {"layer/w"}, {DT_FLOAT}, {PartialTensorShape({3})}, dir_);
  auto r1 = RestoreShard(d1, step, {"count"}, {DT_INT64}, {PartialTensorShape({2})}, dir_);
  Assign(d0.WithOpName("restore_w"), w, r0[0]);
  Assign(d1.WithOpName("restore_n"), n, r1[0]);
  ASSERT_TRUE(s.ok()) << s.status().ToString();

  SessionOptions o;
  o.device_count = {{"CPU", 2}};
  auto session = Session::Create(o);
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"init_w", "init_n"}).ok());
  const std::pair<std::string, Tensor> at7 = {"step", Tensor::Scalar<int64_t>(7)};
  auto saved = (*session)->Run({at7}, {}, {"commit"});
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  auto steps = ListCheckpoints(dir_);
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(*steps, std::vector<int64_t>{7});

  ASSERT_TRUE((*session)->Run({}, {}, {"change_w", "change_n"}).ok());
  auto restored = (*session)->Run({at7}, {"restore_w", "restore_n"}, {});
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_TRUE((*restored)[0].BitwiseEqual(Tensor::FromVector<float>({1.5f, -2, 3})));
  EXPECT_TRUE((*restored)[1].BitwiseEqual(Tensor::FromVector<int64_t>({7, 8})));

  // No checkpoint of step 9: an error naming it; the session goes on.
  auto missing = (*session)->Run({{"step", Tensor::Scalar<int64_t>(9)}}, {"restore_w"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("9"), std::string::npos) << missing.status().ToString();
  auto again = (*session)->Run({at7}, {"restore_n"}, {});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

}  // namespace
}  // namespace tact
