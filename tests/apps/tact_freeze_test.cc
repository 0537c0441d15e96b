// `tact freeze` as a user runs it: a GraphDef file of their own and a real
// HDF5 checkpoint of its Variables frozen into one file, which `tact run`
// then runs without the checkpoint.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "checkpoint/checkpoint.h"
#include "graph/graph_def_text.h"
#include "graph/npy.h"
#include "graph/ops/all_ops.h"
#include "tests/apps/run_command.h"

namespace tact {
namespace {

namespace fs = std::filesystem;

TEST(TactFreezeTest, AGraphOfItsOwnWithACheckpointRunsAsItsValuesSay) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("tact_freeze_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "ck");
  auto path = [&](const std::string& name) { return (dir / name).string(); };
  // y = x w + b, with the initialisers and an update a training graph has.
  Scope s = Scope::NewRootScope();
  Output w = Variable(s.WithOpName("w"), PartialTensorShape({2, 2}));
  Output b = Variable(s.WithOpName("b"), PartialTensorShape({2}));
  Assign(s.WithOpName("w/init"), w, Const(s, Tensor::FromVector<float>({0, 0, 0, 0}, {2, 2})));
  AssignAdd(s.WithOpName("w/update"), w, Const(s, Tensor::FromVector<float>({1, 1, 1, 1}, {2, 2})));
  Add(s.WithOpName("y"), MatMul(s, Placeholder(s.WithOpName("x"), DT_FLOAT), w), b);
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto text = GraphDefToText(*def);
  ASSERT_TRUE(text.ok());
  std::ofstream(path("train.txt")) << *text;
  ASSERT_TRUE(WriteCheckpointShard(path("ck"), 40, 0, 1,
                                   {{"w", Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})},
                                    {"b", Tensor::FromVector<float>({0.5f, -1}, {2})},
                                    {"global_step", Tensor::Scalar<int64_t>(40)}})
                  .ok());
  ASSERT_TRUE(CommitCheckpoint(path("ck"), 40, 1).ok());
  ASSERT_TRUE(WriteNpyFile(path("x.npy"), Tensor::FromVector<float>({1, 1, 2, -1}, {2, 2})).ok());

  const std::string tact = std::string(TACT_BINARY);
  test::CommandResult f =
      test::RunCommand(tact + " freeze --graph " + path("train.txt") + " --checkpoint-dir " + path("ck") +
                       " --output y:0 --out " + path("frozen.capnp") + " 2>&1");
  ASSERT_EQ(f.status, 0) << f.out;
  EXPECT_NE(f.out.find("checkpoint 40"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("2 variables (6 parameters)"), std::string::npos) << f.out;
  test::CommandResult r = test::RunCommand(tact + " run --graph " + path("frozen.capnp") + " --feed x:0=" +
                                           path("x.npy") + " --fetch y:0 --out " + path("out") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto y = ReadNpyFile(path("out/y_0.npy"));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // [1 1; 2 -1] [1 2; 3 4] + [0.5 -1]
  const float want[] = {4.5f, 5, -0.5f, -1};
  ASSERT_EQ(y->NumElements(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y->data<float>()[i], want[i]) << i;

  // An output that writes a Variable cannot be frozen; the node is named.
  test::CommandResult bad =
      test::RunCommand(tact + " freeze --graph " + path("train.txt") + " --checkpoint-dir " + path("ck") +
                       " --output y:0,w/update --out " + path("bad.capnp") + " 2>&1");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("'w/update'"), std::string::npos) << bad.out;
  EXPECT_FALSE(fs::exists(path("bad.capnp")));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tact
