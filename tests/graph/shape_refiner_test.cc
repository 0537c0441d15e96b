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

// A Shape op's value is its input's shape as far as inference knows it:
// Reshape, Fill and a convolution's backprop given Shape(x) take x's shape,
// unknown dimensions included, where they used to know only the rank; the
// gradient functions write them that way.
TEST(ShapeRefinerTest, AShapeOpCarriesItsInputsShapeToTheOpsThatTakeIt) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, {-1, 28, 64});
  auto g = Placeholder(s, DT_FLOAT);  // unknown
  auto r = Reshape(s, g, Shape(s, x));
  auto f = Fill(s, Shape(s, x), 1.0f);
  auto images = Placeholder(s, DT_FLOAT, {-1, 10, 10, 3});
  auto filter = Placeholder(s, DT_FLOAT, {3, 3, 3, 8});
  auto dx = Conv2DBackpropInput(s, Shape(s, images), filter, Placeholder(s, DT_FLOAT),
                                {1, 1, 1, 1}, "SAME");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(r.node->output_shape(0), PartialTensorShape({-1, 28, 64}));
  EXPECT_EQ(f.node->output_shape(0), PartialTensorShape({-1, 28, 64}));
  EXPECT_EQ(dx.node->output_shape(0), PartialTensorShape({-1, 10, 10, 3}));
  // Two shapes known in full that differ in size are an error, as with a constant shape.
  auto a = Placeholder(s, DT_FLOAT, {2, 3});
  Reshape(s.WithOpName("bad"), a, Shape(s, Placeholder(s, DT_FLOAT, {7})));
  EXPECT_NE(s.status().message().find("cannot reshape [2,3] to the shape [7] of another tensor"),
            std::string::npos)
      << s.status().ToString();
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
