// FreezeFromCheckpoint (checkpoint/freeze_checkpoint.h) on real HDF5
// checkpoints: which one it reads, and what it refuses.
#include "checkpoint/freeze_checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "graph/ops/all_ops.h"
#include "tests/checkpoint/checkpoint_test_util.h"

namespace tact::testing {
namespace {

class FreezeCheckpointTest : public CheckpointDirTest {
 protected:
  // y = x w + b; `unused` is a Variable no output needs.
  GraphDef Graph() {
    Scope s = Scope::NewRootScope();
    Output w = Variable(s.WithOpName("w"), PartialTensorShape({2, 2}));
    Output b = Variable(s.WithOpName("b"), PartialTensorShape({2}));
    Variable(s.WithOpName("unused"), PartialTensorShape({3}));
    Add(s.WithOpName("y"), MatMul(s, Placeholder(s.WithOpName("x"), DT_FLOAT), w), b);
    auto def = s.ToGraphDef();
    EXPECT_TRUE(def.ok()) << def.status().ToString();
    return def.ok() ? *def : GraphDef();
  }
  // Checkpoint `step` of w = k * (1 2 3 4), b = k * (5 6), w's Adam slot, a global step.
  void Save(int64_t step, float k, bool with_b = true) {
    Variables vars = {{"w", Tensor::FromVector<float>({k, 2 * k, 3 * k, 4 * k}, {2, 2})},
                      {"w/Adam", Tensor::FromVector<float>({0, 0, 0, 0}, {2, 2})},
                      {"global_step", Tensor::Scalar<int64_t>(step)}};
    if (with_b) vars.push_back({"b", Tensor::FromVector<float>({5 * k, 6 * k}, {2})});
    TACT_ASSERT_OK(WriteCheckpointShard(dir(), step, 0, 1, vars));
    TACT_ASSERT_OK(CommitCheckpoint(dir(), step, 1));
  }
  static float ConstValue(const GraphDef& g, const std::string& name, int i) {
    for (const NodeDef& n : g.nodes) {
      if (n.name == name) return n.op == "Const" ? n.attrs.at("value").tensor().data<float>()[i] : -1;
    }
    return -2;
  }
};

TEST_F(FreezeCheckpointTest, TheNewestGoodCheckpointOrTheOneNamedAndOnlyTheVariablesNeeded) {
  Save(5, 1);
  Save(9, 10);
  auto f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->step, 9);
  EXPECT_EQ(f->variables, 2);  // w and b: not unused, not the slot or the step
  EXPECT_EQ(f->parameters, 6);
  EXPECT_EQ(ConstValue(f->graph, "w", 3), 40);
  EXPECT_EQ(ConstValue(f->graph, "b", 1), 60);
  EXPECT_EQ(ConstValue(f->graph, "unused", 0), -2);  // not kept

  f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir(), 5);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(ConstValue(f->graph, "w", 3), 4);

  // The newest damaged: the one before, as a restore does.
  std::filesystem::resize_file(Path("ckpt-9.shard-0-of-1.h5"), 100);
  f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->step, 5);
  // Named, it is an error.
  f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir(), 9);
  EXPECT_EQ(f.status().code(), Code::kDataLoss) << f.status().ToString();
}

TEST_F(FreezeCheckpointTest, NoCheckpointNoneGoodAndOneWithoutAVariableAreNamed) {
  auto f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir());
  EXPECT_EQ(f.status().code(), Code::kNotFound);
  EXPECT_NE(f.status().message().find(dir()), std::string::npos) << f.status().ToString();

  Save(3, 1);
  std::filesystem::resize_file(Path("ckpt-3.shard-0-of-1.h5"), 100);
  f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir());
  EXPECT_EQ(f.status().code(), Code::kNotFound);
  EXPECT_NE(f.status().message().find("no good checkpoint"), std::string::npos) << f.status().ToString();

  // A newer intact one without b is another graph's: no falling back past it.
  Save(2, 1);
  Save(7, 1, /*with_b=*/false);
  f = FreezeFromCheckpoint(Graph(), {"y:0"}, dir());
  EXPECT_EQ(f.status().code(), Code::kInvalidArgument);
  EXPECT_NE(f.status().message().find("checkpoint 7"), std::string::npos) << f.status().ToString();
  EXPECT_NE(f.status().message().find("'b'"), std::string::npos) << f.status().ToString();
}

}  // namespace
}  // namespace tact::testing
