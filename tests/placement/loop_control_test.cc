// Distributed loop control (placement/loop_control.h): what Partition()
// adds for a loop whose nodes span devices, and that it adds nothing for a
// loop on one device or a graph without control flow.
#include "placement/loop_control.h"

#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"
#include "tests/placement/partition_test_util.h"

namespace tact {
namespace {

using test::Dev;

int CountPrefix(const GraphDef& def, const std::string& prefix, const std::string& op = "") {
  int n = 0;
  for (const NodeDef& nd : def.nodes) {
    if (nd.name.rfind(prefix, 0) == 0 && (op.empty() || nd.op == op)) ++n;
  }
  return n;
}

// A loop of `steps` x = x * 2: the multiply on device `body_device`, the
// rest on device 0.
Scope LoopGraph(int body_device) {
  Scope s = Scope::NewRootScope();
  auto r = WhileLoop(
      s, {Const(s, Tensor::Scalar<int32_t>(0)), Const(s, Tensor::Scalar<float>(1))},
      [](const Scope& c, const std::vector<Output>& v) { return Less(c, v[0], 5); },
      [](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{Add(b, v[0], 1), Mul(b.WithOpName("twice"), v[1], 2.0f)};
      });
  test::Fetch(s, r[1], "x");
  test::Place(s.graph(), [&](const Node* n) {
    return n->name() == "while/body/twice" || n->name() == "while/body/twice/y" ? body_device : 0;
  });
  return s;
}

TEST(LoopControlTest, EachDeviceOfALoopSpanningDevicesGetsAControlLoop) {
  Scope s = LoopGraph(1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto parts = Partition(*s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->partitions.size(), 2u);
  for (int d = 0; d < 2; ++d) {
    const GraphDef& def = parts->partitions.at(Dev(d));
    EXPECT_EQ(CountPrefix(def, "_loop_control/while/", "Merge"), 1) << d;
    EXPECT_EQ(CountPrefix(def, "_loop_control/while/", "NextIteration"), 1) << d;
    // Every partitioner-made _Recv of the loop waits on the control loop's
    // Merge and may bring a dead tensor.
    for (const NodeDef& nd : def.nodes) {
      if (nd.op != "_Recv" || nd.name.rfind("_loop_control", 0) == 0) continue;
      bool may_be_dead = false;
      ASSERT_TRUE(GetAttr(nd.attrs, "may_be_dead", &may_be_dead).ok());
      EXPECT_TRUE(may_be_dead) << nd.name;
      bool gated = false;
      for (const std::string& in : nd.inputs) gated = gated || in.rfind("^_loop_control/while/", 0) == 0;
      EXPECT_TRUE(gated) << nd.name;
    }
  }
  // The LoopCond's device sends its value to both control loops.
  EXPECT_EQ(CountPrefix(parts->partitions.at(Dev(0)), "_loop_control/while/", "_Send"), 2);
}

TEST(LoopControlTest, ALoopOnOneDeviceAndAStraightGraphGetNothing) {
  Scope s = LoopGraph(0);
  ASSERT_TRUE(s.ok());
  auto parts = Partition(*s.graph(), {});
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  EXPECT_EQ(CountPrefix(parts->partitions.at(Dev(0)), "_loop_control"), 0);

  Scope plain = Scope::NewRootScope();
  test::Fetch(plain, Neg(plain.WithOpName("n"), Exp(plain.WithOpName("e"), 1.0f)), "n");
  test::Place(plain.graph(), [](const Node* n) { return n->name() == "e" ? 1 : 0; });
  auto plain_parts = Partition(*plain.graph(), {});
  ASSERT_TRUE(plain_parts.ok());
  for (const auto& [device, def] : plain_parts->partitions) {
    for (const NodeDef& nd : def.nodes) EXPECT_EQ(nd.attrs.count("may_be_dead"), 0u) << nd.name;
  }
}

}  // namespace
}  // namespace tact
