// The partitioner copies a small Const to each other device of its type that
// reads it, instead of a Send/Recv pair that would carry it every step
// (PartitionOptions::duplicate_const_max_bytes); everything else still
// crosses in a pair.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/ops/all_ops.h"
#include "placement/partitioner.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

int Count(const GraphDef& def, const std::string& op) {
  int n = 0;
  for (const NodeDef& node : def.nodes) n += node.op == op;
  return n;
}

const NodeDef* Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

// k (a small Const on device 0) read by x on device 1 and y on device 2, and
// by z on device 0.
struct ThreeReaders {
  Scope s = Scope::NewRootScope();
  Output k, x, y, z;
  ThreeReaders(Tensor value = Tensor::FromVector<float>({1, -2, 3})) {
    k = Const(s.WithOpName("k"), value);
    x = Neg(s.WithOpName("x"), k);
    y = Square(s.WithOpName("y"), k);
    z = Exp(s.WithOpName("z"), k);
    test::Fetch(s, x, "x");
    test::Fetch(s, y, "y");
    test::Fetch(s, z, "z");
    std::map<std::string, int> where = {{"x", 1}, {"x_fetch", 1}, {"y", 2}, {"y_fetch", 2}};
    test::Place(s.graph(), [&](const Node* n) {
      auto it = where.find(n->name());
      return it == where.end() ? 0 : it->second;
    });
  }
};

std::vector<std::unique_ptr<Device>> ThreeDevices() {
  std::vector<std::unique_ptr<Device>> out;
  for (int i = 0; i < 3; ++i) out.push_back(NewCpuDevice(Dev(i), 1));
  return out;
}

StatusOr<std::vector<Tensor>> RunSplit(const PartitionResult& parts) {
  auto devices = ThreeDevices();
  std::map<std::string, Device*> by_name;
  for (const auto& d : devices) by_name[d->name()] = d.get();
  TACT_ASSIGN_OR_RETURN(auto run, test::PartitionedRun::Create(parts, by_name));
  return run->Step({"x", "y", "z"});
}

TEST(ConstDuplicationTest, ASmallConstIsCopiedToEachReadingDeviceNotSent) {
  ThreeReaders f;
  ASSERT_TRUE(f.s.ok()) << f.s.status().ToString();
  auto parts = Partition(*f.s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 0);
  EXPECT_EQ(parts->duplicated_consts, 2);
  for (int d : {1, 2}) {
    const GraphDef& part = parts->partitions.at(Dev(d));
    const std::string copy = "k/_dup_" + std::to_string(d);
    const NodeDef* c = Find(part, copy);
    ASSERT_NE(c, nullptr) << copy;
    EXPECT_EQ(c->op, "Const");
    EXPECT_EQ(c->device, Dev(d));
    EXPECT_TRUE(c->inputs.empty());
    EXPECT_TRUE(c->attrs.at("value").tensor().BitwiseEqual(Tensor::FromVector<float>({1, -2, 3})));
    EXPECT_EQ(Count(part, "_Recv"), 0) << d;
  }
  EXPECT_EQ(Find(parts->partitions.at(Dev(1)), "x")->inputs, std::vector<std::string>{"k/_dup_1"});
  EXPECT_EQ(Find(parts->partitions.at(Dev(2)), "y")->inputs, std::vector<std::string>{"k/_dup_2"});
  EXPECT_EQ(Find(parts->partitions.at(Dev(0)), "z")->inputs, std::vector<std::string>{"k"});

  auto out = RunSplit(*parts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<float>()[1], 2.0f);  // -(-2)
  EXPECT_EQ((*out)[1].data<float>()[2], 9.0f);  // 3^2
  EXPECT_EQ((*out)[2].data<float>()[0], std::exp(1.0f));
}

TEST(ConstDuplicationTest, OverTheLimitOrTurnedOffTheConstIsSent) {
  // 300 floats: 1,200 bytes, over the default 1,024.
  ThreeReaders big(Tensor::FromVector<float>(std::vector<float>(300, 0.5f)));
  ASSERT_TRUE(big.s.ok());
  auto parts = Partition(*big.s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 2);
  EXPECT_EQ(parts->duplicated_consts, 0);

  ThreeReaders small;
  ASSERT_TRUE(small.s.ok());
  PartitionOptions off;
  off.duplicate_const_max_bytes = 0;
  parts = Partition(*small.s.graph(), off);
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 2);
  EXPECT_EQ(parts->duplicated_consts, 0);
  auto out = RunSplit(*parts);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[1].data<float>()[1], 4.0f);
}

TEST(ConstDuplicationTest, AConstWithAControlInputIsSent) {
  // Its control input orders it (a loop's Const hangs on the frame's pivot
  // that way); a copy would run unordered.
  Scope s = Scope::NewRootScope();
  auto first = Neg(s.WithOpName("first"), 1.0f);
  auto k = Const(s.WithOpName("k").WithControlDependencies({first}), Tensor::Scalar<float>(4));
  auto x = Neg(s.WithOpName("x"), k);
  test::Fetch(s, x, "x");
  ASSERT_TRUE(s.ok());
  test::Place(s.graph(), [](const Node* n) { return n->name() == "x" || n->name() == "x_fetch" ? 1 : 0; });
  auto parts = Partition(*s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 1);
  EXPECT_EQ(parts->duplicated_consts, 0);
}

TEST(ConstDuplicationTest, AConstReadOnAnotherDeviceTypeIsSent) {
  // The GPU might have no Const kernel for its dtype, or keep it elsewhere.
  ThreeReaders f;
  ASSERT_TRUE(f.s.ok());
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  for (Node* n : f.s.graph()->nodes()) {
    if (n->name() == "x" || n->name() == "x_fetch") n->set_assigned_device(gpu);
  }
  auto parts = Partition(*f.s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(parts->send_recv_pairs, 1);  // k -> GPU:0
  EXPECT_EQ(parts->duplicated_consts, 1);  // k -> CPU:2
  EXPECT_EQ(Count(parts->partitions.at(gpu), "_Recv"), 1);
}

}  // namespace
}  // namespace tact
