// Common subexpression elimination (paper 5.1): what merges, what never
// does, and how consumers are rewired. That the merged graph computes the
// same values is checked by running it, in tests/placement (the executor
// lives above this layer).
#include "graph/cse.h"

#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// A layer as a helper builds it: relu(x W + 0.5). Two calls with the same
// x and W build the same computation twice, under different names.
Output Layer(const Scope& s, Output x, Output W) {
  return Relu(s, Add(s, MatMul(s, x, W), 0.5f));
}

// The node feeding input `port` of `n`.
const Node* InputNode(const Node* n, int port) { return n->input_edge(port)->src; }

TEST(CseTest, TwoIdenticalSubgraphsFromTwoHelperCallsCollapseIntoOne) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto W = Variable(s.WithOpName("W"), {3, 3});
  auto a = Layer(s, x, W);
  auto b = Layer(s, x, W);
  Add(s.WithOpName("sum"), a, b);
  ASSERT_TRUE(s.ok());
  const int before = s.graph()->num_nodes();  // x, W, 2 * (MatMul, Const, Add, Relu), sum
  ASSERT_EQ(before, 11);
  const std::string b_name = b.node->name();  // b.node is freed when merged
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 4);
  EXPECT_EQ(s.graph()->num_nodes(), 7);
  EXPECT_TRUE(s.graph()->Validate().ok());
  // The first call's nodes stay (lowest ids); sum now adds a to itself.
  EXPECT_EQ(s.graph()->FindNode(b_name), nullptr);
  const Node* sum_node = s.graph()->FindNode("sum");
  EXPECT_EQ(InputNode(sum_node, 0), a.node);
  EXPECT_EQ(InputNode(sum_node, 1), a.node);
  // A second pass finds nothing more.
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 0);
}

TEST(CseTest, LongChainsCollapseInOnePassAndConsumersFollow) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output c1 = x, c2 = x;
  for (int i = 0; i < 20; ++i) {
    c1 = Neg(s, c1);
    c2 = Neg(s, c2);
  }
  auto y1 = Identity(s.WithOpName("y1"), c1);
  auto y2 = Identity(s.WithOpName("y2"), c2);
  Add(s.WithOpName("out"), y1, y2);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 21);  // 20 Negs and y2
  const Node* o = s.graph()->FindNode("out");
  EXPECT_EQ(InputNode(o, 0), y1.node);
  EXPECT_EQ(InputNode(o, 1), y1.node);
  EXPECT_EQ(s.graph()->num_nodes(), 1 + 20 + 1 + 1);
}

TEST(CseTest, StatefulRandomRefAndPlaceholderOpsAreNeverMerged) {
  Scope s = Scope::NewRootScope();
  auto r1 = RandomUniform(s, {2, 2}, DT_FLOAT, 7, 7);
  auto r2 = RandomUniform(s, {2, 2}, DT_FLOAT, 7, 7);
  auto n1 = Neg(s, r1);  // consumers of different random draws differ too
  auto n2 = Neg(s, r2);
  auto v1 = Variable(s, {2});
  auto v2 = Variable(s, {2});
  auto add1 = AssignAdd(s, v1, {1.0f, 1.0f});
  auto add2 = AssignAdd(s, v1, {1.0f, 1.0f});  // the same update twice adds twice
  auto p1 = Placeholder(s, DT_FLOAT);
  auto p2 = Placeholder(s, DT_FLOAT);
  NoOp(s.WithControlDependencies({add1, add2}));
  NoOp(s.WithControlDependencies({add1, add2}));
  ASSERT_TRUE(s.ok());
  std::vector<std::string> kept;
  for (const Output& o : {r1, r2, n1, n2, v1, v2, add1, add2, p1, p2}) {
    kept.push_back(o.node->name());
  }
  const int before = s.graph()->num_nodes();
  // Only the shape Consts of the two random ops and the two {1, 1} Consts
  // are pure and equal: one of each pair goes.
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 2);
  EXPECT_EQ(s.graph()->num_nodes(), before - 2);
  for (const std::string& name : kept) EXPECT_NE(s.graph()->FindNode(name), nullptr) << name;
}

TEST(CseTest, DifferentAttrsDevicesOrControlInputsAreNotMerged) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto y = Placeholder(s.WithOpName("y"), DT_FLOAT);
  MatMul(s, x, y);
  MatMul(s, x, y, /*transpose_a=*/true);
  Const(s, Tensor::FromVector<float>({1, 2}));
  Const(s, Tensor::FromVector<float>({1, 3}));
  Const(s, Tensor::FromVector<double>({1, 2}));
  Neg(s.WithDevice("/device:cpu:0"), x);
  Neg(s.WithDevice("/device:cpu:1"), x);
  Identity(s, x);
  Identity(s.WithControlDependencies({y}), x);
  Sub(s, x, y);
  Sub(s, y, x);
  ASSERT_TRUE(s.ok());
  const int before = s.graph()->num_nodes();
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 0);
  EXPECT_EQ(s.graph()->num_nodes(), before);
}

TEST(CseTest, ControlInputsCompareAsASet) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto a = Placeholder(s.WithOpName("a"), DT_FLOAT);
  auto b = Placeholder(s.WithOpName("b"), DT_FLOAT);
  auto i1 = Identity(s.WithControlDependencies({a, b}), x);
  auto i2 = Identity(s.WithControlDependencies({b, a}), x);
  Neg(s.WithOpName("user"), i2);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 1);
  EXPECT_EQ(InputNode(s.graph()->FindNode("user"), 0), i1.node);
}

TEST(CseTest, ControlConsumersOfAMergedNodeWaitForTheKeptOne) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto n1 = Neg(s, x);
  auto n2 = Neg(s, x);
  Identity(s.WithOpName("waits").WithControlDependencies({n2}), x);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 1);
  const Node* w = s.graph()->FindNode("waits");
  int control = 0;
  for (const Edge* e : w->in_edges()) {
    if (e->IsControlEdge()) {
      EXPECT_EQ(e->src, n1.node);
      ++control;
    }
  }
  EXPECT_EQ(control, 1);
}

TEST(CseTest, ANodeNamedByAColocationHintStays) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT);
  auto n1 = Neg(s.WithOpName("n1"), x);
  auto n2 = Neg(s.WithOpName("n2"), x);
  Identity(s.WithOpName("near_n2").ColocateWith(n2), x);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(EliminateCommonSubexpressions(s.graph()), 0);
  EXPECT_NE(s.graph()->FindNode("n2"), nullptr);
  (void)n1;
}

}  // namespace
}  // namespace tact
