// The matmul and nn op definitions: builder functions add the right nodes,
// and the shape functions give TensorFlow's output shapes.
#include <gtest/gtest.h>

#include "graph/node_properties.h"
#include "graph/op_registry.h"
#include "graph/ops/core_ops.h"
#include "graph/ops/matmul_ops.h"
#include "graph/ops/nn_ops.h"

namespace tact {
namespace {

// Runs op's shape function on `inputs` with `attrs` (defaults filled in).
StatusOr<std::vector<PartialTensorShape>> InferShapes(const std::string& op,
                                                      std::vector<PartialTensorShape> inputs,
                                                      AttrMap attrs,
                                                      std::vector<const Tensor*> values = {}) {
  TACT_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  AddDefaultAttrs(*def, &attrs);
  InferenceContext c(&attrs, std::move(inputs), std::move(values),
                     static_cast<int>(def->outputs.size()));
  TACT_RETURN_IF_ERROR(def->shape_fn(&c));
  return c.outputs();
}

TEST(NnOpsTest, BuildersAddNodes) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({-1, 28, 28, 1}));
  auto f = Placeholder(s, DT_FLOAT);
  auto conv = Conv2D(s, x, f, {1, 1, 1, 1}, "SAME");
  auto pool = MaxPool(s, BiasAdd(s, conv, Placeholder(s, DT_FLOAT)), {1, 2, 2, 1}, {1, 2, 2, 1},
                      "SAME");
  auto xent = SparseSoftmaxCrossEntropyWithLogits(s, Placeholder(s, DT_DOUBLE),
                                                  Placeholder(s, DT_INT32));
  auto mm = MatMul(s, Placeholder(s, DT_DOUBLE), Placeholder(s, DT_DOUBLE), true, false);
  auto bmm = BatchMatMul(s, Placeholder(s, DT_FLOAT), Placeholder(s, DT_FLOAT));
  ASSERT_TRUE(s.status().ok()) << s.status().ToString();
  EXPECT_EQ(conv.node->op(), "Conv2D");
  EXPECT_EQ(conv.type(), DT_FLOAT);
  EXPECT_EQ(pool.node->op(), "MaxPool");
  ASSERT_EQ(xent.size(), 2u);
  EXPECT_EQ(xent[1].type(), DT_DOUBLE);
  EXPECT_EQ(xent[0].node->attrs().at("Tlabels").type(), DT_INT32);
  EXPECT_EQ(mm.node->op(), "MatMul");
  EXPECT_TRUE(mm.node->attrs().at("transpose_a").b());
  EXPECT_EQ(bmm.node->op(), "BatchMatMul");
}

TEST(NnOpsTest, BadPaddingIsRejectedAtGraphConstruction) {
  Scope s = Scope::NewRootScope();
  Conv2D(s, Placeholder(s, DT_FLOAT), Placeholder(s, DT_FLOAT), {1, 1, 1, 1}, "FULL");
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("not in the allowed set"), std::string::npos)
      << s.status().message();
}

TEST(NnOpsTest, ConvAndPoolShapes) {
  AttrMap conv = {{"strides", AttrValue::IntList({1, 2, 2, 1})},
                  {"padding", AttrValue::String("SAME")}, {"T", AttrValue::Type(DT_FLOAT)}};
  auto same = InferShapes("Conv2D", {PartialTensorShape({-1, 28, 27, 3}),
                                     PartialTensorShape({5, 5, 3, 32})}, conv);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)[0], PartialTensorShape({-1, 14, 14, 32}));
  conv["padding"] = AttrValue::String("VALID");
  auto valid = InferShapes("Conv2D", {PartialTensorShape({2, 28, 27, 3}),
                                      PartialTensorShape({5, 5, 3, 32})}, conv);
  ASSERT_TRUE(valid.ok()) << valid.status().ToString();
  EXPECT_EQ((*valid)[0], PartialTensorShape({2, 12, 12, 32}));
  auto depth = InferShapes("Conv2D", {PartialTensorShape({2, 28, 27, 3}),
                                      PartialTensorShape({5, 5, 4, 32})}, conv);
  EXPECT_EQ(depth.status().code(), Code::kInvalidArgument);
  auto unknown = InferShapes("Conv2D", {PartialTensorShape(), PartialTensorShape()}, conv);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ((*unknown)[0], PartialTensorShape({-1, -1, -1, -1}));

  AttrMap pool = {{"ksize", AttrValue::IntList({1, 3, 3, 1})},
                  {"strides", AttrValue::IntList({1, 2, 2, 1})},
                  {"padding", AttrValue::String("SAME")}, {"T", AttrValue::Type(DT_FLOAT)}};
  auto p = InferShapes("MaxPool", {PartialTensorShape({8, 7, -1, 16})}, pool);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)[0], PartialTensorShape({8, 4, -1, 16}));

  Tensor sizes = Tensor::FromVector<int32_t>({8, 7, 6, 16});
  auto g = InferShapes("AvgPoolGrad", {PartialTensorShape({4}), PartialTensorShape()}, pool,
                       {&sizes});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)[0], PartialTensorShape({8, 7, 6, 16}));
}

TEST(NnOpsTest, MatMulAndLossShapes) {
  AttrMap mm = {{"transpose_b", AttrValue::Bool(true)}, {"T", AttrValue::Type(DT_FLOAT)}};
  auto m = InferShapes("MatMul", {PartialTensorShape({-1, 784}), PartialTensorShape({10, 784})}, mm);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)[0], PartialTensorShape({-1, 10}));
  auto bad = InferShapes("MatMul", {PartialTensorShape({2, 3}), PartialTensorShape({4, 5})}, mm);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  auto b = InferShapes("BatchMatMul", {PartialTensorShape({5, 1, 2, 3}), PartialTensorShape({4, 3, 6})},
                       {{"T", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)[0], PartialTensorShape({5, 4, 2, 6}));
  auto x = InferShapes("SparseSoftmaxCrossEntropyWithLogits",
                       {PartialTensorShape({-1, 10}), PartialTensorShape({32})},
                       {{"T", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ((*x)[0], PartialTensorShape({32}));
  EXPECT_EQ((*x)[1], PartialTensorShape({32, 10}));
  auto bg = InferShapes("BiasAddGrad", {PartialTensorShape({-1, 5, 5, 7})},
                        {{"T", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(bg.ok());
  EXPECT_EQ((*bg)[0], PartialTensorShape({7}));
}

}  // namespace
}  // namespace tact
