#include "graph/shape_refiner.h"

#include <gtest/gtest.h>

#include "graph/ops/all_ops.h"

namespace tact {
namespace {

TEST(ShapeRefinerTest, BuilderInfersShapesAsNodesAreAdded) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, {-1, 784});
  auto W = Variable(s, {784, 100});
  auto b = Variable(s, {100});
  auto relu = Relu(s, Add(s, MatMul(s, x, W), b));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(relu.node->output_shape(0), PartialTensorShape({-1, 100}));
  // A Const input's value reaches shape functions that need it.
  auto r = Reshape(s, relu, {10, -1});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(r.node->output_shape(0).dims(), 2);
}

TEST(ShapeRefinerTest, IncompatibleShapesFailAtConstructionNamingTheNode) {
  Scope s = Scope::NewRootScope();
  auto a = Placeholder(s, DT_FLOAT, {2, 3});
  auto b = Placeholder(s, DT_FLOAT, {4, 5});
  auto m = MatMul(s.WithOpName("product"), a, b);
  EXPECT_FALSE(m.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("node 'product' (op 'MatMul')"), std::string::npos)
      << s.status().message();
  // The failed node is not left in the graph.
  EXPECT_EQ(s.graph()->FindNode("product"), nullptr);
}

TEST(ShapeRefinerTest, InferShapesOverAGraphFromAGraphDef) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, {8, 4});
  Sum(s, Square(s, x), {1});
  auto def = s.ToGraphDef();
  ASSERT_TRUE(def.ok());
  auto g = Graph::FromGraphDef(*def);
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(InferShapes(g->get()).ok());
  Node* sum = (*g)->FindNode("Sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->output_shape(0), PartialTensorShape({8}));
}

}  // namespace
}  // namespace tact
